"""The rules of ACK's cloud layer over its args (`AckCloudArgs`): the stack config runs them on the
args it makes (checks.py, naming stack keys through `cloud_args.STACK_KEYS`), a hosted `AckCloud`
on the args it is given (inputs.py, naming property paths), so both refuse alike.

A rule of what the args do not carry (the VPC's ranges and zones, the Lingjun computing network,
the stack's layers) stays in checks.py, on the stack config alone."""

from __future__ import annotations

from ..catalog import catalog
from ..layer_inputs import ArgsProblem
from ..versions import ADDON_VERSION, MINOR_VERSION, ack_version_or_minor
from .cloud_args import AckCloudArgs


def cloud_problems(args: AckCloudArgs) -> list[ArgsProblem]:
    """Every problem of the cloud layer's args that the args themselves show."""
    problems = [
        ArgsProblem(
            ("existing_vpc", part),
            [],
            "needs at least one vSwitch (its id, zone and range) in the Lingjun node group's zone: "
            "Terway gives nodes and pods their addresses there; add one",
        )
        for part in ("node_vswitch_ids", "pod_vswitch_ids")
        if args.get("existing_vpc", {}).get(part) == []
    ]
    floor = catalog().ack.min_kubernetes
    version = args["kubernetes_version"]
    if ack_version_or_minor(version).minor_parts < MINOR_VERSION.parse(floor).minor_parts:
        problems.append(
            ArgsProblem(
                ("kubernetes_version",),
                version,
                f"Lingjun node pools need ACK managed Pro {floor} or newer; pick {floor}.x or "
                "newer (versions only go up: ACK does not downgrade)",
            )
        )
    families = catalog().gpu_families["ack"]
    for i, instance_type in enumerate(args["system_pool"]["instance_types"]):
        refusal = families.system_pool_refusal(
            instance_type, "instance type", "CPU type such as ecs.g7.xlarge"
        )
        if refusal:
            problems.append(
                ArgsProblem(("system_pool", "instance_types", i), instance_type, refusal)
            )
    lingjun = args["lingjun"]
    if lingjun["group_id"] == lingjun["cluster_id"]:
        # Both ids have the same `i`+digits shape (pulumi-alicloud `NodePoolEfloNodeGroupArgs`),
        # so a copy-paste slip parses; the pool would bind no group. A group is one of the
        # cluster's node groups, never the cluster.
        problems.append(
            ArgsProblem(
                ("lingjun", "group_id"),
                lingjun["group_id"],
                "is the Lingjun cluster's id (gpu-fabric:lingjun.clusterId), not one of its node "
                "groups; copy the node group's id from the Lingjun console (Node Groups) or "
                "`aliyun eflo-controller ListNodeGroups`",
            )
        )
    if args["non_host_network"]:
        problems += _non_host_network_problems(args)
    return problems


def _non_host_network_problems(args: AckCloudArgs) -> list[ArgsProblem]:
    """The add-on's switch for RDMA off the host network: a boolean key of its config schema, and
    an add-on version that has it."""
    plugin = catalog().ack.rdma_device_plugin
    problems = []
    # The switch's key, checked at preview against the add-on's config schema as recorded in the
    # catalog (ack.rdma_device_plugin.config_schema, with its source and date),
    # not only at deploy time against the live schema (nodes.addon_config).
    key, recorded = args["non_host_network_key"], plugin.config_schema
    known = recorded.keys.get(key)
    if known is None or known.type != "boolean":
        booleans = sorted(k for k, v in recorded.keys.items() if v.type == "boolean")
        what = "is not a key" if known is None else f"is a {known.type} key, not a boolean,"
        problems.append(
            ArgsProblem(
                ("non_host_network_key",),
                key,
                f"{what} of {plugin.name}'s config schema as recorded in the catalog "
                f"(ack.rdma_device_plugin.config_schema, versions {recorded.versions}, recorded "
                f"{recorded.recorded}); its boolean keys: {', '.join(booleans) or '(none)'}. Use "
                "one of them, or, if the add-on's live schema (cs.get_kubernetes_addon_metadata) "
                "has this key, record it in the catalog with its source and date",
            )
        )
    version = args["rdma_addon_version"]
    if ADDON_VERSION.parse(version) < ADDON_VERSION.parse(plugin.non_host_network_min_version):
        problems.append(
            ArgsProblem(
                ("rdma_addon_version",),
                version,
                f"RDMA for non-hostNetwork pods needs {plugin.name} "
                f"{plugin.non_host_network_min_version} or newer; pick "
                f"{plugin.non_host_network_min_version}+ (the catalog's is {plugin.version}), or "
                "remove gpu-fabric:rdma.nonHostNetwork",
            )
        )
    return problems
