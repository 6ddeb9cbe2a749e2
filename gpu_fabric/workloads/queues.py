"""The training queue: Kueue and JobSet, and the Kueue objects that admit a job as one gang.

A job labelled `kueue.x-k8s.io/queue-name: <local queue>` in the training namespace waits until
the whole job fits in the GPU pools' quota, then starts with all of its pods, placed by Topology
Aware Scheduling in as few topology domains as fit (Kueue docs, "Topology Aware Scheduling"; on by
default since Kueue v0.14). Each platform's fabric layer gives its pools, their node labels and
taints, and its Topology levels (`TrainingQueueSettings`).

What waits for what: the Kueue and JobSet releases wait for the provider only (Helm waits for
their controllers); the Kueue objects wait for Kueue's CRDs to be served (a CRD gate after the
Kueue release, so its webhook answers too); the LocalQueue waits for its namespace. Kubeflow
Trainer waits for JobSet, the fabric's runtime (`runtime.py`) for Trainer's CRDs. Nothing waits for
the GPU nodes: the queue admits what the nodes that are there can run.
"""

from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from ..catalog import catalog
from ..crd_gate import CrdGate, CrdGateArgs
from ..helm import helm_release
from ..k8s_objects import custom_resource
from .config import QueuesConfig, TrainerOwner, default_topology_level
from .kueue_config import kueue_values
from .queue_objects import (
    CLUSTER_QUEUE,
    COHORT_CRD,
    KUEUE_CRDS,
    PROVISIONING_CRDS,
    PROVISIONING_REQUEST_CRD,
    admission_check,
    cluster_queue,
    cohort,
    local_queue,
    provisioning_request_config,
    resource_flavor,
    topology,
    training_namespace,
    workload_priority_classes,
)
from .runtime import TRAINER_CRDS, cluster_training_runtime, process_count_policy
from .settings import QueuePool, TrainingQueueSettings, TrainingRuntimeSettings, training_namespaces


@dataclass(frozen=True)
class TrainingQueueArgs:
    queue: TrainingQueueSettings
    """What the queue admits and where."""
    kubeconfig: pulumi.Input[str]
    """Kubeconfig for the CRD gates (the provider's own)."""
    cluster_id: pulumi.Input[str]
    """Re-runs the gates when the cluster is replaced."""
    runtime_after: list[pulumi.Resource] = field(default_factory=list)
    """What the runtime's namespaced objects wait for besides their CRDs (A4X: the NVIDIA DRA
    driver release that serves ComputeDomains)."""
    runtime_aliases: list[pulumi.Alias] = field(default_factory=list)
    """Where the runtime's state was before the queue made it (A4X's earlier component)."""


def runtime_image(cfg: QueuesConfig) -> str:
    """The image of the runtime's training container: the stack's, or the catalog's."""
    return cfg.runtime_image or catalog().images.training_runtime.reference


def training_queue(
    cfg: QueuesConfig,
    topology_levels: list[str] | None,
    pools: list[QueuePool],
    pod_security: tuple[str, str],
    device_class_mappings: dict[str, list[str]] | None = None,
    runtime: TrainingRuntimeSettings | None = None,
    topology_level: str | None = None,
) -> TrainingQueueSettings | None:
    """The queue a stack's `gpu-fabric:queues` asks for (None: disabled), on its platform's
    `topology_levels` (None: no Topology; the stack's own levels win), `pools`, `pod_security`
    (level, why) and fabric `runtime` (made unless `queues.runtime: false`), whose pods ask for
    the stack's `topologyLevel`, else the platform's `topology_level` if it is a level, else
    `default_topology_level`."""
    if not cfg.enabled:
        return None
    pins = catalog().workloads
    level, reason = pod_security
    if cfg.pod_security_level:
        level = cfg.pod_security_level
        reason = f"gpu-fabric:queues.podSecurityLevel; the fabric's runtime needs: {reason}"
    first, *more = cfg.namespaces
    queue: TrainingQueueSettings = {
        "namespace": first,
        "local_queue": cfg.local_queue,
        "pod_security_level": level,
        "pod_security_reason": reason,
        "pools": pools,
        "kueue_version": cfg.kueue_version or pins.kueue.version,
        "jobset_version": cfg.jobset_version or pins.jobset.version,
    }
    if more:
        queue["team_namespaces"] = more
        queue["team_weights"] = {team.namespace: team.weight for team in cfg.teams or []}
    wait = cfg.wait_for_pods_ready
    queue["wait_for_pods_ready"] = {"timeout": wait.timeout}
    if wait.backoff_limit_count is not None:
        queue["wait_for_pods_ready"]["backoff_limit_count"] = wait.backoff_limit_count
    if cfg.kueue_image_repository:
        queue["kueue_image_repository"] = cfg.kueue_image_repository
    if cfg.jobset_image_repository:
        queue["jobset_image_repository"] = cfg.jobset_image_repository
    levels = cfg.topology_levels or topology_levels
    if levels:
        queue["topology_levels"] = list(levels)
    if device_class_mappings:
        queue["device_class_mappings"] = device_class_mappings
    if runtime is not None and cfg.runtime:
        runtime = dict(runtime)  # type: ignore[assignment]
        if levels:
            runtime["topology"] = {
                "level": cfg.topology_level
                or (topology_level if topology_level in levels else None)
                or default_topology_level(list(levels)),
                "required": cfg.topology_required,
            }
        queue["runtime"] = runtime
        if cfg.trainer is TrainerOwner.STACK:
            queue["trainer_version"] = cfg.trainer_version or pins.trainer.version
    return queue


@dataclass(frozen=True)
class QueueManifests:
    """The queue's Kubernetes objects (`queue_objects.py`), as the component and `make verify`
    name them."""

    topology: dict | None
    flavors: dict[str, dict]
    """Pool name -> its ResourceFlavor."""
    cluster_queue: dict
    """The ClusterQueue of the first namespace (with teams: the first team's)."""
    cohort: dict | None
    """The teams' Cohort, holding the GPUs (None: one namespace, one ClusterQueue)."""
    priority_classes: list[dict]
    provisioning: list[dict]
    """The AdmissionCheck and ProvisioningRequestConfig of queued pools (none without)."""
    namespace: dict
    local_queue: dict
    teams: dict[str, tuple[dict, dict, dict]]
    """A further team's namespace name -> its Namespace, LocalQueue and ClusterQueue."""


def queue_manifests(queue: TrainingQueueSettings) -> QueueManifests:
    levels = queue.get("topology_levels")
    tas = topology(levels) if levels else None
    flavors = {
        pool["name"]: resource_flavor(
            pool["name"],
            pool["node_labels"],
            _tolerations(pool),
            tas["metadata"]["name"] if tas else None,
        )
        for pool in queue["pools"]
    }
    quotas = {flavors[p["name"]]["metadata"]["name"]: p["quota"] for p in queue["pools"]}
    queued = [p for p in queue["pools"] if "provisioning_class" in p]
    provisioned = [flavors[p["name"]]["metadata"]["name"] for p in queued]
    provisioning = []
    if queued:
        (provisioning_class,) = {p["provisioning_class"] for p in queued}
        resources = sorted({r for p in queued for r in p["quota"]})
        provisioning = [
            admission_check(),
            provisioning_request_config(provisioning_class, resources),
        ]

    def namespace(name: str) -> dict:
        return training_namespace(name, queue["pod_security_level"], queue["pod_security_reason"])

    first, teams = queue["namespace"], queue.get("team_namespaces", [])
    weights = queue.get("team_weights", {})

    def team_queue(team: str, name: str) -> dict:
        weight = weights.get(team, 1) if teams else None
        return cluster_queue([team], quotas, provisioned, name=name, weight=weight)

    return QueueManifests(
        topology=tas,
        flavors=flavors,
        cluster_queue=team_queue(first, CLUSTER_QUEUE)
        if teams
        else cluster_queue([first], quotas, provisioned),
        cohort=cohort(quotas) if teams else None,
        priority_classes=workload_priority_classes(),
        provisioning=provisioning,
        namespace=namespace(first),
        local_queue=local_queue(queue["local_queue"], first),
        teams={
            team: (
                namespace(team),
                local_queue(queue["local_queue"], team, f"{CLUSTER_QUEUE}-{team}"),
                team_queue(team, f"{CLUSTER_QUEUE}-{team}"),
            )
            for team in teams
        },
    )


class TrainingQueue(pulumi.ComponentResource):
    """Kueue and JobSet (Helm), then the Topology, a ResourceFlavor per pool, the ClusterQueue,
    the training namespace and its LocalQueue."""

    local_queue: pulumi.Output[str]
    """The LocalQueue's name."""
    namespace: pulumi.Output[str]
    """The training namespace."""
    namespaces: list[pulumi.Output[str]]
    """Every training namespace, the first `namespace`."""

    def __init__(
        self, name: str, args: TrainingQueueArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:workloads:TrainingQueue", name, None, opts)
        queue, pins = args.queue, catalog().workloads
        child = pulumi.ResourceOptions(parent=self)
        values = kueue_values(
            training_namespaces(queue),
            queue.get("device_class_mappings", {}),
            queue.get("wait_for_pods_ready"),
            fair_sharing="team_namespaces" in queue,
        )
        if "kueue_image_repository" in queue:
            # charts/kueue/values.yaml: controllerManager.manager.image.repository
            image = {"image": {"repository": queue["kueue_image_repository"]}}
            values["controllerManager"] = {"manager": image}
        queued = any("provisioning_class" in pool for pool in queue["pools"])
        kueue_opts = child
        if queued:
            # Kueue sets its ProvisioningRequest controller up only if the API is served when it
            # starts (PROVISIONING_REQUEST_CRD): the release waits for it, and fails the update
            # if the cluster never serves it.
            served = CrdGate(
                f"{name}-provisioning-request-api",
                CrdGateArgs([PROVISIONING_REQUEST_CRD], args.kubeconfig, args.cluster_id),
                child,
            )
            kueue_opts = pulumi.ResourceOptions(parent=self, depends_on=[served])
        # Release names as the charts' READMEs install them (the controllers' names follow).
        kueue = helm_release(
            f"{name}-kueue",
            "kueue",
            pins.kueue.at(queue["kueue_version"]),
            values,
            kueue_opts,
            create_namespace=True,
        )
        jobset_values = (
            # charts/jobset/values.yaml: image.repository
            {"image": {"repository": queue["jobset_image_repository"]}}
            if "jobset_image_repository" in queue
            else {}
        )
        jobset = helm_release(
            f"{name}-jobset",
            "jobset",
            pins.jobset.at(queue["jobset_version"]),
            jobset_values,
            child,
            create_namespace=True,
        )
        crds = [
            *KUEUE_CRDS,
            *([COHORT_CRD] if "team_namespaces" in queue else []),
            *(PROVISIONING_CRDS if queued else []),
        ]
        gate = CrdGate(
            f"{name}-kueue-crds",
            CrdGateArgs(crds, args.kubeconfig, args.cluster_id, after=[kueue]),
            child,
        )
        # The Kueue objects wait for the gate only: a ClusterQueue whose flavors are not there
        # yet is inactive until they are. A changed Topology or flavor comes under a new name
        # (`queue_objects._named`), so the default create-then-delete order holds.
        after_gate = pulumi.ResourceOptions(parent=self, depends_on=[gate])
        objects = queue_manifests(queue)
        if objects.topology is not None:
            custom_resource(f"{name}-topology", objects.topology, after_gate)
        for pool, flavor in objects.flavors.items():
            custom_resource(f"{name}-flavor-{pool}", flavor, after_gate)
        for manifest in objects.provisioning:
            kind = manifest["kind"].lower()
            custom_resource(f"{name}-{kind}", manifest, after_gate)
        for priority in objects.priority_classes:
            custom_resource(f"{name}-priority-{priority['metadata']['name']}", priority, after_gate)
        if objects.cohort is not None:
            custom_resource(f"{name}-cohort", objects.cohort, after_gate)
        custom_resource(f"{name}-cluster-queue", objects.cluster_queue, after_gate)
        # The first namespace's objects keep the names they had before teams (state moves
        # nowhere when a stack lists its namespace as the first team); a further team's carry
        # its namespace's name.
        teams = {
            "": (objects.namespace, objects.local_queue),
            **{team: (ns, lq) for team, (ns, lq, _) in objects.teams.items()},
        }
        for team, (_, _, queue_manifest) in objects.teams.items():
            custom_resource(f"{name}-cluster-queue-{team}", queue_manifest, after_gate)
        namespaces = {}
        for team, (manifest, lq) in teams.items():
            suffix = f"-{team}" if team else ""
            namespaces[suffix] = k8s.core.v1.Namespace(
                f"{name}-namespace{suffix}", metadata=manifest["metadata"], opts=child
            )
            lq["metadata"]["namespace"] = namespaces[suffix].metadata.name
            custom_resource(f"{name}-local-queue{suffix}", lq, after_gate)

        if "runtime" in queue:
            self._runtime(name, args, namespaces, jobset)

        self.created_namespaces = {
            suffix: (manifest["metadata"]["name"], namespaces[f"-{suffix}" if suffix else ""])
            for suffix, (manifest, _) in teams.items()
        }
        """Resource-name suffix ('' for the first, a team's namespace) -> (the training
        namespace's name, the namespace resource)."""
        self.local_queue = pulumi.Output.from_input(queue["local_queue"])
        self.namespace = namespaces[""].metadata.name
        self.namespaces = [n.metadata.name for n in namespaces.values()]
        self.register_outputs({"local_queue": self.local_queue, "namespace": self.namespace})

    def _runtime(
        self,
        name: str,
        args: TrainingQueueArgs,
        namespaces: dict[str, k8s.core.v1.Namespace],
        jobset: pulumi.Resource,
    ) -> None:
        """Kubeflow Trainer (after JobSet, whose CRD its controller watches), then the runtime
        once Trainer's CRDs are served; the runtime's objects in each training namespace
        (`namespaces`: resource-name suffix -> namespace) once theirs are."""
        queue, runtime = args.queue, args.queue["runtime"]
        after: list[pulumi.Resource] = []
        if "trainer_version" in queue:
            # charts/kubeflow-trainer/values.yaml: `jobset.install: false` where JobSet is
            # installed already (here, by the queue).
            after.append(
                helm_release(
                    f"{name}-trainer",
                    "kubeflow-trainer",
                    catalog().workloads.trainer.at(queue["trainer_version"]),
                    {"jobset": {"install": False}},
                    pulumi.ResourceOptions(parent=self, depends_on=[jobset]),
                    create_namespace=True,
                )
            )
        gate = CrdGate(
            f"{name}-trainer-crds",
            CrdGateArgs(
                TRAINER_CRDS,
                args.kubeconfig,
                args.cluster_id,
                after=after,
                # Again on a new Trainer: its chart moved its CRDs between `crds/` and templates
                # (2.3.0), and a Helm upgrade across that move leaves none.
                installer_version=queue.get("trainer_version", ""),
            ),
            pulumi.ResourceOptions(parent=self),
        )
        custom_resource(
            f"{name}-runtime",
            cluster_training_runtime(runtime),
            pulumi.ResourceOptions(parent=self, depends_on=[gate], aliases=args.runtime_aliases),
        )
        if "claimed_gpus" in runtime:
            policy, binding = process_count_policy(runtime["name"], runtime["claimed_gpus"])
            admission = k8s.admissionregistration.v1
            made = admission.ValidatingAdmissionPolicy(
                f"{name}-runtime-processes",
                metadata=policy["metadata"],
                spec=policy["spec"],
                opts=pulumi.ResourceOptions(parent=self),
            )
            admission.ValidatingAdmissionPolicyBinding(
                f"{name}-runtime-processes-binding",
                metadata=binding["metadata"],
                spec=binding["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=[made]),
            )
        crds = runtime.get("namespaced_object_crds", [])
        waits: list[pulumi.Resource] = list(args.runtime_after)
        if crds:
            waits = [
                CrdGate(
                    f"{name}-runtime-crds",
                    CrdGateArgs(crds, args.kubeconfig, args.cluster_id, after=waits),
                    pulumi.ResourceOptions(parent=self),
                )
            ]
        for suffix, namespace in namespaces.items():
            for manifest in runtime.get("namespaced_objects", []):
                manifest = {**manifest, "metadata": dict(manifest["metadata"])}
                manifest["metadata"]["namespace"] = namespace.metadata.name
                custom_resource(
                    f"{name}-{manifest['metadata']['name']}{suffix}",
                    manifest,
                    # A fixed name whose spec is immutable (a ComputeDomain, a claim template): a
                    # change replaces it, which only delete-then-create can do under one name.
                    pulumi.ResourceOptions(
                        parent=self, depends_on=waits, delete_before_replace=True
                    ),
                )


def _tolerations(pool: QueuePool) -> list[dict[str, str]]:
    return [
        {
            "key": t["key"],
            "operator": "Equal" if "value" in t else "Exists",
            **({"value": t["value"]} if "value" in t else {}),
            "effect": t["effect"],
        }
        for t in pool["tolerations"]
    ]
