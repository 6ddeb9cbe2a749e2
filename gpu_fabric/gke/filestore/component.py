"""`FilestoreInstances`: the training volumes' Filestore instances on the cluster's VPC, directly
peered (Filestore's default), with deletion protection.

What waits for what: each instance waits for the VPC only. Nothing in the cluster waits for
them but the pods that mount them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_gcp as gcp

from ...layers import result_field
from .args import GkeFilestoreInstance


@dataclass
class FilestoreInstancesArgs:
    project: str
    """The cluster's project."""
    network: pulumi.Input[str]
    """The cluster's VPC (self link or name)."""
    instances: list[GkeFilestoreInstance]
    """The instances to create."""


def _first_ip(networks: Sequence[Any]) -> str:
    """The instance's address on its one network."""
    addresses = result_field(networks[0], "ip_addresses") or result_field(
        networks[0], "ipAddresses"
    )
    return str(addresses[0])


class FilestoreInstances(pulumi.ComponentResource):
    ips: pulumi.Output[dict[str, str]]
    """Each instance's name -> its IP."""

    def __init__(
        self, name: str, args: FilestoreInstancesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:gke:FilestoreInstances", name, None, opts)
        network = pulumi.Output.from_input(args.network).apply(lambda link: link.rsplit("/", 1)[-1])
        ips = {}
        for instance in args.instances:
            made = gcp.filestore.Instance(
                f"{name}-{instance['name']}",
                name=instance["name"],
                project=args.project,
                location=instance["location"],
                tier=instance["tier"],
                file_shares={"name": instance["share"], "capacity_gb": instance["capacity_gb"]},
                networks=[
                    {"network": network, "modes": ["MODE_IPV4"], "connect_mode": "DIRECT_PEERING"}
                ],
                deletion_protection_enabled=True,
                deletion_protection_reason="it holds training data or checkpoints (gpu-fabric)",
                # It holds the data set or the checkpoints: a `pulumi destroy` or a replacement
                # stops at it.
                opts=pulumi.ResourceOptions(parent=self, protect=True),
            )
            ips[instance["name"]] = made.networks.apply(_first_ip)
        self.ips = pulumi.Output.all(**ips)
        self.register_outputs({"ips": self.ips})
