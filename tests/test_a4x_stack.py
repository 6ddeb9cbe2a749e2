"""The a4x-prod stack under mocks: GB200 nodes, the gVNIC + RDMA VPCs, gIB and Hyperdisk."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.fabrics import gib, nccl_installer, nvlink
from gpu_fabric.gke.fabrics.gib import ARM64_TOLERATION
from gpu_fabric.workload_security import (
    RUNTIME_REASONS,
    UPSTREAM_WAIVED,
    secure_workload,
    waivers,
    without_waivers,
)
from offline.engine import Plan, manifest
from tests.conftest import planned, project_of, run_stack
from tests.test_manifests import UPSTREAM, validate
from tests.vendored import AICR_RUNTIME

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
NODE_POOL = "gcp:container/nodePool:NodePool"
PARAM_SET = "kubernetes:networking.gke.io/v1:GKENetworkParamSet"
K8S_NETWORK = "kubernetes:networking.gke.io/v1:Network"
RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"
HELM = "kubernetes:helm.sh/v3:Release"
NETWORK_NAMES = ["gvnic-1", "rdma-0", "rdma-1", "rdma-2", "rdma-3"]


@pytest.fixture(scope="module")
def a4x_plan() -> Plan:
    return planned("a4x-prod")


def gpu_pool(plan: Plan):
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"]
    return pool


def test_gvnic_vpc_and_one_rdma_vpc_with_the_roce_profile(a4x_plan):
    networks = {n.inputs["name"]: n.inputs for n in a4x_plan.of_type(NETWORK)}
    assert networks["a4x-prod-gvnic"]["mtu"] == 8896
    assert "networkProfile" not in networks["a4x-prod-gvnic"]
    rdma = networks["a4x-prod-rdma"]
    assert rdma["mtu"] == 8896
    assert rdma["networkProfile"] == (
        f"projects/{project_of('a4x-prod')}/global/networkProfiles/us-central1-a-vpc-roce"
    )
    subnets = sorted(
        (s.inputs for s in a4x_plan.of_type(SUBNET) if "rdma" in s.inputs["name"]),
        key=lambda s: s["name"],
    )
    assert [(s["name"], s["ipCidrRange"], s["region"]) for s in subnets] == [
        (f"a4x-prod-rdma-sub-{i}", f"192.168.{i + 1}.0/24", "us-central1") for i in range(4)
    ]
    assert all(s["network"].endswith("/networks/a4x-prod-rdma") for s in subnets)


def test_only_the_gvnic_vpc_has_a_firewall_rule(a4x_plan):
    (rule,) = a4x_plan.of_type(FIREWALL)
    assert rule.inputs["name"] == "a4x-prod-gvnic-internal"
    assert rule.inputs["network"].endswith("/networks/a4x-prod-gvnic")
    assert rule.inputs["sourceRanges"] == ["192.168.0.0/24"]


def test_cluster_is_multi_networking_on_1_34(a4x_plan):
    (cluster,) = a4x_plan.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["enableMultiNetworking"] is True
    assert cluster.inputs["datapathProvider"] == "ADVANCED_DATAPATH"
    assert cluster.inputs["minMasterVersion"].startswith("1.34.")


def test_a4x_node_pool(a4x_plan):
    pool = gpu_pool(a4x_plan)
    i = pool.inputs
    node = i["nodeConfig"]
    assert node["machineType"] == "a4x-highgpu-4g"
    assert node["guestAccelerators"] == [
        {
            "type": "nvidia-gb200",
            "count": 4,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"},
        }
    ]
    assert node["gvnic"] == {"enabled": True}
    assert node["bootDisk"] == {"diskType": "hyperdisk-balanced", "sizeGb": 200}
    assert "labels" not in node
    assert "ephemeralStorageLocalSsdConfig" not in node
    assert i["networkConfig"]["additionalNodeNetworkConfigs"] == [
        {"network": "a4x-prod-gvnic", "subnetwork": "a4x-prod-gvnic"},
        *[{"network": "a4x-prod-rdma", "subnetwork": f"a4x-prod-rdma-sub-{n}"} for n in range(4)],
    ]
    assert "acceleratorNetworkProfile" not in i["networkConfig"]
    assert i["placementPolicy"] == {"type": "COMPACT", "policyName": "a4x-prod-a4x-highgpu-compact"}
    assert node["reservationAffinity"]["values"] == ["a4x-reservation"]
    # In the Regular channel (GKE requires node auto-upgrade there; the maintenance exclusion
    # holds minor and node upgrades back until the minor's end of support).
    assert i["management"]["autoUpgrade"] is True
    (policy,) = a4x_plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["workloadPolicy"] == {
        "type": "HIGH_THROUGHPUT",
        "acceleratorTopology": "1x72",
    }
    assert "groupPlacementPolicy" not in policy.inputs


def test_bundle_driver_mode():
    plan = run_stack({"gpu-fabric:gpuPool.driverInstall": "bundle"}, stack="a4x-prod")
    node = gpu_pool(plan).inputs["nodeConfig"]
    assert node["guestAccelerators"][0]["gpuDriverInstallationConfig"] == {
        "gpuDriverVersion": "INSTALLATION_DISABLED"
    }
    assert node["labels"] == {"gke-no-default-nvidia-gpu-device-plugin": "true"}


def test_fixed_name_network_objects(a4x_plan):
    param_sets = {
        p.inputs["metadata"]["name"]: p.inputs["spec"] for p in a4x_plan.of_type(PARAM_SET)
    }
    assert param_sets == {
        "gvnic-1": {
            "vpc": "a4x-prod-gvnic",
            "vpcSubnet": "a4x-prod-gvnic",
            "deviceMode": "NetDevice",
        },
        **{
            f"rdma-{i}": {
                "vpc": "a4x-prod-rdma",
                "vpcSubnet": f"a4x-prod-rdma-sub-{i}",
                "deviceMode": "RDMA",
            }
            for i in range(4)
        },
    }
    networks = {
        n.inputs["metadata"]["name"]: n.inputs["spec"] for n in a4x_plan.of_type(K8S_NETWORK)
    }
    assert sorted(networks) == NETWORK_NAMES
    for name, spec in networks.items():
        assert spec == {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": name,
            },
        }
    (gate,) = [g for g in a4x_plan.of_type("command:local:Command") if "networks" in g.name]
    for obj in a4x_plan.of_type(PARAM_SET) + a4x_plan.of_type(K8S_NETWORK):
        assert gate.urn in obj.dependencies


def test_gib_installer_is_upstream_but_for_the_catalog_images(a4x_plan):
    (daemon_set,) = [manifest(r) for r in a4x_plan.of_type("kubernetes:apps/v1:DaemonSet")]
    upstream = yaml.safe_load((UPSTREAM / "nccl-rdma-installer-a4x.yaml").read_text())
    pod = upstream["spec"]["template"]["spec"]
    pod["initContainers"][0]["image"] = catalog().images.gib.installer
    pod["containers"][0]["image"] = catalog().images.pause
    upstream["metadata"]["annotations"] = {nccl_installer.SKIP_AWAIT: "true"}
    assert without_waivers(daemon_set) == upstream
    assert set(waivers(daemon_set)) == UPSTREAM_WAIVED["nccl-rdma-installer"]
    assert daemon_set["metadata"]["labels"] == {"k8s-app": "nccl-rdma-installer"}
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"] == [
        {"key": "cloud.google.com/gke-accelerator", "operator": "In", "values": ["nvidia-gb200"]},
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
    ]
    machine = catalog().machines["a4x-highgpu-4g"]
    assert nccl_installer.installer_file(machine).name == "nccl-rdma-installer-a4x.yaml"


def test_hyperdisk_storage_class_is_not_the_default_unless_asked(a4x_plan):
    (storage_class,) = a4x_plan.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    obj = manifest(storage_class)
    assert obj["metadata"] == {"name": "hyperdisk-balanced"}
    assert obj["provisioner"] == "pd.csi.storage.gke.io"
    assert obj["parameters"] == {"type": "hyperdisk-balanced"}
    assert obj["volumeBindingMode"] == "WaitForFirstConsumer"
    assert a4x_plan.of_type("kubernetes:storage.k8s.io/v1:StorageClassPatch") == []

    plan = run_stack(
        {"gpu-fabric:storageClass": {"name": "hyperdisk-balanced", "isDefault": True}},
        stack="a4x-prod",
    )
    (storage_class,) = plan.of_type("kubernetes:storage.k8s.io/v1:StorageClass")
    assert storage_class.inputs["metadata"]["annotations"] == {
        "storageclass.kubernetes.io/is-default-class": "true"
    }
    (patch,) = plan.of_type("kubernetes:storage.k8s.io/v1:StorageClassPatch")
    assert patch.inputs["metadata"] == {
        "name": "standard-rwo",
        "annotations": {
            "storageclass.kubernetes.io/is-default-class": "false",
            "pulumi.com/patchForce": "true",
        },
    }


def test_every_a4x_object_is_valid_and_on_the_cluster_provider(a4x_plan):
    (provider,) = a4x_plan.of_type("pulumi:providers:kubernetes")
    objects = a4x_plan.kubernetes_objects()
    assert {o.provider_urn for o in objects} == {provider.urn}
    for obj in objects:
        validate(manifest(obj))


def test_nothing_waits_needlessly(a4x_plan):
    pool = gpu_pool(a4x_plan)
    for obj in a4x_plan.kubernetes_objects() + a4x_plan.of_type("command:local:Command"):
        assert not a4x_plan.depends_on(pool, obj), obj.name
    (cluster,) = a4x_plan.of_type("gcp:container/cluster:Cluster")
    vpc_resources = [r for r in a4x_plan.resources if "$gpu-fabric:gcp:GpuVpc::" in r.parent]
    assert len(vpc_resources) == 8  # gVNIC: network, subnet, firewall; RDMA: network, 4 subnets
    for resource in vpc_resources:
        assert not a4x_plan.depends_on(resource, cluster)


def test_training_runtime_waits_for_trainer_and_its_crds_only(a4x_plan):
    (runtime,) = a4x_plan.of_type(RUNTIME)
    (gate,) = [g for g in a4x_plan.of_type("command:local:Command") if "trainer-crds" in g.name]
    assert "crd/clustertrainingruntimes.trainer.kubeflow.org" in gate.inputs["create"]
    (trainer,) = [r for r in a4x_plan.of_type(HELM) if r.inputs["name"] == "kubeflow-trainer"]
    assert a4x_plan.depends_on(runtime, gate) and a4x_plan.depends_on(gate, trainer)
    assert trainer.inputs["values"] == {"jobset": {"install": False}}
    assert not a4x_plan.depends_on(runtime, gpu_pool(a4x_plan))


def test_training_runtime_keeps_the_state_of_the_earlier_runtime_component(a4x_plan):
    (runtime,) = a4x_plan.of_type(RUNTIME)
    assert runtime.aliases == [
        "urn:pulumi:a4x-prod::gpu-fabric::gpu-fabric:gke:TrainingRuntime$"
        f"{RUNTIME}::a4x-prod-torch-distributed-rdma"
    ]


def _rendered_reference(tolerations: list[dict]) -> dict:
    """AICR's Helm template with `acceleratedTolerations` set and no node selector."""
    lines, skipping = [], False
    for line in AICR_RUNTIME.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("{{- with"):
            skipping = "acceleratedNodeSelector" in stripped
            if not skipping:
                indent = line[: len(line) - len(line.lstrip())]
                lines.append(f"{indent}tolerations: {json.dumps(tolerations)}")
                skipping = True
            continue
        if stripped.startswith("{{- end"):
            skipping = False
            continue
        if stripped.startswith("{{") or skipping:
            continue
        lines.append(line)
    return yaml.safe_load("\n".join(lines))


def test_training_runtime_is_aicrs_with_the_queue_and_nvlink_added(a4x_plan):
    (runtime,) = a4x_plan.of_type(RUNTIME)
    ours = manifest(runtime)
    reference = _rendered_reference([ARM64_TOLERATION])
    del reference["metadata"]["annotations"]  # Helm hook annotations: not a Helm release here
    # What the queue adds: one node unless the job says more, Kueue's placement in one NVLink
    # domain (a node pool), the ComputeDomain channel; and the secure defaults of every pod.
    reference["spec"]["mlPolicy"]["numNodes"] = 1
    pod = reference["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]
    pod["template"]["metadata"]["annotations"]["kueue.x-k8s.io/podset-preferred-topology"] = (
        "cloud.google.com/gke-nodepool"
    )
    pod["template"] = nvlink.with_compute_domain(pod["template"])
    # The guide's tuning profile, for a job whose command is a bash script (gib.GIB_LAYOUTS).
    (node_container,) = pod["template"]["spec"]["containers"]
    # The catalog's multi-arch image with RDMA user space, where AICR's is amd64 only.
    node_container["image"] = catalog().images.training_runtime.reference
    # GKE's A4X doc's paths: the host's directories at /usr/local (where the profile script the
    # installer lays down points), where AICR mounts the host paths as they are.
    for env in node_container["env"]:
        if env["name"] == "LD_LIBRARY_PATH":
            env["value"] = "/usr/local/nvidia/lib64"
    node_container["env"].append(
        {"name": "BASH_ENV", "value": "/usr/local/gib/scripts/set_nccl_env.sh"}
    )
    renamed = {"nvidia-host": "library-dir-host", "gib-host": "gib"}
    mounted_at = {"library-dir-host": "/usr/local/nvidia", "gib": "/usr/local/gib"}
    node_container["volumeMounts"] = [
        {"name": renamed[m["name"]], "mountPath": mounted_at[renamed[m["name"]]]}
        if m["name"] in renamed
        else m
        for m in node_container["volumeMounts"]
    ]
    pod["template"]["spec"]["volumes"] = [
        {**v, "name": renamed.get(v["name"], v["name"])} for v in pod["template"]["spec"]["volumes"]
    ]
    assert ours == secure_workload(reference, default_size="none", reasons_for=RUNTIME_REASONS)
    (node,) = ours["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"][
        "spec"
    ]["containers"]
    assert set(node["resources"]["limits"]) == {"nvidia.com/gpu"}
    assert waivers(ours)["CKV_K8S_13"] == RUNTIME_REASONS["CKV_K8S_13"]


def test_nvlink_domains_come_with_owned_installers_and_their_channel_is_queued(a4x_plan):
    (driver,) = [r for r in a4x_plan.of_type(HELM) if r.inputs["name"] == "dra-driver-nvidia-gpu"]
    values = driver.inputs["values"]
    assert values["resources"] == {"gpus": {"enabled": False}, "computeDomains": {"enabled": True}}
    assert values["nvidiaDriverRoot"] == "/home/kubernetes/bin/nvidia"
    (domain,) = a4x_plan.of_type("kubernetes:resource.nvidia.com/v1beta1:ComputeDomain")
    assert domain.inputs["spec"]["channel"]["resourceClaimTemplate"]["name"] == (
        nvlink.CHANNEL_TEMPLATE
    )
    assert a4x_plan.depends_on(domain, driver)
    external = run_stack({"gpu-fabric:installer": {"owner": "external"}}, stack="a4x-prod")
    assert not [r for r in external.of_type(HELM) if r.inputs["name"] == "dra-driver-nvidia-gpu"]
    assert not external.of_type("kubernetes:resource.nvidia.com/v1beta1:ComputeDomain")
    (runtime,) = external.of_type(RUNTIME)
    assert "resourceClaims" not in json.dumps(runtime.inputs)


# --- with_gib ----------------------------------------------------------------------------------


def trainer_template() -> dict:
    return {
        "metadata": {"labels": {"app": "t"}},
        "spec": {"containers": [{"name": "trainer", "image": "my/trainer:1"}]},
    }


def test_with_gib_wires_the_seed_fields():
    original = trainer_template()
    template = gib.with_gib(original, NETWORK_NAMES, 4, arch="arm64")
    assert original == trainer_template()
    annotations = template["metadata"]["annotations"]
    assert annotations["networking.gke.io/default-interface"] == "eth0"
    assert json.loads(annotations["networking.gke.io/interfaces"]) == [
        {"interfaceName": "eth0", "network": "default"},
        {"interfaceName": "eth1", "network": "gvnic-1"},
        *[{"interfaceName": f"eth{i + 2}", "network": f"rdma-{i}"} for i in range(4)],
    ]
    (container,) = template["spec"]["containers"]
    assert container["resources"] == {
        "limits": {"nvidia.com/gpu": "4"},
        "requests": {"nvidia.com/gpu": "4"},
    }
    assert container["securityContext"] == {"capabilities": {"add": ["IPC_LOCK"]}}
    # GKE's A4X doc: the host's directories at /usr/local, as the profile script expects.
    assert {e["name"]: e["value"] for e in container["env"]} == {
        "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64",
        "NCCL_NET": "gIB",
        "NCCL_SOCKET_IFNAME": "eth0",
        # A container with no command yet (a runtime's) sources the guide's profile through bash.
        "BASH_ENV": "/usr/local/gib/scripts/set_nccl_env.sh",
    }
    assert {m["name"]: m["mountPath"] for m in container["volumeMounts"]} == {
        "dshm": "/dev/shm",
        "library-dir-host": "/usr/local/nvidia",
        "gib": "/usr/local/gib",
    }
    volumes = {v["name"]: v for v in template["spec"]["volumes"]}
    assert volumes["gib"] == {"name": "gib", "hostPath": {"path": "/home/kubernetes/bin/gib"}}
    assert volumes["library-dir-host"] == {
        "name": "library-dir-host",
        "hostPath": {"path": "/home/kubernetes/bin/nvidia"},
    }
    assert template["spec"]["tolerations"] == [
        {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}
    ]
    validate(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "t", **template["metadata"]},
            "spec": template["spec"],
        }
    )


def test_with_gib_is_idempotent_on_its_own_fields():
    once = gib.with_gib(trainer_template(), NETWORK_NAMES, 4, arch="arm64")
    assert gib.with_gib(once, NETWORK_NAMES, 4, arch="arm64") == once


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda t: t["spec"]["containers"][0].update(
                resources={"limits": {"nvidia.com/gpu": 2}}
            ),
            "take all 4 GPUs",
        ),
        (
            lambda t: t["spec"]["containers"].append(
                {"name": "side", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1}}}
            ),
            "one container takes all 4",
        ),
        (
            lambda t: t["metadata"].update(annotations={"networking.gke.io/interfaces": "[]"}),
            "annotation networking.gke.io/interfaces",
        ),
        (
            lambda t: t["spec"]["containers"][0].update(
                env=[{"name": "NCCL_NET", "value": "Socket"}]
            ),
            "NCCL_NET",
        ),
        (lambda t: t["spec"].update(volumes=[{"name": "dshm", "emptyDir": {}}]), "'dshm'"),
        (lambda t: t["spec"].update(containers=[]), "no containers"),
    ],
)
def test_with_gib_refuses_to_overwrite(change, message):
    template = copy.deepcopy(trainer_template())
    change(template)
    with pytest.raises(ValueError, match=message):
        gib.with_gib(template, NETWORK_NAMES, 4, arch="arm64")


def test_with_gib_wires_the_first_container_only():
    template = trainer_template()
    template["spec"]["containers"].append({"name": "sidecar", "image": "s"})
    wired = gib.with_gib(template, NETWORK_NAMES, 4, arch="arm64", container="trainer")
    trainer, sidecar = wired["spec"]["containers"]
    assert "resources" not in sidecar and trainer["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    # Only the pod's first container gets the RDMA devices: another one is refused.
    template["spec"]["containers"].reverse()
    with pytest.raises(ValueError, match="not the pod's first container"):
        gib.with_gib(template, NETWORK_NAMES, 4, arch="arm64", container="trainer")
    with pytest.raises(ValueError, match="no container named"):
        gib.with_gib(template, NETWORK_NAMES, 4, arch="arm64", container="nope")


def test_with_gib_wants_the_nodes_architecture_and_names_the_choices():
    """No default: the amd64 and arm64 layouts mount different paths."""
    with pytest.raises(TypeError, match="arch"):
        gib.with_gib(trainer_template(), NETWORK_NAMES, 4)  # type: ignore[call-arg]
    with pytest.raises(
        ValueError, match=r"arch 'x86_64' has no gIB layout; use one of \['amd64', 'arm64'\]"
    ):
        gib.with_gib(trainer_template(), NETWORK_NAMES, 4, arch="x86_64")
