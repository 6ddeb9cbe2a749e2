"""`gpu-fabric:storage`: the training volumes the runtimes mount, the same keys on every platform.

A volume is a PersistentVolumeClaim of that name in every training namespace (a claim is
namespaced, and a pod mounts claims of its own namespace): one the user made (`claim`), for any
storage the cluster reaches. Off by default: a stack without the key mounts nothing.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from ..config_model import ConfigModel
from ..workloads.config import DNS_SUBDOMAIN


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


class TrainingVolumeConfig(ConfigModel):
    """A volume every runtime pod mounts."""

    claim: ClaimName = Field(
        description="The PersistentVolumeClaim (yours, in every training namespace: "
        "`queues.namespace` and each team's) the runtime's pods mount. Its access mode must let "
        "every node of a job mount it at once (ReadWriteMany, or ReadOnlyMany for data).",
    )


class StorageConfig(ConfigModel):
    """The training volumes: `/data` to read a data set from, `/checkpoints` to write to."""

    data: TrainingVolumeConfig | None = Field(
        None,
        description="Mounted read-only at /data in every runtime pod's training container "
        "(unset: nothing there).",
    )
    checkpoints: TrainingVolumeConfig | None = Field(
        None,
        description="Mounted read-write at /checkpoints in every runtime pod's training "
        "container (unset: nothing there).",
    )
