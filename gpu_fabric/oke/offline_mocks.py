"""OCI's provider answers in the offline plan (`offline/engine.py`): plausible outputs, so the
program computes what it would on a real deploy."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import yaml

from .config import REGION_KEY, TENANCY_KEY

MOCK_OKE_CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nmock-oke-ca\n").decode()


def mock_oke_kubeconfig(cluster_id: str, endpoint: str) -> str:
    """The shape of the kubeconfig OKE returns: an exec plugin through the OCI CLI."""
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "cluster",
                    "cluster": {
                        "server": f"https://{endpoint}",
                        "certificate-authority-data": MOCK_OKE_CA,
                    },
                }
            ],
            "users": [
                {
                    "name": "user",
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "oci",
                            "args": ["ce", "cluster", "generate-token", "--cluster-id", cluster_id],
                        }
                    },
                }
            ],
            "contexts": [{"name": "context", "context": {"cluster": "cluster", "user": "user"}}],
            "current-context": "context",
        }
    )


UNREAD_PLACEHOLDERS = {
    TENANCY_KEY: "ocid1.tenancy.oc1..aaaaaaaaescunreadtenancy",
    REGION_KEY: "us-ashburn-1",
}
"""Offline stand-ins for provider keys a stack file leaves to an ESC environment it imports."""


FLEX_SHAPES = {
    "VM.Standard.E5.Flex": {
        "ocpuOptions": [{"min": 1, "max": 94}],
        "memoryOptions": [
            {"minInGbs": 1, "maxInGbs": 1049, "minPerOcpuInGbs": 1, "maxPerOcpuInGbs": 64}
        ],
    },
    "VM.Standard.E4.Flex": {
        "ocpuOptions": [{"min": 1, "max": 64}],
        "memoryOptions": [
            {"minInGbs": 1, "maxInGbs": 1024, "minPerOcpuInGbs": 1, "maxPerOcpuInGbs": 64}
        ],
    },
}
"""What ListShapes answers offline for the flexible shapes a system pool takes: OCI docs,
"Compute Shapes" (Standard shapes: E5.Flex up to 94 OCPUs and 1,049 GB, E4.Flex up to 64 OCPUs
and 1,024 GB, 1-64 GB per OCPU); `pulumi preview` reads the tenancy's own."""


OKE_VERSIONS_OFFERED = ["v1.34.2", "v1.35.0", "v1.35.1", "v1.36.0", "v1.36.1"]
"""What the mocks answer OKE offers (the newest of v1.36 is the committed stacks' earlier pin)."""


class CloudMocks:
    """Outputs of the `oci:*` resources (OCIDs in the stack's region) and results of its
    functions."""

    OKE_PRIVATE_ENDPOINT = "10.140.0.2:6443"

    MOUNT_TARGET_IP = "10.140.64.200"
    LUSTRE_MGS_ADDRESS = "10.140.64.210"
    """The management service address the mocks' OCI gives a Lustre file system."""
    """The address the mocks' OCI gives a mount target (in the example stacks' workers subnet)."""

    def __init__(self, config: Mapping[str, Any]):
        self.oci_region = config.get(REGION_KEY, "us-ashburn-1")

    def new_resource(
        self, typ: str, resource_name: str, inputs: dict, state: dict
    ) -> tuple[str, dict] | None:
        """(id, state) of a new resource."""
        kind = typ.rsplit(":", 1)[-1].lower()
        state["id"] = f"ocid1.{kind}.oc1.{self.oci_region}.mock{resource_name.replace('-', '')}"
        if typ == "oci:ContainerEngine/cluster:Cluster":
            state["endpoints"] = [{"privateEndpoint": self.OKE_PRIVATE_ENDPOINT}]
        if typ == "oci:Core/vcn:Vcn":
            state["defaultSecurityListId"] = f"ocid1.securitylist.oc1.{self.oci_region}.mock"
        if typ == "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem":
            # OCI gives its management service an address of the subnet.
            state["managementServiceAddress"] = self.LUSTRE_MGS_ADDRESS
        if typ == "oci:FileStorage/mountTarget:MountTarget":
            # OCI gives it an address of its subnet, and an export set of its own.
            state.setdefault("ipAddress", self.MOUNT_TARGET_IP)
            state["exportSetId"] = f"ocid1.exportset.oc1.{self.oci_region}.mock{resource_name}"
        return state["id"], state

    def call(self, token: str, args: Mapping[str, Any]) -> dict | None:
        """The result of a function (`oci:...:get...`), None for the engine's default (`{}`)."""
        if token == "oci:Core/getServices:getServices":
            label = {"us-ashburn-1": "iad"}.get(self.oci_region, self.oci_region)
            return {
                "services": [
                    {
                        "id": f"ocid1.service.oc1.{self.oci_region}.mockallservices",
                        "name": f"All {label.upper()} Services In Oracle Services Network",
                        "cidrBlock": f"all-{label}-services-in-oracle-services-network",
                    }
                ]
            }
        if token == "oci:Identity/getRegionSubscriptions:getRegionSubscriptions":
            # The mocks' tenancy is homed in the stack's region.
            return {
                "regionSubscriptions": [
                    {"regionName": self.oci_region, "isHomeRegion": True, "state": "READY"}
                ]
            }
        if token == "oci:Core/getShapes:getShapes":
            return {"shapes": [shape | {"name": name} for name, shape in FLEX_SHAPES.items()]}
        if token == "oci:ContainerEngine/getClusterOption:getClusterOption":
            # The versions `oci ce cluster-options get --cluster-option-id all` lists: the
            # newest patch of each minor the stacks name is the one they pinned before.
            return {"kubernetesVersions": OKE_VERSIONS_OFFERED}
        if token == "oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig":
            cluster_id = args["clusterId"]
            return {"content": mock_oke_kubeconfig(cluster_id, self.OKE_PRIVATE_ENDPOINT)}
        return None
