"""Every validation rule, triggered: each names the stack key, the bad value and the fix."""

from __future__ import annotations

import pytest

from gpu_fabric import catalog as catalog_module
from gpu_fabric.problems import ConfigError
from gpu_fabric.stack_config import parse_pulumi_config
from offline import engine
from offline import plan as plan_cli
from tests.conftest import (
    DELETE,
    assert_single_rule,
    encode,
    only_problem,
    parse_stack,
    problems,
    run_stack,
    stack_values,
    with_changes,
)

TCPX_INSTALLER = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev"
TCPX_DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev"


def test_committed_stack_is_valid():
    cfg = parse_stack({})
    assert cfg.gpu_pool.machine_type == "a3-highgpu-8g"
    assert [plan.mtu for plan in cfg.nic_groups] == [8244]


@pytest.mark.parametrize(
    "key, stack_key",
    [
        ("gpu-fabric:network.nics.gpu.subnets", "gpu-fabric:network.nics.gpu.subnets[2]"),
        ("gpu-fabric:network.primary.subnetCidr", "gpu-fabric:network.primary.subnetCidr"),
        ("gpu-fabric:network.primary.podsCidr", "gpu-fabric:network.primary.podsCidr"),
        ("gpu-fabric:network.primary.servicesCidr", "gpu-fabric:network.primary.servicesCidr"),
    ],
)
def test_cidr_that_does_not_parse(key, stack_key):
    bad = "192.168.300.0/24"
    value = (
        ["192.168.1.0/24", "192.168.2.0/24", bad, "192.168.4.0/24"]
        if key.endswith("subnets")
        else bad
    )
    problem = only_problem({key: value})
    assert problem.key == stack_key
    assert problem.value == bad
    assert "not a CIDR range" in problem.message and "ADDRESS/PREFIX" in problem.message


# One row per rule whose whole contract is: this change gives exactly one problem, at this key,
# with this value, and a message that says this (the fix included).
SINGLE_RULES = {
    "CIDR with host bits": (
        {"gpu-fabric:network.primary.subnetCidr": "10.0.0.1/20"},
        "gpu-fabric:network.primary.subnetCidr",
        "10.0.0.1/20",
        "host bits",
    ),
    "IPv6 range": (
        {"gpu-fabric:network.primary.podsCidr": "fd00::/64"},
        "gpu-fabric:network.primary.podsCidr",
        "fd00::/64",
        "use an IPv4 CIDR",
    ),
    "unknown machine type": (
        {"gpu-fabric:gpuPool.machineType": "a2-ultragpu-8g"},
        "gpu-fabric:gpuPool.machineType",
        "a2-ultragpu-8g",
        "use one of the catalog's: a3-highgpu-8g",
    ),
    "GKE below 1.27": (
        {"gpu-fabric:gke.version": "1.26.15-gke.1000000"},
        "gpu-fabric:gke.version",
        "1.26.15-gke.1000000",
        "needs 1.27 or newer",
    ),
    "GPU firewall open to the internet": (
        {"gpu-fabric:network.nics.gpu.firewallSourceRanges": ["192.168.0.0/16", "0.0.0.0/0"]},
        "gpu-fabric:network.nics.gpu.firewallSourceRanges[1]",
        "0.0.0.0/0",
        "whole internet",
    ),
    "empty GPU firewall sources": (
        {"gpu-fabric:network.nics.gpu.firewallSourceRanges": []},
        "gpu-fabric:network.nics.gpu.firewallSourceRanges",
        [],
        "remove the key",
    ),
    "control plane open to the internet": (
        {"gpu-fabric:gke.masterAuthorizedNetworks": [{"cidrBlock": "0.0.0.0/0"}]},
        "gpu-fabric:gke.masterAuthorizedNetworks[0].cidrBlock",
        "0.0.0.0/0",
        "whole internet",
    ),
    "empty control-plane allow-list": (
        {"gpu-fabric:gke.masterAuthorizedNetworks": []},
        "gpu-fabric:gke.masterAuthorizedNetworks",
        [],
        "locks every client out",
    ),
    "GPU subnet count": (
        {"gpu-fabric:network.nics.gpu.subnets": ["192.168.1.0/24"]},
        "gpu-fabric:network.nics.gpu.subnets",
        ["192.168.1.0/24"],
        "give exactly 4 range(s)",
    ),
    "TCPX installer without its daemon": (
        {"gpu-fabric:images": {"tcpx": {"installer": f"{TCPX_INSTALLER}:v3.1.12"}}},
        "gpu-fabric:images.tcpx.daemon",
        None,
        "required",
    ),
    "TCPX installer with the wrong daemon": (
        {
            "gpu-fabric:images": {
                "tcpx": {
                    "installer": f"{TCPX_INSTALLER}:v3.1.12",
                    "daemon": f"{TCPX_DAEMON}:v2.0.12",
                }
            }
        },
        "gpu-fabric:images.tcpx.daemon",
        f"{TCPX_DAEMON}:v2.0.12",
        "pairs with tcpx-daemon v2.0.15, not v2.0.12",
    ),
    "boot disk under 10 GB": (
        {"gpu-fabric:gpuPool.bootDisk.sizeGb": 5},
        "gpu-fabric:gpuPool.bootDisk.sizeGb",
        5,
        "greater than or equal to 10",
    ),
    "value of the wrong type": (
        {"gpu-fabric:gpuPool.nodeCount": "two"},
        "gpu-fabric:gpuPool.nodeCount",
        "two",
        "must be a whole number",
    ),
}


@pytest.mark.parametrize("rule", list(SINGLE_RULES))
def test_single_rule(rule):
    assert_single_rule(*SINGLE_RULES[rule], stack="a3-prod")


@pytest.mark.parametrize(
    "changes, key, other",
    [
        (
            {
                "gpu-fabric:network.nics.gpu.subnets": [
                    "192.168.1.0/24",
                    "192.168.1.128/25",
                    "192.168.3.0/24",
                    "192.168.4.0/24",
                ]
            },
            "gpu-fabric:network.nics.gpu.subnets[1]",
            "gpu-fabric:network.nics.gpu.subnets[0]",
        ),
        (
            {
                "gpu-fabric:network.nics.gpu.subnets": [
                    "192.168.1.0/24",
                    "192.168.2.0/24",
                    "192.168.3.0/24",
                    "10.0.1.0/24",
                ]
            },
            "gpu-fabric:network.primary.subnetCidr",
            "gpu-fabric:network.nics.gpu.subnets[3]",
        ),
        (
            {"gpu-fabric:network.primary.servicesCidr": "10.64.16.0/20"},
            "gpu-fabric:network.primary.servicesCidr",
            "gpu-fabric:network.primary.podsCidr",
        ),
        (
            {"gpu-fabric:network.primary.podsCidr": "10.0.0.0/8"},
            "gpu-fabric:network.primary.podsCidr",
            "gpu-fabric:network.primary.subnetCidr",
        ),
    ],
)
def test_overlapping_ranges(changes, key, other):
    found = problems(changes)
    assert any(
        p.key == key and other in p.message and "does not overlap" in p.message for p in found
    ), found


@pytest.mark.parametrize("mtu", [1299, 8897, 0])
def test_mtu_outside_range(mtu):
    problem = only_problem({"gpu-fabric:network.nics.gpu.mtu": mtu})
    assert problem.key == "gpu-fabric:network.nics.gpu.mtu"
    assert problem.value == mtu
    assert "1300..8896" in problem.message


@pytest.mark.parametrize("mtu", [1300, 8896])
def test_mtu_bounds_are_accepted(mtu):
    # On the gVNIC NIC of A4X, whose MTU the fabric does not fix (A3 High's GPU NICs: 8244 only).
    cfg = parse_stack({"gpu-fabric:network.nics.gvnic.mtu": mtu}, stack="a4x-prod")
    assert cfg.nic_groups[0].mtu == mtu


@pytest.mark.parametrize("zone", ["us-east1-b", "us-central1", "us-central1-c-x", "europe-west4-a"])
def test_zone_outside_region(zone):
    problem = only_problem({"gpu-fabric:gpuPool.zone": zone})
    assert problem.key == "gpu-fabric:gpuPool.zone"
    assert problem.value == zone
    assert "not a zone of region us-central1" in problem.message


def test_machine_type_of_another_platform(monkeypatch):
    real = catalog_module.catalog()
    other = real.machines["a3-highgpu-8g"].model_copy(update={"platform": "gke-other"})
    fake = real.model_copy(update={"machines": {**real.machines, "x-gpu": other}})
    monkeypatch.setattr("gpu_fabric.gke.config.catalog", lambda: fake)
    monkeypatch.setattr("gpu_fabric.gke.checks.catalog", lambda: fake)
    found = problems({"gpu-fabric:gpuPool.machineType": "x-gpu"})
    assert any(
        p.key == "gpu-fabric:gpuPool.machineType" and "gke-other" in p.message for p in found
    )


def test_negative_node_count():
    key = "gpu-fabric:gpuPool.nodeCount"
    problem = only_problem({key: -1})
    assert problem.key == key
    assert problem.value == -1
    assert "cannot be negative" in problem.message


def test_negative_system_node_count_asks_for_one_or_more():
    # A system pool cannot be empty (tests/test_config_round2.py): "use 0" would be wrong advice.
    key = "gpu-fabric:gke.systemPool.nodeCount"
    problem = only_problem({key: -1})
    assert (problem.key, problem.value) == (key, -1)
    assert "at least 1 node per zone" in problem.message and "set 1 or more" in problem.message


def test_zero_gpu_nodes_is_allowed():
    assert parse_stack({"gpu-fabric:gpuPool.nodeCount": 0}).gpu_pool.node_count == 0


@pytest.mark.parametrize(
    "version, floor",
    [
        ("1.27.7-gke.1120999", "1.27.7-gke.1121000"),
        ("1.27.6-gke.9999999", "1.27.7-gke.1121000"),
        ("1.28.8-gke.1094000", "1.28.8-gke.1095000"),
        ("1.29.2-gke.2000000", "1.29.3-gke.1093000"),
    ],
)
def test_version_below_tcpx_floor(version, floor):
    problem = only_problem({"gpu-fabric:gke.version": version})
    assert problem.key == "gpu-fabric:gke.version"
    assert problem.value == version
    assert f"floor {floor}" in problem.message and f"pick {floor} or newer" in problem.message


@pytest.mark.parametrize(
    "version",
    [
        "1.27.7-gke.1121000",
        "1.28.8-gke.1095000",
        "1.29.3-gke.1093000",
        "1.30.1-gke.1000",
        "1.33.5-gke.1862000",
    ],
)
def test_versions_at_or_above_floor_are_accepted(version):
    assert parse_stack({"gpu-fabric:gke.version": version}).gke.version == version


@pytest.mark.parametrize("version", ["latest", "1.33.5", "v1.33.5-gke.1", "1.33."])
def test_version_that_is_neither_a_minor_nor_a_full_gke_version(version):
    problem = only_problem({"gpu-fabric:gke.version": version})
    assert problem.key == "gpu-fabric:gke.version"
    assert "not a GKE minor or a full GKE version; write a minor, e.g. 1.33" in problem.message
    assert "MAJOR.MINOR.PATCH-gke.BUILD" in problem.message


@pytest.mark.parametrize("version", ["1.35.0-gke.1000000", "1.36.1-gke.100"])
def test_a3_high_on_gke_1_35_or_newer_needs_an_explicit_override(version):
    problem = only_problem({"gpu-fabric:gke.version": version})
    assert "COS 125" in problem.message
    assert "allowUnsupportedGkeVersion: true to accept the risk" in problem.message
    cfg = parse_stack(
        {"gpu-fabric:gke.version": version, "gpu-fabric:gpuPool.allowUnsupportedGkeVersion": True}
    )
    assert cfg.gke.version == version


@pytest.mark.parametrize(
    "changes, key, suggestion",
    [
        ({"gpu-fabric:gke.verison": "x"}, "gpu-fabric:gke.verison", "version"),
        ({"gpu-fabric:gpuPool.localSSD": True}, "gpu-fabric:gpuPool.localSSD", "localSsd"),
        ({"gpu-fabric:smokeTests": True}, "gpu-fabric:smokeTests", "smokeTest"),
        (
            {"gpu-fabric:network.primary.podCidr": "10.1.0.0/16"},
            "gpu-fabric:network.primary.podCidr",
            "podsCidr",
        ),
    ],
)
def test_unknown_keys_are_errors(changes, key, suggestion):
    problem = only_problem(changes)
    assert problem.key == key
    assert f"did you mean {suggestion!r}" in problem.message


@pytest.mark.parametrize(
    "key", ["gpu-fabric:gke.version", "gpu-fabric:gpuPool.zone", "gpu-fabric:region", "gcp:project"]
)
def test_missing_required_keys(key):
    problem = only_problem({key: DELETE})
    assert problem.key == key
    assert "required" in problem.message


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"gpu-fabric:gpuPool.gpuDriverVersion": "R535"}, "gpu-fabric:gpuPool.gpuDriverVersion"),
        ({"gpu-fabric:platform": "gke-autopilot"}, "gpu-fabric:platform"),
    ],
)
def test_enum_values(changes, key):
    problem = only_problem(changes)
    assert problem.key == key and "must be one of" in problem.message


def test_existing_primary_network_with_cidrs_is_refused():
    found = problems(
        {
            "gpu-fabric:network.primary.existing": {
                "network": "shared-vpc",
                "subnetwork": "shared-sub",
                "podsRangeName": "pods",
                "servicesRangeName": "services",
            }
        }
    )
    keys = {p.key for p in found}
    assert "gpu-fabric:network.primary.subnetCidr" in keys
    assert all("remove it" in p.message for p in found)


def test_existing_primary_network_alone_is_accepted():
    values = stack_values()
    values["gpu-fabric:network"]["primary"] = {
        "existing": {
            "network": "shared-vpc",
            "subnetwork": "shared-sub",
            "podsRangeName": "pods",
            "servicesRangeName": "services",
        }
    }
    cfg = parse_pulumi_config(encode(values), "a3-prod")
    assert cfg.network.primary.existing.network == "shared-vpc"


def test_a_known_tcpx_pair_is_accepted():
    cfg = parse_stack(
        {
            "gpu-fabric:images": {
                "tcpx": {
                    "installer": f"{TCPX_INSTALLER}:v3.1.12",
                    "daemon": f"{TCPX_DAEMON}:v2.0.15",
                }
            }
        }
    )
    assert cfg.tcpx_images.installer == f"{TCPX_INSTALLER}:v3.1.12"


@pytest.mark.parametrize(
    "key, value",
    [
        ("gpu-fabric:gke.name", "A3_Prod"),
        ("gpu-fabric:gke.name", "a" * 41),
        ("gpu-fabric:network.prefix", "x" * 53),
        ("gpu-fabric:gpuPool.name", "pool-"),
    ],
)
def test_resource_names_follow_gcp_rules(key, value):
    problem = only_problem({key: value})
    assert problem.key == key and "lowercase letters" in problem.message


def test_several_problems_are_reported_together():
    found = problems({"gpu-fabric:network.nics.gpu.mtu": 9000, "gpu-fabric:gpuPool.nodeCount": -2})
    assert {p.key for p in found} == {
        "gpu-fabric:network.nics.gpu.mtu",
        "gpu-fabric:gpuPool.nodeCount",
    }


def test_error_text_names_key_value_and_fix():
    with pytest.raises(ConfigError) as err:
        parse_stack({"gpu-fabric:gke.version": "1.28.1-gke.1"})
    assert str(err.value).splitlines()[1] == (
        '  - gpu-fabric:gke.version: "1.28.1-gke.1": below the gpudirect-tcpx floor '
        "1.28.8-gke.1095000 for minor 1.28; pick 1.28.8-gke.1095000 or newer"
    )


@pytest.mark.parametrize(
    "changes",
    [
        {
            "gpu-fabric:network.nics.gpu.subnets": [
                "192.168.1.0/24",
                "192.168.1.0/24",
                "192.168.3.0/24",
                "192.168.4.0/24",
            ]
        },
        {"gpu-fabric:network.nics.gpu.mtu": 9001},
        {"gpu-fabric:gpuPool.zone": "us-west1-a"},
        {"gpu-fabric:gpuPool.machineType": "n1-standard-8"},
        {"gpu-fabric:gpuPool.nodeCount": -1},
        {"gpu-fabric:gke.version": "1.29.1-gke.1"},
        {"gpu-fabric:gke.version": "1.35.1-gke.1"},
        {"gpu-fabric:gke.bogus": 1},
    ],
)
def test_bad_config_registers_no_resource(changes):
    values = encode(with_changes(stack_values(), changes))
    with pytest.raises(ConfigError):
        engine.run("a3-prod", values)
    # The program raised before its first registration: the recording monitor saw nothing.
    assert engine.LAST_RUN is not None and engine.LAST_RUN.resources == []


def test_plan_command_exits_non_zero_on_bad_config(tmp_path, monkeypatch, capsys):
    bad = encode(with_changes(stack_values(), {"gpu-fabric:gke.version": "1.26.1-gke.1"}))
    monkeypatch.setattr(engine, "stack_config_and_secrets", lambda stack: (bad, []))
    assert plan_cli.main(["a3-prod", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "gpu-fabric:gke.version" in err and "1.26.1-gke.1" in err
    assert not list(tmp_path.iterdir())


def test_old_patch_above_the_floor_warns_without_failing():
    def version_warnings(changes):
        return [w for w in parse_stack(changes).warnings if "gke.version" in w]

    (warning,) = version_warnings({"gpu-fabric:gke.version": "1.28.8-gke.1095000"})
    assert "1.28.15-gke.3163000" in warning and "not fatal" in warning
    assert version_warnings({"gpu-fabric:gke.version": "1.28.15-gke.3163000"}) == []
    assert version_warnings({}) == []


def test_master_authorized_networks_reach_the_cluster():
    plan = run_stack(
        {
            "gpu-fabric:gke.masterAuthorizedNetworks": [
                {"cidrBlock": "203.0.113.0/24", "displayName": "ci"}
            ]
        }
    )
    (cluster,) = plan.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [{"cidrBlock": "203.0.113.0/24", "displayName": "ci"}]
    }
