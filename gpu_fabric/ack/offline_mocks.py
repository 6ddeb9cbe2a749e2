"""Alibaba Cloud's provider answers in the offline plan (`offline/engine.py`): plausible outputs,
so the program computes what it would on a real deploy."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Mapping
from typing import Any

import yaml

from ..catalog import catalog
from .config import REGION_KEY

_ACK_TEMPORARY_CREDENTIALS = itertools.count(1)


def mock_ack_kubeconfig(cluster_id: str, temporary: bool = False) -> str:
    """The shape of the kubeconfig ACK's cluster credential returns: a client certificate.

    A temporary credential (`temporaryDurationMinutes`) is a new certificate on every call (as ACK
    issues it); the user's default one is the same on every call until renewed
    (Alibaba, DescribeClusterUserKubeconfig)."""
    serial = f"-temporary-{next(_ACK_TEMPORARY_CREDENTIALS)}" if temporary else ""
    data = base64.b64encode(f"mock-{cluster_id}{serial}".encode()).decode()
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "kubernetes",
                    "cluster": {
                        # The provider asks for the internet endpoint's kubeconfig.
                        "server": "https://47.92.0.10:6443",
                        "certificate-authority-data": data,
                    },
                }
            ],
            "users": [
                {
                    "name": "kubernetes-admin",
                    "user": {"client-certificate-data": data, "client-key-data": data},
                }
            ],
            "contexts": [
                {"name": "admin", "context": {"cluster": "kubernetes", "user": "kubernetes-admin"}}
            ],
            "current-context": "admin",
        }
    )


def mock_rdma_addon_schema(switch_key: str) -> str:
    """A config schema of the RDMA add-on's shape. Made up offline: the switch's real key is not
    published (catalog: UNVERIFIED); `customResourceName` is documented (the zh
    rdma-device-plugin page)."""
    return json.dumps(
        {
            "type": "object",
            "properties": {
                switch_key: {"type": "boolean", "default": False},
                "customResourceName": {"type": "string", "default": "rdma/hca"},
            },
        }
    )


UNREAD_PLACEHOLDERS = {REGION_KEY: "cn-wulanchabu"}
"""Offline stand-ins for provider keys a stack file leaves to an ESC environment it imports
(the region of Alibaba's Lingjun RDMA guide)."""


class CloudMocks:
    """Outputs of the `alicloud:*` resources (ids with their prefixes) and results of its
    functions."""

    _ALICLOUD_PREFIXES = {
        "alicloud:cs/managedKubernetes:ManagedKubernetes": "c",
    }

    def __init__(self, config: Mapping[str, Any]):
        pass

    def new_resource(
        self, typ: str, resource_name: str, inputs: dict, state: dict
    ) -> tuple[str, dict] | None:
        """(id, state) of a new resource."""
        mock = "mock" + resource_name.replace("-", "")
        if typ == "alicloud:cs/nodePool:NodePool":
            # `<cluster id>:<node pool id>` (provider: the pool's id joins both).
            state["id"] = f"{state['clusterId']}:np{mock}"
        elif typ == "alicloud:cs/kubernetesAddon:KubernetesAddon":
            state["id"] = f"{state['clusterId']}:{state.get('name', resource_name)}"
        else:
            state["id"] = self._ALICLOUD_PREFIXES.get(typ, "") + mock
        if typ == "alicloud:cs/managedKubernetes:ManagedKubernetes":
            state["connections"] = [{"apiServerIntranet": "https://10.0.0.10:6443"}]
        return state["id"], state

    def call(self, token: str, args: Mapping[str, Any]) -> dict | None:
        """The result of a function (`alicloud:...:get...`), None for the engine's default."""
        if token == "alicloud:cs/getClusterCredential:getClusterCredential":
            cluster_id = args["clusterId"]
            temporary = args.get("temporaryDurationMinutes") is not None
            return {"id": cluster_id, "kubeConfig": mock_ack_kubeconfig(cluster_id, temporary)}
        if token == "alicloud:cs/getKubernetesVersion:getKubernetesVersion":
            # The newest of each minor the stacks name is the one they pinned before.
            versions = ["1.31.9-aliyun.1", "1.32.7-aliyun.1", "1.33.1-aliyun.1", "1.33.3-aliyun.1"]
            return {
                "clusterType": args.get("clusterType"),
                "metadatas": [{"version": v} for v in versions],
            }
        if token == "alicloud:cs/getKubernetesAddonMetadata:getKubernetesAddonMetadata":
            key = catalog().ack.rdma_device_plugin.non_host_network_key
            return {
                **args,
                "id": args.get("name"),
                "configSchema": self.addon_schema(key),
            }
        return None

    @staticmethod
    def addon_schema(default_key: str) -> str:
        """The RDMA add-on's config schema offline (tests replace it to model other schemas)."""
        return mock_rdma_addon_schema(default_key)
