"""The stack config of the RDMA device plugin add-on (`gpu-fabric:rdma`)."""

from __future__ import annotations

from pydantic import Field

from ...config_base import (
    ConfigModel,
)
from ..ids import (
    AddonVersion,
)


class RdmaConfig(ConfigModel):
    """The `ack-rdma-device-plugin` add-on."""

    addon_version: AddonVersion | None = Field(
        None, description="`ack-rdma-device-plugin` version; default from the catalog."
    )
    non_host_network: bool = Field(
        False,
        description="RDMA for non-hostNetwork pods: only with an IPv6 computing network and "
        "add-on 1.1.0 or newer.",
    )
    non_host_network_key: str | None = Field(
        None,
        description="The switch's JSON key in the add-on config; default from the catalog "
        "(UNVERIFIED there); checked at preview against the catalog's recorded schema and at "
        "deploy time against the add-on's own.",
    )
