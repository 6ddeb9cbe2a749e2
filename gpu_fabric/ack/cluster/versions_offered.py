"""An ACK minor (`ack.kubernetesVersion: "1.33"`) resolved to the newest patch ACK offers now, at
preview, as GKE's and OKE's minors are (gke/engine_versions.py, oke/cluster/versions_offered.py).

ACK offers a Kubernetes version for a while (`aliyun cs GET /api/v1/metadata/versions`, the
`alicloud.cs.get_kubernetes_version` function); a cluster that names one no longer offered fails
to be created. A minor always resolves to an offered version; a cluster made at it keeps what it
runs (the version is its creation version: a newer patch does not upgrade it), and where ACK no
longer offers the minor at all the preview warns instead of failing.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_alicloud import cs

from ...layers import result_field
from ...versions import ACK_VERSION, ack_version_or_minor, is_minor, newest_of_minor

CLUSTER_TYPE = "ManagedKubernetes"
"""An ACK managed (Pro) cluster's type in the versions metadata."""


def moves(version: str) -> bool:
    """Whether `version` is a minor: what it resolves to moves with ACK's releases."""
    return is_minor(ack_version_or_minor(version))


def resolved_version(version: str, parent: pulumi.Resource) -> pulumi.Input[str]:
    """`version` as ACK takes it: a full version as written, a minor as ACK's newest version of
    it now (the managed cluster type's versions metadata)."""
    minor = ack_version_or_minor(version)
    if not is_minor(minor):
        return version
    offered = cs.get_kubernetes_version_output(
        cluster_type=CLUSTER_TYPE, opts=pulumi.InvokeOutputOptions(parent=parent)
    )

    def newest(result: Any) -> str:
        versions = [result_field(m, "version") for m in result_field(result, "metadatas") or []]
        latest = newest_of_minor([v for v in versions if v], minor, ACK_VERSION)
        if latest is None:
            pulumi.log.warn(
                f"ack.kubernetesVersion {version}: ACK offers no {version} version any more: a "
                "running cluster keeps what it runs, but a new cluster at it fails; move "
                "ack.kubernetesVersion to an offered minor",
                parent,
            )
            return version
        return latest

    return offered.apply(newest)
