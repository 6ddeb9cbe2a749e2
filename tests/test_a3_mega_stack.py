"""The a3-mega-prod stack under mocks (GPUDirect-TCPXO, 8 GPU NICs), with_tcpxo and its rules."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.fabrics import nccl_installer, tcpxo
from gpu_fabric.workload_security import waivers, without_waivers
from offline.engine import Plan, manifest
from tests.conftest import assert_single_rule, parse_stack, planned
from tests.test_health import GKE_HEALTH_KINDS
from tests.test_manifests import UPSTREAM, validate
from tests.test_workloads_queues import QUEUE_KINDS
from tests.vendored import VERIFY_UPSTREAM

STACK = "a3-mega-prod"
DAEMON = catalog().images.tcpxo.daemon
VPCS = [f"vpc{n}" for n in range(1, 9)]


@pytest.fixture(scope="module")
def mega_plan() -> Plan:
    return planned(STACK)


def daemon_sets(plan: Plan) -> dict[str, dict]:
    objects = [manifest(r) for r in plan.of_type("kubernetes:apps/v1:DaemonSet")]
    return {o["metadata"]["name"]: o for o in objects}


def test_eight_gpu_vpcs_with_mtu_8244_and_their_own_range_firewall(mega_plan):
    networks = {
        n.inputs["name"]: n.inputs for n in mega_plan.of_type("gcp:compute/network:Network")
    }
    for n in range(1, 9):
        assert networks[f"{STACK}-net-{n}"]["mtu"] == 8244
        assert "networkProfile" not in networks[f"{STACK}-net-{n}"]
    rules = {r.inputs["name"]: r.inputs for r in mega_plan.of_type("gcp:compute/firewall:Firewall")}
    assert sorted(rules) == sorted(f"{STACK}-internal-{n}" for n in range(1, 9))
    assert rules[f"{STACK}-internal-5"]["sourceRanges"] == ["192.168.5.0/24"]


def test_node_pool(mega_plan):
    (pool,) = [
        p
        for p in mega_plan.of_type("gcp:container/nodePool:NodePool")
        if p.inputs["name"] != "system"
    ]
    node = pool.inputs["nodeConfig"]
    assert node["machineType"] == "a3-megagpu-8g"
    assert node["guestAccelerators"][0]["type"] == "nvidia-h100-mega-80gb"
    assert node["guestAccelerators"][0]["count"] == 8
    assert node["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": 16}
    assert pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"] == [
        {"network": f"{STACK}-net-{n}", "subnetwork": f"{STACK}-sub-{n}"} for n in range(1, 9)
    ]
    assert pool.inputs["placementPolicy"]["type"] == "COMPACT"


def test_network_objects_vpc1_to_vpc8(mega_plan):
    param_sets = {
        p.inputs["metadata"]["name"]: p.inputs["spec"]
        for p in mega_plan.of_type("kubernetes:networking.gke.io/v1:GKENetworkParamSet")
    }
    assert param_sets == {
        f"vpc{n}": {
            "vpc": f"{STACK}-net-{n}",
            "vpcSubnet": f"{STACK}-sub-{n}",
            "deviceMode": "NetDevice",
        }
        for n in range(1, 9)
    }


def test_tcpxo_installer_is_upstream_but_for_the_catalog_images(mega_plan):
    rendered = daemon_sets(mega_plan)["nccl-tcpxo-installer"]
    upstream = yaml.safe_load((UPSTREAM / "nccl-tcpxo-installer.yaml").read_text())
    pre, installer = upstream["spec"]["template"]["spec"]["initContainers"]
    installer["image"] = catalog().images.tcpxo.installer
    upstream["spec"]["template"]["spec"]["containers"][0]["image"] = catalog().images.pause
    upstream["metadata"]["annotations"] = {nccl_installer.SKIP_AWAIT: "true"}
    assert without_waivers(rendered) == upstream
    assert waivers(rendered)["CKV_K8S_16"].startswith("privileged, as container-engine-acc")
    assert pre["name"] == "pre-installation" and pre["image"] == "ubuntu"  # left as upstream
    # The catalog pins what upstream pins.
    assert catalog().images.tcpxo.installer.endswith(":v1.0.15")


def test_nri_device_injector_is_upstream_but_for_the_catalog_image(mega_plan):
    rendered = daemon_sets(mega_plan)["device-injector"]
    upstream = yaml.safe_load(nccl_installer.NRI_DEVICE_INJECTOR.read_text())
    upstream["metadata"]["annotations"] = {nccl_installer.SKIP_AWAIT: "true"}
    assert without_waivers(rendered) == upstream  # the catalog pins upstream's digest
    assert "CKV_K8S_43" not in waivers(rendered)  # pinned by digest: nothing to waive
    values = upstream["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
    assert "nvidia-h100-mega-80gb" in values


def test_every_object_is_valid(mega_plan):
    objects = [manifest(o) for o in mega_plan.kubernetes_objects()]
    assert {o["kind"] for o in objects} == {
        "DaemonSet",
        "Network",
        "GKENetworkParamSet",
        *QUEUE_KINDS,
        *GKE_HEALTH_KINDS,
    }
    for obj in objects:
        validate(obj)


def test_an_external_installer_owner_leaves_out_the_device_injector_too():
    from tests.conftest import run_stack

    plan = run_stack({"gpu-fabric:installer": {"owner": "external"}}, stack=STACK)
    assert daemon_sets(plan) == {}


def test_handing_the_installer_to_an_external_owner_keeps_its_daemon_sets():
    """Switching `installer.owner` to `external` straight from `stack` would delete the installer
    and the NRI device injector, breaking every new TCPXO pod until the other owner's bundle
    applies the same names. An `up` with `handover` first makes them `retainOnDelete` (Pulumi
    resource option, read from the state): then `external` forgets them and deletes nothing."""
    from offline import diff
    from tests.conftest import run_stack
    from tests.test_diff import RULES, as_file

    handover = run_stack({"gpu-fabric:installer": {"owner": "handover"}}, stack=STACK)
    owned = handover.of_type("kubernetes:apps/v1:DaemonSet")
    assert sorted(r.name for r in owned if r.retain_on_delete) == [
        f"{STACK}-nccl-tcpxo-installer",
        f"{STACK}-nri-device-injector",
    ]
    assert all(r.as_json()["retainOnDelete"] for r in owned)
    external = run_stack({"gpu-fabric:installer": {"owner": "external"}}, stack=STACK)
    handed_over = diff.diff_plans(as_file(handover), as_file(external), RULES)
    report = diff.render_stack(handed_over, RULES)
    assert report.startswith(
        f"## Stack `{STACK}`: 1 to replace, 0 to update, 0 to add, 0 to remove, 2 to forget "
        "(kept, no longer managed)\n"
    )
    # The one replacement is the usable wait, a local command: it guards the installer's image,
    # which the stack no longer names, and checks the nodes again.
    (replaced,) = [c for c in handed_over.changes if c.action == "replace"]
    assert (replaced.name, replaced.type) == (
        f"{STACK}-gpu-nodes-usable-wait",
        "command:local:Command",
    )
    assert "### Remove\n" not in report
    for name in (f"{STACK}-nccl-tcpxo-installer", f"{STACK}-nri-device-injector"):
        assert (
            f"- `{name}` (`kubernetes:apps/v1:DaemonSet`): kept in the cluster, no longer managed"
            in report
        )


def test_daemon_sets_the_stack_keeps_are_not_retained_so_a_replacement_can_delete_them(
    mega_plan,
):
    """A fixed-name DaemonSet is replaced delete-first (pulumi-kubernetes); retained, it would not
    be deleted and its replacement would fail with AlreadyExists. Straight to `external`, the
    diff says they are removed."""
    from offline import diff
    from tests.conftest import run_stack
    from tests.test_diff import RULES, as_file

    owned = mega_plan.of_type("kubernetes:apps/v1:DaemonSet")
    assert len(owned) == 2 and not any(r.retain_on_delete for r in owned)
    external = run_stack({"gpu-fabric:installer": {"owner": "external"}}, stack=STACK)
    report = diff.render_stack(diff.diff_plans(as_file(mega_plan), as_file(external), RULES), RULES)
    assert "0 to add, 2 to remove" in report.splitlines()[0]


# --- with_tcpxo ----------------------------------------------------------------------------------


def workload() -> dict:
    return {
        "metadata": {"labels": {"app": "train"}},
        "spec": {"containers": [{"name": "nccl-test", "image": "my/nccl:1"}]},
    }


def upstream_test_pod() -> dict:
    docs = yaml.safe_load_all((VERIFY_UPSTREAM / "nccl-test-tcpxo.yaml").read_text())
    return next(d for d in docs if d["kind"] == "Pod")


def test_with_tcpxo_adds_the_upstream_wiring():
    original = workload()
    template = tcpxo.with_tcpxo(original, DAEMON, VPCS)
    assert original == workload()
    annotations = template["metadata"]["annotations"]
    assert annotations[tcpxo.DEVICES_ANNOTATION].splitlines() == [
        *[f"- path: /dev/nvidia{i}" for i in range(8)],
        "- path: /dev/nvidiactl",
        "- path: /dev/nvidia-uvm",
        "- path: /dev/dmabuf_import_helper",
    ]
    assert annotations["networking.gke.io/default-interface"] == "eth0"
    assert json.loads(annotations["networking.gke.io/interfaces"]) == [
        {"interfaceName": "eth0", "network": "default"},
        *[{"interfaceName": f"eth{n}", "network": f"vpc{n}"} for n in range(1, 9)],
    ]
    assert template["metadata"]["labels"] == {"app": "train", "tcpxo": "daemon"}
    spec = template["spec"]
    (daemon,) = spec["initContainers"]
    assert daemon["name"] == "tcpxo-daemon" and daemon["restartPolicy"] == "Always"
    assert daemon["image"] == DAEMON
    assert daemon["startupProbe"]["exec"] == {"command": ["cat", "/run/health-check"]}
    assert {"name": "HEALTH_CHECK_LOG_FILE", "value": "/run/health-check"} in daemon["env"]
    assert "privileged" not in daemon["securityContext"]
    (main,) = spec["containers"]
    assert main["resources"]["limits"] == {"nvidia.com/gpu": 8}
    assert {"name": "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "value": "/dev/aperture_devices"} in main[
        "env"
    ]
    assert spec["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ] == [tcpxo.ONE_PER_NODE]
    validate(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "t", **template["metadata"]},
            "spec": spec,
        }
    )
    assert tcpxo.with_tcpxo(template, DAEMON, VPCS) == template  # wiring twice changes nothing


@pytest.mark.parametrize("shell, sources", [("bash", "source"), ("/bin/sh", ".")])
def test_with_tcpxo_has_a_shell_script_container_source_the_nccl_profile_first(shell, sources):
    """container-engine-accelerators gpudirect-tcpxo/README.md: the NCCL settings are required;
    `source ${NCCL_LIB_DIR}/nccl-env-profile.sh` at container start sets them all."""
    template = workload()
    template["spec"]["containers"][0].update(command=[shell, "-c"], args=["torchrun train.py"])
    wired = tcpxo.with_tcpxo(template, DAEMON, VPCS)
    container = wired["spec"]["containers"][0]
    assert container["args"] == [
        f"{sources} ${{NCCL_LIB_DIR}}/nccl-env-profile.sh\ntorchrun train.py"
    ]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["NCCL_LIB_DIR"] == "/usr/local/nvidia/lib64"  # where the profile is
    assert tcpxo.with_tcpxo(wired, DAEMON, VPCS) == wired  # sourced once
    # A container with its own entry point runs as it is (its entry point must source it).
    assert "args" not in tcpxo.with_tcpxo(workload(), DAEMON, VPCS)["spec"]["containers"][0]


def test_with_tcpxo_matches_upstreams_test_pod():
    pod = upstream_test_pod()
    wired = tcpxo.with_tcpxo(workload(), DAEMON, VPCS)
    upstream_annotations = pod["metadata"]["annotations"]
    ours = wired["metadata"]["annotations"]
    assert ours[tcpxo.DEVICES_ANNOTATION] == upstream_annotations[tcpxo.DEVICES_ANNOTATION]
    assert json.loads(ours["networking.gke.io/interfaces"]) == json.loads(
        upstream_annotations["networking.gke.io/interfaces"]
    )
    assert wired["spec"]["affinity"] == pod["spec"]["affinity"]
    upstream_daemon, upstream_test = pod["spec"]["containers"]
    daemon = copy.deepcopy(wired["spec"]["initContainers"][0])
    # What best-practice.md adds to upstream's daemon: native sidecar and its startup probe.
    assert daemon.pop("restartPolicy") == "Always"
    daemon.pop("startupProbe")
    daemon["env"] = [e for e in daemon["env"] if e["name"] != "HEALTH_CHECK_LOG_FILE"]
    upstream_daemon.pop("imagePullPolicy")
    assert daemon == upstream_daemon
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    volumes["shared-memory"]["emptyDir"].pop("sizeLimit")  # the test's 1Gi is not a workload's
    assert {v["name"]: v for v in wired["spec"]["volumes"]} == volumes
    mounts = wired["spec"]["containers"][0]["volumeMounts"]
    assert mounts == upstream_test["volumeMounts"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t["spec"].update(hostNetwork=True), "hostNetwork is true"),
        (
            lambda t: t["spec"]["containers"][0].update(
                resources={"limits": {"nvidia.com/gpu": 4}}
            ),
            "takes all 8 GPUs",
        ),
        (
            lambda t: t["spec"]["containers"].append({"name": "tcpxo-daemon", "image": "x"}),
            "named tcpxo-daemon",
        ),
        (
            lambda t: t["spec"].update(volumes=[{"name": "sys", "emptyDir": {}}]),
            "different 'sys'",
        ),
        (
            lambda t: t["metadata"].update(labels={"tcpxo": "other"}),
            "label tcpxo differently",
        ),
    ],
)
def test_with_tcpxo_refuses_to_overwrite(change, message):
    template = workload()
    change(template)
    with pytest.raises(ValueError, match=message):
        tcpxo.with_tcpxo(template, DAEMON, VPCS)


# --- rules -------------------------------------------------------------------------------------


def test_an_extra_gvnic_network_is_refused_with_the_reason():
    assert_single_rule(
        {"gpu-fabric:network.nics.gvnic": {"subnets": ["192.168.0.0/24"]}},
        "gpu-fabric:network.nics.gvnic",
        {"subnets": ["192.168.0.0/24"]},
        "takes a GPU NIC PCI slot on a3-megagpu-8g",
        STACK,
    )


REPO = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo"


def test_an_unknown_tcpxo_pair_is_refused():
    assert_single_rule(
        {
            "gpu-fabric:images.tcpxo": {
                "installer": f"{REPO}/nccl-plugin-gpudirecttcpx-dev:v9.9.9",
                "daemon": f"{REPO}/tcpgpudmarxd-dev:v1.0.21",
            }
        },
        "gpu-fabric:images.tcpxo.installer",
        f"{REPO}/nccl-plugin-gpudirecttcpx-dev:v9.9.9",
        "is not a known TCPXO pair (v1.0.15 <-> v1.0.21, v1.0.14 <-> v1.0.20)",
        STACK,
    )


def test_a_mismatched_rxdm_is_refused():
    assert_single_rule(
        {
            "gpu-fabric:images.tcpxo": {
                "installer": catalog().images.tcpxo.installer,
                "daemon": f"{REPO}/tcpgpudmarxd-dev:v1.0.20",
            }
        },
        "gpu-fabric:images.tcpxo.daemon",
        f"{REPO}/tcpgpudmarxd-dev:v1.0.20",
        "installer v1.0.15 pairs with RxDM v1.0.21",
        STACK,
    )


def test_a_known_older_pair_is_accepted():
    repo = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo"
    pair = {
        "installer": f"{repo}/nccl-plugin-gpudirecttcpx-dev:v1.0.14",
        "daemon": f"{repo}/tcpgpudmarxd-dev:v1.0.20",
    }
    assert parse_stack({"gpu-fabric:images.tcpxo": pair}, STACK).tcpxo_images.daemon.endswith(
        "v1.0.20"
    )


@pytest.mark.parametrize(
    "version, says",
    [
        ("1.30.4-gke.1000000", "below the gpudirect-tcpxo floor 1.30.4-gke.1129000"),
        ("1.27.16-gke.2874000", "needs 1.28 or newer"),
    ],
)
def test_gke_below_the_tcpxo_floors_is_refused(version, says):
    assert_single_rule(
        {"gpu-fabric:gke.version": version}, "gpu-fabric:gke.version", version, says, STACK
    )


def test_a_version_under_the_security_floor_warns():
    warnings = parse_stack({"gpu-fabric:gke.version": "1.31.1-gke.2008000"}, STACK).warnings
    (warning,) = [w for w in warnings if "gke.version" in w]
    assert "1.31.14-gke.1243000" in warning and "not fatal" in warning


def test_an_external_owner_with_object_names_aicr_misses_warns():
    # NVIDIA AICR finds A3 Mega GPU NICs only in Network objects whose names
    # contain `gpu-nic`; the default vpc1..vpc8 are invisible to its validation.
    key = "gpu-fabric:network.nics.gpu.objectNames"
    external = {"gpu-fabric:installer": {"owner": "external"}}
    (warning,) = [w for w in parse_stack(external, STACK).warnings if key in w]
    assert warning.startswith(f"{key}: vpc1, vpc2,")
    assert "gpu-nic-1, gpu-nic-2" in warning and "not fatal" in warning
    renamed = {**external, key: [f"gpu-nic-{n}" for n in range(1, 9)]}
    assert [w for w in parse_stack(renamed, STACK).warnings if key in w] == []
    # The stack's own installer: nothing to warn about.
    assert [w for w in parse_stack({}, STACK).warnings if key in w] == []
    from tests.conftest import run_stack

    assert any(key in w for w in run_stack(external, stack=STACK).warnings)


def test_mtu_8896_is_allowed():
    cfg = parse_stack({"gpu-fabric:network.nics.gpu.mtu": 8896}, STACK)
    assert cfg.nic_groups[0].mtu == 8896


@pytest.mark.parametrize(
    "key, value, stack, says",
    [
        (
            "gpu-fabric:images.tcpxo",
            {"installer": "a:1", "daemon": "b:1"},
            "a3-prod",
            "gke-a3-mega",
        ),
        ("gpu-fabric:smokeTest", True, STACK, "gke-a3-high"),
    ],
)
def test_keys_of_the_other_tcp_platform_are_refused(key, value, stack, says):
    assert_single_rule({key: value}, key, value, f"a key of {says}", stack)


def test_make_verify_expects_vpc1_to_vpc8_and_the_tcpxo_installer():
    from verify.gke import expected_from

    expected = expected_from(parse_stack({}, STACK))
    assert [(n.name, n.device_mode, n.vpc) for n in expected.networks] == [
        (f"vpc{n}", "NetDevice", f"{STACK}-net-{n}") for n in range(1, 9)
    ]
    assert (expected.installer_namespace, expected.installer_name) == (
        "kube-system",
        "nccl-tcpxo-installer",
    )
