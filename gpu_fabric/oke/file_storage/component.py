"""`FileStorage`: the training file systems OCI File Storage holds, one mount target in the
workers' subnet for them, and an export of each to the workers' range (what oci-hpc-oke's
`terraform/fss.tf` creates by default, with the network rules narrowed to the workers).

What waits for what: the file systems and the mount target's network security group wait for
nothing but the VCN; the mount target for its group; each export for its file system and the
mount target. Nothing in the cluster waits for them but the pods that mount them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_oci as oci

from ..network.component import TCP, UDP
from .args import OkeFileSystem
from .volumes import export_path, volume_handle

NFS_PORTS: tuple[tuple[str, int, int], ...] = (
    (TCP, 111, 111),
    (TCP, 2048, 2050),
    (UDP, 111, 111),
    (UDP, 2048, 2048),
)
"""What an NFS client reaches on a mount target: rpcbind and the NFS, mount and lock services
(OCI docs, "Configuring VCN Security Rules for File Storage"). The group's rules are stateful,
so the replies need no rule of their own."""

CLIENT_PORTS = (1, 1023)
"""The source ports the rules admit: NFS clients limited to reserved ports, as the same page
recommends and the exports require (`require_privileged_source_port`)."""


@dataclass
class FileStorageArgs:
    name: str
    """The cluster's name: the display names start with it."""
    compartment_id: str
    """Where the file systems, the mount target and its group are."""
    availability_domain: str
    """The GPU nodes' availability domain: a file system and its mount target are in one."""
    vcn_id: pulumi.Input[str]
    """The cluster's VCN: the mount target's group is in it."""
    workers_subnet_id: pulumi.Input[str]
    """Where the mount target's address is: the nodes, which mount the exports, reach it
    directly."""
    workers_nsg_id: pulumi.Input[str]
    """The nodes' network security group: the only peer the mount target admits."""
    workers_cidr: str
    """The range the exports admit: the workers' subnet (an existing VCN's range where the stack
    knows no narrower one)."""
    file_systems: list[OkeFileSystem]
    """The file systems to create, each exported under its name."""


class FileStorage(pulumi.ComponentResource):
    handles: pulumi.Output[dict[str, str]]
    """Each file system's name -> its CSI volume handle (`<OCID>:<mount target IP>:<path>`)."""

    def __init__(
        self, name: str, args: FileStorageArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:oke:FileStorage", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        group = oci.core.NetworkSecurityGroup(
            f"{name}-nsg",
            compartment_id=args.compartment_id,
            vcn_id=args.vcn_id,
            display_name=f"{args.name}-file-storage",
            opts=child,
        )
        for protocol, low, high in NFS_PORTS:
            ports: oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgsDict = {
                "destination_port_range": {"min": low, "max": high},
                "source_port_range": {"min": CLIENT_PORTS[0], "max": CLIENT_PORTS[1]},
            }
            kind = "tcp" if protocol == TCP else "udp"
            oci.core.NetworkSecurityGroupSecurityRule(
                f"{name}-nsg-ingress-workers-{kind}-{low}-{high}",
                network_security_group_id=group.id,
                direction="INGRESS",
                protocol=protocol,
                source=args.workers_nsg_id,
                source_type="NETWORK_SECURITY_GROUP",
                description="the GPU nodes mount the training file systems (NFS)",
                stateless=False,
                tcp_options=ports if protocol == TCP else None,
                udp_options=ports if protocol == UDP else None,
                opts=child,
            )
        mount_target = oci.filestorage.MountTarget(
            f"{name}-mount-target",
            subnet_id=args.workers_subnet_id,
            nsg_ids=[group.id],
            display_name=f"{args.name}-training",
            compartment_id=args.compartment_id,
            availability_domain=args.availability_domain,
            opts=child,
        )
        handles = {}
        for file_system in args.file_systems:
            made = oci.filestorage.FileSystem(
                f"{name}-{file_system['name']}",
                display_name=f"{args.name}-{file_system['name']}",
                # It holds the data set or the checkpoints: a `pulumi destroy` or a replacement
                # stops at it.
                compartment_id=args.compartment_id,
                availability_domain=args.availability_domain,
                opts=pulumi.ResourceOptions(parent=self, protect=True),
            )
            path = export_path(file_system["name"])
            oci.filestorage.Export(
                f"{name}-{file_system['name']}-export",
                export_set_id=mount_target.export_set_id,
                file_system_id=made.id,
                path=path,
                export_options=[
                    {
                        "source": args.workers_cidr,
                        "access": "READ_WRITE",
                        # Jobs' containers often run as root: they write as root, not as the
                        # anonymous user root squashing maps them to.
                        "identity_squash": "NONE",
                        "require_privileged_source_port": True,
                    }
                ],
                # One path per export set: a replacement is deleted first.
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
            )
            handles[file_system["name"]] = volume_handle(made.id, mount_target.ip_address, path)
        self.handles = pulumi.Output.all(**handles)
        self.register_outputs({"handles": self.handles})
