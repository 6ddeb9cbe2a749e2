"""OCI identifiers and names a stack writes: OCIDs of a kind, shapes, DNS labels."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from ..catalog import catalog, closest_known
from ..versions import OkeVersionOrMinorText

# ocid1.<resource type>.<realm>.[region][.future use].<unique id>
# (OCI docs, "Resource Identifiers").
_OCID = re.compile(r"^ocid1\.([a-z0-9]+)\.(oc[0-9]+)\.([a-z0-9-]*)(\.[a-z0-9-]*)?\.[a-z0-9]+$")


_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def ocid_kind(value: str) -> str | None:
    """The resource type of an OCID (`compartment`, `image`, ...), or None if it is not one."""
    match = _OCID.match(value)
    return match.group(1) if match else None


def ocid_place(value: str) -> tuple[str, str] | None:
    """The realm and region parts of an OCID (`("oc1", "iad")`; the region may be empty), or None
    if it is not one."""
    match = _OCID.match(value)
    return (match.group(2), match.group(3)) if match else None


def _ocid(*kinds: str):
    def check(value: str) -> str:
        kind = ocid_kind(value)
        if kind is None:
            raise ValueError(
                "not an OCID; copy it from the console or the OCI CLI "
                f"(ocid1.{kinds[0]}.oc1..., e.g. `oci iam compartment list`)"
            )
        if kind not in kinds:
            raise ValueError(
                f"an OCID of a {kind}, but this key takes the OCID of a {' or '.join(kinds)}; "
                f"use an ocid1.{kinds[0]}... value"
            )
        return value

    return check


def _dns_label(max_len: int, pattern: re.Pattern = _DNS_LABEL, starts: str = "a letter or digit"):
    def check(value: str) -> str:
        if not pattern.match(value) or len(value) > max_len:
            raise ValueError(
                f"must be 1-{max_len} characters of lowercase letters, digits and hyphens, "
                f"starting with {starts} and ending with a letter or digit"
            )
        return value

    return check


# Shape names: `VM.` or `BM.`, then dot-separated parts of letters, digits and hyphens (OCI docs,
# "Compute Shapes": VM.Standard.E5.Flex, BM.Standard.E5.192, BM.GPU.B4.8, VM.GPU3.1,
# BM.GPU.A100-v2.8, BM.GPU.L40S-NC.4).
_SHAPE = re.compile(r"^(VM|BM)\.[A-Za-z0-9]+(-[A-Za-z0-9]+)*(\.[A-Za-z0-9]+(-[A-Za-z0-9]+)*)*$")


def _shape(value: str) -> str:
    if _SHAPE.match(value):
        return value
    known = [*catalog().oci_shapes, *catalog().oke.cpu_shapes.names]
    guess = closest_known(value, known)
    fix = f"did you mean {guess!r}?" if guess else "e.g. VM.Standard.E5.Flex or BM.GPU.B4.8"
    raise ValueError(
        "not an OCI shape name: VM. or BM. and dot-separated letters, digits and hyphens, case "
        f'as OCI writes it (OCI docs, "Compute Shapes"; `oci compute shape list`); {fix}'
    )


CompartmentId = Annotated[str, AfterValidator(_ocid("compartment", "tenancy"))]


TenancyId = Annotated[str, AfterValidator(_ocid("tenancy"))]


ImageId = Annotated[str, AfterValidator(_ocid("image"))]


VcnId = Annotated[str, AfterValidator(_ocid("vcn"))]


SubnetId = Annotated[str, AfterValidator(_ocid("subnet"))]
CapacityReservationId = Annotated[str, AfterValidator(_ocid("capacityreservation"))]
FileSystemId = Annotated[str, AfterValidator(_ocid("filesystem"))]


KubernetesVersion = OkeVersionOrMinorText


Shape = Annotated[str, AfterValidator(_shape)]


# The cluster name also makes the VCN's DNS label, which must start with a letter.
Name = Annotated[str, AfterValidator(_dns_label(40, _NAME, "a letter"))]


ClaimName = Annotated[str, AfterValidator(_dns_label(63))]
