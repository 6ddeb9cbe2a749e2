"""The Lingjun node pool and the `ack-rdma-device-plugin` add-on (Alibaba's Lingjun RDMA guide).

The pool binds a Lingjun (Lite) cluster's node group that exists already: its capacity is arranged
with Alibaba and subscription Lingjun nodes cannot be destroyed by IaC (pulumi-alicloud
`eflo.Node`), so gpu-fabric never creates or deletes Lingjun machines. `type` and
`eflo_node_group` are create-only.

Labels and taint: ACK writes its own labels (`alibabacloud.com/lingjun-worker: "true"`,
`k8s.aliyun.com/exclusive-mode-eni-type: eniOnly`, ...) and the taint
`node-role.alibabacloud.com/lingjun:NoSchedule` into the pool, and the provider reads the pool's
labels and taints back verbatim. A program that declared none would show a diff on every refresh
and send an empty list on its next update, stripping them (UNVERIFIED, read from the provider's
code). The pool therefore declares no labels or taints and ignores changes to both: Pulumi keeps
what ACK wrote, diffs nothing, strips nothing. Pods find the nodes through the documented defaults
instead (`rdma/pods.with_lingjun_rdma`).

The add-on's "RDMA for non-hostNetwork pods" switch has no published JSON key. Its key comes from
the catalog (or `gpu-fabric:rdma.nonHostNetworkKey`). Preview checks it against the schema
recorded in the catalog (`checks.py`); deploy time checks it against the add-on version's own
config schema (`cs.get_kubernetes_addon_metadata`): a key the schema lacks fails `pulumi up` with
the keys it has, instead of being merged server-side and ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
import pulumi_alicloud.cs as cs

from ..cluster.component import RUNTIME

LINGJUN_POOL_TYPE = "lingjun"
ACK_OWNED_POOL_FIELDS = ["labels", "taints"]
"""What ACK writes into a Lingjun pool itself: Pulumi ignores changes to them."""


def _schema_property(schema: dict, path: list[str]) -> dict | None:
    node: dict | None = schema
    for part in path:
        node = ((node or {}).get("properties") or {}).get(part)
        if node is None:
            return None
    return node


def _boolean_keys(schema: dict, prefix: str = "") -> list[str]:
    keys = []
    for name, prop in (schema.get("properties") or {}).items():
        if prop.get("type") == "boolean":
            keys.append(f"{prefix}{name}")
        keys += _boolean_keys(prop, f"{prefix}{name}.")
    return keys


def addon_config(config_schema: str | None, key: str, non_host_network: bool) -> str:
    """The add-on's `config` JSON for the switch at `key` (dotted for nested properties).

    With the switch on, a key the add-on's schema lacks is a ValueError naming the keys it has.
    With it off and the key unknown, the config is empty: off is the add-on's default.
    """
    # An empty schema means the add-on version takes no configuration (provider docs).
    schema = json.loads(config_schema) if config_schema and config_schema.strip() else {}
    path = key.split(".")
    if _schema_property(schema, path) is None:
        if not non_host_network:
            return json.dumps({})
        raise ValueError(
            f"the add-on's config schema has no {key!r} (the non-hostNetwork RDMA switch's key "
            "is not published); set gpu-fabric:rdma.nonHostNetworkKey to the switch's key among "
            f"the schema's boolean keys: {', '.join(_boolean_keys(schema)) or '(none)'}"
        )
    config: dict = {path[-1]: non_host_network}
    for part in reversed(path[:-1]):
        config = {part: config}
    return json.dumps(config)


@dataclass(frozen=True)
class LingjunPoolArgs:
    cluster_id: pulumi.Input[str]
    """The ACK cluster the pool belongs to."""
    pool_name: str
    """The Lingjun node pool's name."""
    lingjun_cluster_id: str
    """The Lingjun (Lite) cluster the pool binds."""
    lingjun_group_id: str
    """The Lingjun node group the pool binds."""
    addon_name: str
    """The RDMA device plugin add-on's name."""
    addon_version: str
    """The RDMA device plugin add-on's version."""
    non_host_network: bool
    """RDMA for non-hostNetwork pods (the add-on's switch)."""
    non_host_network_key: str
    """The switch's key in the add-on config."""
    pool_after: list[pulumi.Resource]
    """What the Lingjun pool waits for besides the add-on (the system pool)."""


class LingjunPool(pulumi.ComponentResource):
    """The RDMA Device Plugin add-on, then the Lingjun node pool bound to the Lingjun group."""

    addon: cs.KubernetesAddon
    pool: cs.NodePool

    def __init__(
        self, name: str, args: LingjunPoolArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:ack:LingjunPool", name, None, opts)
        schema = cs.get_kubernetes_addon_metadata_output(
            cluster_id=args.cluster_id, name=args.addon_name, version=args.addon_version
        ).config_schema
        self.addon = cs.KubernetesAddon(
            f"{name}-rdma",
            cluster_id=args.cluster_id,
            # Always explicit: the provider auto-names the add-on `<resource name>-<random>`
            # otherwise (pulumi-alicloud SetAutonaming), which is no add-on at all.
            name=args.addon_name,
            version=args.addon_version,
            config=schema.apply(
                lambda text: addon_config(text, args.non_host_network_key, args.non_host_network)
            ),
            # Right after the cluster, beside the ECS pool: the add-on is one DaemonSet
            # (ack-rdma-dp-ds) with Lingjun node affinity (add-on 1.1.1 release notes), whose
            # nodes join only after it, so its install waits for no node, as the add-ons ACK
            # installs with a cluster that has no node yet do not.
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.pool = cs.NodePool(
            f"{name}-pool",
            cluster_id=args.cluster_id,
            node_pool_name=args.pool_name,
            type=LINGJUN_POOL_TYPE,
            eflo_node_group={
                "cluster_id": args.lingjun_cluster_id,
                "group_id": args.lingjun_group_id,
            },
            runtime_name=RUNTIME,
            opts=pulumi.ResourceOptions(
                parent=self,
                # The add-on is a documented prerequisite of a Lingjun pool (Alibaba, "Create and
                # manage a Lingjun node pool"), and so are ECS nodes for ACK's system components
                # (the same page: 3 or more), which Lingjun nodes, tainted, do not take.
                depends_on=[self.addon, *args.pool_after],
                ignore_changes=ACK_OWNED_POOL_FIELDS,
                # The provider reads `eflo_node_group` only when it creates the pool and ignores a
                # change later (terraform-provider-alicloud, resource_alicloud_cs_kubernetes_node_
                # pool.go: not ForceNew, in the create request only): another Lingjun cluster or
                # group would leave the pool bound to the old one while `pulumi up` reports
                # success. So a change replaces the pool, the old one first: a group binds one pool.
                replace_on_changes=["efloNodeGroup"],
                delete_before_replace=True,
            ),
        )
        self.register_outputs({})
