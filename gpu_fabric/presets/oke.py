"""The OKE preset: an oke-dranet cluster's two layers from what only their owner knows.

    from gpu_fabric.oke import oke_dranet

    dranet = oke_dranet("train", tenancy_ocid="ocid1.tenancy...", compartment_id="ocid1...",
                        region="us-ashburn-1", availability_domain="Uocm:US-ASHBURN-AD-1",
                        kubernetes_version="v1.36.1", gpu_image_id="ocid1.image...",
                        system_image_id="ocid1.image...",
                        claims=[{"name": "aligned-8gpu-16rails", "gpus": 8, "rails": 16}])
    cloud = OkeCloud("train", dranet.cloud_args)              # anywhere with OCI credentials
    fabric = OkeFabric("train", dranet.fabric_args(cloud))    # from a host inside the VCN

The API endpoint is private, so the preset is checked as a split deployment's two stacks are
together (gpu_fabric/presets/preset.py, `split_preset_of`): the VCN, the GPU shape's catalog facts,
DRANET and the DRA GPU driver's pinned charts and every claim rule apply as in a stack file.
Anything else a stack file may set goes in `overrides`, in the stack file's words (`{"network":
{"vcnCidr": "10.150.0.0/16"}}`; docs/config-reference.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..oke.config import REGION_KEY, TENANCY_KEY
from .preset import Preset, split_preset_of


def oke_dranet(
    name: str,
    *,
    tenancy_ocid: str,
    compartment_id: str,
    region: str,
    availability_domain: str,
    kubernetes_version: str,
    gpu_image_id: str,
    system_image_id: str,
    node_count: int = 2,
    claims: Sequence[Mapping[str, Any]] = (),
    overrides: Mapping[str, Any] | None = None,
) -> Preset:
    """The preset of an OKE cluster named `name` with `node_count` BM.GPU.B4.8 nodes in
    `availability_domain` (from `gpu_image_id`, an image with the NVIDIA driver and DOCA-OFED),
    its system pool from `system_image_id`, DRANET and the DRA GPU driver, and `claims` (in the
    stack file's words). Raises `ConfigError` naming each refused key."""
    raw: dict[str, Any] = {
        "platform": "oke-dranet",
        TENANCY_KEY: tenancy_ocid,
        REGION_KEY: region,
        "compartmentId": compartment_id,
        "oke": {
            "name": name,
            "kubernetesVersion": kubernetes_version,
            "systemPool": {"imageId": system_image_id},
        },
        "gpuNodes": {
            "count": node_count,
            "availabilityDomain": availability_domain,
            "imageId": gpu_image_id,
        },
        "claims": [dict(claim) for claim in claims],
    }
    return split_preset_of(raw, name, overrides)
