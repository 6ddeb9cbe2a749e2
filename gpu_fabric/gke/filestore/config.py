"""GKE's `filestore` kind of training volume: a Filestore instance mounted through GKE's Filestore
CSI driver (GKE docs, "Access Filestore instances with the Filestore CSI driver")."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from ...config_model import ConfigModel
from ...storage.config import server_address

# A share: letters, digits and underscores, a letter first, at most 16 (Filestore API,
# `FileShareConfig.name`).
_SHARE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]{0,15}$")


def _share(value: str) -> str:
    if not _SHARE.match(value):
        raise ValueError(
            "a Filestore share is 1-16 letters, digits and underscores, a letter first"
        )
    return value


INSTANCE_IP = server_address(
    "give the instance's IP (gcloud filestore instances describe: networks[0].ipAddresses)"
)


class CreatedFilestoreConfig(ConfigModel):
    """A Filestore instance the stack creates in the first GPU pool's zone (or region)."""

    tier: Literal["BASIC_HDD", "BASIC_SSD", "HIGH_SCALE_SSD", "ZONAL", "REGIONAL", "ENTERPRISE"] = (
        Field(description="Its service tier, which sets its throughput, minimum size and price.")
    )
    capacity_gb: Annotated[int, Field(ge=1024)] = Field(
        description="Its share's capacity in GB (1024 or more; a tier's own minimum and steps "
        "apply at `pulumi up`)."
    )


class FilestoreVolumeConfig(ConfigModel):
    """A Filestore instance: created, or existing (instance, location, ip, share)."""

    create: CreatedFilestoreConfig | None = Field(
        None,
        description="Create it (deletion protection on, and Pulumi `protect`) on the cluster's "
        "VPC, directly peered.",
    )
    instance: str | None = Field(None, description="An existing instance's name.")
    location: str | None = Field(None, description="Its zone or region.")
    ip: Annotated[str, INSTANCE_IP] | None = Field(None, description="Its IP.")
    share: Annotated[str, AfterValidator(_share)] | None = Field(
        None, description="Its file share's name."
    )

    @model_validator(mode="after")
    def _created_or_existing(self) -> FilestoreVolumeConfig:
        existing = ("instance", "location", "ip", "share")
        given = [k for k in existing if getattr(self, k) is not None]
        if self.create is not None and given:
            raise ValueError(f"create makes the instance; leave out {', '.join(given)}")
        if self.create is None and len(given) != len(existing):
            missing = ", ".join(k for k in existing if k not in given)
            raise ValueError(
                f"an existing instance needs instance, location, ip and share (missing: "
                f"{missing}); or give create"
            )
        return self
