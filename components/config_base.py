"""What every platform's stack config is made of: the base model, the platforms, shared field types.

Per-field checks live on the types here (a CIDR parses, a count is not negative); each platform's
models (`components/<platform>/config.py`) use them, and its cross-field rules live beside them.
"""

from __future__ import annotations

import ipaddress
from enum import Enum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

NAMESPACE = "gpu-fabric"


class Platform(str, Enum):
    """What a stack builds (`gpu-fabric:platform`)."""

    GKE_A3_HIGH = "gke-a3-high"
    GKE_A4X = "gke-a4x"
    GKE_A3_MEGA = "gke-a3-mega"
    GKE_A3_ULTRA = "gke-a3-ultra"
    GKE_A4 = "gke-a4"
    OKE_DRANET = "oke-dranet"


class ConfigModel(BaseModel):
    """A section of stack config: camelCase keys, unknown keys refused, immutable once parsed."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


def _cidr(value: str) -> str:
    try:
        network = ipaddress.ip_network(value, strict=True)
    except ValueError as err:
        raise ValueError(
            f"not a CIDR range ({err}); write it as ADDRESS/PREFIX, e.g. 192.168.1.0/24"
        ) from None
    if network.version != 4:
        raise ValueError(
            "only IPv4 ranges are supported here; use an IPv4 CIDR such as 10.0.0.0/20"
        )
    return str(network)


def _source_range(value: str) -> str:
    value = _cidr(value)
    if ipaddress.ip_network(value).prefixlen == 0:
        raise ValueError(
            "a range open to the whole internet is refused; list the ranges that may connect "
            "(for a GPU VPC the default is the VPC's own subnet)"
        )
    return value


def _not_negative(value: int) -> int:
    if value < 0:
        raise ValueError("a node count cannot be negative; use 0 to keep the pool empty")
    return value


Cidr = Annotated[str, AfterValidator(_cidr)]
"""An IPv4 range without host bits."""
SourceRange = Annotated[str, AfterValidator(_source_range)]
"""An IPv4 range that may reach something: never /0."""
NodeCount = Annotated[int, AfterValidator(_not_negative)]
