"""Rendered Kubernetes objects: valid for Kubernetes 1.34 and the GKE CRDs, faithful upstream."""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from gpu_fabric import yaml_files
from gpu_fabric.catalog import catalog
from gpu_fabric.gke.fabrics import nccl_installer, tcpx
from gpu_fabric.workload_security import without_waivers
from offline.engine import manifest
from tests.conftest import run_stack
from tests.test_health import GKE_HEALTH_KINDS
from tests.test_workloads_queues import QUEUE_KINDS
from tests.vendored import (
    AICR_RUNTIME,
    CRD_FILES,
    GKE_CRDS,
    TESTS_UPSTREAM,
    VERIFY_UPSTREAM,
    blobs,
    git_blob_id,
)

KUBERNETES_VERSION = "1.34"
UPSTREAM = nccl_installer.UPSTREAM
SHARED_REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
"""The project's reference desk beside the clone: only `-m reference` tests (.ci/run) read it."""


def _python_patterns(node: object) -> object:
    """The schema with each `pattern` in Python's regex syntax: the API server evaluates them as Go
    (RE2) regexes, where a flag group may follow `^` (Kueue's `^(?i)[a-z]...`), and Python's `re`
    takes global flags only at the start (`(?i)^[a-z]...`, the same language)."""
    if isinstance(node, dict):
        fixed = {key: _python_patterns(value) for key, value in node.items()}
        pattern = node.get("pattern")
        if isinstance(pattern, str) and (flags := re.match(r"\^(\(\?[a-z]+\))", pattern)):
            fixed["pattern"] = flags[1] + "^" + pattern[flags.end() :]
        return fixed
    if isinstance(node, list):
        return [_python_patterns(item) for item in node]
    return node


def crd_schemas() -> dict[tuple[str, str], dict]:
    schemas = {}
    for path in CRD_FILES:
        crd = yaml_files.read(path)
        for version in crd["spec"]["versions"]:
            api_version = f"{crd['spec']['group']}/{version['name']}"
            schema = _python_patterns(version["schema"]["openAPIV3Schema"])
            schemas[(api_version, crd["spec"]["names"]["kind"])] = schema
    return schemas


CRD_SCHEMAS = crd_schemas()


@functools.cache
def crd_validator(api_version: str, kind: str) -> jsonschema.protocols.Validator:
    """One validator per vendored CRD, its schema checked once: `jsonschema.validate` would check
    the schema again on every object, which was most of the suite's time."""
    schema = CRD_SCHEMAS[(api_version, kind)]
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def validate(obj: dict) -> None:
    """Against its vendored CRD (GKE's networking, Kueue) if it has one, else Kubernetes' own
    (strict) schema."""
    if (obj["apiVersion"], obj["kind"]) in CRD_SCHEMAS:
        error = jsonschema.exceptions.best_match(
            crd_validator(obj["apiVersion"], obj["kind"]).iter_errors(obj)
        )
        if error is not None:
            raise error
    else:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def objects_of(plan) -> list[dict]:
    return [manifest(r) for r in plan.kubernetes_objects()]


@pytest.fixture(scope="module")
def smoke_plan():
    return run_stack({"gpu-fabric:smokeTest": True})


def test_every_rendered_object_is_valid(a3_plan, smoke_plan):
    objects = objects_of(a3_plan) + objects_of(smoke_plan)
    assert {o["kind"] for o in objects} == {
        "DaemonSet",
        "Network",
        "GKENetworkParamSet",
        "Namespace",
        "Pod",
        "Service",
        "ConfigMap",
        *QUEUE_KINDS,
        *GKE_HEALTH_KINDS,
    }
    for obj in objects:
        validate(obj)


def test_validation_can_fail():
    """The checks above are not vacuous: broken objects are caught by each validator."""
    bad_param_set = {
        "apiVersion": "networking.gke.io/v1",
        "kind": "GKENetworkParamSet",
        "metadata": {"name": "vpc1"},
        "spec": {"vpc": "net", "vpcSubnet": "sub", "deviceMode": "Netdevice"},
    }
    with pytest.raises(jsonschema.ValidationError):
        validate(bad_param_set)
    bad_network = {
        "apiVersion": "networking.gke.io/v1",
        "kind": "Network",
        "metadata": {"name": "vpc1"},
        "spec": {"parametersRef": {"name": "vpc1"}},
    }
    with pytest.raises(jsonschema.ValidationError):
        validate(bad_network)
    daemon_set = nccl_installer.installer_manifest(
        nccl_installer.UPSTREAM / "nccl-tcpx-installer.yaml", "i", "p"
    )
    daemon_set["spec"]["template"]["spec"]["hostNetwrok"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        validate(daemon_set)


def test_installer_is_upstream_but_for_the_catalog_images(a3_plan):
    (daemon_set,) = [o for o in objects_of(a3_plan) if o["kind"] == "DaemonSet"]
    upstream = yaml.safe_load((UPSTREAM / "nccl-tcpx-installer.yaml").read_text())
    pod = upstream["spec"]["template"]["spec"]
    pod["initContainers"][0]["image"] = catalog().images.tcpx.installer
    pod["containers"][0]["image"] = catalog().images.pause
    upstream["metadata"]["annotations"] = {nccl_installer.SKIP_AWAIT: "true"}
    assert without_waivers(daemon_set) == upstream
    # The catalog default is the seed's installer; the upstream file pins the same one.
    assert catalog().images.tcpx.installer.endswith("nccl-plugin-gpudirecttcpx-dev:v3.1.9")


def test_installer_keeps_what_upstream_requires(a3_plan):
    (daemon_set,) = [o for o in objects_of(a3_plan) if o["kind"] == "DaemonSet"]
    pod = daemon_set["spec"]["template"]["spec"]
    assert without_waivers(daemon_set)["metadata"] == {
        "name": "nccl-tcpx-installer",
        "namespace": "kube-system",
        "labels": {"k8s-app": "nccl-tcpx-installer"},
        "annotations": {"pulumi.com/skipAwait": "true"},
    }
    assert pod["hostNetwork"] is True and pod["hostPID"] is True
    assert pod["tolerations"] == [{"operator": "Exists"}]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"][0]["matchExpressions"] == [
        {
            "key": "cloud.google.com/gke-accelerator",
            "operator": "In",
            "values": ["nvidia-h100-80gb"],
        }
    ]
    assert {v["hostPath"]["path"] for v in pod["volumes"]} == {
        "/var/lib",
        "/var/lib/tcpx",
        "/home/kubernetes/bin",
    }
    assert (
        "/scripts/container_entry.sh install --install-nccl" in pod["initContainers"][0]["args"][0]
    )
    assert pod["containers"][0]["name"] == "pause"


UPSTREAM_BLOBS = blobs(UPSTREAM) | blobs(TESTS_UPSTREAM) | blobs(VERIFY_UPSTREAM)


@pytest.mark.parametrize(
    "directory", [UPSTREAM, TESTS_UPSTREAM, VERIFY_UPSTREAM], ids=["gke", "tests", "verify"]
)
def test_every_vendored_upstream_file_has_its_upstream_blob_id(directory):
    assert set(directory.rglob("*.yaml")) == set(blobs(directory))


@pytest.mark.parametrize("vendored", sorted(UPSTREAM_BLOBS), ids=lambda p: p.name)
def test_vendored_upstream_files_are_verbatim(vendored):
    assert git_blob_id(vendored.read_bytes()) == UPSTREAM_BLOBS[vendored]


@pytest.mark.reference
@pytest.mark.parametrize(
    "vendored, reference",
    [
        *(
            (UPSTREAM / name, f"gke/{name}")
            for name in (
                "nccl-tcpx-installer.yaml",
                "nccl-tcpxo-installer.yaml",
                "nri-device-injector.yaml",
                "nccl-rdma-installer-a4x.yaml",
                "nccl-rdma-installer.yaml",
            )
        ),
        *(
            (VERIFY_UPSTREAM / name, f"gke/{name}")
            for name in ("nccl-test-tcpxo.yaml", "nccl-test-rdma.yaml")
        ),
        (
            AICR_RUNTIME,
            "aicr/torch-distributed-rdma-cluster-training-runtime.yaml",
        ),
        *((TESTS_UPSTREAM / name, f"gke/crds/{name}") for name in GKE_CRDS),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else "",
)
def test_vendored_files_equal_the_reference_desk_copies(vendored, reference):
    """Only in .ci/run (`-m reference`), and only where the project's reference desk is beside
    the clone."""
    if not SHARED_REFERENCE.is_dir():
        pytest.skip("the project's reference desk is not beside the clone")
    assert vendored.read_bytes() == (SHARED_REFERENCE / reference).read_bytes()


# --- with_tcpx: the seed's "add GPUDirect-TCPX to a manifest" -----------------------------------

DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12"


def trainer_spec() -> dict:
    return {
        "containers": [
            {
                "name": "trainer",
                "image": "my/trainer:1",
                "resources": {"limits": {"nvidia.com/gpu": 8}},
            },
            {"name": "log-shipper", "image": "my/logs:1"},
        ],
        "volumes": [{"name": "data", "emptyDir": {}}],
    }


def test_with_tcpx_adds_exactly_the_seed_fields():
    original = trainer_spec()
    spec = tcpx.with_tcpx(original, DAEMON)
    assert original == trainer_spec()  # the input is not changed
    assert spec["hostNetwork"] is True
    assert spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert spec["volumes"] == [
        {"name": "data", "emptyDir": {}},
        {"name": "libraries", "hostPath": {"path": "/home/kubernetes/bin/nvidia/lib64"}},
        {"name": "tcpx-socket", "hostPath": {"path": "/run/tcpx"}},
    ]
    daemon, trainer, shipper = spec["containers"]
    assert daemon["name"] == "tcpx-daemon" and daemon["image"] == DAEMON
    assert daemon["command"] == [
        "/tcpgpudmarxd/build/app/tcpgpudmarxd",
        "--gpu_nic_preset",
        "a3vm",
        "--gpu_shmem_type",
        "fd",
        "--uds_path",
        "/run/tcpx",
        "--setup_param",
        '\\"--verbose 128 2 0 \\"',
    ]
    assert daemon["securityContext"] == {"privileged": True}
    assert daemon["volumeMounts"] == [
        {"name": "libraries", "mountPath": "/usr/local/nvidia/lib64"},
        {"name": "tcpx-socket", "mountPath": "/run/tcpx"},
    ]
    assert daemon["env"] == [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}]
    assert trainer["volumeMounts"] == [
        {"name": "tcpx-socket", "mountPath": "/tmp"},
        {"name": "libraries", "mountPath": "/usr/local/nvidia/lib64"},
    ]
    assert trainer["env"] == [{"name": "LD_LIBRARY_PATH", "value": "/usr/local/nvidia/lib64"}]
    assert shipper == trainer_spec()["containers"][1]  # no GPU, no wiring
    validate({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"}, "spec": spec})


def test_with_tcpx_counts_gpu_requests_too():
    spec = trainer_spec()
    spec["containers"][0]["resources"] = {"requests": {"nvidia.com/gpu": 8}}
    assert tcpx.with_tcpx(spec, DAEMON)["containers"][1]["env"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s["containers"][0].pop("resources"), "no container requests"),
        (lambda s: s["containers"].append({"name": "tcpx-daemon", "image": "x"}), "tcpx-daemon"),
        (lambda s: s["volumes"].append({"name": "libraries", "emptyDir": {}}), "volumes named"),
        (lambda s: s.update(hostNetwork=False), "hostNetwork is false"),
        (
            lambda s: s["containers"][0].update(
                volumeMounts=[{"name": "data", "mountPath": "/tmp"}]
            ),
            "already mounts",
        ),
        (
            lambda s: s["containers"][0].update(env=[{"name": "LD_LIBRARY_PATH", "value": "/x"}]),
            "LD_LIBRARY_PATH",
        ),
    ],
)
def test_with_tcpx_refuses_to_overwrite(change, message):
    spec = copy.deepcopy(trainer_spec())
    change(spec)
    with pytest.raises(ValueError, match=message):
        tcpx.with_tcpx(spec, DAEMON)
