"""How `make plan` and `make graph` show GKE's resources: the GCP resources and the GKE
networking objects."""

from __future__ import annotations

KEY_SETTINGS: dict[str, list[str]] = {
    "gcp:compute/network:Network": ["name", "mtu", "autoCreateSubnetworks", "networkProfile"],
    "gcp:compute/subnetwork:Subnetwork": [
        "name",
        "region",
        "ipCidrRange",
        "secondaryIpRanges[].rangeName",
        "secondaryIpRanges[].ipCidrRange",
    ],
    "gcp:compute/firewall:Firewall": ["name", "direction", "sourceRanges", "allows[].protocol"],
    "gcp:compute/router:Router": ["name", "region"],
    "gcp:compute/routerNat:RouterNat": ["name", "natIpAllocateOption"],
    "gcp:compute/resourcePolicy:ResourcePolicy": [
        "name",
        "groupPlacementPolicy.collocation",
        "workloadPolicy.type",
        "workloadPolicy.acceleratorTopology",
    ],
    "gcp:serviceaccount/account:Account": ["accountId"],
    "gcp:projects/iAMMember:IAMMember": ["role"],
    "gcp:container/cluster:Cluster": [
        "name",
        "location",
        "minMasterVersion",
        "releaseChannel.channel",
        "datapathProvider",
        "enableMultiNetworking",
        "networkingMode",
        "ipAllocationPolicy.clusterSecondaryRangeName",
        "ipAllocationPolicy.servicesSecondaryRangeName",
        "removeDefaultNodePool",
        "privateClusterConfig.enablePrivateNodes",
        "workloadIdentityConfig.workloadPool",
        "deletionProtection",
        "defaultMaxPodsPerNode",
    ],
    "gcp:container/nodePool:NodePool": [
        "name",
        "nodeLocations",
        "nodeCount",
        "version",
        "management.autoUpgrade",
        "nodeConfig.machineType",
        "nodeConfig.imageType",
        "nodeConfig.guestAccelerators[].type",
        "nodeConfig.guestAccelerators[].count",
        "nodeConfig.guestAccelerators[].gpuDriverInstallationConfig.gpuDriverVersion",
        "nodeConfig.gvnic.enabled",
        "nodeConfig.ephemeralStorageLocalSsdConfig.localSsdCount",
        "nodeConfig.bootDisk.diskType",
        "nodeConfig.labels",
        "nodeConfig.reservationAffinity.values",
        "networkConfig.additionalNodeNetworkConfigs[].network",
        "networkConfig.additionalNodeNetworkConfigs[].subnetwork",
        "placementPolicy.type",
    ],
    "kubernetes:networking.gke.io/v1:Network": [
        "metadata.name",
        "spec.type",
        "spec.parametersRef.name",
    ],
    "kubernetes:networking.gke.io/v1:GKENetworkParamSet": [
        "metadata.name",
        "spec.vpc",
        "spec.vpcSubnet",
        "spec.deviceMode",
    ],
}
"""What the plan's tree shows of each resource type: input paths (dotted, `[]` maps over a list)."""

NOUNS = {
    "gcp:serviceaccount/account:Account": "service account",
}
"""Resource types whose readable name is not their class name in words."""

ACRONYMS = {"gke"}
"""Words of its type names written in capitals (GKE)."""
