"""GCP's provider answers in the offline plan (`offline/engine.py`): plausible outputs, so the
program computes what it would on a real deploy."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

from .config import GCP_PROJECT_KEY

UNREAD_PLACEHOLDERS = {GCP_PROJECT_KEY: "esc-unread-project"}
"""Offline stand-ins for provider keys a stack file leaves to an ESC environment it imports."""


class CloudMocks:
    """Outputs of the `gcp:*` resources and results of its functions."""

    def __init__(self, config: Mapping[str, Any]):
        self.project = config.get(GCP_PROJECT_KEY, "mock-project")

    def new_resource(
        self, typ: str, resource_name: str, inputs: dict, state: dict
    ) -> tuple[str, dict] | None:
        """(id, state) of a new resource, None for the engine's default (`<name>-id`)."""
        name = state["name"]
        if typ == "gcp:container/cluster:Cluster":
            location = inputs.get("location", "")
            state.update(
                id=f"projects/{self.project}/locations/{location}/clusters/{name}",
                endpoint="203.0.113.10",
                masterAuth={
                    "clusterCaCertificate": base64.b64encode(b"mock-ca").decode(),
                },
            )
            return state["id"], state
        if typ == "gcp:container/nodePool:NodePool":
            # GKE names a pool's group after the cluster and the pool, with a suffix of its own.
            zone = (inputs.get("nodeLocations") or ["zone"])[0]
            suffix = hashlib.sha256(resource_name.encode()).hexdigest()[:8]
            group = f"gke-{name}-{suffix}-grp"
            state["managedInstanceGroupUrls"] = [
                f"https://www.googleapis.com/compute/v1/projects/{self.project}/zones/{zone}/"
                f"instanceGroupManagers/{group}"
            ]
        if typ == "gcp:serviceaccount/account:Account":
            email = f"{inputs['accountId']}@{self.project}.iam.gserviceaccount.com"
            state.update(email=email, member=f"serviceAccount:{email}")
        if typ == "gcp:compute/globalAddress:GlobalAddress":
            # Google allocates a Private Service Access range from 10.0.0.0/8 by default.
            state.setdefault("address", MOCK_PSA_ADDRESS)
        if typ == "gcp:filestore/instance:Instance":
            # Filestore gives the instance an address of its reserved range on its network.
            state["networks"] = [{**state["networks"][0], "ipAddresses": [MOCK_FILESTORE_IP]}]
        if typ == "gcp:lustre/instance:Instance":
            state["mountPoint"] = f"{MOCK_LUSTRE_IP}@tcp:/{inputs['filesystem']}"
        if typ.startswith("gcp:compute/"):
            kind = typ.split(":")[-1].lower()
            scope = f"regions/{inputs['region']}" if "region" in inputs else "global"
            self_link = f"https://www.googleapis.com/compute/v1/projects/{self.project}/{scope}/{kind}s/{name}"
            state.update(selfLink=self_link)
            return f"projects/{self.project}/{scope}/{kind}s/{name}", state
        return None

    def call(self, token: str, args: Mapping[str, Any]) -> dict | None:
        """The result of a function (`gcp:...:get...`), None for the engine's default (`{}`)."""
        if token == "gcp:container/getEngineVersions:getEngineVersions":
            return engine_versions(args["versionPrefix"])
        if token == "gcp:compute/getReservation:getReservation":
            return reservation(args["name"], args["zone"])
        if token == "gcp:organizations/getProject:getProject":
            return {"projectId": args.get("projectId", self.project), "number": MOCK_PROJECT_NUMBER}
        return None


MOCK_PSA_ADDRESS = "10.90.0.0"
"""The Private Service Access range the mocks' GCP allocates."""
MOCK_LUSTRE_IP = "10.90.0.2"
"""The address the mocks' GCP gives a Managed Lustre instance (in that range)."""
MOCK_FILESTORE_IP = "10.91.0.2"
"""The address the mocks' GCP gives a Filestore instance."""
MOCK_PROJECT_NUMBER = "123456789012"
"""The project number the mocks' GCP gives every project."""

MOCK_PATCH = "100-gke.1000000"
"""The patch the mocks' GKE offers for every minor (no real GKE patch is that high)."""


def engine_versions(prefix: str, patch: str = MOCK_PATCH) -> dict:
    """GKE's versions of a prefix (`1.33.`), as `gcp.container.get_engine_versions` answers."""
    newest = f"{prefix}{patch}"
    channels = ("RAPID", "REGULAR", "STABLE", "EXTENDED")
    return {
        "versionPrefix": prefix,
        "latestMasterVersion": newest,
        "latestNodeVersion": newest,
        "validMasterVersions": [newest],
        "releaseChannelLatestVersion": dict.fromkeys(channels, newest),
    }


def reservation(name: str, zone: str, count: int = 1000, in_use: int = 0, **properties) -> dict:
    """A specific reservation in `zone` (the wire shape of `gcp.compute.get_reservation`): the
    mocks' project holds one of every name a stack consumes, large enough for its pool, its
    instance properties (`machineType`, `guestAccelerators`) only those given, as a reservation
    made from an instance template has none."""
    specific: dict[str, Any] = {"count": count, "inUseCount": in_use}
    if properties:
        specific["instanceProperties"] = [properties]
    return {
        "name": name,
        "zone": zone,
        "specificReservationRequired": True,
        "specificReservations": [specific],
    }
