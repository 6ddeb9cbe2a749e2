"""`gpu-fabric:queues`: the training queue every platform's fabric layer sets up (Kueue, JobSet)."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from ..catalog import catalog
from ..config_model import ConfigModel
from ..durations import Timeout
from ..images import ImageRef, parse_image
from ..versions import CHART_VERSION, ChartVersionText

HOSTNAME_LEVEL = "kubernetes.io/hostname"
"""The node's own label: Kueue takes it only as a Topology's lowest level."""
MAX_TOPOLOGY_LEVELS = 16
"""Kueue v1beta2 Topology `spec.levels`: 1 to 16 (kueue.x-k8s.io_topologies.yaml)."""

# A Kubernetes label key: an optional DNS subdomain prefix and `/`, then a name of at most 63
# characters (Kubernetes docs, "Labels and Selectors", syntax and character set).
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# A namespace or object name that is a DNS label (RFC 1123), as Namespaces and LocalQueues are.
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _label_key(value: str) -> str:
    prefix, slash, name = value.rpartition("/")
    if not _LABEL_NAME.match(name) or (
        slash and not (len(prefix) <= 253 and DNS_SUBDOMAIN.match(prefix))
    ):
        raise ValueError(
            "not a node label key; write [DNS-subdomain/]name, e.g. "
            "cloud.google.com/gce-topology-block (Kubernetes docs, Labels and Selectors)"
        )
    return value


def _dns_label(value: str) -> str:
    if not _DNS_LABEL.match(value):
        raise ValueError(
            "not a DNS label: lower-case letters, digits and '-', starting and ending with a "
            "letter or digit, at most 63 characters (e.g. training)"
        )
    return value


def topology_problem(levels: list[str]) -> str | None:
    """Why `levels` cannot be a Kueue Topology's levels, or None (the CRD's own rules; a repeated
    level is refused as any repeated list item is, `stack_config/written.py`)."""
    if not 1 <= len(levels) <= MAX_TOPOLOGY_LEVELS:
        return f"a Topology has 1 to {MAX_TOPOLOGY_LEVELS} levels; give the widest first"
    if HOSTNAME_LEVEL in levels[:-1]:
        return f"{HOSTNAME_LEVEL} may only be the last (lowest) level; move it to the end"
    return None


def _topology_levels(levels: list[str]) -> list[str]:
    problem = topology_problem(levels)
    if problem:
        raise ValueError(problem)
    return levels


def default_topology_level(levels: list[str]) -> str:
    """The level a runtime asks for by default: the Topology's second (GKE's sub-block, the
    level cluster-toolkit's A4X NCCL JobSet requires), or the only one."""
    return levels[1] if len(levels) > 2 else levels[0]


KUBERNETES_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""The namespaces every cluster starts with (Kubernetes docs, "Namespaces": initial namespaces)."""


def _own_namespace(value: str) -> str:
    """The training namespace is created by the stack: not one the cluster, GKE, or another
    part of the stack (a chart, a driver, the fabric layer) creates, which two owners would
    fight over (and a `pulumi destroy` of the queue would delete)."""
    value = _dns_label(value)
    taken = {*KUBERNETES_NAMESPACES, *catalog().stack_namespaces()}
    if value in taken or value.startswith("kube-") or catalog().gke_namespaces.owns(value):
        raise ValueError(
            "is a namespace the cluster, GKE or another part of the stack creates (kube-* is "
            "reserved); the stack creates the training namespace itself, so name a new one, "
            "e.g. training"
        )
    return value


def _kueue_version(value: str) -> str:
    floor = catalog().workloads.kueue.min_version
    if floor and CHART_VERSION.parse(value) < CHART_VERSION.parse(floor):
        raise ValueError(
            f"Kueue before {floor} ignores the queue's quota strategy (its QuotaCheckStrategy gate "
            f"is off); use {floor} or newer (the catalog pins {catalog().workloads.kueue.version})"
        )
    return value


def _repository(value: str) -> str:
    try:
        image = parse_image(value)
    except ValueError:
        # parse_image's own fix asks for a tag, which a repository key then refuses.
        raise ValueError(
            "not an image repository; write REGISTRY/PATH without a tag, e.g. "
            "registry.example.com/mirror/kueue"
        ) from None
    if image.tag or image.digest:
        raise ValueError(
            "give the repository only (REGISTRY/PATH, e.g. registry.example.com/mirror/kueue): the "
            "tag is the pinned chart's own"
        )
    return value


ImageRepository = Annotated[str, AfterValidator(_repository)]
LabelKey = Annotated[str, AfterValidator(_label_key)]
DnsLabel = Annotated[str, AfterValidator(_dns_label)]
TopologyLevels = Annotated[list[LabelKey], AfterValidator(_topology_levels)]


class TrainerOwner(str, Enum):
    """Who runs Kubeflow Trainer, which turns TrainJobs into JobSets on the fabric's runtime."""

    STACK = "stack"
    """The stack installs it (Helm, the catalog's `workloads.trainer`)."""
    EXTERNAL = "external"
    """Something outside the stack does (e.g. an NVIDIA AICR bundle): only the runtime is made."""


PodSecurityLevel = Literal["privileged", "baseline", "restricted"]
"""Pod Security Standards' levels (Kubernetes docs, "Pod Security Standards")."""


TrainingNamespace = Annotated[str, AfterValidator(_own_namespace)]


class TeamConfig(ConfigModel):
    """A team of the training queue: a training namespace of its own."""

    namespace: TrainingNamespace = Field(
        description="The team's training namespace, with its LocalQueue and the runtime's "
        "objects (A4X: its own ComputeDomain); created by the stack.",
    )
    weight: int = Field(
        1,
        ge=1,
        le=100,
        description="The team's share under fair sharing (its ClusterQueue's "
        "`fairSharing.weight`): when teams want more GPUs than there are, a team of weight 2 "
        "gets twice what a team of weight 1 gets; GPUs no team uses go to whoever asks.",
    )


class WaitForPodsReadyConfig(ConfigModel):
    """How long an admitted job's pods may take to be ready before Kueue evicts and requeues it
    (Kueue's `waitForPodsReady`, on by default since 0.19 with 30 minutes: set here on purpose)."""

    timeout: Timeout = Field(
        "45m",
        description="Time from admission until every pod is ready. Default 45m: on an autoscaled "
        "or Spot pool the nodes come after admission, and a GPU node boots, installs its driver, "
        "runs the fabric's installers and pulls the training image (`pulumi up` waits up to 30m "
        "for the same, gpu-fabric:nodeWaitTimeout), with room for a large image.",
    )
    backoff_limit_count: int | None = Field(
        None,
        ge=0,
        description="Requeues after which Kueue deactivates the job (unset: no limit); the "
        "requeues back off from 60s, doubling, up to an hour (Kueue's defaults).",
    )


class QueuesConfig(ConfigModel):
    """The training queue: Kueue and JobSet, a Topology, a ResourceFlavor per GPU pool, a
    ClusterQueue with the pools' GPUs as quota, and a LocalQueue in the training namespace."""

    enabled: bool = Field(
        True,
        description="Install Kueue and JobSet and set up the training queue; `false`: none of it "
        "(another owner runs Kueue).",
    )
    namespace: TrainingNamespace = Field(
        "training",
        description="The namespace users' jobs run in, with the LocalQueue; created by the stack.",
    )
    teams: Annotated[list[TeamConfig], Field(min_length=1)] | None = Field(
        None,
        description="One training namespace per team (or per set of jobs that must not share an "
        "NVLink domain): each gets its LocalQueue, its ClusterQueue and the runtime's objects "
        "(A4X: a ComputeDomain of its own); with two or more, the ClusterQueues share the GPUs "
        "in one Cohort by fair sharing (`weight`), a team below its share reclaiming GPUs "
        "another borrowed. The first takes `namespace`'s place (its objects keep their names). "
        "Default: one, `namespace`.",
    )
    wait_for_pods_ready: WaitForPodsReadyConfig = Field(default_factory=WaitForPodsReadyConfig)
    local_queue: DnsLabel = Field(
        "default",
        description="The LocalQueue's name. Kueue gives a job that names no queue the "
        "namespace's LocalQueue `default`; another name must be in each job's "
        "`kueue.x-k8s.io/queue-name` label.",
    )
    topology_levels: TopologyLevels | None = Field(
        None,
        description="Node labels of the Topology's levels, widest first and "
        "`kubernetes.io/hostname` last; default: the platform's (catalog `topology_levels`).",
    )
    runtime: bool = Field(
        True,
        description="The fabric's pre-wired Kubeflow Trainer ClusterTrainingRuntime (and Trainer "
        "itself, see `trainer`): a TrainJob that names it gets the GPUs, NICs and NCCL settings.",
    )
    runtime_image: ImageRef | None = Field(
        None,
        description="Image of the runtime's training container, for a TrainJob that gives "
        "none; default: the catalog's (`images.training_runtime`).",
    )
    topology_level: LabelKey | None = Field(
        None,
        description="The Topology level the runtime asks Kueue to keep a job's pods in; one "
        "of the Topology's levels. Default: its second level (GKE: the sub-block), or its "
        "only one.",
    )
    topology_required: bool = Field(
        False,
        description="`true`: a job waits until all its pods fit in one domain of "
        "`topologyLevel`; `false`: Kueue packs them into as few domains as fit.",
    )
    trainer: TrainerOwner = Field(
        TrainerOwner.STACK,
        description="Who installs Kubeflow Trainer: `stack` (Helm, pinned) or `external` "
        "(another owner, e.g. an NVIDIA AICR bundle; only the runtime is created).",
    )
    trainer_version: ChartVersionText | None = Field(
        None,
        description="Kubeflow Trainer chart version; default: the catalog's (`workloads.trainer`).",
    )
    pod_security_level: PodSecurityLevel | None = Field(
        None,
        description="The Pod Security level the training namespace enforces; default: what the "
        "fabric's runtime needs. A stricter level than that is refused.",
    )
    kueue_version: Annotated[ChartVersionText, AfterValidator(_kueue_version)] | None = Field(
        None, description="Kueue chart version; default: the catalog's (`workloads.kueue`)."
    )
    jobset_version: ChartVersionText | None = Field(
        None, description="JobSet chart version; default: the catalog's (`workloads.jobset`)."
    )
    kueue_image_repository: ImageRepository | None = Field(
        None,
        description="Where Kueue's image is pulled from (a mirror, where registry.k8s.io is out "
        "of reach); the tag stays the chart's. Default: the chart's (registry.k8s.io).",
    )
    jobset_image_repository: ImageRepository | None = Field(
        None,
        description="Where JobSet's image is pulled from (a mirror); the tag stays the chart's. "
        "Default: the chart's (registry.k8s.io).",
    )

    @property
    def namespaces(self) -> list[str]:
        """The training namespaces, the first one `namespace`'s place."""
        return [team.namespace for team in self.teams] if self.teams else [self.namespace]
