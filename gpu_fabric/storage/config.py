"""`gpu-fabric:storage`: the training volumes the runtimes mount, the same keys on every platform.

A volume is one kind of storage, the same on every platform (`claim`: a PersistentVolumeClaim of
that name, made by the user, in every training namespace), or one the platform offers (GKE's
`gcs`, OKE's `fss`, ACK's `cpfs`: each platform's volume model adds its kind). For a platform's
kind the stack makes the claim, `training-data` or `training-checkpoints`, in every training
namespace (a claim is namespaced, and a pod mounts claims of its own namespace), bound to a
PersistentVolume of its own. Off by default: a stack without the key mounts nothing.

The key is the cloud stack's in a split deployment: what a volume is made of (a bucket, a file
system, the cluster's CSI driver) is the cloud layer's; the fabric stack reads it from the cloud
stack's `cloudConfig` and mounts it.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, ClassVar, Generic, Literal, TypeVar

from pydantic import AfterValidator, Field, model_validator

from ..config_model import ConfigModel
from ..workloads.config import DNS_SUBDOMAIN

Use = Literal["data", "checkpoints"]
"""What a volume is for: read a data set (`/data`) or write checkpoints (`/checkpoints`)."""

USES: tuple[Use, ...] = ("data", "checkpoints")


def _claim_name(value: str) -> str:
    # A PersistentVolumeClaim's name is a DNS subdomain (Kubernetes docs, "Object Names and IDs").
    if len(value) > 253 or not DNS_SUBDOMAIN.match(value):
        raise ValueError(
            "not a PersistentVolumeClaim name: lower-case letters, digits, '-' and '.', "
            "starting and ending with a letter or digit, at most 253 characters (e.g. "
            "training-data)"
        )
    return value


ClaimName = Annotated[str, AfterValidator(_claim_name)]


# A Lustre file system name: 1-8 letters and digits, a letter first (Managed Lustre docs, "Lustre
# CSI driver reference", `filesystem`; pulumi-oci `FileStorageLustreFileSystem.file_system_name`).
_LUSTRE_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9]{0,7}$")


def _lustre_name(value: str) -> str:
    if not _LUSTRE_NAME.match(value):
        raise ValueError("a Lustre file system name is 1-8 letters and digits, a letter first")
    return value


LustreName = Annotated[str, AfterValidator(_lustre_name)]


def server_address(where: str) -> AfterValidator:
    """A file server's IPv4 address, refused otherwise saying `where` a user reads it."""

    def check(value: str) -> str:
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            raise ValueError(f"not an IPv4 address: {where}, e.g. 10.0.4.12") from None
        return value

    return AfterValidator(check)


STORAGE_DESCRIPTION = (
    "The training volumes every runtime mounts: /data and /checkpoints (in a split deployment, "
    "the cloud stack's key: it makes what the volumes are)."
)
"""The description of every platform's `storage` field."""


def made_claim(use: Use) -> str:
    """The claim the stack makes in every training namespace for a volume of a platform's kind."""
    return f"training-{use}"


class TrainingVolumeConfig(ConfigModel):
    """A volume every runtime pod mounts: exactly one kind of storage."""

    KINDS: ClassVar[tuple[str, ...]] = ("claim",)
    """The kinds of storage this platform's volumes take (each platform's model adds its own)."""

    claim: ClaimName | None = Field(
        None,
        description="A PersistentVolumeClaim of yours, in every training namespace "
        "(`queues.namespace` and each team's), for any storage the cluster reaches. Its access "
        "mode must let every node of a job mount it at once (ReadWriteMany, or ReadOnlyMany for "
        "data).",
    )

    @model_validator(mode="after")
    def _one_kind(self) -> TrainingVolumeConfig:
        given = [kind for kind in self.KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            kinds = ", ".join(self.KINDS)
            found = f"has {' and '.join(given)}" if given else "names none"
            raise ValueError(f"a volume is exactly one of {kinds}; this one {found}")
        return self

    @property
    def kind(self) -> str:
        """The kind of storage (`claim`, `gcs`, `fss`, `cpfs`)."""
        (kind,) = [kind for kind in self.KINDS if getattr(self, kind) is not None]
        return kind

    def claim_name(self, use: Use) -> str:
        """The claim the runtime's pods mount: the user's, or the one the stack makes."""
        return self.claim if self.claim is not None else made_claim(use)

    def pod_annotations(self) -> dict[str, str]:
        """Annotations the runtime's pod needs to mount it (none for a claim)."""
        return {}


Volume = TypeVar("Volume", bound=TrainingVolumeConfig)
"""A platform's volume model (its kinds)."""


class StorageConfig(ConfigModel, Generic[Volume]):
    """The training volumes: `/data` to read a data set from, `/checkpoints` to write to."""

    data: Volume | None = Field(
        None,
        description="Mounted read-only at /data in every runtime pod's training container "
        "(unset: nothing there).",
    )
    checkpoints: Volume | None = Field(
        None,
        description="Mounted read-write at /checkpoints in every runtime pod's training "
        "container (unset: nothing there).",
    )

    def volumes(self) -> list[tuple[Use, Volume]]:
        """The volumes the stack names, by use."""
        return [(use, volume) for use in USES if (volume := getattr(self, use)) is not None]
