"""How `make plan` and `make graph` show OKE's resources: the OCI resources."""

from __future__ import annotations

KEY_SETTINGS: dict[str, list[str]] = {
    "oci:Core/vcn:Vcn": ["displayName", "cidrBlocks"],
    "oci:Core/subnet:Subnet": ["displayName", "cidrBlock", "prohibitPublicIpOnVnic"],
    "oci:Core/natGateway:NatGateway": ["displayName"],
    "oci:Core/serviceGateway:ServiceGateway": ["displayName"],
    "oci:Core/routeTable:RouteTable": ["displayName", "routeRules[].destination"],
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": ["displayName"],
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": [
        "direction",
        "protocol",
        "source",
        "destination",
        "tcpOptions.destinationPortRange",
        "udpOptions.destinationPortRange",
    ],
    "oci:ContainerEngine/cluster:Cluster": [
        "name",
        "type",
        "kubernetesVersion",
        "clusterPodNetworkOptions[].cniType",
        "endpointConfig.isPublicIpEnabled",
        "options.kubernetesNetworkConfig",
    ],
    "oci:ContainerEngine/nodePool:NodePool": [
        "name",
        "nodeShape",
        "nodeShapeConfig",
        "nodeConfigDetails.size",
    ],
    "oci:Core/computeCluster:ComputeCluster": ["displayName", "availabilityDomain"],
    "oci:Core/instance:Instance": [
        "displayName",
        "shape",
        "availabilityDomain",
        "agentConfig.pluginsConfigs[].name",
        "metadata.oke-initial-node-labels",
    ],
    "oci:Identity/dynamicGroup:DynamicGroup": ["name", "matchingRule"],
    "oci:Identity/policy:Policy": ["name", "statements"],
}
"""What the plan's tree shows of each resource type: input paths (dotted, `[]` maps over a list)."""

NOUNS = {
    "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule": "NSG rule",
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": "NSG",
}
"""Resource types whose readable name is not their class name in words."""

ACRONYMS = {"oke", "nsg", "vcn"}
"""Words of its type names written in capitals (OKE, NSG, VCN)."""
