"""GKE's `lustre` kind of training volume: a Managed Lustre instance mounted through GKE's Managed
Lustre CSI driver (GKE docs, "About Managed Lustre on GKE"; Managed Lustre docs, "Lustre CSI
driver reference")."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from ...config_model import ConfigModel
from ...storage.config import LustreName, server_address

# An instance id: lower-case letters, digits and hyphens, a letter first, at most 63.
_INSTANCE = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


def _instance(value: str) -> str:
    if not _INSTANCE.match(value):
        raise ValueError(
            "an instance id is lower-case letters, digits and hyphens, a letter first, at most "
            "63 characters (gcloud lustre instances list)"
        )
    return value


INSTANCE_IP = server_address(
    "the instance's mount point is IP@tcp:/filesystem (gcloud lustre instances describe); "
    "give the IP"
)


CAPACITY_FLOOR_GIB = 9000
"""The smallest instance (Managed Lustre docs; pulumi-gcp `lustre.Instance.capacity_gib`:
9000-7632000 GiB, in steps that depend on the throughput tier)."""


class CreatedLustreConfig(ConfigModel):
    """A Managed Lustre instance the stack creates in the first GPU pool's zone."""

    capacity_gib: Annotated[int, Field(ge=CAPACITY_FLOOR_GIB, le=7_632_000)] = Field(
        description="Its capacity in GiB (9000 or more, in the steps of its throughput tier)."
    )
    throughput_per_tib: Literal[125, 250, 500, 1000] = Field(
        description="MB/s per TiB of capacity (`perUnitStorageThroughput`), which sets its "
        "throughput and price: no default, as the price is yours to choose."
    )


class LustreVolumeConfig(ConfigModel):
    """A Managed Lustre instance: created, or existing (instance, zone, ip, filesystem)."""

    create: CreatedLustreConfig | None = Field(
        None,
        description="Create it (protected), with the primary VPC's Private Service Access and a "
        "firewall rule opening the Lustre port (TCP 988) from its range to the GKE nodes only.",
    )
    instance: Annotated[str, AfterValidator(_instance)] | None = Field(
        None, description="An existing instance's id (in the cluster's VPC)."
    )
    zone: str | None = Field(None, description="The existing instance's zone.")
    ip: Annotated[str, INSTANCE_IP] | None = Field(
        None, description="The existing instance's IP (its mount point's, before `@tcp`)."
    )
    filesystem: LustreName | None = Field(
        None, description="The existing instance's file system name."
    )

    @model_validator(mode="after")
    def _created_or_existing(self) -> LustreVolumeConfig:
        existing = {"instance": self.instance, "zone": self.zone, "ip": self.ip}
        existing["filesystem"] = self.filesystem
        given = [k for k, v in existing.items() if v is not None]
        if self.create is not None and given:
            raise ValueError(f"create makes the instance; leave out {', '.join(given)}")
        if self.create is None and len(given) != len(existing):
            missing = ", ".join(k for k in existing if k not in given)
            raise ValueError(
                f"an existing instance needs instance, zone, ip and filesystem (missing: "
                f"{missing}); or give create"
            )
        return self
