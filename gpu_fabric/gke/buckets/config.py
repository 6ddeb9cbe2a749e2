"""GKE's kind of training volume, `gcs`: a Cloud Storage bucket mounted through the Cloud Storage
FUSE CSI driver (GKE docs, "Access Cloud Storage buckets with the Cloud Storage FUSE CSI
driver")."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field

from ...config_model import ConfigModel

# Cloud Storage bucket names (Cloud Storage docs, "Bucket naming"): 3-63 characters of lower-case
# letters, digits, '-', '_' and '.', starting and ending with a letter or digit; a name with dots
# up to 222, each dot-separated part at most 63; not starting with "goog", not containing "google".
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$")


def _bucket_name(value: str) -> str:
    parts = value.split(".")
    if (
        not _BUCKET.match(value)
        or len(value) < 3
        or len(value) > (222 if len(parts) > 1 else 63)
        or any(not part or len(part) > 63 for part in parts)
    ):
        raise ValueError(
            "not a Cloud Storage bucket name: 3-63 lower-case letters, digits, '-', '_' and '.', "
            "starting and ending with a letter or digit (e.g. my-project-training-data)"
        )
    if value.startswith("goog") or "google" in value:
        raise ValueError(
            "Cloud Storage refuses bucket names that start with 'goog' or contain 'google'; "
            "choose another name"
        )
    return value


BucketName = Annotated[str, AfterValidator(_bucket_name)]


class GcsVolumeConfig(ConfigModel):
    """A Cloud Storage bucket, mounted through Cloud Storage FUSE."""

    bucket: BucketName = Field(description="The bucket's name (global: unique across GCP).")
    create: bool = Field(
        False,
        description="Create the bucket: in the stack's region, with hierarchical namespace, "
        "uniform access and public access prevented, protected against deletion (Pulumi "
        "`protect`, and no force-destroy). False: an existing bucket, which the stack only "
        "grants the training namespaces access to.",
    )
    mount_options: list[Annotated[str, AfterValidator(str.strip)]] | None = Field(
        None,
        description="Cloud Storage FUSE mount options (unset: the ones GKE's performance guide "
        "gives for the use, docs/storage.md).",
    )
