"""Each fabric's pre-wired runtime: a user's TrainJob of a few lines, resolved through it as
Kubeflow Trainer does, gives pods wired as upstream's NCCL test pods in every field that carries
the fabric; the queue's rules on the runtime; the Pod Security level each runtime needs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.fabrics import gib, tcpx, tcpxo
from gpu_fabric.gke.fabrics.by_name import FABRICS
from gpu_fabric.registry import spec_of
from gpu_fabric.workloads.pod_security import needed_level
from gpu_fabric.workloads.runtime import NODE, TOPOLOGY_ANNOTATIONS
from offline.engine import Plan, manifest
from tests.conftest import assert_single_rule, parse_stack, planned, run_stack
from tests.seed import ACK_SEED, seed_objects
from tests.stacks import APPLYING_STACKS, platform_of
from tests.test_manifests import validate
from tests.test_workloads_queues import release
from tests.vendored import VERIFY_UPSTREAM

RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"


def user_job(runtime: str, nodes: int = 2) -> dict:
    """What a user submits (README, "Your training job"): image, command, node count."""
    return yaml.safe_load(f"""
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata: {{name: llama-pretrain, namespace: training}}
        spec:
          runtimeRef: {{name: {runtime}}}
          trainer:
            image: nvcr.io/nvidia/pytorch:25.01-py3
            command: [bash, -c, "torchrun train.py"]
            numNodes: {nodes}
        """)


def runtime_of(plan: Plan) -> dict:
    (runtime,) = plan.of_type(RUNTIME)
    return manifest(runtime)


def resolve(runtime: dict, job: dict) -> list[dict]:
    """The pods Kubeflow Trainer makes of `job` on `runtime`: `numNodes` copies of the `node`
    replicated job's pod, whose `node` container takes the job's image and command (kubeflow/
    trainer pkg/runtime/core/trainingruntime.go builds the JobSet from the runtime's template and
    the TrainJob's `trainer`; the torch plugin sets the node count, pkg/runtime/framework/plugins/
    torch/torch.go). Trainer's PET_* rendezvous env is left out: it carries no fabric."""
    (step,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    assert step["name"] == NODE
    trainer = job["spec"]["trainer"]
    pods = []
    for _ in range(trainer.get("numNodes", runtime["spec"]["mlPolicy"]["numNodes"])):
        pod = copy.deepcopy(step["template"]["spec"]["template"])
        node = next(c for c in pod["spec"]["containers"] if c["name"] == NODE)
        node.update(image=trainer["image"], command=trainer["command"])
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": pod["metadata"], **pod})
    return pods


def one_pod(stack: str) -> dict:
    plan = planned(stack)
    runtime = runtime_of(plan)
    job = user_job(runtime["metadata"]["name"])
    validate(job)
    pods = resolve(runtime, job)
    assert len(pods) == 2 and pods[0] == pods[1]
    return pods[0]


def node_container(pod: dict) -> dict:
    return next(c for c in pod["spec"]["containers"] if c["name"] == NODE)


def _by_name(items: list[dict]) -> dict[str, dict]:
    return {i["name"]: i for i in items}


def _env(container: dict) -> dict[str, str]:
    return {e["name"]: e.get("value") for e in container.get("env", [])}


# --- each fabric's pods against upstream's ------------------------------------------------------


def test_a_tcpx_job_gets_the_guides_wiring():
    """The GKE GPUDirect-TCPX guide's test pods (`tcpx.smoke_test_manifests`)."""
    pod = one_pod("a3-prod")
    (test_pod, _) = [o for o in tcpx.smoke_test_manifests("i", "d") if o["kind"] == "Pod"]
    guide = test_pod["spec"]
    for field in ("hostNetwork", "dnsPolicy"):
        assert pod["spec"][field] == guide[field], field
    libraries = {v["name"]: v for v in guide["volumes"] if "hostPath" in v}
    # ...and /dev/shm in memory, which the guide's test pods leave at the runtime's 64 MiB.
    shared_memory = {"shared-memory": tcpx.SHARED_MEMORY_VOLUME}
    assert {v["name"]: v for v in pod["spec"]["volumes"]} == {**libraries, **shared_memory}
    daemon = _by_name(guide["containers"])["tcpx-daemon"]
    (sidecar,) = pod["spec"]["initContainers"]
    assert sidecar.pop("restartPolicy") == "Always"  # a job's pods end with their trainer
    for field in ("image", "command", "volumeMounts", "env"):
        assert sidecar[field] == {**daemon, "image": sidecar["image"]}[field], field
    assert sidecar["securityContext"]["privileged"] is True
    guide_gpu = _by_name(guide["containers"])["nccl-test"]
    node = node_container(pod)
    mounts = [m for m in guide_gpu["volumeMounts"] if m["name"] in libraries]
    assert node["volumeMounts"] == [*mounts, tcpx.SHARED_MEMORY_MOUNT]
    assert _env(node)["LD_LIBRARY_PATH"] == _env(guide_gpu)["LD_LIBRARY_PATH"]
    assert node["resources"]["limits"]["nvidia.com/gpu"] == 8
    # What upstream's test gives its ranks (nccl-config.yaml's run-nccl.sh, nccl-test-latest.yaml).
    settings = tcpx.nccl_settings()
    assert {"NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "NCCL_GPUDIRECTTCPX_CTRL_DEV"} <= {
        e["name"] for e in settings
    }
    assert all(_env(node)[e["name"]] == e["value"] for e in settings)
    assert "IPC_LOCK" in node["securityContext"]["capabilities"]["add"]


def test_a_tcpxo_job_gets_upstreams_test_pod_wiring():
    """container-engine-accelerators gpudirect-tcpxo/nccl-test-latest.yaml (vendored)."""
    pod = one_pod("a3-mega-prod")
    docs = yaml.safe_load_all((VERIFY_UPSTREAM / "nccl-test-tcpxo.yaml").read_text())
    upstream = next(d for d in docs if d["kind"] == "Pod")
    for key in (tcpxo.DEVICES_ANNOTATION, gib.INTERFACES):
        ours, theirs = pod["metadata"]["annotations"][key], upstream["metadata"]["annotations"][key]
        assert json.loads(ours) == json.loads(theirs) if key == gib.INTERFACES else ours == theirs
    volumes = _by_name(upstream["spec"]["volumes"])
    volumes["shared-memory"]["emptyDir"].pop("sizeLimit")  # the test's 1Gi is not a job's
    assert _by_name(pod["spec"]["volumes"]) == volumes
    upstream_daemon, upstream_test = upstream["spec"]["containers"]
    (daemon,) = pod["spec"]["initContainers"]
    assert daemon["image"] == upstream_daemon["image"] or daemon["image"].startswith(
        upstream_daemon["image"].split(":")[0]
    )
    assert daemon["command"] == upstream_daemon["command"]
    node = node_container(pod)
    assert node["volumeMounts"] == upstream_test["volumeMounts"]
    upstream_env = _env(upstream_test)
    assert {k: v for k, v in _env(node).items() if k in upstream_env} == {
        k: upstream_env[k] for k in _env(node) if k in upstream_env
    }
    assert node["resources"]["limits"]["nvidia.com/gpu"] == 8
    # Upstream's README: nccl-env-profile.sh is sourced at container start; a bash job does.
    assert _env(node)["BASH_ENV"] == tcpxo.NCCL_ENV_PROFILE


@pytest.mark.parametrize("stack", ["a3-ultra-prod", "a4-prod"])
def test_an_eight_nic_gib_job_gets_upstreams_test_pod_wiring(stack):
    """container-engine-accelerators gpudirect-rdma/nccl-test.yaml (vendored)."""
    pod = one_pod(stack)
    docs = yaml.safe_load_all((VERIFY_UPSTREAM / "nccl-test-rdma.yaml").read_text())
    upstream = next(d for d in docs if d["kind"] == "Pod")
    (up,) = upstream["spec"]["containers"]
    assert json.loads(pod["metadata"]["annotations"][gib.INTERFACES]) == json.loads(
        upstream["metadata"]["annotations"][gib.INTERFACES]
    )
    hosts = {v["name"]: v.get("hostPath") for v in pod["spec"]["volumes"]}
    assert hosts == {v["name"]: v.get("hostPath") for v in upstream["spec"]["volumes"]}
    node = node_container(pod)
    assert {m["name"]: m["mountPath"] for m in node["volumeMounts"]} == {
        m["name"]: m["mountPath"] for m in up["volumeMounts"]
    }
    assert _env(node)["LD_LIBRARY_PATH"] == _env(up)["LD_LIBRARY_PATH"]
    assert _env(node)["BASH_ENV"] == gib.NCCL_ENV_SCRIPT  # upstream sources it first
    assert str(node["resources"]["limits"]["nvidia.com/gpu"]) == str(
        up["resources"]["limits"]["nvidia.com/gpu"]
    )
    assert "IPC_LOCK" in node["securityContext"]["capabilities"]["add"]


def test_an_a4x_job_gets_aicrs_wiring_and_an_nvlink_channel():
    """NVIDIA AICR's torch-distributed-rdma (vendored); test_a4x_stack.py compares the whole
    runtime. Here: what the job's pod carries."""
    pod = one_pod("a4x-prod")
    node = node_container(pod)
    assert node["resources"]["claims"] == [{"name": "compute-domain-channel"}]
    assert pod["spec"]["resourceClaims"] == [
        {"name": "compute-domain-channel", "resourceClaimTemplateName": "gpu-fabric-nvlink-channel"}
    ]
    assert _env(node)["NCCL_NET"] == "gIB"
    # The A4X guide's tuning profile, sourced by a bash command (a runtime cannot source it).
    assert _env(node)["BASH_ENV"] == "/usr/local/gib/scripts/set_nccl_env.sh"
    assert node["resources"]["limits"]["nvidia.com/gpu"] == "4"


def test_an_oke_job_gets_the_write_ups_aligned_claim_and_rocE_settings():
    """The DRANET-on-OKE write-up's nccl-dranet-aligned.yaml: its worker's claim of all 8 GPUs
    and 16 rails (2 GPUs and 4 rails per PCIe root), node selector, toleration and shared memory,
    and its `mpirun -x` NCCL settings in the container's env."""
    pod = one_pod("oke-dranet-fabric")
    seed = seed_objects("nccl-dranet-aligned.yaml")
    template = next(o for o in seed if o["kind"] == "ResourceClaimTemplate")
    worker = next(o for o in seed if o["kind"] == "MPIJob")["spec"]["mpiReplicaSpecs"]["Worker"]
    seed_spec = worker["template"]["spec"]
    for field in ("nodeSelector", "tolerations", "volumes"):
        assert pod["spec"][field] == seed_spec[field], field
    ((claim,),) = [pod["spec"]["resourceClaims"]]
    node = node_container(pod)
    assert node["resources"]["claims"] == [{"name": claim["name"]}]
    assert node["volumeMounts"] == seed_spec["containers"][0]["volumeMounts"]
    objects = {o.name: manifest(o) for o in planned("oke-dranet-fabric").kubernetes_objects()}
    (ours,) = [
        o
        for o in objects.values()
        if o["kind"] == "ResourceClaimTemplate"
        and o["metadata"]["name"] == claim["resourceClaimTemplateName"]
        and o["metadata"]["namespace"] == "training"
    ]
    assert ours["spec"] == template["spec"]
    launcher = next(o for o in seed if o["kind"] == "MPIJob")["spec"]["mpiReplicaSpecs"]
    script = json.dumps(launcher["Launcher"])
    for name, value in _env(node).items():
        assert f"-x {name}={value}" in script, name
    assert set(_env(node)) == set(catalog().oci_shapes["BM.GPU.B4.8"].nccl_env)


def admission(policy: dict, job: dict) -> str | None:
    """What a ValidatingAdmissionPolicy says of `job`: None when it admits it, else its message
    (CEL evaluated as the API server does: matchConditions, then each validation)."""
    import cel

    context = {"object": job}
    if not all(cel.evaluate(c["expression"], context) for c in policy["spec"]["matchConditions"]):
        return None
    for validation in policy["spec"]["validations"]:
        if not cel.evaluate(validation["expression"], context):
            return validation["message"]
    return None


def test_an_oke_job_that_does_not_say_its_processes_is_refused_with_the_fix():
    """Trainer counts `nvidia.com/gpu` requests, not a DRA claim's GPUs: a job that omits
    `numProcPerNode` would run 1 process per node, so it is refused at admission."""
    objects = [manifest(o) for o in planned("oke-dranet-fabric").kubernetes_objects()]
    (policy,) = [o for o in objects if o["kind"] == "ValidatingAdmissionPolicy"]
    (binding,) = [o for o in objects if o["kind"] == "ValidatingAdmissionPolicyBinding"]
    for obj in (policy, binding):
        validate(obj)
    assert binding["spec"] == {
        "policyName": policy["metadata"]["name"],
        "validationActions": ["Deny"],
    }
    # On create only: Kueue updates a job queued before the policy existed (to start it).
    (rule,) = policy["spec"]["matchConstraints"]["resourceRules"]
    assert rule["operations"] == ["CREATE"]
    runtime = runtime_of(planned("oke-dranet-fabric"))["metadata"]["name"]
    job = user_job(runtime)
    assert "set spec.trainer.numProcPerNode: 8, one process per GPU" in admission(policy, job)
    job["spec"]["trainer"]["numProcPerNode"] = 8
    assert admission(policy, job) is None
    assert admission(policy, user_job("torch-distributed")) is None
    for stack in ("a3-prod", "a4x-prod"):  # device-plugin GPUs: Trainer counts them
        kinds = {manifest(o)["kind"] for o in planned(stack).kubernetes_objects()}
        assert "ValidatingAdmissionPolicy" not in kinds


def test_an_ack_job_gets_the_guides_rdma_pod():
    """Alibaba's Lingjun RDMA guide's Job (hps-benchmark-job.yaml): all GPUs and `rdma/hca`,
    IPC_LOCK and SYS_RESOURCE, shared memory, the host network."""
    pod = one_pod("ack-lingjun-fabric")
    text = (ACK_SEED / "hps-benchmark-job.yaml").read_text()
    seed = yaml.safe_load(text.replace("image: **", "image: example.com/hps:1"))
    seed_spec = seed["spec"]["template"]["spec"]
    (seed_container,) = seed_spec["containers"]
    node = node_container(pod)
    assert node["resources"]["limits"] == seed_container["resources"]["limits"]
    assert sorted(node["securityContext"]["capabilities"]["add"]) == sorted(
        seed_container["securityContext"]["capabilities"]["add"]
    )
    assert node["volumeMounts"] == seed_container["volumeMounts"]
    assert pod["spec"]["hostNetwork"] is seed_spec["hostNetwork"] is True
    # The guide's Job needs no service name; a Trainer rank finds the first node by one.
    assert pod["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"


# --- what every runtime has -----------------------------------------------------------------------


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_every_fabric_has_one_runtime_its_namespace_admits(stack):
    plan = planned(stack)
    runtime = runtime_of(plan)
    validate(runtime)
    (namespace,) = [
        manifest(r)
        for r in plan.of_type("kubernetes:core/v1:Namespace")
        if r.inputs["metadata"]["name"] == "training"
    ]
    pod = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    needed, _ = needed_level(pod["spec"])
    # The level the platform declares is the one its runtime's pods need: no stricter (the pods
    # would be refused) and no looser.
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == needed
    assert release(plan, "kubeflow-trainer").inputs["values"] == {"jobset": {"install": False}}


def test_the_gke_fabrics_declare_what_their_runtimes_need():
    for fabric, spec in FABRICS.items():
        stack = {"gpudirect-tcpx": "a3-prod", "gpudirect-tcpxo": "a3-mega-prod"}.get(
            fabric.value, "a4x-prod"
        )
        pod = runtime_of(planned(stack))["spec"]["template"]["spec"]["replicatedJobs"][0]
        assert needed_level(pod["template"]["spec"]["template"]["spec"])[0] == spec.pod_security[0]


def test_the_runtime_asks_for_the_configured_topology():
    plan = run_stack(
        {
            "gpu-fabric:queues": {
                "topologyLevel": "cloud.google.com/gce-topology-block",
                "topologyRequired": True,
            }
        }
    )
    pod = runtime_of(plan)["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]
    annotations = pod["template"]["metadata"]["annotations"]
    assert annotations[TOPOLOGY_ANNOTATIONS["required"]] == "cloud.google.com/gce-topology-block"
    assert TOPOLOGY_ANNOTATIONS["preferred"] not in annotations
    default = runtime_of(planned("a3-prod"))["spec"]["template"]["spec"]["replicatedJobs"][0]
    assert default["template"]["spec"]["template"]["metadata"]["annotations"][
        TOPOLOGY_ANNOTATIONS["preferred"]
    ] == ("cloud.google.com/gce-topology-subblock")


def test_every_gke_runtime_carries_the_alias_of_the_earlier_a4x_component():
    """An alias matches only a resource the stack's state holds under it: on A3 High, which never
    had the earlier A4X runtime, it is a no-op, and no platform name decides it."""
    (runtime,) = planned("a3-prod").of_type(RUNTIME)
    (alias,) = runtime.aliases
    assert "gpu-fabric:gke:TrainingRuntime" in str(alias)


def test_without_a_topology_the_runtime_asks_for_none():
    pod = runtime_of(planned("oke-dranet-fabric"))["spec"]["template"]["spec"]
    annotations = pod["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]
    assert not set(TOPOLOGY_ANNOTATIONS.values()) & set(annotations.get("annotations", {}))


def test_an_external_trainer_leaves_the_release_out_but_keeps_the_runtime():
    plan = run_stack({"gpu-fabric:queues": {"trainer": "external"}})
    assert not [r for r in plan.of_type("kubernetes:helm.sh/v3:Release") if "trainer" in r.name]
    (runtime,) = plan.of_type(RUNTIME)
    (gate,) = [g for g in plan.of_type("command:local:Command") if "trainer-crds" in g.name]
    assert plan.depends_on(runtime, gate)


def test_no_runtime_means_no_trainer_either():
    plan = run_stack({"gpu-fabric:queues": {"runtime": False}})
    assert plan.of_type(RUNTIME) == []
    assert not [r for r in plan.of_type("kubernetes:helm.sh/v3:Release") if "trainer" in r.name]


def test_a_job_that_names_no_queue_joins_the_default_local_queue():
    (queue,) = planned("a3-prod").of_type("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue")
    assert queue.inputs["metadata"]["name"] == "default"


def test_the_training_queue_module_of_each_platform_gives_a_runtime():
    for stack in APPLYING_STACKS:
        cfg = parse_stack({}, stack)
        queue = spec_of(platform_of(stack)).training_queue_module().training_queue_of(cfg)
        assert queue is not None and queue["runtime"]["pod_template"]["spec"]["containers"]


# --- the rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, key, value, says, stack",
    [
        (
            {"gpu-fabric:queues": {"topologyLevel": "example.com/rack"}},
            "gpu-fabric:queues.topologyLevel",
            "example.com/rack",
            "name one of the Topology's levels: cloud.google.com/gce-topology-block",
            "a3-prod",
        ),
        (
            {"gpu-fabric:queues": {"topologyLevel": "kubernetes.io/hostname"}},
            "gpu-fabric:queues.topologyLevel",
            "kubernetes.io/hostname",
            "no Topology here; set gpu-fabric:queues.topologyLevels first",
            "oke-dranet-fabric",
        ),
        (
            {"gpu-fabric:queues": {"topologyRequired": True}},
            "gpu-fabric:queues.topologyRequired",
            True,
            "has no effect without a Topology",
            "oke-dranet-fabric",
        ),
        (
            {"gpu-fabric:queues": {"runtime": False, "trainerVersion": "2.3.0"}},
            "gpu-fabric:queues.trainerVersion",
            "2.3.0",
            "has no effect with gpu-fabric:queues.runtime: false",
            "a3-prod",
        ),
        (
            {"gpu-fabric:queues": {"podSecurityLevel": "baseline"}},
            "gpu-fabric:queues.podSecurityLevel",
            "baseline",
            "would reject the fabric's runtime pods, which need privileged",
            "a3-prod",
        ),
        (
            {"gpu-fabric:queues": {"podSecurityLevel": "restricted"}},
            "gpu-fabric:queues.podSecurityLevel",
            "restricted",
            "which need baseline",
            "oke-dranet-fabric",
        ),
        (
            {"gpu-fabric:queues": {"podSecurityLevel": "baseline"}},
            "gpu-fabric:queues.podSecurityLevel",
            "baseline",
            "which need privileged",
            "ack-lingjun-fabric",
        ),
        (
            {"gpu-fabric:queues": {"trainer": "aicr"}},
            "gpu-fabric:queues.trainer",
            "aicr",
            "'stack' or 'external'",
            "a3-prod",
        ),
    ],
)
def test_a_queue_setting_the_runtime_cannot_honour_is_refused(changes, key, value, says, stack):
    assert_single_rule(changes, key, value, says, stack)


def test_a_level_as_permissive_as_the_runtime_needs_is_taken():
    plan = run_stack({"gpu-fabric:queues": {"podSecurityLevel": "privileged"}}, "oke-dranet-fabric")
    (namespace,) = [
        r
        for r in plan.of_type("kubernetes:core/v1:Namespace")
        if r.inputs["metadata"]["name"] == "training"
    ]
    labels = namespace.inputs["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "privileged"


# --- the docs -----------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def test_the_readmes_job_is_a_valid_trainjob_of_about_ten_lines():
    text = (ROOT / "README.md").read_text()
    block = text.split("```yaml\napiVersion: trainer.kubeflow.org/v1alpha1\n", 1)[1]
    body = "apiVersion: trainer.kubeflow.org/v1alpha1\n" + block.split("```", 1)[0]
    job = yaml.safe_load(body)
    validate(job)
    assert len(body.splitlines()) <= 12
    names = {f.runtime for f in catalog().fabrics.values()} | {catalog().workloads.rdma_runtime}
    assert job["spec"]["runtimeRef"]["name"] in names


def test_the_docs_list_every_runtime():
    text = (ROOT / "docs" / "training-queue.md").read_text()
    for name in {f.runtime for f in catalog().fabrics.values()} | {
        catalog().workloads.rdma_runtime
    }:
        assert f"`{name}`" in text, name


@pytest.mark.parametrize("stack", ["a4x-prod", "oke-dranet-fabric"])
def test_the_runtimes_fixed_name_objects_are_deleted_before_they_are_replaced(stack):
    plan = planned(stack)
    kinds = ("ComputeDomain", "ResourceClaimTemplate")
    objects = [
        r
        for r in plan.resources
        if r.name.startswith(f"{stack.removesuffix('-fabric')}-training-queue-")
        and r.type.endswith(kinds)
    ]
    assert objects and all(r.delete_before_replace for r in objects)
