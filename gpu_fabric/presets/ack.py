"""The ACK preset: an ack-lingjun cluster's two layers from what only their owner knows.

    from gpu_fabric.ack import ExistingVswitch, ack_lingjun

    zone = "cn-wulanchabu-c"
    lingjun = ack_lingjun("train", region="cn-wulanchabu", kubernetes_version="1.33.3-aliyun.1",
                          vpc_id="vpc-...", vpc_cidr="10.0.0.0/16",
                          node_vswitches=[ExistingVswitch("vsw-...", zone, "10.0.0.0/20")],
                          pod_vswitches=[ExistingVswitch("vsw-...", zone, "10.0.64.0/18")],
                          key_name="admin", lingjun_cluster_id="i1...", lingjun_group_id="i1...",
                          zone_id=zone, node_count=2)
    cloud = AckCloud("train", lingjun.cloud_args)             # anywhere with Alibaba credentials
    fabric = AckFabric("train", lingjun.fabric_args(cloud))   # from a host inside the VPC

The API endpoint is intranet-only, so the preset is checked as a split deployment's two stacks are
together (gpu_fabric/presets/preset.py, `split_preset_of`). The network is the Lingjun cluster's
VPC: ACK requires both clusters in one VPC. Anything else a stack file may set goes in `overrides`,
in the stack file's words (`{"rdma": {"nonHostNetwork": True}}`; docs/config-reference.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..ack.config import REGION_KEY
from .preset import Preset, split_preset_of


class ExistingVswitch(NamedTuple):
    """A vSwitch of the Lingjun cluster's VPC."""

    id: str
    zone_id: str
    cidr: str


def ack_lingjun(
    name: str,
    *,
    region: str,
    kubernetes_version: str,
    vpc_id: str,
    vpc_cidr: str,
    node_vswitches: Sequence[ExistingVswitch],
    pod_vswitches: Sequence[ExistingVswitch],
    key_name: str,
    lingjun_cluster_id: str,
    lingjun_group_id: str,
    zone_id: str,
    node_count: int,
    overrides: Mapping[str, Any] | None = None,
) -> Preset:
    """The preset of an ACK Pro cluster named `name` in the Lingjun cluster's VPC, its system
    pool's ECS key pair `key_name`, a Lingjun node pool bound to `lingjun_group_id` (whose
    `node_count` nodes you add to it) and the RDMA device plugin. Raises `ConfigError` naming
    each refused key."""
    raw: dict[str, Any] = {
        "platform": "ack-lingjun",
        REGION_KEY: region,
        "network": {
            "existing": {
                "vpcId": vpc_id,
                "vpcCidr": vpc_cidr,
                "nodeVswitches": [_written(v) for v in node_vswitches],
                "podVswitches": [_written(v) for v in pod_vswitches],
            }
        },
        "ack": {
            "name": name,
            "kubernetesVersion": kubernetes_version,
            "systemPool": {"keyName": key_name},
        },
        "lingjun": {
            "clusterId": lingjun_cluster_id,
            "groupId": lingjun_group_id,
            "zoneId": zone_id,
            "nodeCount": node_count,
        },
    }
    return split_preset_of(raw, name, overrides)


def _written(vswitch: ExistingVswitch) -> dict[str, str]:
    return {"id": vswitch.id, "zoneId": vswitch.zone_id, "cidr": vswitch.cidr}
