"""The training queue on every platform: Kueue and JobSet releases, the Topology, a flavor per GPU
pool, the ClusterQueue with the pools' GPUs, and the LocalQueue in the training namespace."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric import yaml_files
from gpu_fabric.catalog import catalog
from gpu_fabric.workloads import queue_objects
from gpu_fabric.workloads.kueue_config import CHART_VALUES, UPSTREAM, manager_configuration
from gpu_fabric.workloads.queue_objects import UNBOUNDED
from gpu_fabric.workloads.queues import queue_manifests
from offline import engine
from offline.engine import Plan, Registration, manifest
from tests.conftest import (
    DELETE,
    assert_single_rule,
    planned,
    run_stack,
    stack_values,
)
from tests.stacks import APPLYING_STACKS, platform_of, stacks_on
from tests.test_layer_inputs import _build, _refused
from tests.vendored import AICR_RUNTIME, GKE_CRDS, TESTS_UPSTREAM, blobs, git_blob_id

QUEUE_KINDS = {
    "Namespace",
    "Topology",
    "ResourceFlavor",
    "ClusterQueue",
    "LocalQueue",
    "WorkloadPriorityClass",
    "ClusterTrainingRuntime",
}
"""What the training queue adds to a stack's Kubernetes objects (with its fabric's runtime)."""
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2"
RELEASE = "kubernetes:helm.sh/v3:Release"


def kueue_objects(plan: Plan) -> dict[str, list[dict]]:
    """The plan's Kueue objects by kind."""
    by_kind: dict[str, list[dict]] = {}
    for r in plan.resources:
        if r.type.startswith(KUEUE):
            by_kind.setdefault(r.type.rsplit(":", 1)[-1], []).append(manifest(r))
    return by_kind


def release(plan: Plan, name: str) -> Registration:
    (found,) = [r for r in plan.of_type(RELEASE) if r.inputs["name"] == name]
    return found


# --- vendored upstream ---------------------------------------------------------------------------


VENDORED = {UPSTREAM: UPSTREAM / "README.md", TESTS_UPSTREAM: TESTS_UPSTREAM / "README.md"}
"""The training queue's vendored files (its chart values; the CRDs the tests validate against)
and the README that gives each one's project and tag."""


def test_the_vendored_files_are_upstreams_byte_for_byte():
    for directory in VENDORED:
        assert set(directory.rglob("*.yaml")) == set(blobs(directory))
        for path, blob in blobs(directory).items():
            assert git_blob_id(path.read_bytes()) == blob, path


def _vendored_tags() -> dict[Path, tuple[str, str]]:
    """file -> (project, tag), from the vendored files' README tables (a file with no tag, as
    GKE's own CRDs, is left out)."""
    tags = {}
    for directory, readme in VENDORED.items():
        rows = readme.read_text().splitlines()
        cells = [[c.strip().strip("`") for c in row.strip("|").split("|")] for row in rows]
        tags |= {
            directory / c[0]: (c[1], c[2]) for c in cells if len(c) == 4 and c[2].startswith("v")
        }
    return tags


PROMETHEUS_OPERATOR = {"88.5.3": "0.93.1"}
"""kube-prometheus-stack chart -> the prometheus-operator it runs (its Chart.yaml appVersion)."""


def test_every_vendored_file_is_of_the_version_the_catalog_pins():
    """A version bump in the catalog that leaves a vendored CRD or configuration behind fails."""
    pinned = {
        "kubernetes-sigs/kueue": catalog().workloads.kueue.version,
        "kubernetes-sigs/jobset": catalog().workloads.jobset.version,
        "kubeflow/trainer": catalog().workloads.trainer.version,
        # The ComputeDomain CRD is v0.4.0's, read for the catalog's 0.4.1 (README says why).
        "kubernetes-sigs/dra-driver-nvidia-gpu": "0.4.0",
        # The operator kube-prometheus-stack runs (its Chart.yaml appVersion at the pinned
        # chart), and GKE's managed Prometheus CRDs read at a release (GKE serves them).
        "prometheus-operator/prometheus-operator": PROMETHEUS_OPERATOR[
            catalog().health.kube_prometheus_stack.version
        ],
        "GoogleCloudPlatform/prometheus-engine": "0.17.2",
    }
    tags = _vendored_tags()
    untagged = {
        *(TESTS_UPSTREAM / name for name in GKE_CRDS),
        AICR_RUNTIME,
    }
    assert set(tags) == {p for d in VENDORED for p in d.rglob("*.yaml")} - untagged
    for path, (project, tag) in tags.items():
        assert tag == f"v{pinned[project]}", path
    assert catalog().nvidia_dra_driver.compute_domains_version == "0.4.1"


def test_the_configuration_is_the_charts_with_quota_counted_on_what_the_queue_covers():
    chart = yaml_files.load(
        yaml_files.read(CHART_VALUES)["managerConfig"]["controllerManagerConfigYaml"]
    )
    config = manager_configuration(["ml"], {"nvidia.com/gpu": ["gpu.nvidia.com"]})
    added = ("managedJobsNamespaceSelector", "resources")
    assert {k: v for k, v in config.items() if k not in added} == chart
    # Kueue's fail-closed job webhooks act in the training namespace alone.
    assert config["managedJobsNamespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": "ml"}
    }
    assert config["resources"] == {
        "quotaCheckStrategy": "IgnoreUndeclared",
        "deviceClassMappings": [{"name": "nvidia.com/gpu", "deviceClassNames": ["gpu.nvidia.com"]}],
    }
    assert "deviceClassMappings" not in manager_configuration(["ml"], {})["resources"]


# --- every stack that fills a cluster ------------------------------------------------------------


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_every_queue_object_is_valid_against_the_pinned_kueue_crds(stack):
    from tests.test_manifests import validate

    objects = kueue_objects(planned(stack))
    assert {"ClusterQueue", "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass"} <= set(objects)
    if platform_of(stack) == "oke-dranet":
        # No Topology Aware Scheduling over DRA (oke/training_queue.py).
        assert "Topology" not in objects
    # A queued pool's flavor comes with the ProvisioningRequest admission check, whose config
    # it names, and the ClusterQueue's strategy (v1beta2) runs it on that flavor.
    (queue,) = objects["ClusterQueue"]
    checked = queue["spec"].get("admissionChecksStrategy")
    provisioning = {"AdmissionCheck", "ProvisioningRequestConfig"} & set(objects)
    assert provisioning in (set(), {"AdmissionCheck", "ProvisioningRequestConfig"})
    assert bool(checked) == bool(provisioning)
    assert set(objects) <= {
        "ClusterQueue",
        "LocalQueue",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "Topology",
        *provisioning,
    }
    for obj in (o for kind in objects.values() for o in kind):
        validate(obj)


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_kueue_and_jobset_are_the_catalogs_charts_in_their_namespaces(stack):
    plan, pins = planned(stack), catalog().workloads
    for name, pin in (("kueue", pins.kueue), ("jobset", pins.jobset)):
        chart = release(plan, name)
        assert (chart.inputs["chart"], chart.inputs["version"]) == (pin.chart, pin.version)
        assert chart.inputs["namespace"] == pin.namespace and chart.inputs["createNamespace"]
        # Neither waits for the GPU nodes or anything but the cluster's provider; Kueue, where a
        # pool is queued, for the ProvisioningRequest API (queue_objects.PROVISIONING_REQUEST_CRD).
        assert all("-provisioning-request-api" in d for d in chart.dependencies)
        assert bool(chart.dependencies) == (
            name == "kueue" and "AdmissionCheck" in kueue_objects(plan)
        )
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml_files.load(text)["resources"]["quotaCheckStrategy"] == "IgnoreUndeclared"


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_kueue_objects_wait_for_kueues_crds_served_after_its_release(stack):
    plan = planned(stack)
    (gate,) = [
        c for c in plan.of_type("command:local:Command") if "kueue.x-k8s.io" in c.inputs["create"]
    ]
    for crd in queue_objects.KUEUE_CRDS:
        assert f"crd/{crd}" in gate.inputs["create"]
    assert plan.depends_on(gate, release(plan, "kueue"))
    for r in plan.resources:
        if r.type.startswith(KUEUE):
            assert plan.depends_on(r, gate), r.name


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_the_cluster_queue_admits_the_training_namespace_alone_with_every_pools_gpus(stack):
    objects = kueue_objects(planned(stack))
    (queue,) = objects["ClusterQueue"]
    (local,) = objects["LocalQueue"]
    assert local["spec"]["clusterQueue"] == queue["metadata"]["name"]
    namespace = local["metadata"]["namespace"]
    assert queue["spec"]["namespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": namespace}
    }
    (group,) = queue["spec"]["resourceGroups"]
    flavors = {f["metadata"]["name"]: f for f in objects["ResourceFlavor"]}
    assert [f["name"] for f in group["flavors"]] == list(flavors)
    # GPUs with their quota; CPU and memory covered without limit, for pod sets with no GPU.
    assert {"nvidia.com/gpu", "cpu", "memory"} <= set(group["coveredResources"])
    for f in group["flavors"]:
        quota = {r["name"]: r["nominalQuota"] for r in f["resources"]}
        assert (quota["cpu"], quota["memory"]) == (1_000_000, 2**50)
    for flavor in flavors.values():
        assert flavor["spec"]["nodeLabels"] and flavor["spec"]["tolerations"]
    for topology in objects.get("Topology", []):
        for flavor in flavors.values():
            assert flavor["spec"]["topologyName"] == topology["metadata"]["name"]
        assert topology["spec"]["levels"][-1] == {"nodeLabel": "kubernetes.io/hostname"}


def test_a_changed_topology_or_flavor_comes_under_a_new_name_created_before_the_old_goes():
    # Kueue keeps a Topology or flavor in use behind a finalizer: deleting it first would hang.
    before = kueue_objects(planned("a3-prod"))
    after = kueue_objects(
        run_stack({"gpu-fabric:queues": {"topologyLevels": ["kubernetes.io/hostname"]}})
    )
    for kind in ("Topology", "ResourceFlavor"):
        (old,), (new,) = before[kind], after[kind]
        assert old["metadata"]["name"] != new["metadata"]["name"]
    (flavor,) = after["ResourceFlavor"]
    assert flavor["spec"]["topologyName"] == after["Topology"][0]["metadata"]["name"]
    (queue,) = after["ClusterQueue"]
    assert queue["spec"]["resourceGroups"][0]["flavors"][0]["name"] == flavor["metadata"]["name"]
    for r in planned("a3-prod").resources:
        if r.type.startswith(KUEUE):
            assert not r.delete_before_replace and r.replace_on_changes == [], r.name


# --- per platform --------------------------------------------------------------------------------


def pool_of(flavor: str) -> str:
    """The pool a flavor is of: its name without the hash of its spec."""
    return flavor.rsplit("-", 1)[0]


def _quota(plan: Plan) -> dict[str, dict[str, int]]:
    """Pool -> resource -> quota, without the unbounded CPU and memory."""
    (queue,) = kueue_objects(plan)["ClusterQueue"]
    (group,) = queue["spec"]["resourceGroups"]
    return {
        pool_of(f["name"]): {
            r["name"]: r["nominalQuota"] for r in f["resources"] if r["name"] not in UNBOUNDED
        }
        for f in group["flavors"]
    }


def test_gke_a_flavor_per_pool_by_its_node_pool_label_with_its_gpus():
    plan = planned("a3-prod")
    pool = stack_values("a3-prod")["gpu-fabric:gpuPool"]
    flavors = {
        pool_of(f["metadata"]["name"]): f["spec"] for f in kueue_objects(plan)["ResourceFlavor"]
    }
    (topology,) = kueue_objects(plan)["Topology"]
    assert flavors == {
        pool["name"]: {
            "nodeLabels": {"cloud.google.com/gke-nodepool": pool["name"]},
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
            "topologyName": topology["metadata"]["name"],
        }
    }
    assert _quota(plan) == {pool["name"]: {"nvidia.com/gpu": pool["nodeCount"] * 8}}  # 8 H100


def test_gke_two_pools_are_two_flavors_tried_in_order():
    one = stack_values("a3-prod")["gpu-fabric:gpuPool"]
    pools = [{**one, "name": "first", "nodeCount": 2}, {**one, "name": "second", "nodeCount": 1}]
    plan = run_stack({"gpu-fabric:gpuPool": DELETE, "gpu-fabric:gpuPools": pools})
    assert _quota(plan) == {"first": {"nvidia.com/gpu": 16}, "second": {"nvidia.com/gpu": 8}}


@pytest.mark.parametrize("stack", stacks_on("gke"))
def test_gke_topology_is_the_machines_and_the_namespace_admits_the_fabrics_pods(stack):
    from gpu_fabric.gke.config import GkeStackConfig  # noqa: F401 (the platform's model)
    from gpu_fabric.gke.fabrics.by_name import fabric_of
    from tests.conftest import parse_stack

    cfg = parse_stack({}, stack)
    plan = planned(stack)
    # The machine's levels, or without GKE's topology labels where a pool's nodes lack them (no
    # Topology when only the node would be left: config.topology_levels).
    topologies = kueue_objects(plan).get("Topology", [])
    assert [[lv["nodeLabel"] for lv in t["spec"]["levels"]] for t in topologies] == (
        [cfg.topology_levels] if cfg.topology_levels else []
    )
    (namespace,) = [
        manifest(n)
        for n in plan.of_type("kubernetes:core/v1:Namespace")
        if n.name.endswith("-training-queue-namespace")
    ]
    level, reason = fabric_of(cfg.machine).pod_security
    assert namespace["metadata"]["labels"] == {"pod-security.kubernetes.io/enforce": level}
    assert namespace["metadata"]["annotations"]["gpu-fabric/pod-security-reason"] == reason


def test_a4x_topology_has_the_node_pool_as_its_nvlink_domain_level():
    levels = catalog().machines["a4x-highgpu-4g"].topology_levels
    assert (
        levels.index("cloud.google.com/gke-nodepool")
        == levels.index("cloud.google.com/gce-topology-host") - 1
    )


def test_oke_counts_the_claimed_device_classes_and_maps_every_one_its_claims_name():
    plan = planned("oke-dranet-fabric")
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    mappings = {
        m["name"]: m["deviceClassNames"]
        for m in yaml_files.load(text)["resources"]["deviceClassMappings"]
    }
    claimed = {
        request["exactly"]["deviceClassName"]
        for t in plan.of_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
        for request in t.inputs["spec"]["spec"]["devices"]["requests"]
    }
    assert claimed and claimed <= {c for classes in mappings.values() for c in classes}
    shape = catalog().oci_shapes["BM.GPU.B4.8"]
    nodes = stack_values("oke-dranet")["gpu-fabric:gpuNodes"]["count"]
    assert _quota(plan) == {
        "bm-gpu-b4-8": {
            "nvidia.com/gpu": nodes * shape.gpu_count,
            "dra.net/rails": nodes * shape.rail_count,
        }
    }
    assert "Topology" not in kueue_objects(plan)
    (flavor,) = kueue_objects(plan)["ResourceFlavor"]
    assert "topologyName" not in flavor["spec"]


def test_ack_one_flavor_for_the_lingjun_nodes_tolerating_their_taint():
    plan = planned("ack-lingjun-fabric")
    (flavor,) = kueue_objects(plan)["ResourceFlavor"]
    nodes = catalog().ack.lingjun_nodes
    assert flavor["spec"]["nodeLabels"] == nodes.worker_label
    assert flavor["spec"]["tolerations"] == [
        {"key": nodes.taint["key"], "operator": "Exists", "effect": nodes.taint["effect"]}
    ]
    count = stack_values("ack-lingjun")["gpu-fabric:lingjun"]["nodeCount"]
    assert _quota(plan) == {"lingjun": {"nvidia.com/gpu": count * nodes.gpus}}


# --- the stack's settings ------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["a3-prod", "oke-dranet-fabric", "ack-lingjun-fabric"])
def test_disabled_there_is_no_queue_and_nothing_else_changes(stack):
    plan = run_stack({"gpu-fabric:queues": {"enabled": False}}, stack=stack)
    assert [r.name for r in plan.resources if "-training-queue" in r.name] == []
    full = {r.urn for r in run_stack(stack=stack).resources}
    assert {r.urn for r in plan.resources} < full


def test_versions_namespace_queue_and_levels_reach_the_objects():
    plan = run_stack(
        {
            "gpu-fabric:queues": {
                "kueueVersion": "0.19.1",
                "jobsetVersion": "0.11.1",
                "namespace": "ml",
                "localQueue": "gpus",
                "topologyLevels": ["topology.kubernetes.io/zone", "kubernetes.io/hostname"],
            }
        }
    )
    assert release(plan, "kueue").inputs["version"] == "0.19.1"
    assert release(plan, "jobset").inputs["version"] == "0.11.1"
    # Without a mirror, the charts' own images (registry.k8s.io).
    assert "controllerManager" not in release(plan, "kueue").inputs["values"]
    assert release(plan, "jobset").inputs["values"] == {}
    objects = kueue_objects(plan)
    (local,) = objects["LocalQueue"]
    assert local["metadata"] == {"name": "gpus", "namespace": "ml"}
    (queue,) = objects["ClusterQueue"]
    assert queue["spec"]["namespaceSelector"]["matchLabels"] == {
        "kubernetes.io/metadata.name": "ml"
    }
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    selector = yaml_files.load(text)["managedJobsNamespaceSelector"]
    assert selector == queue["spec"]["namespaceSelector"]
    (topology,) = objects["Topology"]
    assert topology["spec"]["levels"] == [
        {"nodeLabel": "topology.kubernetes.io/zone"},
        {"nodeLabel": "kubernetes.io/hostname"},
    ]


@pytest.mark.parametrize("stack", ["a3-prod", "ack-lingjun-fabric"])
def test_a_level_no_gpu_node_carries_is_refused_naming_the_ones_they_carry(stack):
    levels = ["example.com/rack", "kubernetes.io/hostname"]
    assert_single_rule(
        {"gpu-fabric:queues": {"topologyLevels": levels}},
        "gpu-fabric:queues.topologyLevels[0]",
        "example.com/rack",
        "Kueue admits no job to nodes that lack a level's label; name one they carry: "
        "topology.kubernetes.io/region, topology.kubernetes.io/zone, kubernetes.io/hostname",
        stack,
    )


def test_a3_high_pools_without_dense_capacity_get_no_gke_topology():
    """GKE labels A3 High nodes with their topology only when reserved or compactly placed:
    without either, the queue gets no Topology (Kueue would count no node) and a stack that names
    such a level is refused with the fix."""
    sparse = {"gpu-fabric:gpuPool.compactPlacement": False}
    objects = kueue_objects(run_stack(sparse))
    assert "Topology" not in objects
    assert all("topologyName" not in f["spec"] for f in objects["ResourceFlavor"])
    assert "Topology" in kueue_objects(run_stack())
    assert_single_rule(
        {
            **sparse,
            "gpu-fabric:queues": {
                "topologyLevels": ["cloud.google.com/gce-topology-block", "kubernetes.io/hostname"]
            },
        },
        "gpu-fabric:queues.topologyLevels[0]",
        "cloud.google.com/gce-topology-block",
        "pool(s) a3-highgpu are neither, so Kueue would admit no job there; set their "
        "compactPlacement: true or a reservation",
        "a3-prod",
    )


def test_a_mirror_gives_both_charts_their_image_repository_and_keeps_their_tags():
    plan = run_stack(
        {
            "gpu-fabric:queues": {
                "kueueImageRepository": "registry.example.com/mirror/kueue",
                "jobsetImageRepository": "registry.example.com/mirror/jobset",
            }
        }
    )
    kueue = release(plan, "kueue").inputs["values"]
    assert kueue["controllerManager"] == {
        "manager": {"image": {"repository": "registry.example.com/mirror/kueue"}}
    }
    assert "managerConfig" in kueue  # the queue's own Configuration stays
    assert release(plan, "jobset").inputs["values"] == {
        "image": {"repository": "registry.example.com/mirror/jobset"}
    }


@pytest.mark.parametrize(
    ("field", "value", "where", "says"),
    [
        ("kueueVersion", "v0.19.2", "", "without a leading v"),
        ("kueueVersion", "0.18.2", "", "use 0.19.0 or newer"),
        ("jobsetVersion", "0.12", "", "not a chart version"),
        ("namespace", "Training", "", "not a DNS label"),
        ("namespace", "default", "", "a namespace the cluster, GKE or another part of the stack"),
        ("namespace", "kueue-system", "", "a namespace the cluster, GKE or another part"),
        # Trainer's chart, the NVIDIA DRA driver's, OKE's fabric layer, GKE's own.
        ("namespace", "kubeflow-system", "", "a namespace the cluster, GKE or another part"),
        ("namespace", "dra-driver-nvidia-gpu", "", "a namespace the cluster, GKE or another"),
        ("namespace", "rdma-dranet", "", "a namespace the cluster, GKE or another part"),
        ("namespace", "gmp-system", "", "a namespace the cluster, GKE or another part"),
        ("namespace", "gke-managed-system", "", "a namespace the cluster, GKE or another part"),
        ("namespace", "kube-gpu", "", "kube-* is reserved"),
        ("localQueue", "-q", "", "not a DNS label"),
        ("kueueImageRepository", "registry.example.com/kueue:v0.19.2", "", "the repository only"),
        # Its fix names no tag: a repository key refuses one (the fix must not loop).
        ("jobsetImageRepository", "Registry Example", "", "write REGISTRY/PATH without a tag"),
        ("topologyLevels", ["kubernetes.io/hostname", "example.com/rack"], "", "only be the last"),
        ("topologyLevels", ["example.com/rack", "example.com/rack"], "[1]", "keep one"),
        ("topologyLevels", [], "", "1 to 16 levels"),
        ("topologyLevels", [f"example.com/l{i}" for i in range(17)], "", "1 to 16 levels"),
        ("topologyLevels", ["example.com/a/b"], "[0]", "not a node label key"),
        ("topologyLevels", ["Example.com/rack"], "[0]", "not a node label key"),
    ],
)
def test_a_bad_queue_setting_is_refused_naming_it(field, value, where, says):
    key = f"gpu-fabric:queues.{field}{where}"
    shown = value[int(where[1:-1])] if where else value
    assert_single_rule({f"gpu-fabric:queues.{field}": value}, key, shown, says, "a3-prod")


# --- the hosted layers ---------------------------------------------------------------------------

GOOD_QUEUE = {
    "namespace": "training",
    "local_queue": "training",
    "pod_security_level": "privileged",
    "pod_security_reason": "host paths",
    "topology_levels": ["kubernetes.io/hostname"],
    "pools": [
        {
            "name": "gpu",
            "node_labels": {"cloud.google.com/gke-nodepool": "gpu"},
            "tolerations": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            "quota": {"nvidia.com/gpu": 16},
        }
    ],
    "kueue_version": "0.19.2",
    "jobset_version": "0.12.0",
}


RUNTIME = {
    "name": "torch-distributed-rdma",
    "pod_template": {"metadata": {}, "spec": {"containers": [{"name": "node", "image": "i:1"}]}},
}


def test_a_hosted_fabric_layer_builds_the_queue_it_is_given():
    plan = _build("GkeFabric", (("training_queue",), GOOD_QUEUE))
    assert sorted(kueue_objects(plan)) == [
        "ClusterQueue",
        "LocalQueue",
        "ResourceFlavor",
        "Topology",
        "WorkloadPriorityClass",
    ]
    with_runtime = {**GOOD_QUEUE, "runtime": RUNTIME, "trainer_version": "2.3.0"}
    plan = _build("GkeFabric", (("training_queue",), with_runtime))
    (runtime,) = plan.of_type("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime")
    assert runtime.inputs["metadata"]["name"] == "torch-distributed-rdma"
    assert release(plan, "kubeflow-trainer").inputs["version"] == "2.3.0"


@pytest.mark.parametrize(
    ("change", "path", "says"),
    [
        (
            (("pools", 0, "quota", "nvidia.com/gpu"), -8),
            'trainingQueue.pools[0].quota["nvidia.com/gpu"]',
            "cannot be negative",
        ),
        ((("pools",), []), "trainingQueue.pools", "give 1 to 16 GPU pools"),
        ((("pod_security_level",), "open"), "trainingQueue.podSecurityLevel", "fix the value"),
        (
            (("topology_levels",), ["kubernetes.io/hostname", "a/b"]),
            "trainingQueue.topologyLevels",
            "only be the last",
        ),
        ((("pools", 0, "name"), "GPU"), "trainingQueue.pools[0].name", "not a DNS label"),
        (
            (("runtime",), {**RUNTIME, "topology": {"level": "a/b", "required": True}}),
            "trainingQueue.runtime.topology.level",
            "name one of topologyLevels (kubernetes.io/hostname)",
        ),
        (
            (("runtime",), {**RUNTIME, "name": "Torch"}),
            "trainingQueue.runtime.name",
            "not a DNS label",
        ),
        (
            (("team_namespaces",), ["training"]),
            "trainingQueue.teamNamespaces",
            "a namespace of its own",
        ),
        (
            (("team_namespaces",), ["llm", "llm"]),
            "trainingQueue.teamNamespaces",
            "a namespace of its own",
        ),
        (
            (("team_namespaces",), ["kube-system"]),
            "trainingQueue.teamNamespaces[0]",
            "is a namespace the cluster",
        ),
        (
            (("topology_levels",), ["example.com/rack", "example.com/rack"]),
            "trainingQueue.topologyLevels",
            "remove the repeated one",
        ),
    ],
)
def test_a_hosted_fabric_layer_refuses_a_bad_queue_by_property_path(change, path, says):
    import copy

    queue = copy.deepcopy(GOOD_QUEUE)
    node = queue
    keys, value = change
    for part in keys[:-1]:
        node = node[part]
    node[keys[-1]] = value
    _, reasons = _refused(lambda: _build("GkeFabric", (("training_queue",), queue)))
    assert list(reasons) == [path]
    assert says in reasons[path]


def test_a_hosted_ack_fabric_layer_needs_the_kubeconfig_and_cluster_for_the_queue():
    _, reasons = _refused(lambda: _build("AckFabric", (("training_queue",), GOOD_QUEUE)))
    assert sorted(reasons) == ["clusterId", "kubeconfig"]
    assert "required with trainingQueue" in reasons["kubeconfig"]


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_make_verify_expects_the_queue_the_fabric_layer_builds(stack):
    from gpu_fabric.registry import spec_of
    from gpu_fabric.stack_config import parse_with_cloud_stack_file

    cfg = parse_with_cloud_stack_file(engine.stack_config(stack), stack)
    queue = spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)
    objects = kueue_objects(planned(stack))
    assert objects["ResourceFlavor"] == list(queue_manifests(queue).flavors.values())
    (local,) = objects["LocalQueue"]
    assert local["metadata"] == {"name": queue["local_queue"], "namespace": queue["namespace"]}


def test_oke_refuses_a_topology_while_kueue_does_not_count_dra_devices_in_it():
    levels = catalog().oke.topology_levels
    assert_single_rule(
        {"gpu-fabric:queues": {"topologyLevels": levels}},
        "gpu-fabric:queues.topologyLevels",
        levels,
        'Kueue does not count DRA devices in topology-aware placement (its docs: "No DRA + '
        'Topology Aware Scheduling")',
        "oke-dranet-fabric",
    )


@pytest.mark.parametrize(
    ("queues", "key", "value"),
    [
        ({"trainerVersion": "2.3.0"}, "gpu-fabric:queues.trainerVersion", "2.3.0"),
        ({"kueueVersion": "0.20.0"}, "gpu-fabric:queues.kueueVersion", "0.20.0"),
    ],
)
def test_a_trainer_its_kueue_is_not_built_against_is_refused(queues, key, value):
    """Trainer 2.2 and 2.3 are not API compatible; Kueue 0.19 builds against 2.2, 0.20 on 2.3."""
    assert_single_rule(
        {"gpu-fabric:queues": queues},
        key,
        value,
        "pick a pair: Kueue 0.19 with Trainer 2.2, Kueue 0.20 with Trainer 2.3",
        "a3-prod",
    )
    both = {"kueueVersion": "0.20.0", "trainerVersion": "2.3.0"}
    plan = run_stack({"gpu-fabric:queues": both})
    assert release(plan, "kubeflow-trainer").inputs["version"] == "2.3.0"
    external = run_stack({"gpu-fabric:queues": {"kueueVersion": "0.20.0", "trainer": "external"}})
    assert not [r for r in external.helm_releases() if r.inputs["name"] == "kubeflow-trainer"]


@pytest.mark.parametrize(
    ("queues", "key", "value", "says", "stack"),
    [
        (
            {"enabled": False, "namespace": "ml"},
            "gpu-fabric:queues.namespace",
            "ml",
            "has no effect with gpu-fabric:queues.enabled: false",
            "a3-prod",
        ),
        (
            {"trainer": "external", "trainerVersion": "2.2.1"},
            "gpu-fabric:queues.trainerVersion",
            "2.2.1",
            "has no effect with gpu-fabric:queues.trainer: external",
            "a3-prod",
        ),
        (
            {"topologyLevel": "kubernetes.io/hostname", "topologyRequired": True},
            "gpu-fabric:queues.topologyRequired",
            True,
            "each runtime pod takes a whole node, so no job of more than one node is ever admitted",
            "a3-prod",
        ),
        (
            # ACK's Topology is the node alone: requiring it is requiring one host.
            {"topologyRequired": True},
            "gpu-fabric:queues.topologyRequired",
            True,
            "require a wider level (queues.topologyLevel), or prefer",
            "ack-lingjun-fabric",
        ),
    ],
)
def test_a_queue_key_that_cannot_act_is_refused(queues, key, value, says, stack):
    assert_single_rule({"gpu-fabric:queues": queues}, key, value, says, stack)


def test_the_trainer_crd_gate_runs_again_on_a_new_trainer():
    """A Helm upgrade across Trainer 2.3.0's move of its CRDs into templates leaves none: the
    gate fails that update, naming them, instead of the stack going on without them."""
    gate = next(r for r in run_stack().of_type("command:local:Command") if "trainer-crds" in r.name)
    assert catalog().workloads.trainer.version in gate.inputs["triggers"]


# --- teams: a training namespace each ------------------------------------------------------------

TEAMS = {"teams": [{"namespace": "vision"}, {"namespace": "llm"}]}


def with_queues(stack: str, changes: dict) -> dict:
    """`changes` to the stack's `gpu-fabric:queues` (a split pair's from its fabric stack)."""
    from tests.conftest import pair_values

    return {"gpu-fabric:queues": {**pair_values(stack).get("gpu-fabric:queues", {}), **changes}}


def named(plan: Plan, kind: str) -> dict[str, dict]:
    """The plan's objects of `kind` by namespace/name."""
    found = {}
    for r in plan.resources:
        if r.type.rsplit(":", 1)[-1] == kind and r.type.startswith("kubernetes:"):
            body = manifest(r)
            meta = body["metadata"]
            found[f"{meta.get('namespace', '')}/{meta['name']}"] = body
    return found


@pytest.mark.parametrize("stack", APPLYING_STACKS)
def test_each_team_gets_its_namespace_local_queue_and_the_runtimes_objects(stack):
    """Each team has its namespace, LocalQueue and ClusterQueue; the ClusterQueues share the
    pools' GPUs, which their Cohort holds, by fair sharing; each namespace has what the runtime's
    pods name (A4X: a ComputeDomain of its own, so two teams' jobs share no NVLink domain; OKE:
    the claim templates)."""
    base = stack.removesuffix("-fabric") if stack.endswith("-fabric") else stack
    plan = run_stack(with_queues(base, TEAMS), base)
    one = run_stack(stack=base)
    queues = {q["metadata"]["name"]: q for q in kueue_objects(plan)["ClusterQueue"]}
    (single,) = kueue_objects(one)["ClusterQueue"]
    (cohort,) = kueue_objects(plan)["Cohort"]
    # The Cohort holds what the one queue held; each team's queue borrows all it uses.
    assert cohort["spec"]["resourceGroups"] == single["spec"]["resourceGroups"]
    for team, name in (("vision", "gpu-fabric"), ("llm", "gpu-fabric-llm")):
        spec = queues[name]["spec"]
        assert spec["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": team}}
        assert spec["cohortName"] == cohort["metadata"]["name"]
        assert spec["preemption"] == {
            "withinClusterQueue": "LowerPriority",
            "reclaimWithinCohort": "Any",
        }
        gpus = [
            r["nominalQuota"]
            for g in spec["resourceGroups"]
            for f in g["flavors"]
            for r in f["resources"]
            if r["name"] not in ("cpu", "memory")  # unbounded in every queue
        ]
        assert set(gpus) == {0}
        (lq,) = [q for q in kueue_objects(plan)["LocalQueue"] if q["metadata"]["namespace"] == team]
        assert lq["spec"]["clusterQueue"] == name
    # Kueue manages (suspends and queues) jobs of every team's namespace: one it left out would
    # run its jobs at once, outside the quota; and shares the Cohort by the teams' weights.
    both = {
        "matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["vision", "llm"]}
        ]
    }
    values = release(plan, "kueue").inputs["values"]["managerConfig"]
    configuration = yaml_files.load(values["controllerManagerConfigYaml"])
    assert configuration["managedJobsNamespaceSelector"] == both
    assert "fairSharing" in configuration
    namespaces = {n.split("/")[1]: body for n, body in named(plan, "Namespace").items()}
    training = [b for b in named(one, "Namespace").values() if b["metadata"]["name"] == "training"]
    for team in ("vision", "llm"):
        assert namespaces[team]["metadata"]["labels"] == training[0]["metadata"]["labels"]
    # What the runtime's pods name in their own namespace is in every team's.
    for kind in ("ComputeDomain", "ResourceClaimTemplate"):
        in_training = {n.split("/")[1] for n in named(one, kind) if n.startswith("training/")}
        for team in ("vision", "llm"):
            in_team = {n.split("/")[1] for n in named(plan, kind) if n.startswith(f"{team}/")}
            assert in_team == in_training, (kind, team)


def test_a_first_team_named_as_the_namespace_keeps_the_stacks_state():
    """Listing the training namespace as the first team moves nothing: same URNs, same objects;
    a second team only adds."""
    one = run_stack(stack="a4x-prod")
    first = run_stack(with_queues("a4x-prod", {"teams": [{"namespace": "training"}]}), "a4x-prod")
    assert {r.urn: r.inputs for r in first.resources} == {r.urn: r.inputs for r in one.resources}
    two = run_stack(
        with_queues("a4x-prod", {"teams": [{"namespace": "training"}, {"namespace": "llm"}]}),
        "a4x-prod",
    )
    added = {r.urn for r in two.resources} - {r.urn for r in one.resources}
    assert sorted(u.rsplit("::", 1)[1] for u in added) == [
        "a4x-prod-training-queue-cluster-queue-llm",
        "a4x-prod-training-queue-cohort",
        "a4x-prod-training-queue-gpu-fabric-nvlink-llm",
        "a4x-prod-training-queue-local-queue-llm",
        "a4x-prod-training-queue-namespace-llm",
    ]


def test_the_namespace_key_beside_teams_is_refused():
    assert_single_rule(
        with_queues("a3-prod", {"namespace": "training", **TEAMS}),
        "gpu-fabric:queues.namespace",
        "training",
        "the first team's namespace takes its place",
        "a3-prod",
    )


def test_two_teams_in_one_namespace_are_refused():
    assert_single_rule(
        with_queues("a3-prod", {"teams": [{"namespace": "llm"}, {"namespace": "llm"}]}),
        "gpu-fabric:queues.teams[1]",
        None,
        "repeats item [0]",
        "a3-prod",
    )


def test_no_team_is_refused():
    assert_single_rule(
        with_queues("a3-prod", {"teams": []}),
        "gpu-fabric:queues.teams",
        [],
        "must not be an empty list",
        "a3-prod",
    )


def test_a_team_namespace_another_owner_makes_is_refused():
    assert_single_rule(
        with_queues("a3-prod", {"teams": [{"namespace": "kueue-system"}]}),
        "gpu-fabric:queues.teams[0].namespace",
        "kueue-system",
        "another part of the stack creates",
        "a3-prod",
    )
