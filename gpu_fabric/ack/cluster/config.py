"""The stack config of the ACK Pro cluster (`gpu-fabric:ack`): version, proxy, system pool."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...config_base import (
    Cidr,
    ConfigModel,
    NodeCount,
    system_node_count,
)
from ..ids import (
    AckVersion,
    InstanceType,
    IpStack,
    KeyPairName,
    Name,
)


class SystemPoolConfig(ConfigModel):
    """The ordinary ECS node pool for ACK's system components (Alibaba recommends 3 nodes)."""

    instance_types: list[InstanceType] = Field(
        default_factory=lambda: ["ecs.g7.xlarge"],
        min_length=1,
        description="ECS instance types of the system pool, first choice first; GPU families "
        "(`ecs.gn*`, `ecs.ebmgn*`, `ecs.sgn*`, `ecs.vgn*`) are refused.",
    )
    node_count: Annotated[
        NodeCount,
        system_node_count(
            "Lingjun nodes are tainted for GPU work",
            "set 3 (the default, Alibaba's recommendation)",
        ),
    ] = Field(3, description="System nodes: at least 1 (1 warns; Alibaba recommends 3 or more).")
    key_name: KeyPairName = Field(
        description="ECS key pair of the nodes (ACK needs a key pair or a password; a key it is)."
    )
    system_disk_category: str = Field(
        "cloud_essd", description="System disk category of the system nodes."
    )
    system_disk_size: int = Field(120, ge=40, le=2048, description="System disk size, GiB.")


class AckClusterConfig(ConfigModel):
    """The ACK managed Pro cluster."""

    name: Name = Field(
        description="Cluster name, 1-40 characters; also the prefix of every resource name."
    )
    kubernetes_version: AckVersion = Field(
        description="An ACK minor, e.g. 1.33, which the stack resolves at preview to ACK's newest "
        "patch of it (`alicloud.cs.get_kubernetes_version`), or a full version in ACK's "
        "`-aliyun.N` form to pin, e.g. 1.33.3-aliyun.1; 1.31 or newer. A minor is the version at "
        "creation: upgrades are yours (ACK console or API), and the stack does not roll them "
        "back; a pinned version stays managed."
    )
    service_cidr: Cidr = Field("192.168.0.0/16", description="Service range, outside the VPC.")
    ip_stack: IpStack = Field("ipv4", description="Only ipv4: Lingjun pools refuse dual stack.")
    proxy_mode: Literal["ipvs", "iptables"] = Field("ipvs", description="kube-proxy mode.")
    public_endpoint: bool = Field(
        False,
        description="An internet SLB for the API server; refused: its SLB has no allow-list this "
        "stack can set.",
    )
    deletion_protection: bool = Field(
        True, description="ACK deletion protection and Pulumi `protect` on the cluster."
    )
    system_pool: SystemPoolConfig
