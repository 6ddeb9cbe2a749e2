"""OKE's `lustre` kind of training volume: OCI File Storage with Lustre mounted through OKE's
Lustre CSI driver (OCI docs, "Provisioning PVCs on the File Storage with Lustre Service")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ...config_model import ConfigModel
from ...storage.config import LustreName, server_address

MGS_ADDRESS = server_address(
    "give the file system's management service address (console: the file system's details; "
    "its mount command's IP before @tcp)"
)


class CreatedOciLustreConfig(ConfigModel):
    """A File Storage with Lustre file system the stack creates in the GPU nodes' domain."""

    capacity_gb: Annotated[int, Field(ge=1)] = Field(
        description="Its capacity in GB (OCI's minimum and steps apply at `pulumi up`; "
        "oci-hpc-oke's default is 31200; it grows in multiples of 5 TB)."
    )
    throughput_per_tb: Literal[125, 250, 500, 1000] = Field(
        description="MB/s per TB of capacity (its performance tier), which sets its throughput "
        "and price: no default, as the price is yours to choose."
    )


class OciLustreVolumeConfig(ConfigModel):
    """A File Storage with Lustre file system: created, or existing (ip, filesystem)."""

    create: CreatedOciLustreConfig | None = Field(
        None,
        description="Create it (protected) in the workers' subnet, with a network security group "
        "whose rules open the Lustre port to and from the workers only, and the policy the "
        "service needs in the compartment.",
    )
    ip: Annotated[str, MGS_ADDRESS] | None = Field(
        None, description="An existing file system's management service address."
    )
    filesystem: LustreName | None = Field(None, description="An existing file system's name.")

    @model_validator(mode="after")
    def _created_or_existing(self) -> OciLustreVolumeConfig:
        given = [k for k in ("ip", "filesystem") if getattr(self, k) is not None]
        if self.create is not None and given:
            raise ValueError(f"create makes the file system; leave out {', '.join(given)}")
        if self.create is None and len(given) != 2:
            raise ValueError("an existing file system needs ip and filesystem; or give create")
        return self
