"""How `make plan` and `make graph` show ACK's resources: the Alibaba Cloud resources."""

from __future__ import annotations

KEY_SETTINGS: dict[str, list[str]] = {
    "alicloud:cs/managedKubernetes:ManagedKubernetes": [
        "name",
        "clusterSpec",
        "version",
        "ipStack",
        "proxyMode",
        "serviceCidr",
        "addons[].name",
        "slbInternetEnabled",
        "deletionProtection",
    ],
    "alicloud:cs/nodePool:NodePool": [
        "nodePoolName",
        "type",
        "efloNodeGroup",
        "instanceTypes",
        "desiredSize",
        "runtimeName",
    ],
    "alicloud:cs/kubernetesAddon:KubernetesAddon": ["name", "version", "config"],
}
"""What the plan's tree shows of each resource type: input paths (dotted, `[]` maps over a list)."""

NOUNS = {
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "managed Kubernetes cluster",
}
"""Resource types whose readable name is not their class name in words."""

ACRONYMS = {"ack", "eip", "slb"}
"""Words of its type names written in capitals (ACK, EIP, SLB)."""
