"""GCP names: the field types of the names a GKE stack writes (projects, regions, machine types,
resource names), and the names the stack derives, cut to their limits."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from pydantic import AfterValidator

_RFC1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _gce_name(max_len: int):
    def check(value: str) -> str:
        if not _RFC1035.match(value) or len(value) > max_len:
            raise ValueError(
                f"must be 1-{max_len} characters of lowercase letters, digits and hyphens, "
                "starting with a letter and not ending with a hyphen"
            )
        return value

    return check


# GCP project IDs: 6-30 characters, lowercase letters, digits and hyphens, starting with a letter
# and not ending with a hyphen (Resource Manager docs, "Creating and managing projects").
# A domain-scoped project ID (`example.com:my-project`) is a project ID too.
_GCP_PROJECT = re.compile(r"^([a-z][-a-z0-9.]*[a-z0-9]:)?[a-z][-a-z0-9]{4,28}[a-z0-9]$")


def _gcp_project(value: str) -> str:
    if not _GCP_PROJECT.match(value):
        raise ValueError(
            "not a GCP project ID: 6-30 lowercase letters, digits and hyphens, starting with a "
            "letter (the ID, not the name or number); see `gcloud projects list`"
        )
    return value


# Compute Engine regions: us-central1, europe-west4, northamerica-northeast1; zones add -a..-z.
_GCP_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")


_GCP_ZONE = re.compile(r"^([a-z]+-[a-z]+[0-9]+)-[a-z]$")


def _gcp_region(value: str) -> str:
    zone = _GCP_ZONE.match(value)
    if zone:
        raise ValueError(f"is a zone, not a region; the region of this zone is {zone[1]}")
    if not _GCP_REGION.match(value):
        raise ValueError(
            "not a Compute Engine region; write it like us-central1 (`gcloud compute regions list`)"
        )
    return value


# Compute Engine machine types: lowercase family, then hyphen-separated lowercase parts
# (e2-standard-4, a3-highgpu-8g, c3-standard-4-lssd, n2-custom-4-16384; `gcloud compute
# machine-types list`). A space, capital or underscore is a typo GKE would refuse at creation.
_MACHINE_TYPE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")


def _machine_type(value: str) -> str:
    if _MACHINE_TYPE.match(value):
        return value
    fixed = re.sub(r"[\s_]+", "-", value.strip()).lower()
    hint = f"did you mean {fixed}? " if _MACHINE_TYPE.match(fixed) else ""
    raise ValueError(
        f"not a Compute Engine machine type; {hint}write it in lowercase, hyphen-separated, like "
        "e2-standard-4 or a3-highgpu-8g (`gcloud compute machine-types list`)"
    )


ResourceName = Annotated[str, AfterValidator(_gce_name(63))]


# GKE node pool names are at most 40 characters (GKE API, nodePools.create).
NodePoolName = Annotated[str, AfterValidator(_gce_name(40))]


ClusterName = Annotated[str, AfterValidator(_gce_name(40))]


# The prefix must leave room for the longest derived name, e.g. `<prefix>-gvnic-internal`.
NamePrefix = Annotated[str, AfterValidator(_gce_name(63 - len("-gvnic-internal")))]


GcpProjectId = Annotated[str, AfterValidator(_gcp_project)]


GcpRegion = Annotated[str, AfterValidator(_gcp_region)]


MachineType = Annotated[str, AfterValidator(_machine_type)]


NAME_HASH_LEN = 6
"""Hex digits of the hash a cut name ends with."""


def fit_name(stem: str, limit: int, suffix: str = "") -> str:
    """`stem + suffix` if it fits in `limit` characters; else the stem cut, `-`, the first 6 hex
    digits of the sha256 of the whole name, and the suffix: two names that differ only past the
    cut stay apart (plain truncation gave `<cluster>-...-block-0001` and `...-block-0002` one
    63-character placement policy name). A name that fits is never changed."""
    full = f"{stem}{suffix}"
    if len(full) <= limit:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:NAME_HASH_LEN]
    cut = stem[: limit - len(suffix) - NAME_HASH_LEN - 1].rstrip("-")
    return f"{cut}-{digest}{suffix}"


# Compute Engine resource names: at most 63 characters (RFC 1035).
GCE_NAME_LIMIT = 63


# Service account IDs: 6-30 characters (IAM, "Creating service accounts").
ACCOUNT_ID_LIMIT = 30


def node_account_id(cluster_name: str) -> str:
    """`<cluster>-nodes`, cut with a hash (`fit_name`) to the 30 characters of an account ID."""
    return fit_name(cluster_name, ACCOUNT_ID_LIMIT, "-nodes")


def placement_policy_name(cluster_name: str, pool_name: str) -> str:
    """The compact placement policy of a pool: `<cluster>-<pool>-compact`, cut with a hash."""
    return fit_name(f"{cluster_name}-{pool_name}", GCE_NAME_LIMIT, "-compact")
