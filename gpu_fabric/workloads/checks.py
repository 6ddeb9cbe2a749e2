"""What `gpu-fabric:queues` must agree with: the Topology its runtime asks for, the Pod Security
level its runtime's pods need, and the runtime keys only a runtime reads. Each platform's
cross-field rules call `queue_problems` with its Topology levels and its runtime's level."""

from __future__ import annotations

from pydantic.alias_generators import to_camel

from ..catalog import catalog
from ..problems import Problem
from ..problems import key as stack_key
from ..versions import CHART_VERSION
from .config import HOSTNAME_LEVEL, QueuesConfig, TrainerOwner, default_topology_level
from .pod_security import is_stricter

RUNTIME_KEYS = {
    "runtime_image": "runtimeImage",
    "topology_level": "topologyLevel",
    "topology_required": "topologyRequired",
    "trainer": "trainer",
    "trainer_version": "trainerVersion",
}
"""The keys only the fabric's runtime (and Kubeflow Trainer) reads: field -> stack key."""


WELL_KNOWN_NODE_LABELS = [
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "kubernetes.io/hostname",
]
"""Labels every cloud's node carries: the kubelet sets the host name, the cloud's controller the
region and zone (Kubernetes docs, "Well-Known Labels, Annotations and Taints")."""


def queue_problems(
    queues: QueuesConfig,
    platform_levels: list[str] | None,
    pod_security: tuple[str, str],
    carried_labels: list[str] = WELL_KNOWN_NODE_LABELS,
) -> list[Problem]:
    """`platform_levels`: the platform's Topology levels (None: none by default); `pod_security`:
    the level the platform's runtime pods need, and why; `carried_labels`: the labels the
    platform's GPU nodes carry (what a Topology level may name)."""
    if not queues.enabled:
        written = queues.model_dump(by_alias=True, mode="json")
        return [
            Problem(
                stack_key(f"queues.{to_camel(field)}"),
                written[to_camel(field)],
                "has no effect with gpu-fabric:queues.enabled: false (no queue is made); "
                "remove it, or turn the queue on",
            )
            for field in sorted(queues.model_fields_set - {"enabled"})
        ]
    problems = []
    if queues.teams and "namespace" in queues.model_fields_set:
        problems.append(
            Problem(
                stack_key("queues.namespace"),
                queues.namespace,
                "has no effect with gpu-fabric:queues.teams (the first team's namespace takes its "
                "place); remove it",
            )
        )
    problems += [
        # Kueue counts only nodes that carry every level's label (kueue pkg/util/tas/node.go,
        # `NodeMatchesFlavor`): a level no node carries leaves the queue with no capacity, and
        # every job pending while `pulumi up` is green.
        Problem(
            stack_key(f"queues.topologyLevels[{i}]"),
            level,
            "no GPU node of this platform carries this label, and Kueue admits no job to nodes "
            f"that lack a level's label; name one they carry: {', '.join(carried_labels)}",
        )
        for i, level in enumerate(queues.topology_levels or [])
        if level not in carried_labels
    ]
    levels = queues.topology_levels or platform_levels
    if not queues.runtime:
        problems += [
            Problem(
                stack_key(f"queues.{key}"),
                getattr(queues, field),
                "has no effect with gpu-fabric:queues.runtime: false (no runtime is made); "
                "remove it, or remove queues.runtime",
            )
            for field, key in RUNTIME_KEYS.items()
            if field in queues.model_fields_set
        ]
    elif queues.topology_level and queues.topology_level not in (levels or []):
        fix = (
            f"name one of the Topology's levels: {', '.join(levels)}"
            if levels
            else "the queue has no Topology here; set gpu-fabric:queues.topologyLevels first"
        )
        problems.append(Problem(stack_key("queues.topologyLevel"), queues.topology_level, fix))
    elif queues.topology_required and not levels:
        problems.append(
            Problem(
                stack_key("queues.topologyRequired"),
                True,
                "has no effect without a Topology (none by default here); set "
                "gpu-fabric:queues.topologyLevels, or remove it",
            )
        )
    elif (
        queues.topology_required
        and levels
        and (queues.topology_level or default_topology_level(levels)) == HOSTNAME_LEVEL
    ):
        # Every fabric's runtime pod takes a whole node: a job of two or more pods never fits
        # one host, and Kueue keeps it pending for good.
        problems.append(
            Problem(
                stack_key("queues.topologyRequired"),
                True,
                f"requires every pod of a job on one {HOSTNAME_LEVEL}, and each runtime pod takes "
                "a whole node, so no job of more than one node is ever admitted; require a wider "
                "level (queues.topologyLevel), or prefer (topologyRequired: false)",
            )
        )
    if queues.trainer is not TrainerOwner.STACK and "trainer_version" in queues.model_fields_set:
        problems.append(
            Problem(
                stack_key("queues.trainerVersion"),
                queues.trainer_version,
                "has no effect with gpu-fabric:queues.trainer: external (its owner installs "
                "Trainer); remove it, or let the stack install Trainer",
            )
        )
    problems += _trainer_pair_problems(queues)
    needed, why = pod_security
    if (
        queues.pod_security_level
        and queues.runtime
        and is_stricter(queues.pod_security_level, needed)
    ):
        problems.append(
            Problem(
                stack_key("queues.podSecurityLevel"),
                queues.pod_security_level,
                f"would reject the fabric's runtime pods, which need {needed} ({why}); set "
                f"{needed}, or remove the key",
            )
        )
    return problems


def _trainer_pair_problems(queues: QueuesConfig) -> list[Problem]:
    """The Trainer the stack installs must be the minor its Kueue's TrainJob integration is built
    against (catalog `workloads.trainer_for_kueue`): Trainer 2.2 and 2.3 are not API compatible,
    and a mismatched pair admits TrainJobs whose pods Kueue counts wrong or never starts."""
    if not queues.runtime or queues.trainer is not TrainerOwner.STACK:
        return []
    pins = catalog().workloads
    kueue = queues.kueue_version or pins.kueue.version
    trainer = queues.trainer_version or pins.trainer.version
    wanted = pins.trainer_for_kueue.get(CHART_VERSION.parse(kueue).minor)
    if wanted is None or CHART_VERSION.parse(trainer).minor == wanted:
        return []
    pairs = ", ".join(f"Kueue {k} with Trainer {t}" for k, t in pins.trainer_for_kueue.items())
    key = (
        "queues.trainerVersion"
        if "trainer_version" in queues.model_fields_set
        else "queues.kueueVersion"
    )
    value = trainer if key == "queues.trainerVersion" else kueue
    return [
        Problem(
            stack_key(key),
            value,
            f"Kueue {kueue} runs TrainJobs with Trainer {wanted}'s API, and Trainer {trainer} is "
            f"not compatible with it (Kueue's changelog); pick a pair: {pairs}",
        )
    ]
