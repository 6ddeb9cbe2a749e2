"""The ack-lingjun stack under mocks: what reached the engine, what waits for what, and the seed."""

from __future__ import annotations

import copy
import json

import kubernetes_validate
import pytest
import yaml

from gpu_fabric.ack import offline_mocks
from gpu_fabric.ack.lingjun.component import addon_config
from gpu_fabric.ack.rdma import pods as rdma_pods
from gpu_fabric.catalog import AddonConfigKey, catalog
from gpu_fabric.workload_security import SIZES, waivers, without_waivers
from offline import engine
from offline.engine import Plan, manifest
from tests.conftest import assert_single_rule, kubernetes_provider, problems, run_stack
from tests.seed import ACK_SEED

STACK = "ack-lingjun"
VPC = "alicloud:vpc/network:Network"
VSWITCH = "alicloud:vpc/switch:Switch"
CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"
NODE_POOL = "alicloud:cs/nodePool:NodePool"
ADDON = "alicloud:cs/kubernetesAddon:KubernetesAddon"
PROVIDER = "pulumi:providers:kubernetes"
JOB = "kubernetes:batch/v1:Job"
BENCHMARK = {
    "gpu-fabric:benchmarkJob": True,
    "gpu-fabric:images": {"benchmark": "example.com/hps:1"},
}
EXISTING_VPC = {
    "vpcId": "vpc-0jlexisting",
    "vpcCidr": "10.0.0.0/16",
    "nodeVswitches": [{"id": "vsw-0jlnode", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.0.0/20"}],
    "podVswitches": [{"id": "vsw-0jlpod", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.64.0/18"}],
}


@pytest.fixture(scope="module")
def ack_plan() -> Plan:
    return run_stack(stack=STACK)  # the cloud stack and its fabric stack


@pytest.fixture(scope="module")
def benchmark_plan() -> Plan:
    return run_stack(BENCHMARK, stack=STACK)


def pools(plan: Plan) -> dict[str, engine.Registration]:
    return {p.inputs["nodePoolName"]: p for p in plan.of_type(NODE_POOL)}


# --- network -----------------------------------------------------------------------------------


def test_the_cluster_goes_in_the_lingjun_clusters_vpc(ack_plan):
    """Alibaba, "Create a LINGJUN node pool": the ACK cluster and the Lingjun cluster are in the
    same region and VPC; the stack creates no VPC of its own."""
    assert not ack_plan.of_type(VPC) and not ack_plan.of_type(VSWITCH)
    (cluster,) = ack_plan.of_type(CLUSTER)
    assert cluster.inputs["vswitchIds"] == ["vsw-0jlexample0nodes"]
    assert cluster.inputs["podVswitchIds"] == ["vsw-0jlexample0pods"]
    assert ack_plan.outputs["vpcId"] == "vpc-0jlexample0lingjun"


def test_a_vpc_the_stack_would_create_is_no_key_of_it():
    """There is no created-VPC path: its keys are unknown, and the only key is `existing`."""
    from tests.conftest import problems

    created = {
        "vpcCidr": "10.0.0.0/16",
        "nodeVswitches": [{"zoneId": "cn-wulanchabu-c", "cidr": "10.0.0.0/20"}],
    }
    found = problems({"gpu-fabric:network": created}, STACK)
    assert [p.key for p in found] == [
        "gpu-fabric:network.vpcCidr",
        "gpu-fabric:network.nodeVswitches",
    ]
    assert all("unknown key; remove it or use one of: existing" in p.message for p in found)


def test_no_lingjun_vpc_is_refused_naming_the_fix():
    assert_single_rule(
        {"gpu-fabric:network": {}},
        "gpu-fabric:network",
        None,
        "ACK requires the ACK cluster in that same VPC",
        STACK,
    )
    (problem,) = problems({"gpu-fabric:network": {}}, stack=STACK)
    assert problem.key == "gpu-fabric:network" and "Set network.existing" in problem.message


def test_an_existing_vpc_creates_no_network_and_feeds_its_ids_to_the_cluster():
    plan = run_stack({"gpu-fabric:network": {"existing": EXISTING_VPC}}, stack=STACK)
    assert not plan.of_type(VPC) and not plan.of_type(VSWITCH)
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["vswitchIds"] == ["vsw-0jlnode"]
    assert cluster.inputs["podVswitchIds"] == ["vsw-0jlpod"]
    assert pools(plan)["ack-lingjun-system"].inputs["vswitchIds"] == ["vsw-0jlnode"]
    assert plan.outputs["vpcId"] == "vpc-0jlexisting"


# --- cluster -----------------------------------------------------------------------------------


def test_pro_cluster_as_lingjun_pools_need_it(ack_plan):
    (cluster,) = ack_plan.of_type(CLUSTER)
    inputs = cluster.inputs
    assert inputs["name"] == "ack-lingjun"  # explicit: the provider auto-names otherwise
    assert inputs["clusterSpec"] == "ack.pro.small"
    assert inputs["version"] == "1.33.3-aliyun.1"
    assert inputs["ipStack"] == "ipv4"
    assert [a["name"] for a in inputs["addons"]][0] == "terway-eniip"
    assert inputs["vswitchIds"] == ["vsw-0jlexample0nodes"]
    assert inputs["podVswitchIds"] == ["vsw-0jlexample0pods"]
    assert inputs["serviceCidr"] == "192.168.0.0/16"
    assert inputs["proxyMode"] == "ipvs"
    assert inputs["skipSetCertificateAuthority"] is True


def test_secure_by_default_no_internet_endpoint_and_deletion_protection(ack_plan):
    (cluster,) = ack_plan.of_type(CLUSTER)
    assert cluster.inputs["slbInternetEnabled"] is False
    assert cluster.inputs["deletionProtection"] is True
    assert cluster.protect is True
    plan = run_stack({"gpu-fabric:ack.deletionProtection": False}, stack=STACK)
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["slbInternetEnabled"] is False
    assert cluster.inputs["deletionProtection"] is False and cluster.protect is False


def test_system_pool_of_three_ecs_nodes(ack_plan):
    system = pools(ack_plan)["ack-lingjun-system"].inputs
    assert system["desiredSize"] == "3"  # a string in the provider
    assert system["instanceTypes"] == ["ecs.g7.xlarge"]
    assert system["runtimeName"] == "containerd"
    assert system["keyName"] == "ack-lingjun-admin"
    assert "type" not in system and "efloNodeGroup" not in system


def test_kubeconfig_is_a_secret_credential_and_the_provider_keeps_its_identity(ack_plan):
    provider = kubernetes_provider(ack_plan)
    assert "kubeconfig" in provider.secret_inputs
    kubeconfig = yaml.safe_load(provider.inputs["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["client-certificate-data"]
    assert provider.inputs["clusterIdentifier"] == "cmockacklingjun"
    assert "kubeconfig" in ack_plan.secret_outputs


# --- Lingjun pool and the RDMA add-on ------------------------------------------------------------


def test_lingjun_pool_binds_the_configured_group(ack_plan):
    pool = pools(ack_plan)["lingjun"]
    assert pool.inputs["type"] == "lingjun"
    assert pool.inputs["efloNodeGroup"] == {
        "clusterId": "i118191731740041623425",
        "groupId": "i120021051733814190732",
    }
    assert pool.inputs["runtimeName"] == "containerd"
    assert "instanceTypes" not in pool.inputs and "desiredSize" not in pool.inputs


def test_lingjun_pool_leaves_acks_labels_and_taint_alone(ack_plan):
    pool = pools(ack_plan)["lingjun"]
    assert "labels" not in pool.inputs and "taints" not in pool.inputs
    assert sorted(pool.ignore_changes) == ["labels", "taints"]
    assert pools(ack_plan)["ack-lingjun-system"].ignore_changes == []


def test_rdma_add_on_has_an_explicit_name_and_the_catalog_version(ack_plan):
    (addon,) = ack_plan.of_type(ADDON)
    # Without `name`, pulumi-alicloud would auto-name it `<resource name>-<random>` in its Check,
    # which mocks never run: only this assertion catches a missing name.
    assert addon.inputs["name"] == "ack-rdma-device-plugin"
    assert addon.inputs["version"] == "1.1.5"
    assert addon.inputs["clusterId"] == "cmockacklingjun"
    assert json.loads(addon.inputs["config"]) == {"enableNonHostNetworkRdma": False}


def test_non_host_network_rdma_turns_the_switch_on():
    plan = run_stack(
        {"gpu-fabric:rdma.nonHostNetwork": True, "gpu-fabric:lingjun.computingNetwork": "ipv6"},
        stack=STACK,
    )
    (addon,) = plan.of_type(ADDON)
    assert json.loads(addon.inputs["config"]) == {"enableNonHostNetworkRdma": True}
    assert plan.outputs["rdmaNonHostNetwork"] is True


def test_an_unverified_switch_key_warns_at_preview_and_a_verified_one_does_not(monkeypatch):
    """The preview check reads the catalog's record of the same guess, so it cannot fail: the
    stack says so while the key is unverified."""
    on = {"gpu-fabric:rdma.nonHostNetwork": True, "gpu-fabric:lingjun.computingNetwork": "ipv6"}
    warned = [w for w in run_stack(on, stack=STACK).warnings if "nonHostNetworkKey" in w]
    assert len(warned) == 1
    assert "enableNonHostNetworkRdma is UNVERIFIED" in warned[0]
    assert "checks it against the add-on's live config schema" in warned[0]
    assert not [w for w in run_stack(stack=STACK).warnings if "nonHostNetworkKey" in w]
    real = catalog()
    plugin = real.ack.rdma_device_plugin
    schema = plugin.config_schema
    keys = {
        k: v.model_copy(update={"verified": True}) if k == "enableNonHostNetworkRdma" else v
        for k, v in schema.keys.items()
    }
    plugin = plugin.model_copy(update={"config_schema": schema.model_copy(update={"keys": keys})})
    verified = real.model_copy(
        update={"ack": real.ack.model_copy(update={"rdma_device_plugin": plugin})}
    )
    monkeypatch.setattr("gpu_fabric.ack.config.catalog", lambda: verified)
    warnings = run_stack(on, stack=STACK, cached=False).warnings
    assert not [w for w in warnings if "nonHostNetworkKey" in w]


def test_a_switch_key_the_add_on_schema_lacks_fails_the_deploy(monkeypatch):
    monkeypatch.setattr(
        offline_mocks.CloudMocks,
        "addon_schema",
        staticmethod(lambda key: offline_mocks.mock_rdma_addon_schema("rdmaIpv6")),
    )
    with pytest.raises(Exception, match="set gpu-fabric:rdma.nonHostNetworkKey .*: rdmaIpv6"):
        run_stack(
            {"gpu-fabric:rdma.nonHostNetwork": True, "gpu-fabric:lingjun.computingNetwork": "ipv6"},
            stack=STACK,
            cached=False,  # the add-on's schema is patched
        )
    # Off, an unknown key sends nothing (off is the add-on's default) instead of failing.
    plan = run_stack({}, stack=STACK, cached=False)
    (addon,) = plan.of_type(ADDON)
    assert json.loads(addon.inputs["config"]) == {}
    # The key can be set per stack, once the catalog records it (preview checks it there).
    monkeypatch.setattr("gpu_fabric.ack.cloud_rules.catalog", lambda: catalog_recording("rdmaIpv6"))
    plan = run_stack(
        {
            "gpu-fabric:rdma": {"nonHostNetwork": True, "nonHostNetworkKey": "rdmaIpv6"},
            "gpu-fabric:lingjun.computingNetwork": "ipv6",
        },
        stack=STACK,
        cached=False,
    )
    (addon,) = plan.of_type(ADDON)
    assert json.loads(addon.inputs["config"]) == {"rdmaIpv6": True}


def catalog_recording(key: str):
    """The catalog, its recorded RDMA add-on schema with one more boolean key."""
    real = catalog()
    plugin = real.ack.rdma_device_plugin
    schema = plugin.config_schema
    keys = {**schema.keys, key: AddonConfigKey(type="boolean", verified=False, source="a test")}
    plugin = plugin.model_copy(update={"config_schema": schema.model_copy(update={"keys": keys})})
    ack = real.ack.model_copy(update={"rdma_device_plugin": plugin})
    return real.model_copy(update={"ack": ack})


def test_addon_config_reads_nested_keys_and_empty_schemas():
    schema = json.dumps(
        {"properties": {"rdma": {"type": "object", "properties": {"ipv6": {"type": "boolean"}}}}}
    )
    assert json.loads(addon_config(schema, "rdma.ipv6", True)) == {"rdma": {"ipv6": True}}
    assert addon_config("", "x", False) == "{}"
    with pytest.raises(ValueError, match=r"boolean keys: rdma\.ipv6"):
        addon_config(schema, "ipv6", True)
    with pytest.raises(ValueError, match=r"\(none\)"):
        addon_config("", "x", True)


# --- what waits for what -----------------------------------------------------------------------


def test_dependency_order(ack_plan):
    (cluster,) = ack_plan.of_type(CLUSTER)
    system, lingjun = pools(ack_plan)["ack-lingjun-system"], pools(ack_plan)["lingjun"]
    (addon,) = ack_plan.of_type(ADDON)
    # The cloud stack's own provider (the fabric stack's waits for the StackReference).
    (provider,) = [
        p for p in ack_plan.of_type(PROVIDER) if p.urn.startswith(f"urn:pulumi:{STACK}::")
    ]
    waits = ack_plan.depends_on
    for vswitch in ack_plan.of_type(VSWITCH):
        assert waits(cluster, vswitch)
    assert waits(system, cluster)
    assert waits(addon, cluster)
    # The add-on (a DaemonSet for Lingjun nodes only) installs beside the ECS pool, off the
    # critical path; the Lingjun pool needs both.
    assert not waits(addon, system)
    assert waits(lingjun, addon) and waits(lingjun, system) and waits(lingjun, cluster)
    assert waits(provider, cluster)
    # ... and what must not wait.
    assert not waits(addon, lingjun)
    assert not waits(system, addon) and not waits(system, lingjun)
    assert not waits(provider, system) and not waits(provider, lingjun)
    assert not waits(cluster, system)


def test_the_benchmark_job_waits_for_the_provider_only(benchmark_plan):
    (job,) = benchmark_plan.of_type(JOB)
    provider = kubernetes_provider(benchmark_plan)
    assert job.provider_urn == provider.urn
    assert not benchmark_plan.depends_on(job, pools(benchmark_plan)["lingjun"])


# --- the workload function and the seed's Job --------------------------------------------------


def _seed_job() -> dict:
    text = (ACK_SEED / "hps-benchmark-job.yaml").read_text()
    # The document leaves the image out as `**` (a YAML alias sign): give it a placeholder.
    return yaml.safe_load(text.replace("image: **", "image: example.com/hps:1"))


def test_benchmark_job_is_the_seeds_with_a_lingjun_selector(benchmark_plan):
    (job,) = benchmark_plan.of_type(JOB)
    ours = manifest(job)
    kubernetes_validate.validate(ours, "1.34", strict=True)
    seed = _seed_job()
    ours_spec, seed_spec = ours["spec"]["template"]["spec"], seed["spec"]["template"]["spec"]
    ours_c, seed_c = ours_spec["containers"][0], seed_spec["containers"][0]
    for key in ("name", "image", "command", "workingDir", "volumeMounts"):
        assert ours_c[key] == seed_c[key], key
    # The seed's limits (no memory cap: HPS keeps its tables in host memory), and requests.
    assert ours_c["resources"]["limits"] == seed_c["resources"]["limits"]
    assert ours_c["resources"]["requests"] == SIZES["whole-node"]["requests"]
    assert sorted(ours_c["securityContext"]["capabilities"]["add"]) == sorted(
        seed_c["securityContext"]["capabilities"]["add"]
    )
    # The seed tolerates every taint (`tolerations: [{operator: Exists}]`), and so does ours.
    for key in ("volumes", "hostNetwork", "restartPolicy", "tolerations"):
        assert ours_spec[key] == seed_spec[key], key
    assert seed_spec["tolerations"] == [{"operator": "Exists"}]
    assert ours["spec"]["parallelism"] == seed["spec"]["parallelism"]
    # The additions: the Lingjun label's node selector keeps it on Lingjun nodes, and the
    # secure defaults keep the service account token out of the pod.
    assert set(ours_spec) - set(seed_spec) == {"nodeSelector", "automountServiceAccountToken"}
    assert ours_spec["nodeSelector"] == {"alibabacloud.com/lingjun-worker": "true"}
    assert without_waivers(ours)["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    assert ours["metadata"]["namespace"] == "gpu-fabric-benchmark"
    assert ours_c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    # What the Job still needs, each with its reason; the image here has no digest (43).
    assert set(waivers(ours)) == {
        *("CKV_K8S_11", "CKV_K8S_13", "CKV_K8S_19", "CKV_K8S_22", "CKV_K8S_23", "CKV_K8S_25"),
        *("CKV_K8S_29", "CKV_K8S_31", "CKV_K8S_40", "CKV_K8S_43"),
    }
    assert waivers(ours)["CKV_K8S_13"] == rdma_pods.HPS_MEMORY


def test_the_function_on_the_seeds_own_job_adds_only_the_node_selector():
    seed = _seed_job()
    template = seed["spec"]["template"]
    wired = rdma_pods.with_lingjun_rdma(template)
    expected = copy.deepcopy(template)
    expected["spec"]["nodeSelector"] = {"alibabacloud.com/lingjun-worker": "true"}
    assert wired == expected


def _pod(**spec) -> dict:
    return {"spec": {"containers": [{"name": "main", "image": "x"}], **spec}}


def test_with_lingjun_rdma_adds_the_rdma_wiring_and_is_idempotent():
    once = rdma_pods.with_lingjun_rdma(_pod(), shm_size="16Gi")
    spec = once["spec"]
    container = spec["containers"][0]
    assert container["resources"]["limits"] == {"rdma/hca": 1}
    assert container["securityContext"]["capabilities"]["add"] == ["IPC_LOCK", "SYS_RESOURCE"]
    assert container["volumeMounts"] == [{"name": "shm", "mountPath": "/dev/shm"}]
    assert spec["volumes"] == [
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}
    ]
    assert spec["hostNetwork"] is True
    assert rdma_pods.with_lingjun_rdma(once, shm_size="16Gi") == once
    kubernetes_validate.validate(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, **once}, "1.34", strict=True
    )


def test_non_host_network_leaves_the_pod_network_alone():
    spec = rdma_pods.with_lingjun_rdma(_pod(), non_host_network=True)["spec"]
    assert "hostNetwork" not in spec
    assert spec["containers"][0]["resources"]["limits"] == {"rdma/hca": 1}


@pytest.mark.parametrize(
    "template, says",
    [
        (_pod(hostNetwork=False), "sets the pod's hostNetwork differently"),
        (
            {"spec": {"containers": [{"name": "main", "resources": {"limits": {"rdma/hca": 2}}}]}},
            "sets container main's limit rdma/hca differently",
        ),
        (_pod(nodeSelector={"alibabacloud.com/lingjun-worker": "false"}), "node selector"),
        (
            {
                "spec": {
                    "containers": [
                        {"name": "main", "volumeMounts": [{"name": "d", "mountPath": "/dev/shm"}]}
                    ],
                    "volumes": [{"name": "d", "hostPath": {"path": "/dev/shm"}}],
                }
            },
            "not a memory-backed emptyDir",
        ),
        (
            _pod(volumes=[{"name": "shm", "hostPath": {"path": "/tmp"}}]),
            "already has a different 'shm'",
        ),
        ({"spec": {}}, "no containers"),
    ],
)
def test_with_lingjun_rdma_refuses_to_overwrite(template, says):
    with pytest.raises(ValueError, match=says):
        rdma_pods.with_lingjun_rdma(template)
