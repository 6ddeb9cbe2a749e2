"""An OKE minor (`oke.kubernetesVersion: v1.36`) resolved to the newest patch OKE offers now, at
preview, as GKE's minor is (gke/engine_versions.py).

OKE offers a Kubernetes patch for some months (`oci ce cluster-options get --cluster-option-id
all` lists them); a cluster or a node that names one no longer offered fails to be created. A
minor always resolves to an offered patch; a cluster made at it keeps running what it runs (the
version is its creation version, so a newer patch does not upgrade it), and where OKE no longer
offers the minor at all the preview warns instead of failing.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_oci as oci

from ...layers import result_field
from ...versions import OKE_VERSION, is_minor, newest_of_minor, oke_version_or_minor


def moves(version: str) -> bool:
    """Whether `version` is a minor: what it resolves to moves with OKE's releases."""
    return is_minor(oke_version_or_minor(version))


def resolved_version(
    version: str, compartment_id: pulumi.Input[str], parent: pulumi.Resource
) -> pulumi.Input[str]:
    """`version` as OKE takes it: a full version as written, a minor as OKE's newest patch of it
    now (`oci.containerengine.get_cluster_option`, the options of every cluster: `all`)."""
    minor = oke_version_or_minor(version)
    if not is_minor(minor):
        return version
    options = oci.containerengine.get_cluster_option_output(
        cluster_option_id="all",
        compartment_id=compartment_id,
        opts=pulumi.InvokeOutputOptions(parent=parent),
    )

    def newest(result: Any) -> str:
        offered = result_field(result, "kubernetes_versions") or []
        latest = newest_of_minor(list(offered), minor, OKE_VERSION)
        if latest is None:
            pulumi.log.warn(
                f"oke.kubernetesVersion {version}: OKE offers no {version} version any more "
                f"(it offers {', '.join(offered) or 'none'}): a running cluster keeps what it "
                "runs, but a new cluster or node at it fails; move oke.kubernetesVersion to an "
                "offered minor",
                parent,
            )
            return version
        return latest

    return options.apply(newest)
