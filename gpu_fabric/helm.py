"""Helm releases of charts pulled from their OCI registries at a pinned version (`ChartPin`)."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from .catalog import ChartPin


def helm_release(
    name: str,
    release_name: str,
    chart: ChartPin,
    values: pulumi.Input[dict],
    opts: pulumi.ResourceOptions,
    **extra,
) -> k8s.helm.v3.Release:
    """A Helm release of `chart` from its OCI registry, at its version, into its namespace;
    `extra`: more `Release` arguments (`create_namespace`)."""
    return k8s.helm.v3.Release(
        name,
        name=release_name,
        chart=chart.chart,
        version=chart.version,
        namespace=chart.namespace,
        values=values,
        opts=opts,
        **extra,
    )
