"""`LustreFileSystems`: the training volumes' File Storage with Lustre file systems in the workers'
subnet, their network security group, the workers' rule that admits them, and the policy that
lets the service use the VCN (oci-hpc-oke terraform/lustre.tf and iam.tf, narrowed: the policy to
the compartment, the rules to the workers' group).

What waits for what: the group waits for the VCN; each file system for the group and the policy
(the service places its endpoints in the subnet only once allowed). Nothing in the cluster waits
for them but the pods that mount them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_oci as oci

from ..network.component import TCP
from .args import OkeLustreFileSystem
from .driver import LUSTRE_PORT, LUSTRE_SOURCE_PORTS, volume_handle


@dataclass
class LustreFileSystemsArgs:
    name: str
    """The cluster's name: the display names start with it."""
    compartment_id: str
    """Where the file systems, the group and the policy are."""
    policy_scope: str
    """The policy's scope: `compartment id <OCID>`, or `tenancy` for the root compartment."""
    availability_domain: str
    """The GPU nodes' availability domain."""
    vcn_id: pulumi.Input[str]
    """The cluster's VCN: the group is in it."""
    workers_subnet_id: pulumi.Input[str]
    """Where the file systems' endpoints are."""
    workers_nsg_id: pulumi.Input[str]
    """The nodes' group: the only peer the file systems speak Lustre with."""
    file_systems: list[OkeLustreFileSystem]
    """The file systems to create."""
    identity_provider: pulumi.ProviderResource | None = None
    """The home region's provider for the policy (None: the stack's, in its home region)."""


def _lustre_rule(
    name: str,
    group: pulumi.Input[str],
    direction: str,
    peer: pulumi.Input[str],
    opts: pulumi.ResourceOptions,
) -> None:
    """A stateful rule of `group` for Lustre with `peer` (a group), in `direction`."""
    ingress = direction == "INGRESS"
    oci.core.NetworkSecurityGroupSecurityRule(
        name,
        network_security_group_id=group,
        direction=direction,
        protocol=TCP,
        description="Lustre between the GPU nodes and the training file systems",
        stateless=False,
        tcp_options={
            "destination_port_range": {"min": LUSTRE_PORT, "max": LUSTRE_PORT},
            "source_port_range": {"min": LUSTRE_SOURCE_PORTS[0], "max": LUSTRE_SOURCE_PORTS[1]},
        },
        source=peer if ingress else None,
        source_type="NETWORK_SECURITY_GROUP" if ingress else None,
        destination=None if ingress else peer,
        destination_type=None if ingress else "NETWORK_SECURITY_GROUP",
        opts=opts,
    )


class LustreFileSystems(pulumi.ComponentResource):
    handles: pulumi.Output[dict[str, str]]
    """Each file system's name -> its CSI volume handle (`<address>@tcp:/<name>`)."""

    def __init__(
        self, name: str, args: LustreFileSystemsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:oke:LustreFileSystems", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        policy = oci.identity.Policy(
            f"{name}-policy",
            compartment_id=args.compartment_id,
            name=f"{args.name}-lustre",
            description=f"File Storage with Lustre places {args.name}'s file systems in its VCN",
            statements=[
                f"Allow service lustrefs to use virtual-network-family in {args.policy_scope}"
            ],
            # A fixed name, unique in the compartment: a replacement is deleted first.
            opts=pulumi.ResourceOptions(
                parent=self, provider=args.identity_provider, delete_before_replace=True
            ),
        )
        group = oci.core.NetworkSecurityGroup(
            f"{name}-nsg",
            compartment_id=args.compartment_id,
            vcn_id=args.vcn_id,
            display_name=f"{args.name}-lustre",
            opts=child,
        )
        workers = args.workers_nsg_id
        _lustre_rule(f"{name}-nsg-ingress-workers", group.id, "INGRESS", workers, child)
        _lustre_rule(f"{name}-nsg-egress-workers", group.id, "EGRESS", workers, child)
        # The servers open connections to the clients too: the workers admit them from this group.
        _lustre_rule(f"{name}-workers-ingress-lustre", workers, "INGRESS", group.id, child)
        handles = {}
        for file_system in args.file_systems:
            made = oci.lustre.FileStorageLustreFileSystem(
                f"{name}-{file_system['name']}",
                availability_domain=args.availability_domain,
                compartment_id=args.compartment_id,
                display_name=f"{args.name}-{file_system['name']}",
                file_system_name=file_system["file_system_name"],
                capacity_in_gbs=file_system["capacity_gb"],
                performance_tier=f"MBPS_PER_TB_{file_system['throughput_per_tb']}",
                # Jobs' containers often run as root: they write as root, not as the anonymous
                # user root squashing maps them to.
                root_squash_configuration={"identity_squash": "NONE"},
                subnet_id=args.workers_subnet_id,
                nsg_ids=[group.id],
                # It holds the data set or the checkpoints: a `pulumi destroy` or a replacement
                # stops at it.
                opts=pulumi.ResourceOptions(parent=self, protect=True, depends_on=[policy]),
            )
            handles[file_system["name"]] = pulumi.Output.concat(
                made.management_service_address, volume_handle("", file_system["file_system_name"])
            )
        self.handles = pulumi.Output.all(**handles)
        self.register_outputs({"handles": self.handles})
