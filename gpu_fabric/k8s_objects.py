"""Registering Kubernetes objects given as manifests (dicts in the API's own shape)."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s


def custom_resource(
    name: str, manifest: dict, opts: pulumi.ResourceOptions
) -> k8s.apiextensions.CustomResource:
    """A custom resource with exactly the manifest's fields: everything but the envelope is spec."""
    body = {k: v for k, v in manifest.items() if k not in ("apiVersion", "kind", "metadata")}
    return k8s.apiextensions.CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest["metadata"],
        opts=opts,
        **body,
    )
