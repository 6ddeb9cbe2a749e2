"""The stacks of an amd64 gIB machine (A3 Ultra, A4) under mocks: 8 GPUs, a gVNIC NIC and 8 RDMA
NICs (gIB)."""

from __future__ import annotations

import pytest
import yaml

from gpu_fabric.catalog import Fabric, catalog
from gpu_fabric.gke.fabrics import gib, nccl_installer
from gpu_fabric.workload_security import without_waivers
from offline.engine import Plan, manifest
from tests.conftest import (
    DELETE,
    assert_single_rule,
    parse_stack,
    planned,
    project_of,
    run_stack,
    stack_values,
)
from tests.stacks import stacks_on
from tests.test_health import GKE_HEALTH_KINDS
from tests.test_manifests import UPSTREAM, validate
from tests.test_storage import STORAGE_KINDS
from tests.test_workloads_queues import QUEUE_KINDS
from tests.vendored import VERIFY_UPSTREAM

NODE_POOL = "gcp:container/nodePool:NodePool"
PARAM_SET = "kubernetes:networking.gke.io/v1:GKENetworkParamSet"


def _gib8_stacks() -> dict[str, tuple[str, str, str]]:
    """The stacks of an amd64 gIB machine (A3 Ultra, A4: 8 RDMA NICs), found by their machine
    type in the catalog: stack -> (machine type, accelerator, pool name)."""
    found = {}
    for stack in stacks_on("gke"):
        pool = stack_values(stack)["gpu-fabric:gpuPool"]
        machine = catalog().machines[pool["machineType"]]
        if machine.fabric is Fabric.GIB and machine.arch == "amd64":
            found[stack] = (pool["machineType"], machine.accelerator.type, pool["name"])
    return found


STACKS = _gib8_stacks()
NETWORK_NAMES = ["gvnic-1", *[f"rdma-{i}" for i in range(8)]]


@pytest.fixture(scope="module", params=sorted(STACKS))
def stack_plan(request) -> tuple[str, Plan]:
    return request.param, planned(request.param)


def gpu_pool(plan: Plan):
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"]
    return pool


def test_gvnic_vpc_with_firewall_and_one_roce_vpc_with_eight_subnets(stack_plan):
    stack, plan = stack_plan
    networks = {n.inputs["name"]: n.inputs for n in plan.of_type("gcp:compute/network:Network")}
    assert networks[f"{stack}-rdma"]["networkProfile"] == (
        f"projects/{project_of(stack)}/global/networkProfiles/us-central1-b-vpc-roce"
    )
    assert networks[f"{stack}-rdma"]["mtu"] == 8896
    assert "networkProfile" not in networks[f"{stack}-gvnic"]
    subnets = sorted(
        (s.inputs["name"], s.inputs["ipCidrRange"])
        for s in plan.of_type("gcp:compute/subnetwork:Subnetwork")
        if "-rdma-" in s.inputs["name"]
    )
    assert subnets == [(f"{stack}-rdma-sub-{i}", f"192.168.{i + 1}.0/24") for i in range(8)]
    # The GPU VPCs' one rule (a stack with Managed Lustre volumes has the Lustre port's too, on
    # its primary VPC: tests/test_storage_lustre.py).
    gpu_vpcs = {f"{stack}-gvnic", f"{stack}-rdma"}
    (rule,) = [
        r
        for r in plan.of_type("gcp:compute/firewall:Firewall")
        if r.inputs["network"].rsplit("/", 1)[-1] in gpu_vpcs
    ]
    assert rule.inputs["name"] == f"{stack}-gvnic-internal"


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_a_roce_vpc_mtu_below_8896_is_refused(stack):
    # The RoCE VPC of A3 Ultra and A4 runs MTU 8896 (GKE's RDMA VPC docs).
    key = "gpu-fabric:network.nics.rdma.mtu"
    machine = STACKS[stack][0]
    says = f"the rdma NICs of {machine} work with MTU 8896 only"
    assert_single_rule({key: 8244}, key, 8244, says, stack)
    assert parse_stack({key: 8896}, stack).nic_groups[1].mtu == 8896


RESERVED = sorted(s for s in STACKS if "reservation" in stack_values(s)["gpu-fabric:gpuPool"])
"""Those whose pool consumes a reservation."""


@pytest.mark.parametrize("stack", RESERVED)
def test_a_reserved_pool_gets_no_placement_policy_unless_asked(stack):
    """The AI Hypercomputer placement docs: capacity from a reservation is densely colocated;
    cluster-toolkit's A3 Ultra and A4 examples set no placement policy on reserved pools."""
    reserved = run_stack(stack=stack)
    assert "placementPolicy" not in gpu_pool(reserved).inputs
    assert not reserved.of_type("gcp:compute/resourcePolicy:ResourcePolicy")
    unreserved = run_stack({"gpu-fabric:gpuPool.reservation": DELETE}, stack=stack)
    asked = run_stack({"gpu-fabric:gpuPool.compactPlacement": True}, stack=stack)
    for plan in (unreserved, asked):
        assert gpu_pool(plan).inputs["placementPolicy"]["type"] == "COMPACT"


def test_node_pool_has_the_catalog_machine(stack_plan):
    stack, plan = stack_plan
    machine, accelerator, pool_name = STACKS[stack]
    inputs = gpu_pool(plan).inputs
    node = inputs["nodeConfig"]
    assert node["machineType"] == machine
    assert node["guestAccelerators"][0]["type"] == accelerator
    assert node["guestAccelerators"][0]["count"] == 8
    assert node["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": 32}
    assert node["bootDisk"]["diskType"] == "hyperdisk-balanced"
    assert inputs["networkConfig"]["additionalNodeNetworkConfigs"] == [
        {"network": f"{stack}-gvnic", "subnetwork": f"{stack}-gvnic"},
        *[{"network": f"{stack}-rdma", "subnetwork": f"{stack}-rdma-sub-{i}"} for i in range(8)],
    ]
    assert inputs["nodeLocations"] == ["us-central1-b"]
    assert inputs["name"] == pool_name


def test_network_objects_gvnic_1_and_rdma_0_to_7(stack_plan):
    stack, plan = stack_plan
    param_sets = {p.inputs["metadata"]["name"]: p.inputs["spec"] for p in plan.of_type(PARAM_SET)}
    assert sorted(param_sets) == NETWORK_NAMES
    assert param_sets["gvnic-1"]["deviceMode"] == "NetDevice"
    for i in range(8):
        assert param_sets[f"rdma-{i}"] == {
            "vpc": f"{stack}-rdma",
            "vpcSubnet": f"{stack}-rdma-sub-{i}",
            "deviceMode": "RDMA",
        }


def test_amd64_gib_installer_is_upstream_but_for_the_catalog_images(stack_plan):
    """And cluster-toolkit's first init container, which turns martian logging off on the 8
    RDMA NICs (its A3 Ultra and A4 installer templates)."""
    _, plan = stack_plan
    (daemon_set,) = [manifest(r) for r in plan.of_type("kubernetes:apps/v1:DaemonSet")]
    upstream = yaml.safe_load((UPSTREAM / "nccl-rdma-installer.yaml").read_text())
    pod = upstream["spec"]["template"]["spec"]
    pod["initContainers"][0]["image"] = catalog().images.gib.installer_amd64
    pod["containers"][0]["image"] = catalog().images.pause
    upstream["metadata"]["annotations"] = {nccl_installer.SKIP_AWAIT: "true"}
    got = without_waivers(daemon_set)
    quiet, *installers = got["spec"]["template"]["spec"]["initContainers"]
    assert quiet == {
        "name": "disable-log-martian",
        "image": catalog().images.gib.installer_amd64,
        "command": [
            "/bin/sh",
            "-c",
            "set -e\n"
            + "".join(
                f"echo 0 > /proc/sys/net/ipv4/conf/gpu{i}rdma0/log_martians\n" for i in range(8)
            ),
        ],
        "securityContext": {"privileged": True},
    }
    got["spec"]["template"]["spec"]["initContainers"] = installers
    assert got == upstream
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == [
        "nvidia-h200-141gb",
        "nvidia-b200",
    ]
    machine = catalog().machines["a3-ultragpu-8g"]
    assert nccl_installer.installer_file(machine).name == "nccl-rdma-installer.yaml"


def test_every_object_is_valid_and_there_is_no_a4x_extra(stack_plan):
    _, plan = stack_plan
    objects = [manifest(o) for o in plan.kubernetes_objects()]
    kinds = {"DaemonSet", "Network", "GKENetworkParamSet", *QUEUE_KINDS, *GKE_HEALTH_KINDS}
    # A Topology where the pools' nodes carry GKE's topology labels; a queued pool's admission
    # check and its config (tests/test_workloads_queues.py checks when).
    # The training volumes where the stack names them (tests/test_storage.py).
    optional = {"Topology", "AdmissionCheck", "ProvisioningRequestConfig", *STORAGE_KINDS}
    assert kinds - optional <= {o["kind"] for o in objects} <= kinds | optional
    for obj in objects:
        validate(obj)


def test_with_gib_wires_eight_rdma_nics_from_the_catalog_on_amd64():
    cfg = parse_stack({}, "a4-prod")
    networks = [n for plan in cfg.nic_groups for n in plan.object_names]
    template = gib.with_gib(
        {"metadata": {}, "spec": {"containers": [{"name": "nccl", "image": "i"}]}},
        networks,
        cfg.machine.accelerator.count,
        arch=cfg.machine.arch,
    )
    interfaces = yaml.safe_load(template["metadata"]["annotations"][gib.INTERFACES])
    # As upstream's nccl-test-rdma.yaml: eth0 and the RDMA NICs at their node names, no gVNIC.
    assert [(i["interfaceName"], i["network"]) for i in interfaces] == [
        ("eth0", "default"),
        *[(f"eth{i + 2}", f"rdma-{i}") for i in range(8)],
    ]
    spec = template["spec"]
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    assert "tolerations" not in spec or gib.ARM64_TOLERATION not in spec["tolerations"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t", **template["metadata"]}}
    validate({**pod, "spec": spec})


def test_with_gib_on_amd64_mounts_and_sources_as_upstream_nccl_test_rdma():
    """upstream/nccl-test-rdma.yaml: /usr/local/nvidia and /usr/local/gib from the host's
    /home/kubernetes/bin, LD_LIBRARY_PATH /usr/local/nvidia/lib64, set_nccl_env.sh sourced."""
    upstream = [
        d
        for d in yaml.safe_load_all((VERIFY_UPSTREAM / "nccl-test-rdma.yaml").read_text())
        if d["kind"] == "Pod"
    ][0]
    (up,) = upstream["spec"]["containers"]
    script = {
        "name": "nccl",
        "image": "i",
        "command": ["/bin/bash", "-c"],
        "args": ["sleep infinity\n"],
    }
    template = gib.with_gib(
        {"metadata": {}, "spec": {"containers": [script]}},
        [f"rdma-{i}" for i in range(8)],
        8,
        arch="amd64",
    )
    (container,) = template["spec"]["containers"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts == {m["name"]: m["mountPath"] for m in up["volumeMounts"]}
    hosts = {v["name"]: v.get("hostPath") for v in template["spec"]["volumes"]}
    assert hosts == {v["name"]: v.get("hostPath") for v in upstream["spec"]["volumes"]}
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64" == up["env"][0]["value"]
    assert container["args"] == ["source /usr/local/gib/scripts/set_nccl_env.sh\nsleep infinity\n"]
    assert "source /usr/local/gib/scripts/set_nccl_env.sh" in up["args"][0]
    # Idempotent; and a container without a shell script runs as it is.
    again = gib.with_gib(template, [f"rdma-{i}" for i in range(8)], 8, arch="amd64")
    assert again == template
    plain = gib.with_gib(
        {"metadata": {}, "spec": {"containers": [{"name": "n", "image": "i"}]}},
        ["rdma-0"],
        8,
        arch="amd64",
    )
    assert "args" not in plain["spec"]["containers"][0]


# --- config rules of the two platforms ----------------------------------------------------------


@pytest.mark.parametrize(
    "stack, version, floor",
    [
        ("a3-ultra-prod", "1.31.4-gke.1000000", "1.31.4-gke.1183000"),
        ("a4-prod", "1.32.2-gke.1400000", "1.32.2-gke.1475000"),
    ],
)
def test_gke_below_the_rdma_floor_is_refused(stack, version, floor):
    assert_single_rule(
        {"gpu-fabric:gke.version": version}, "gpu-fabric:gke.version", version, floor, stack
    )


@pytest.mark.parametrize(
    "stack, version, minor",
    [("a3-ultra-prod", "1.30.9-gke.1000000", "1.31"), ("a4-prod", "1.31.9-gke.1000000", "1.32")],
)
def test_gke_minor_below_the_family_is_refused(stack, version, minor):
    assert_single_rule(
        {"gpu-fabric:gke.version": version},
        "gpu-fabric:gke.version",
        version,
        f"needs {minor} or newer",
        stack,
    )


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_a_persistent_disk_boot_disk_is_refused(stack):
    assert_single_rule(
        {"gpu-fabric:gpuPool.bootDisk.type": "pd-ssd"},
        "gpu-fabric:gpuPool.bootDisk.type",
        "pd-ssd",
        "boots from hyperdisk-balanced only",
        stack,
    )


def test_the_machine_of_the_other_gib_platform_is_refused():
    assert_single_rule(
        {"gpu-fabric:gpuPool.machineType": "a4-highgpu-8g"},
        "gpu-fabric:gpuPool.machineType",
        "a4-highgpu-8g",
        "belongs to platform 'gke-a4', not 'gke-a3-ultra'",
        "a3-ultra-prod",
    )


@pytest.mark.parametrize(
    "key, value, owner",
    [
        ("gpu-fabric:images.tcpx", {"installer": "a:1", "daemon": "b:1"}, "gke-a3-high"),
        ("gpu-fabric:storageClass", {"name": "x"}, "gke-a4x"),
        ("gpu-fabric:nvidiaDraDriverVersion", "0.5.1", "gke-a4x"),
    ],
)
def test_keys_of_other_platforms_are_refused(key, value, owner):
    assert_single_rule({key: value}, key, value, f"a key of {owner}", "a4-prod")


GIB_AMD64 = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib"
GIB_ARM64 = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-arm64"


def test_gib_installer_override_reaches_the_daemon_set():
    cfg = parse_stack({"gpu-fabric:images.gib": {"installer": f"{GIB_AMD64}:v9"}}, "a3-ultra-prod")
    assert cfg.gib_installer_image == f"{GIB_AMD64}:v9"
    assert parse_stack({}, "a3-ultra-prod").gib_installer_image.endswith("nccl-plugin-gib:v1.1.1")


@pytest.mark.parametrize(
    "stack, image, says",
    [
        ("a3-ultra-prod", f"{GIB_ARM64}:v1.1.0", "amd64 nodes take the gIB installer from"),
        ("a4x-prod", f"{GIB_AMD64}:v1.1.1", "arm64 nodes take the gIB installer from"),
        ("a4-prod", f"{GIB_AMD64}@sha256:{'b' * 64}", "a digest alone does not say"),
    ],
)
def test_a_gib_installer_of_the_wrong_architecture_or_without_a_tag_is_refused(stack, image, says):
    assert_single_rule(
        {"gpu-fabric:images.gib": {"installer": image}},
        "gpu-fabric:images.gib.installer",
        image,
        says,
        stack,
    )


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_make_verify_expects_gvnic_1_rdma_0_to_7_and_the_rdma_installer(stack):
    from verify.gke import expected_from

    expected = expected_from(parse_stack({}, stack))
    assert [n.name for n in expected.networks] == NETWORK_NAMES
    assert expected.networks[-1].subnet == f"{stack}-rdma-sub-7"
    assert expected.installer_name == "nccl-rdma-installer"


def test_only_the_amd64_rdma_installer_quiets_martians():
    """cluster-toolkit adds it to its A3 Ultra and A4 templates; its A4X one has none."""
    machines = catalog().machines
    assert nccl_installer.quiet_martians_of(machines["a4-highgpu-8g"])[-1] == "gpu7rdma0"
    assert nccl_installer.quiet_martians_of(machines["a4x-highgpu-4g"]) == []
    assert nccl_installer.quiet_martians_of(machines["a3-megagpu-8g"]) == []
    a4x = run_stack(stack="a4x-prod")
    (daemon_set,) = [d for d in a4x.of_type("kubernetes:apps/v1:DaemonSet") if "rdma" in d.name]
    names = [c["name"] for c in daemon_set.inputs["spec"]["template"]["spec"]["initContainers"]]
    assert "disable-log-martian" not in names
