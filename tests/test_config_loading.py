"""Every key of a stack file is used as written or refused: namespaces, identities, the file itself,
flat keys, secrets, values that are not what they look like, and stale plan files."""

from __future__ import annotations

import json

import pytest
import yaml

from gpu_fabric import stack_file
from gpu_fabric.problems import ConfigError
from offline import engine
from offline import plan as plan_cli
from tests.conftest import (
    DELETE,
    SSH_PUBLIC_KEY,
    assert_single_rule,
    encode,
    parse_stack,
    problems,
    project_of,
    stack_values,
    with_changes,
)

TCPX_INSTALLER = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev"
TCPX_DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev"
DIGEST = "sha256:" + "a" * 64


def tcpx(installer: str, daemon: str) -> dict:
    return {"gpu-fabric:images": {"tcpx": {"installer": installer, "daemon": daemon}}}


# (changes, key, value, what the message must say): one row per rule.
RULES = {
    "a typo in the project namespace": (
        {"gpu_fabric:smokeTest": True},
        "gpu_fabric:smokeTest",
        "true",
        "did you mean gpu-fabric:smokeTest?",
    ),
    "a key without a namespace": (
        {"smokeTest": True},
        "smokeTest",
        "true",
        "has no namespace; write it as gpu-fabric:smokeTest",
    ),
    "a key under another project's name": (
        {"gpu-cluster:gke": {"name": "x"}},
        "gpu-cluster:gke",
        None,
        "neither this project's (gpu-fabric) nor a provider's",
    ),
    "the project under the package's namespace": (
        {"gpu-fabric:project": "other-project"},
        "gpu-fabric:project",
        "other-project",
        "read from the provider's own key gcp:project only",
    ),
    "an empty gcp:project": (
        {"gcp:project": ""},
        "gcp:project",
        "",
        "must not be empty",
    ),
    "an empty machine type of the system pool": (
        {"gpu-fabric:gke.systemPool.machineType": ""},
        "gpu-fabric:gke.systemPool.machineType",
        "",
        "must not be empty",
    ),
    "a malformed gcp:project": (
        {"gcp:project": "My_Project"},
        "gcp:project",
        "My_Project",
        "not a GCP project ID",
    ),
    "no gcp:project": (
        {"gcp:project": DELETE},
        "gcp:project",
        None,
        "required",
    ),
    "a flat key written without --path": (
        {"gpu-fabric:gke.version": None},  # replaced below: conftest nests dotted paths
        "gpu-fabric:gke.version",
        "1.33",
        "pulumi config set --path 'gke.version' VALUE",
    ),
    "yes as a count": (
        {"gpu-fabric:gpuPool.nodeCount": True},
        "gpu-fabric:gpuPool.nodeCount",
        True,
        "must be a whole number",
    ),
    "a version written as a number": (
        {"gpu-fabric:gke.version": 1.3},
        "gpu-fabric:gke.version",
        1.3,
        "quote it",
    ),
    "a flag written as text": (
        {"gpu-fabric:smokeTest": "yes"},
        "gpu-fabric:smokeTest",
        "yes",
        "must be true or false",
    ),
    "an empty subnet list": (
        {"gpu-fabric:network.nics.gpu.subnets": []},
        "gpu-fabric:network.nics.gpu.subnets",
        [],
        "give exactly 4 range(s)",
    ),
    "an image on latest": (
        {"gpu-fabric:images": {"pause": "gke.gcr.io/pause:latest"}},
        "gpu-fabric:images.pause",
        "gke.gcr.io/pause:latest",
        "`latest` moves under you",
    ),
    "an image without tag or digest": (
        {"gpu-fabric:images": {"pause": "gke.gcr.io/pause"}},
        "gpu-fabric:images.pause",
        "gke.gcr.io/pause",
        "has no tag or digest",
    ),
    "an empty image": (
        {"gpu-fabric:images": {"pause": ""}},
        "gpu-fabric:images.pause",
        "",
        "must not be empty",
    ),
    "a malformed image": (
        {"gpu-fabric:images": {"pause": "gke.gcr.io/Pause::3.8"}},
        "gpu-fabric:images.pause",
        "gke.gcr.io/Pause::3.8",
        "not an image reference",
    ),
    "a TCPX installer from another repository": (
        tcpx("us-docker.pkg.dev/me/mirror/nccl-plugin:v3.1.9", f"{TCPX_DAEMON}:v2.0.12"),
        "gpu-fabric:images.tcpx.installer",
        "us-docker.pkg.dev/me/mirror/nccl-plugin:v3.1.9",
        f"the installer comes from {TCPX_INSTALLER}",
    ),
    "a TCPX pair pinned by digest alone": (
        tcpx(f"{TCPX_INSTALLER}@{DIGEST}", f"{TCPX_DAEMON}:v2.0.12"),
        "gpu-fabric:images.tcpx.installer",
        f"{TCPX_INSTALLER}@{DIGEST}",
        "pin it as REPOSITORY:TAG@sha256:DIGEST",
    ),
    "a TCPX installer that is not a known pair": (
        tcpx(f"{TCPX_INSTALLER}:v9.9.9", f"{TCPX_DAEMON}:v2.0.12"),
        "gpu-fabric:images.tcpx.installer",
        f"{TCPX_INSTALLER}:v9.9.9",
        "is not a known TCPX pair (v3.1.9 <-> v2.0.12, v3.1.12 <-> v2.0.15)",
    ),
    "an empty list of Network object names": (
        {"gpu-fabric:network.nics.gpu.objectNames": []},
        "gpu-fabric:network.nics.gpu.objectNames",
        [],
        "give exactly 4 names",
    ),
}


def _flat(values: dict) -> dict:
    """The stack as `pulumi config set gke.version ...` (no --path) leaves it."""
    values = dict(values)
    values["gpu-fabric:gke.version"] = values["gpu-fabric:gke"].pop("version")
    values["gpu-fabric:gke"]["version"] = "1.33.5-gke.1862000"
    return values


@pytest.mark.parametrize("rule", list(RULES))
def test_single_rule(rule):
    changes, key, value, says = RULES[rule]
    if rule == "a flat key written without --path":
        values = encode(_flat(stack_values()))
        with pytest.raises(ConfigError) as err:
            from gpu_fabric.stack_config import parse_pulumi_config

            parse_pulumi_config(values, "a3-prod")
        (problem,) = err.value.problems
        assert (problem.key, problem.value) == (key, value)
        assert says in problem.message
        return
    assert_single_rule(changes, key, value, says, stack="a3-prod")


def test_swapped_tcpx_images_are_caught_on_both_sides():
    found = problems(tcpx(f"{TCPX_DAEMON}:v2.0.12", f"{TCPX_INSTALLER}:v3.1.9"))
    assert [p.key for p in found] == [
        "gpu-fabric:images.tcpx.installer",
        "gpu-fabric:images.tcpx.daemon",
    ]
    assert all("swapped" in p.message for p in found)


def test_a_tag_and_digest_pin_of_a_known_pair_is_accepted():
    cfg = parse_stack(tcpx(f"{TCPX_INSTALLER}:v3.1.9@{DIGEST}", f"{TCPX_DAEMON}:v2.0.12"))
    assert cfg.tcpx_images.installer.endswith(DIGEST)


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"gpu-fabric:images": {"ncclTests": "nccl-tests:latest"}}, "gpu-fabric:images.ncclTests"),
        ({"gpu-fabric:charts": {"dranet": {"version": ""}}}, "gpu-fabric:charts.dranet.version"),
    ],
)
def test_oke_images_and_versions_are_checked_too(changes, key):
    (problem,) = problems(changes, stack="oke-dranet")
    assert problem.key == key


@pytest.mark.parametrize(
    "stack, changes, key, says",
    [
        (
            "a3-prod",
            {"gpu-fabric:installer": {"owner": "external", "awaitRollout": True}},
            "gpu-fabric:installer.awaitRollout",
            "has no effect with installer.owner: external",
        ),
        (
            "a3-prod",
            {"gpu-fabric:gke.systemPool.machineType": "a3-highgpu-8g"},
            "gpu-fabric:gke.systemPool.machineType",
            "is a GPU machine type",
        ),
        (
            "ack-lingjun",
            {"gpu-fabric:images": {"benchmark": "registry.example/hps:1.0"}},
            "gpu-fabric:images.benchmark",
            "has no effect without gpu-fabric:benchmarkJob: true",
        ),
        (
            "ack-lingjun",
            {"gpu-fabric:rdma.nonHostNetworkKey": "enableX"},
            "gpu-fabric:rdma.nonHostNetworkKey",
            "has no effect unless rdma.nonHostNetwork is true",
        ),
        (
            "ack-lingjun",
            {"gpu-fabric:images": {"benchmark": "hps:latest"}, "gpu-fabric:benchmarkJob": True},
            "gpu-fabric:images.benchmark",
            "`latest` moves under you",
        ),
        (
            "oke-dranet",
            {"gpu-fabric:charts": {"dranet": {"imageTag": "latest"}}},
            "gpu-fabric:charts.dranet.imageTag",
            "not latest",
        ),
    ],
)
def test_options_without_effect_and_floating_versions_are_refused(stack, changes, key, says):
    (problem,) = problems(changes, stack=stack)
    assert problem.key == key and says in problem.message


@pytest.mark.parametrize(
    "stack, key, says",
    [
        (
            "a3-prod",
            "gcp:projct",
            "not a config key of the gcp provider; did you mean gcp:project?",
        ),
        ("a3-prod", "gcp:project.x", "not a config key of the gcp provider"),
        (
            "ack-lingjun",
            "oci:regin",
            "not for platform ack-lingjun: it configures the oci provider",
        ),
        ("oke-dranet", "gcp:zone", "not for platform oke-dranet: it configures the gcp provider"),
        ("a4x-prod", "kubernetes:context", "configures nothing here"),
        ("a4x-prod", "command:foo", "configures nothing here"),
        ("a3-prod", "GPU-FABRIC:region", "did you mean gpu-fabric:region?"),
    ],
)
def test_provider_namespaces_are_checked_by_platform_and_key(stack, key, says):
    from gpu_fabric.stack_config import parse_pulumi_config

    with pytest.raises(ConfigError) as err:
        parse_pulumi_config({**encode(stack_values(stack)), key: "x"}, stack)
    found = err.value.problems
    assert [p.key for p in found] == [key]
    assert says in found[0].message


@pytest.mark.parametrize(
    "stack, key, provider_key",
    [
        ("oke-dranet", "gpu-fabric:region", "oci:region"),
        ("ack-lingjun", "gpu-fabric:region", "alicloud:region"),
    ],
)
def test_a_package_key_that_shadows_the_platforms_provider_key_points_to_it(
    stack, key, provider_key
):
    (problem,) = problems({key: "x"}, stack=stack)
    assert f"read from the provider's own key {provider_key} only" in problem.message


@pytest.mark.parametrize(
    "stack, mtu, ok",
    [("a3-prod", 1500, False), ("a3-mega-prod", 8896, True), ("a3-mega-prod", 1500, False)],
)
def test_tcpx_and_tcpxo_nics_keep_the_mtus_their_docs_name(stack, mtu, ok):
    changes = {"gpu-fabric:network.nics.gpu.mtu": mtu}
    if ok:
        assert parse_stack(changes, stack=stack).nic_groups[0].mtu == mtu
    else:
        (problem,) = problems(changes, stack=stack)
        assert (
            problem.key == "gpu-fabric:network.nics.gpu.mtu" and "work with MTU" in problem.message
        )


def test_an_open_control_plane_is_a_warning():
    (warning,) = parse_stack({}).warnings
    assert warning.startswith("gpu-fabric:gke.masterAuthorizedNetworks: not set")
    closed = parse_stack(
        {"gpu-fabric:gke.masterAuthorizedNetworks": [{"cidrBlock": "192.0.2.0/24"}]}
    )
    assert closed.warnings == []


def test_an_ack_public_endpoint_is_refused_it_has_no_allow_list():
    (problem,) = problems({"gpu-fabric:ack.publicEndpoint": True}, stack="ack-lingjun")
    assert problem.key == "gpu-fabric:ack.publicEndpoint"
    assert "no access control list" in problem.message


def test_an_ack_vswitch_outside_the_allowed_sizes_is_refused():
    (problem,) = problems(
        {
            "gpu-fabric:network.existing.podVswitches": [
                {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.64.0/30"}
            ]
        },
        stack="ack-lingjun",
    )
    assert problem.key == "gpu-fabric:network.existing.podVswitches[0].cidr"
    assert "a vSwitch range is a /16 to /29" in problem.message


def test_a_domain_scoped_project_id_is_a_project_id():
    assert (
        parse_stack({"gcp:project": "example.com:my-project"}).project == "example.com:my-project"
    )


def test_keys_of_providers_and_pulumi_are_allowed():
    cfg = parse_stack({"gcp:region": "us-central1", "pulumi:tags": {"team": "ml"}})
    assert cfg.project == project_of()


def test_several_key_problems_are_reported_with_the_model_s():
    found = problems({"gpu_fabric:x": 1, "gpu-fabric:gke.version": "1.26.1-gke.1"})
    assert {p.key for p in found} == {"gpu_fabric:x", "gpu-fabric:gke.version"}


# --- the stack file itself ---------------------------------------------------------------------


def _write(tmp_path, monkeypatch, content: bytes) -> str:
    (tmp_path / "Pulumi.broken.yaml").write_bytes(content)
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    return str(tmp_path / "Pulumi.broken.yaml")


@pytest.mark.parametrize(
    "content, says, line",
    [
        (b"- just\n- a list\n", "must be a mapping with a `config:` key, not a list", None),
        (b"config: [1, 2]\n", "`config:` must be a mapping of keys to values, not a list", None),
        (b"config:\n  gcp:project: x\n   bad: indent\n", "not valid YAML", 3),
        (b"config:\n  a: 1\n  b: [\n", "not valid YAML", 4),
        (b"\xff\xfe\x00binary", "is not UTF-8 text", None),
        (
            b"config:\n  gcp:project: a\n  gcp:project: b\n",
            "the key 'gcp:project' is written twice (first on line 2); keep one",
            3,
        ),
        # Nested beyond libyaml's depth limit: a parse error, not Python's RecursionError.
        (b"config:\n  k: " + b"[" * 5000 + b"]" * 5000 + b"\n", "maximum nesting depth", 2),
        (
            b"config:\n  k:\n" + b"".join(b"  " * (n + 2) + b"- \n" for n in range(3000)),
            "maximum nesting depth",
            1000,
        ),
        (b"config:\n  k: !!binary aGk=\n", "the tag tag:yaml.org,2002:binary is not", 2),
        (
            b"config:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + b"".join(
                f"  {n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n".encode()
                for p, n in zip("abcdefgh", "bcdefghi", strict=True)
            ),
            "its aliases (*name) expand to more than 100,000 values",
            None,
        ),
    ],
)
def test_a_broken_stack_file_is_a_clean_error_with_its_line(
    tmp_path, monkeypatch, capsys, content, says, line
):
    path = _write(tmp_path, monkeypatch, content)
    with pytest.raises(ConfigError) as err:
        engine.stack_config("broken")
    (problem,) = err.value.problems
    assert problem.key == (f"{path}:{line}" if line else path)
    assert says in problem.message
    assert plan_cli.main(["broken", "--out", str(tmp_path / "out")]) == 2
    assert says in capsys.readouterr().err


def test_anchors_aliases_and_merge_keys_are_read_as_pulumi_reads_them(tmp_path, monkeypatch):
    """Valid YAML that Pulumi's reader (Go's yaml.v3) takes: an alias is the anchored value, a
    merge key (`<<`) copies the anchored mapping's keys under the ones written beside it."""
    _write(
        tmp_path,
        monkeypatch,
        b"config:\n"
        b"  gcp:project: &project acme-ml-4821\n"
        b"  gcp:zone: us-central1-a\n"
        b"  gpu-fabric:base: &base {machineType: a3-highgpu-8g, nodeCount: 2}\n"
        b"  gpu-fabric:gpuPool:\n"
        b"    <<: *base\n"
        b"    nodeCount: 4\n"
        b"  gpu-fabric:owner: *project\n",
    )
    config = engine.stack_config("broken")
    assert json.loads(config["gpu-fabric:gpuPool"]) == {
        "machineType": "a3-highgpu-8g",
        "nodeCount": 4,
    }
    assert config["gpu-fabric:owner"] == config["gcp:project"] == "acme-ml-4821"


def test_a_null_top_level_value_is_refused(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, b"config:\n  gcp:project: null\n")
    with pytest.raises(ConfigError) as err:
        engine.stack_config("broken")
    (problem,) = err.value.problems
    assert problem.key == "gcp:project"
    assert "is null" in problem.message


# --- secrets -----------------------------------------------------------------------------------


def test_secure_values_are_secret_keys_offline(tmp_path, monkeypatch):
    text = (engine.STACKS_DIR / "Pulumi.oke-dranet.yaml").read_text()
    document = yaml.safe_load(text)
    document["config"]["gpu-fabric:gpuNodes"]["sshPublicKey"] = "placeholder"
    document["config"]["gpu-fabric:sshKeyNote"] = {"secure": "v1:abc"}
    (tmp_path / "Pulumi.s.yaml").write_text(yaml.safe_dump(document))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    values, secret = engine.stack_config_and_secrets("s")
    assert secret == ["gpu-fabric:sshKeyNote"]
    assert values["gpu-fabric:sshKeyNote"] == engine.SECRET_PLACEHOLDER


def test_values_of_secret_keys_stay_secret_in_what_is_derived_from_them():
    values = encode(
        with_changes(
            stack_values("oke-dranet"),
            {"gpu-fabric:gpuNodes.sshPublicKey": f"{SSH_PUBLIC_KEY} secret-key"},
        )
    )
    plan = engine.run("oke-dranet", values, secret_keys=["gpu-fabric:gpuNodes"])
    instance = plan.of_type("oci:Core/instance:Instance")[0]
    assert "metadata" in instance.secret_inputs
    assert "secret-key" not in json.dumps(instance.as_json())
    # And where it is not secret, it is not masked.
    plain = engine.run("oke-dranet", values)
    assert "metadata" not in plain.of_type("oci:Core/instance:Instance")[0].secret_inputs


def test_a_secret_identity_stays_secret_in_what_is_computed_from_it():
    values = encode(stack_values("a3-prod"))
    plan = engine.run("a3-prod", values, secret_keys=["gcp:project"])
    members = plan.of_type("gcp:projects/iAMMember:IAMMember")
    assert members and all({"member", "project"} <= set(m.secret_inputs) for m in members)
    assert {"nodeServiceAccount", "clusterId"} <= plan.secret_outputs
    # The mocked provider still sees the value: ids are computed as they would be.
    assert plan.outputs["clusterId"].startswith(f"projects/{project_of()}/locations/us-central1/")
    plain = engine.run("a3-prod", values)
    assert plain.secret_outputs == {"kubeconfig"}


# --- a failed plan leaves no stale files -------------------------------------------------------


def test_a_failed_plan_removes_the_stacks_previous_plan(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert plan_cli.main(["a3-prod", "--out", str(out)]) == 0
    assert (out / "a3-prod.json").exists() and (out / "a3-prod").is_dir()
    bad = encode(with_changes(stack_values(), {"gpu-fabric:gke.version": "1.26.1-gke.1"}))
    monkeypatch.setattr(engine, "stack_config_and_secrets", lambda stack: (bad, []))
    assert plan_cli.main(["a3-prod", "--out", str(out)]) == 2
    assert not (out / "a3-prod.json").exists() and not (out / "a3-prod").exists()
    assert "Removed the previous plan of a3-prod" in capsys.readouterr().err


# --- ranges, names, placement ---------------------------------------------------------------

HALVES = ["0.0.0.0/1", "128.0.0.0/1"]
GKE_RULES = {
    "an address without a prefix": (
        {"gpu-fabric:network.primary.podsCidr": "10.64.0.0"},
        "gpu-fabric:network.primary.podsCidr",
        "10.64.0.0",
        "has no prefix length",
    ),
    "a link-local range": (
        {"gpu-fabric:network.primary.servicesCidr": "169.254.0.0/20"},
        "gpu-fabric:network.primary.servicesCidr",
        "169.254.0.0/20",
        "link-local",
    ),
    "a loopback range": (
        {"gpu-fabric:network.primary.podsCidr": "127.0.0.0/19"},
        "gpu-fabric:network.primary.podsCidr",
        "127.0.0.0/19",
        "loopback",
    ),
    "a subnet smaller than GCP's /29": (
        {"gpu-fabric:network.primary.subnetCidr": "10.0.0.0/30"},
        "gpu-fabric:network.primary.subnetCidr",
        "10.0.0.0/30",
        "Compute Engine subnets are /29 or larger",
    ),
    "a primary subnet too small for the nodes": (
        {
            "gpu-fabric:network.primary.subnetCidr": "10.0.0.0/28",
            "gpu-fabric:gke.systemPool.nodeCount": 3,
        },
        "gpu-fabric:network.primary.subnetCidr",
        "10.0.0.0/28",
        "holds 12 nodes, and the stack can create 14",
    ),
    "two halves of the internet as firewall sources": (
        {"gpu-fabric:network.nics.gpu.firewallSourceRanges": HALVES},
        "gpu-fabric:network.nics.gpu.firewallSourceRanges",
        HALVES,
        "more than a /8",
    ),
    "two halves of the internet on the control plane": (
        {"gpu-fabric:gke.masterAuthorizedNetworks": [{"cidrBlock": c} for c in HALVES]},
        "gpu-fabric:gke.masterAuthorizedNetworks",
        HALVES,
        "open to the internet in all but name",
    ),
    "a GPU pool named like the system pool": (
        {"gpu-fabric:gpuPool.name": "system"},
        "gpu-fabric:gpuPool.name",
        "system",
        "the stack's CPU system pool is called 'system'",
    ),
    "a node pool name over GKE's 40 characters": (
        {"gpu-fabric:gpuPool.name": "a" * 41},
        "gpu-fabric:gpuPool.name",
        "a" * 41,
        "1-40 characters",
    ),
    "a zone written as the region": (
        {"gpu-fabric:region": "us-central1-c"},
        "gpu-fabric:region",
        "us-central1-c",
        "is a zone, not a region; the region of this zone is us-central1",
    ),
    "a region that is not one": (
        {"gpu-fabric:region": "uscentral"},
        "gpu-fabric:region",
        "uscentral",
        "not a Compute Engine region",
    ),
    "a node count with a few zeros too many": (
        {"gpu-fabric:gpuPool.nodeCount": 20000},
        "gpu-fabric:gpuPool.nodeCount",
        20000,
        "more than 1000 nodes in one pool",
    ),
    "a boot disk over 64 TB": (
        {"gpu-fabric:gpuPool.bootDisk.sizeGb": 100000},
        "gpu-fabric:gpuPool.bootDisk.sizeGb",
        100000,
        "less than or equal to 65536",
    ),
    "a malformed reservation": (
        {"gpu-fabric:gpuPool.reservation": {"name": "res/blocks/b1"}},
        "gpu-fabric:gpuPool.reservation.name",
        "res/blocks/b1",
        "NAME/reservationBlocks/BLOCK",
    ),
}
A4X_RULES = {
    "a StorageClass named like GKE's own": (
        {"gpu-fabric:storageClass.name": "standard-rwo"},
        "gpu-fabric:storageClass.name",
        "standard-rwo",
        "GKE creates and owns a StorageClass of this name",
    ),
    "A4X without its workload policy": (
        {"gpu-fabric:gpuPool.compactPlacement": False},
        "gpu-fabric:gpuPool.compactPlacement",
        False,
        "placed through a workload policy (HIGH_THROUGHPUT, 1x72)",
    ),
    "A4X without a reservation": (
        {"gpu-fabric:gpuPool.reservation": DELETE},
        "gpu-fabric:gpuPool.reservation",
        None,
        "capacity is reservation-bound",
    ),
}
OKE_RULES = {
    "two halves of the internet to the API": (
        {"gpu-fabric:network.apiAllowedCidrs": HALVES},
        "gpu-fabric:network.apiAllowedCidrs",
        HALVES,
        "more than a /8",
    ),
    "a workers subnet too small for the nodes": (
        {"gpu-fabric:network.workersSubnetCidr": "10.140.64.0/29", "gpu-fabric:gpuNodes.count": 10},
        "gpu-fabric:network.workersSubnetCidr",
        "10.140.64.0/29",
        "holds 5 addresses, and the stack needs 12 nodes",
    ),
    "a pod subnet too small for the pods": (
        {
            "gpu-fabric:network.podsSubnetCidr": "10.140.128.0/24",
            "gpu-fabric:oke.maxPodsPerNode": 110,
        },
        "gpu-fabric:network.podsSubnetCidr",
        "10.140.128.0/24",
        "needs 440 pod addresses (4 nodes x 110 pods)",
    ),
    "a flannel pod range too small for the nodes": (
        {
            "gpu-fabric:oke.cni": "FLANNEL_OVERLAY",
            "gpu-fabric:network.podsSubnetCidr": DELETE,
            "gpu-fabric:oke.podsCidr": "10.244.0.0/24",
        },
        "gpu-fabric:oke.podsCidr",
        "10.244.0.0/24",
        "4 nodes need a /23 or larger",
    ),
}


@pytest.mark.parametrize(
    "stack, rule",
    [("a3-prod", r) for r in GKE_RULES]
    + [("a4x-prod", r) for r in A4X_RULES]
    + [("oke-dranet", r) for r in OKE_RULES],
)
def test_range_name_and_placement_rules(stack, rule):
    table = {"a3-prod": GKE_RULES, "a4x-prod": A4X_RULES, "oke-dranet": OKE_RULES}[stack]
    assert_single_rule(*table[rule], stack=stack)


def test_private_sources_however_wide_are_not_the_internet():
    cfg = parse_stack({"gpu-fabric:network.nics.gpu.firewallSourceRanges": ["10.0.0.0/8"]})
    assert cfg.nic_groups[0].firewall_source_ranges == ["10.0.0.0/8"]


def test_a_reservation_block_is_accepted():
    cfg = parse_stack(
        {"gpu-fabric:gpuPool.reservation": {"name": "a4x-res/reservationBlocks/block-1"}},
        stack="a4x-prod",
    )
    assert cfg.gpu_pool.reservation.name == "a4x-res/reservationBlocks/block-1"


def test_a_copied_stack_file_that_keeps_another_stacks_names_is_refused(tmp_path):
    from gpu_fabric.stack_config import parse_pulumi_config
    from offline.engine import STACKS_DIR

    for name in ("a3-prod", "a4x-prod"):
        (tmp_path / f"Pulumi.{name}.yaml").write_text(
            (STACKS_DIR / f"Pulumi.{name}.yaml").read_text()
        )
    copied = encode(stack_values("a3-prod"))  # a3-staging, copied from a3-prod and not renamed
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(copied, "a3-staging", stacks_dir=tmp_path)
    keys = {p.key for p in err.value.problems}
    assert keys == {
        "gpu-fabric:gke.name",
        "gpu-fabric:gke.name (node service account)",
        "gpu-fabric:network.prefix",
    }
    assert all(
        "stack a3-prod (Pulumi.a3-prod.yaml) already uses" in p.message for p in err.value.problems
    )
    renamed = encode(
        with_changes(
            stack_values("a3-prod"),
            {"gpu-fabric:gke.name": "a3-staging", "gpu-fabric:network.prefix": "a3-staging"},
        )
    )
    assert parse_pulumi_config(renamed, "a3-staging", stacks_dir=tmp_path).gke.name == "a3-staging"


def test_service_accounts_that_would_collide_when_truncated_get_a_hash(tmp_path):
    from gpu_fabric.gke.names import node_account_id
    from gpu_fabric.stack_config import parse_pulumi_config
    from offline.engine import STACKS_DIR

    (tmp_path / "Pulumi.a3-prod.yaml").write_text((STACKS_DIR / "Pulumi.a3-prod.yaml").read_text())
    # Plain truncation cut both names to the same 23 characters ("a3-prod-cluster-eu-west"); a
    # cut name now ends with a hash of the whole name, so the two accounts differ.
    first = with_changes(
        stack_values("a3-prod"),
        {"gpu-fabric:gke.name": "a3-prod-cluster-eu-west-1", "gpu-fabric:network.prefix": "x1"},
    )
    (tmp_path / "Pulumi.first.yaml").write_text(yaml.safe_dump({"config": first}))
    second = with_changes(
        stack_values("a3-prod"),
        {"gpu-fabric:gke.name": "a3-prod-cluster-eu-west-2", "gpu-fabric:network.prefix": "x2"},
    )
    parse_pulumi_config(encode(second), "second", stacks_dir=tmp_path)
    ids = {node_account_id(n) for n in ("a3-prod-cluster-eu-west-1", "a3-prod-cluster-eu-west-2")}
    assert len(ids) == 2 and all(len(i) <= 30 for i in ids)
    # One account ID in two stacks of a project is still refused.
    same = encode(
        {**second, "gpu-fabric:network.prefix": "x3", "gpu-fabric:gke": first["gpu-fabric:gke"]}
    )
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(same, "second", stacks_dir=tmp_path)
    (problem,) = [p for p in err.value.problems if "node service account" in p.key]
    assert f"service account {node_account_id('a3-prod-cluster-eu-west-1')}" in problem.message
