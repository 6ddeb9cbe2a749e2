"""What a fabric layer checks of its `training_queue` arg (`gpu_fabric/layer_inputs.py`): the
rules of the `gpu-fabric:queues` fields it comes from, and the Kueue objects' own limits."""

from typing import Annotated, Any, Literal

from pydantic import AfterValidator

from ..layer_inputs import InputProblem, same_as
from .config import DnsLabel, LabelKey, QueuesConfig, TeamConfig, WaitForPodsReadyConfig

POD_SECURITY_LEVELS = Literal["privileged", "baseline", "restricted"]
"""Pod Security Standards' levels (Kubernetes docs, "Pod Security Standards")."""
MAX_FLAVORS = 16
"""A ClusterQueue resource group takes 1 to 16 flavors (kueue.x-k8s.io_clusterqueues.yaml)."""


def _not_negative(quota: int) -> int:
    if quota < 0:
        raise ValueError("a quota cannot be negative; give what the pool has (0: nothing)")
    return quota


QUEUE_RULES = {
    "TrainingQueueSettings": {
        "namespace": same_as(QueuesConfig, "namespace"),
        "team_namespaces": list[same_as(QueuesConfig, "namespace")],  # type: ignore[misc]
        "team_weights": dict[str, same_as(TeamConfig, "weight")],  # type: ignore[misc]
        "local_queue": same_as(QueuesConfig, "local_queue"),
        "pod_security_level": POD_SECURITY_LEVELS,
        "topology_levels": same_as(QueuesConfig, "topology_levels"),
        "kueue_version": same_as(QueuesConfig, "kueue_version"),
        "jobset_version": same_as(QueuesConfig, "jobset_version"),
        "kueue_image_repository": same_as(QueuesConfig, "kueue_image_repository"),
        "jobset_image_repository": same_as(QueuesConfig, "jobset_image_repository"),
        "trainer_version": same_as(QueuesConfig, "trainer_version"),
    },
    "TrainingRuntimeSettings": {"name": DnsLabel},
    "WaitForPodsReadySettings": {
        "timeout": same_as(WaitForPodsReadyConfig, "timeout"),
        "backoff_limit_count": same_as(WaitForPodsReadyConfig, "backoff_limit_count"),
    },
    "RuntimeTopology": {"level": LabelKey},
    "QueuePool": {
        "name": DnsLabel,
        "node_labels": dict[LabelKey, str],
        "quota": dict[str, Annotated[int, AfterValidator(_not_negative)]],
        "provisioning_class": LabelKey,
        "min_nodes": Annotated[int, AfterValidator(_not_negative)],
    },
    "QueueToleration": {"key": LabelKey},
}
"""The checks of the `TrainingQueueSettings` arg, for each fabric layer's `LayerInputs`."""


def queue_problems(args: dict[str, Any]) -> list[InputProblem]:
    """A training queue has 1 to `MAX_FLAVORS` pools with distinct names, distinct levels and
    distinct namespaces."""
    queue = args.get("training_queue")
    if queue is None:
        return []
    names = [pool["name"] for pool in queue["pools"]]
    if not 1 <= len(names) <= MAX_FLAVORS:
        fix = f"give 1 to {MAX_FLAVORS} GPU pools, one ResourceFlavor each"
        return [InputProblem("trainingQueue.pools", names, fix)]
    problems = []
    if len(set(names)) != len(names):
        problems.append(InputProblem("trainingQueue.pools", names, "give each pool its own name"))
    teams = queue.get("team_namespaces", [])
    if queue["namespace"] in teams or len(set(teams)) != len(teams):
        fix = "give each team a namespace of its own, none the queue's `namespace`"
        problems.append(InputProblem("trainingQueue.teamNamespaces", teams, fix))
    levels = queue.get("topology_levels", [])
    if len(set(levels)) != len(levels):
        fix = "each level is a different node label; remove the repeated one"
        problems.append(InputProblem("trainingQueue.topologyLevels", levels, fix))
    topology = queue.get("runtime", {}).get("topology")
    if topology and topology["level"] not in levels:
        fix = (
            f"name one of topologyLevels ({', '.join(levels)})"
            if levels
            else "give topologyLevels, or no topology (without a Topology Kueue places nothing)"
        )
        problems.append(
            InputProblem("trainingQueue.runtime.topology.level", topology["level"], fix)
        )
    return problems
