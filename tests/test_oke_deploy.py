"""What makes an OKE deploy fail loudly: the GPU nodes' join script, run under stubbed commands."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.oke.nodes.component import NODE_FILES, NODE_TAINTS
from tests.conftest import DELETE

LABELS = "nvidia.com/gpu.present=true"
TAINTS = ",".join(NODE_TAINTS)
# Real tools the script needs; everything else it calls is a stub that logs its arguments.
REAL = ["bash", "seq", "cut", "grep", "cat", "base64", "cp", "dirname", "head", "sed", "tail"]
STUB = '#!/bin/bash\necho "{name} $*" >> "$CALLS"\n{body}\n'


class Node:
    """A fake node: the join script with /etc and /opt moved under a temporary root."""

    def __init__(self, root: Path):
        self.root, self.bin = root, root / "bin"
        self.bin.mkdir()
        (root / "etc/apt/sources.list.d").mkdir(parents=True)
        (root / "etc/oke").mkdir()
        (root / "etc/kubernetes").mkdir()
        (root / "etc/systemd/system").mkdir(parents=True)
        (root / "etc/os-release").write_text("ID=ubuntu\nVERSION_CODENAME=noble\n")
        (root / "etc/oke/oke-apiserver").write_text("10.140.0.2")
        (root / "etc/kubernetes/ca.crt").write_text("CA")
        for tool in REAL:
            found = shutil.which(tool)
            assert found, tool
            (self.bin / tool).symlink_to(found)
        for name in ("systemctl", "curl", "update-initramfs", "sleep", "fuser"):
            self.stub(name, "exit 1" if name == "fuser" else "exit 0")
        self.stub("rdma", 'if [ "$1 $2" = "system show" ]; then echo "netns shared"; fi')
        script = (NODE_FILES / "join.sh").read_text()
        self.script = root / "join.sh"
        self.script.write_text(
            script.replace("/etc/", f"{root}/etc/").replace("/opt/", f"{root}/opt/")
        )

    def stub(self, name: str, body: str = "exit 0") -> None:
        path = self.bin / name
        path.write_text(STUB.format(name=name, body=body))
        path.chmod(0o755)

    def join(self) -> tuple[subprocess.CompletedProcess, list[str]]:
        env = {"PATH": str(self.bin), "CALLS": str(self.root / "calls")}
        bash = shutil.which("bash")
        assert bash
        result = subprocess.run(
            [bash, str(self.script), LABELS, TAINTS, "v1.36.1"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        calls = self.root / "calls"
        return result, calls.read_text().splitlines() if calls.exists() else []


@pytest.fixture
def node(tmp_path) -> Node:
    return Node(tmp_path)


RDMA_LEVELS = catalog().oke.topology_levels[:-1]
"""The Topology levels the join script labels the node with (the last is the node itself)."""
NO_TOPOLOGY = ",".join(f"{level}=no-imds-data" for level in RDMA_LEVELS)
EXTRA = f"--kubelet-extra-args --node-labels={LABELS},{NO_TOPOLOGY} --register-with-taints={TAINTS}"


def _joined_labels(calls: list[str]) -> dict[str, str]:
    (bootstrap,) = {c for c in calls if c.startswith("oke bootstrap ")}
    labels = bootstrap.split("--node-labels=", 1)[1].split(" ", 1)[0]
    return dict(pair.split("=", 1) for pair in labels.split(","))


ISLAND, BLOCK, RACK = (
    f"ocid1.{kind}.oc1.iad.aaaa{kind}0123456789" for kind in ("island", "block", "rack")
)


def _topology_labels(node, compact: str | None, host: str) -> list[str]:
    """The RDMA level labels a node joins with when IMDS answers `compact` for
    /host/rdmaTopologyData (None: an error) and `host` for /host."""
    answer = f"echo '{compact}'" if compact is not None else "exit 22"
    node.stub(
        "curl",
        f"case \"$4\" in */host/rdmaTopologyData) {answer};; */opc/v2/host) echo '{host}';; "
        "esac; exit 0",
    )
    node.stub("oke")
    result, calls = node.join()
    assert result.returncode == 0, result.stderr
    labels = _joined_labels(calls)
    assert labels["nvidia.com/gpu.present"] == "true"
    return [labels[level] for level in RDMA_LEVELS]


def test_the_node_is_labelled_with_its_rdma_topology_from_the_instance_metadata(node):
    compact = (
        f'{{"customerHPCIslandId": "{ISLAND}", "customerNetworkBlock": "{BLOCK}", '
        f'"customerLocalBlock": "{RACK}"}}'
    )
    # As oci-hpc-oke's labeler writes them: each id's last 11 characters.
    assert _topology_labels(node, compact, "{}") == [ISLAND[-11:], BLOCK[-11:], RACK[-11:]]


def test_the_ids_embedded_in_the_host_document_come_before_its_network_block(node):
    host = (
        f'{{"id": "i", "networkBlockId": "other", "rdmaTopologyData": {{"customerHPCIslandId": '
        f'"{ISLAND}", "customerNetworkBlock": "{BLOCK}", "customerLocalBlock": "short"}}}}'
    )
    # An id shorter than 11 characters is kept whole, as upstream's `v[-11:]` keeps it.
    assert _topology_labels(node, None, host) == [ISLAND[-11:], BLOCK[-11:], "short"]


def test_without_the_compact_topology_the_hosts_network_block_and_rack_label_the_node(node):
    host = f'{{"id": "ocid1.instance", "networkBlockId": "{BLOCK}", "rackId": "{RACK}"}}'
    assert _topology_labels(node, None, host) == [BLOCK[-11:], BLOCK[-11:], RACK[-11:]]


def test_an_image_without_join_tooling_installs_the_node_package_then_bootstraps(node):
    # apt-get "installs" the package: the oke binary appears.
    node.stub("oke")
    (node.bin / "oke").rename(node.root / "oke")
    node.stub("apt-get", f'[ "$2" = install ] && cp -p {node.root}/oke "$(dirname "$0")/"; exit 0')
    result, calls = node.join()
    assert result.returncode == 0, result.stderr
    assert "apt-get -y install oci-oke-node-all-1.36.1" in calls
    sources = (node.root / "etc/apt/sources.list.d/oke-node-client.sources").read_text()
    assert "/prod/ubuntu-noble/kubernetes-1.36\n" in sources
    assert f"oke bootstrap {EXTRA}" in calls


def test_a_failed_apt_update_still_installs_from_both_mirrors(node):
    """oci-hpc-oke's cloud-init: `apt-get update || true` (another source may be down), and the
    remote repository at two mirrors."""
    node.stub("oke")
    (node.bin / "oke").rename(node.root / "oke")
    node.stub(
        "apt-get",
        f'[ "$2" = update ] && exit 100; [ "$2" = install ] && cp -p {node.root}/oke '
        '"$(dirname "$0")/"; exit 0',
    )
    result, calls = node.join()
    assert result.returncode == 0, result.stderr
    assert "apt-get -y update" in calls and f"oke bootstrap {EXTRA}" in calls
    sources = (node.root / "etc/apt/sources.list.d/oke-node-client.sources").read_text()
    (uris,) = [line for line in sources.splitlines() if line.startswith("URIs: ")]
    mirrors = uris.split()[1:]
    assert len(mirrors) == 2 and all(
        m.endswith("/prod/ubuntu-noble/kubernetes-1.36") for m in mirrors
    )


def test_the_images_local_repository_comes_first_then_the_remote_one(node):
    node.stub("oke")
    (node.bin / "oke").rename(node.root / "oke")
    local = node.root / "opt/oke-node-client-packages/ubuntu-noble/kubernetes-1.36"
    (local / "dists").mkdir(parents=True)
    # The local install fails once (a stale local copy); the remote one succeeds.
    tries = node.root / "tries"
    node.stub(
        "apt-get",
        f'[ "$2" = install ] || exit 0; if [ -f {tries} ]; then cp -p {node.root}/oke '
        f'"$(dirname "$0")/"; exit 0; fi; : > {tries}; exit 100',
    )
    result, calls = node.join()
    assert result.returncode == 0, result.stderr
    assert calls.count("apt-get -y install oci-oke-node-all-1.36.1") == 2
    assert "trying the remote one" in result.stderr
    sources = (node.root / "etc/apt/sources.list.d/oke-node-client.sources").read_text()
    assert "URIs: https://" in sources


def test_a_node_that_cannot_get_join_tooling_fails_with_a_message(node):
    result, calls = node.join()
    assert result.returncode == 1
    assert "cannot install oci-oke-node-all" in result.stderr
    assert not [c for c in calls if c.startswith("oke ")]


def test_the_oke_binary_joins_with_labels_and_the_gpu_taint(node):
    node.stub("oke")
    result, calls = node.join()
    assert result.returncode == 0, result.stderr
    assert calls.count(f"oke bootstrap {EXTRA}") == 1


def test_a_failing_bootstrap_fails_the_join(node):
    node.stub("oke", "exit 1")
    result, calls = node.join()
    assert result.returncode == 1
    assert calls.count(f"oke bootstrap {EXTRA}") == 20


def test_the_installer_joins_with_labels_and_the_gpu_taint(node):
    installer = node.root / "etc/oke/oke-install.sh"
    installer.write_text('echo "oke-install.sh $*" >> "$CALLS"\n')
    _, calls = node.join()
    (call,) = [c for c in calls if c.startswith("oke-install.sh")]
    assert call.endswith(f"--kubelet-ca-cert Q0E= {EXTRA}")


def test_systemd_networkd_is_restarted_before_the_join(node):
    node.stub("oke")
    _, calls = node.join()
    restart = calls.index("systemctl try-restart systemd-networkd")
    assert restart < calls.index(f"oke bootstrap {EXTRA}")


def test_the_oke_init_unit_path_gets_the_taint_from_the_metadata(node):
    from tests.conftest import run_stack

    (node.root / "etc/systemd/system/oke-init.service").write_text("")
    result, calls = node.join()
    assert result.returncode == 0
    assert "systemctl enable --now oke-init.service" in calls
    for instance in run_stack(stack="oke-dranet").of_type("oci:Core/instance:Instance"):
        assert (
            instance.inputs["metadata"]["kubelet-extra-args"] == f"--register-with-taints={TAINTS}"
        )


# --- the stack waits for the GPU nodes ---------------------------------------------------------

WAIT = "command:local:Command"
INSTANCE = "oci:Core/instance:Instance"


def node_wait(plan):
    (wait,) = [r for r in plan.of_type(WAIT) if r.name.endswith("-gpu-nodes-wait")]
    return wait


def test_the_fabric_stack_waits_for_every_gpu_node_by_its_labels():
    from tests.conftest import run_stack

    wait = node_wait(run_stack(stack="oke-dranet"))
    assert wait.urn.startswith("urn:pulumi:oke-dranet-fabric::")
    env = wait.inputs["environment"]
    assert env["COUNT"] == "2"
    assert env["SELECTOR"] == (
        "node.kubernetes.io/instance-type=BM.GPU.B4.8,nvidia.com/gpu.present=true"
    )
    assert env["GPU_NODES"] == "oke-dranet-gpu-0 oke-dranet-gpu-1"
    assert "environment" in wait.secret_inputs  # it carries the kubeconfig
    # Again when the cluster or an instance is replaced: a replaced instance keeps its display
    # name, so the triggers are the instances' OCIDs (a cloud stack output).
    plan = run_stack(stack="oke-dranet")
    ids = plan.outputs["gpuNodeIds"]
    assert len(set(ids)) == 2 and all(i.startswith("ocid1.instance.") for i in ids)
    assert wait.inputs["triggers"] == ["ocid1.cluster.oc1.us-ashburn-1.mockokedranet", ids]
    assert usable_wait(plan).inputs["triggers"][:2] == wait.inputs["triggers"]


def test_a_hosted_fabric_given_display_names_needs_the_instance_ids():
    from tests.test_layer_inputs import _build, _refused

    _, reasons = _refused(lambda: _build("OkeFabric", (("gpu_nodes",), ["a", "b"])))
    assert list(reasons) == ["gpuNodeIds"]
    assert "the cloud layer's gpuNodeIds output" in reasons["gpuNodeIds"]


def test_in_one_stack_the_wait_depends_on_the_instances_and_the_cluster(without_fabric_stacks):
    from tests.conftest import OKE_EXISTING_VCN, run_stack

    existing = {**OKE_EXISTING_VCN, "deployPath": "a runner inside the VCN"}
    changes = {"gpu-fabric:layers": "all", "gpu-fabric:network": {"existing": existing}}
    plan = run_stack(changes, stack="oke-dranet")
    wait = node_wait(plan)
    (cluster,) = plan.of_type("oci:ContainerEngine/cluster:Cluster")
    instances = plan.of_type(INSTANCE)
    assert len(instances) == 2
    for instance in instances:
        assert plan.depends_on(wait, instance), instance.name
    assert plan.depends_on(wait, cluster)


def run_wait(tmp_path, kubectl: str, timeout: int = 0) -> subprocess.CompletedProcess:
    from gpu_fabric.oke.nodes.wait import WAIT_SCRIPT
    from tests.wait_script import run_wait_script

    env = {
        "GPU_NODES": "oke-dranet-gpu-0 oke-dranet-gpu-1",
        "SELECTOR": "node.kubernetes.io/instance-type=BM.GPU.B4.8",
        "COUNT": "2",
        "TIMEOUT_SECONDS": str(timeout),
    }
    return run_wait_script(tmp_path, WAIT_SCRIPT, kubectl, env)


def test_the_wait_fails_naming_the_instances_and_their_join_log(tmp_path):
    # One of two nodes registered, and the time is up.
    result = run_wait(tmp_path, 'if [ "$1" = get ]; then echo node/10.140.64.2; fi')
    assert result.returncode == 1
    assert "1 of 2 registered" in result.stderr
    assert "oke-dranet-gpu-0 oke-dranet-gpu-1" in result.stderr
    assert "/var/log/cloud-init-output.log" in result.stderr


def test_the_wait_fails_when_registered_nodes_are_not_ready(tmp_path):
    kubectl = 'if [ "$1" = get ]; then printf "node/a\\nnode/b\\n"; else exit 1; fi'
    result = run_wait(tmp_path, kubectl, timeout=600)
    assert result.returncode == 1
    assert "not all Ready" in result.stderr


def test_the_wait_returns_once_every_node_is_registered_and_ready(tmp_path):
    log = tmp_path / "kubectl.log"
    kubectl = f'echo "$*" >> {log}; if [ "$1" = get ]; then printf "node/a\\nnode/b\\n"; fi'
    result = run_wait(tmp_path, kubectl, timeout=600)
    assert result.returncode == 0, result.stderr
    assert (
        log.read_text()
        .splitlines()[-1]
        .startswith(
            "wait --for=condition=Ready node -l "
            "node.kubernetes.io/instance-type=BM.GPU.B4.8 --timeout="
        )
    )


def test_the_wait_script_passes_shellcheck(tmp_path):
    from gpu_fabric.oke.nodes.wait import WAIT_SCRIPT
    from tests.wait_script import shellcheck_problems

    assert shellcheck_problems(tmp_path, WAIT_SCRIPT) == ""


# --- nodes follow their cluster ----------------------------------------------------------------


def test_gpu_nodes_are_replaced_with_their_cluster_old_ones_first(monkeypatch):
    """`ignore_changes=["metadata"]` freezes the endpoint and CA a node joined; a new cluster
    replaces the nodes instead (the offline plan does not record `replace_with`: read it from
    the registrations)."""
    from offline import engine

    replace_with: dict[str, list[str]] = {}
    register = engine._RecordingMonitor.RegisterResource

    def recording(self, request):
        replace_with[request.name] = list(request.replace_with)
        return register(self, request)

    monkeypatch.setattr(engine._RecordingMonitor, "RegisterResource", recording)
    plan = engine.run("oke-dranet")
    (cluster,) = plan.of_type("oci:ContainerEngine/cluster:Cluster")
    instances = plan.of_type(INSTANCE)
    assert len(instances) == 2
    for instance in instances:
        assert replace_with[instance.name] == [cluster.urn]
        assert instance.delete_before_replace is True
        assert instance.ignore_changes[0] == "metadata"
    # Nothing else is replaced with the cluster.
    assert sorted(n for n, urns in replace_with.items() if urns) == sorted(
        i.name for i in instances
    )


# --- identity in the home region ---------------------------------------------------------------

IDENTITY = ("oci:Identity/dynamicGroup:DynamicGroup", "oci:Identity/policy:Policy")


def test_outside_the_home_region_identity_goes_through_a_home_region_provider():
    from tests.conftest import run_stack

    plan = run_stack(
        {
            "oci:region": "us-phoenix-1",
            "gpu-fabric:oke.homeRegion": "us-ashburn-1",
            "gpu-fabric:gpuNodes.availabilityDomain": "Uocm:PHX-AD-1",
            # Images of the region (an image OCID names its region).
            "gpu-fabric:gpuNodes.imageId": "ocid1.image.oc1.phx.aaaaaaaaexamplegpuimage",
            "gpu-fabric:oke.systemPool.imageId": "ocid1.image.oc1.phx.aaaaaaaaexampleokenodeimage",
        },
        stack="oke-dranet",
    )
    (home,) = plan.of_type("pulumi:providers:oci")
    # In the home region, authenticated as the stack's own provider (its `oci:` keys).
    assert home.inputs == {
        "region": "us-ashburn-1",
        "tenancyOcid": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
    }
    assert home.name == "oke-dranet-home"
    for type_ in IDENTITY:
        (resource,) = plan.of_type(type_)
        assert resource.provider_urn == home.urn, type_
    # Everything else stays in the stack's region, on the default provider.
    for resource in plan.resources:
        if resource.custom and resource.type.startswith("oci:") and resource.type not in IDENTITY:
            assert resource.provider_urn != home.urn, resource.name


def test_an_unset_home_region_is_looked_up_and_identity_goes_there():
    """oci-hpc-oke's provider.tf: the region subscription with `is_home_region`. The mocks'
    tenancy is homed in the stack's region; a real one may be homed anywhere."""
    from tests.conftest import run_stack

    plan = run_stack({"gpu-fabric:oke.homeRegion": DELETE}, stack="oke-dranet")
    (home,) = plan.of_type("pulumi:providers:oci")
    assert home.name == "oke-dranet-home" and home.inputs["region"] == "us-ashburn-1"
    for type_ in IDENTITY:
        (resource,) = plan.of_type(type_)
        assert resource.provider_urn == home.urn, type_


def test_the_home_region_lookup_asks_for_the_tenancys_home_subscription(monkeypatch):
    from gpu_fabric.oke import cloud, offline_mocks

    asked: list[dict] = []
    call = offline_mocks.CloudMocks.call

    def recording(self, token, args):
        if token.endswith("getRegionSubscriptions"):
            asked.append(dict(args))
        return call(self, token, args)

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", recording)
    from tests.conftest import run_stack

    run_stack({"gpu-fabric:oke.homeRegion": DELETE}, stack="oke-dranet", cached=False)
    assert asked == [
        {
            "tenancyId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
            "filters": [{"name": "is_home_region", "values": ["true"]}],
        }
    ]
    with pytest.raises(ValueError, match="set gpu-fabric:oke.homeRegion"):
        cloud._the_home_region([])


def test_in_the_home_region_identity_uses_the_default_provider():
    from tests.conftest import run_stack

    plan = run_stack({"gpu-fabric:oke.homeRegion": "us-ashburn-1"}, stack="oke-dranet")
    assert not plan.of_type("pulumi:providers:oci")
    for type_ in IDENTITY:
        (resource,) = plan.of_type(type_)
        assert resource.provider_urn == "", type_


# --- usable: each node's ResourceSlices publish its rails and GPUs -----------------------------


def usable_wait(plan):
    (wait,) = [r for r in plan.of_type(WAIT) if r.name.endswith("-gpu-nodes-usable-wait")]
    return wait


def test_the_drivers_start_after_the_join_and_the_claims_after_the_devices():
    from tests.conftest import run_stack

    plan = run_stack(stack="oke-dranet")
    joined, usable = node_wait(plan), usable_wait(plan)
    releases = plan.of_type("kubernetes:helm.sh/v3:Release")
    drivers = [r for r in releases if r.inputs["name"] in ("dranet", "dra-driver-nvidia-gpu")]
    assert len(drivers) == 2
    for release in drivers:
        assert joined.urn in release.dependencies, release.name  # Helm then sees their pods
        assert release.urn in usable.dependencies, release.name
    templates = plan.of_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert templates and all(usable.urn in t.dependencies for t in templates)
    env = usable.inputs["environment"]
    assert (env["COUNT"], env["SELECTOR"]) == (
        "2",
        node_wait(plan).inputs["environment"]["SELECTOR"],
    )
    assert usable.inputs["triggers"][:2] == node_wait(plan).inputs["triggers"]


def _fabric_plan(changes: dict):
    from tests.conftest import fabric_plan

    return fabric_plan("oke-dranet", changes)


def test_the_wait_timeout_is_a_setting_of_both_waits():
    from tests.conftest import run_stack

    plan = _fabric_plan({"gpu-fabric:nodeWaitTimeout": "1h30m"})
    for wait in (node_wait(plan), usable_wait(plan)):
        assert wait.inputs["environment"]["TIMEOUT_SECONDS"] == "5400"
    default = run_stack(stack="oke-dranet")
    assert usable_wait(default).inputs["environment"]["TIMEOUT_SECONDS"] == str(40 * 60)


def run_usable(tmp_path, kubectl: str, timeout: int = 0) -> subprocess.CompletedProcess:
    from gpu_fabric.oke.nodes.wait import selector, usable_script
    from tests.wait_script import run_wait_script

    env = {"SELECTOR": selector("BM.GPU.B4.8"), "COUNT": "2"}
    env["TIMEOUT_SECONDS"] = str(timeout)
    return run_wait_script(tmp_path, usable_script("BM.GPU.B4.8"), kubectl, env)


HEALTHY = Path(__file__).with_name("fixtures") / "oke-dranet-healthy.yaml"
NODE_A = "10.140.66.66"


def _recorded(tmp_path, change=None) -> str:
    """A kubectl answering from the healthy recording, changed by `change` (its first GPU node's
    devices, by driver) when given."""
    from tests.wait_script import changed_copy, recorded_kubectl

    if change is None:
        return recorded_kubectl(HEALTHY)

    def on_node_a(cluster: dict) -> None:
        for slice_ in cluster["resourceslices"]["items"]:
            if slice_["spec"]["nodeName"] == NODE_A:
                change(slice_["spec"]["driver"], slice_["spec"]["devices"])

    return recorded_kubectl(changed_copy(tmp_path, HEALTHY, on_node_a))


def _rail(devices: list[dict], interface: str) -> dict:
    (rail,) = [
        d for d in devices if d["attributes"].get("dra.net/ifName", {}).get("string") == interface
    ]
    return rail


def test_nodes_as_the_write_up_shows_them_pass(tmp_path):
    """16 rails up of 18 interfaces DRANET publishes, 8 GPUs, the GPU taint."""
    result = run_usable(tmp_path, _recorded(tmp_path), timeout=600)
    assert result.returncode == 0, result.stderr


def test_a_rail_that_is_down_fails_naming_the_node(tmp_path):
    def rail_down(driver: str, devices: list[dict]) -> None:
        if driver == "dra.net":
            _rail(devices, "rdma3")["attributes"]["dra.net/state"] = {"string": "down"}

    result = run_usable(tmp_path, _recorded(tmp_path, rail_down))
    assert result.returncode == 1
    assert (
        f"not usable: {NODE_A}: dra.net RDMA rails up: 15 of 16 (DRANET's kubelet plugin);"
        in result.stderr
    )
    assert "kubectl get resourceslices --field-selector spec.nodeName=NODE" in result.stderr
    assert "10.140.82.106:" not in result.stderr


def test_a_rail_in_a_pods_namespace_still_counts(tmp_path):
    """DRANET keeps a moved interface's PCI device without its link's attributes: the wait runs
    again (a driver's new version) while jobs hold rails, and passes."""

    def moved(driver: str, devices: list[dict]) -> None:
        if driver == "dra.net":
            attributes = _rail(devices, "rdma5")["attributes"]
            del attributes["dra.net/ifName"], attributes["dra.net/state"]

    assert run_usable(tmp_path, _recorded(tmp_path, moved), timeout=600).returncode == 0


def test_a_node_that_publishes_no_rails_or_gpus_fails(tmp_path):
    def unpublished(driver: str, devices: list[dict]) -> None:
        devices.clear()

    result = run_usable(tmp_path, _recorded(tmp_path, unpublished))
    assert result.returncode == 1
    assert f"{NODE_A}: dra.net RDMA rails up: 0 of 16 (DRANET's kubelet plugin);" in result.stderr
    assert "gpu.nvidia.com devices published: 0 of 8 (NVIDIA's DRA GPU kubelet plugin);" in (
        result.stderr
    )


def test_a_node_joined_without_the_gpu_taint_fails_naming_it(tmp_path):
    """Whatever path joined it (join.sh, or an image's oke-init.service reading the metadata)."""
    from tests.wait_script import changed_copy, recorded_kubectl

    def untainted(cluster: dict) -> None:
        cluster["nodes"]["items"][1]["spec"] = {}

    kubectl = recorded_kubectl(changed_copy(tmp_path, HEALTHY, untainted))
    result = run_usable(tmp_path, kubectl)
    assert result.returncode == 1
    assert "not usable: 10.140.82.106: no nvidia.com/gpu taint;" in result.stderr
    assert f" {NODE_A}:" not in result.stderr


def test_the_usable_script_passes_shellcheck(tmp_path):
    from gpu_fabric.oke.nodes.wait import usable_script
    from tests.wait_script import shellcheck_problems

    assert shellcheck_problems(tmp_path, usable_script("BM.GPU.B4.8")) == ""
