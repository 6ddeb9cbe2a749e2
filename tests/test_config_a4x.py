"""Validation rules of the A4X (GB200, gIB) platform and of NIC groups, each triggered."""

from __future__ import annotations

import pytest

from gpu_fabric.problems import ConfigError, Problem
from offline import engine
from tests.conftest import DELETE, encode, parse_stack, stack_values, with_changes
from tests.conftest import only_problem as single_problem
from tests.conftest import problems as config_problems

TCPX_INSTALLER = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev"
TCPX_DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev"


def parse_a4x(changes: dict, stack: str = "a4x-prod"):
    return parse_stack(changes, stack)


def problems(changes: dict, stack: str = "a4x-prod") -> list[Problem]:
    return config_problems(changes, stack)


def only_problem(changes: dict, stack: str = "a4x-prod") -> Problem:
    return single_problem(changes, stack)


def test_committed_a4x_stack_is_valid():
    cfg = parse_a4x({})
    assert [(p.group.name, p.subnets, p.mtu) for p in cfg.nic_groups] == [
        ("gvnic", ["192.168.0.0/24"], 8896),
        ("rdma", [f"192.168.{n}.0/24" for n in range(1, 5)], 8896),
    ]
    assert cfg.boot_disk_type == "hyperdisk-balanced"
    assert cfg.local_ssd_count == 0


@pytest.mark.parametrize("version", ["1.33.5-gke.1862000", "1.32.9-gke.1575000"])
def test_gke_below_1_34_is_refused(version):
    problem = only_problem({"gpu-fabric:gke.version": version})
    assert problem.key == "gpu-fabric:gke.version"
    assert "gpudirect-rdma on a4x-highgpu-4g (needs 1.34 or newer)" in problem.message


def test_gke_1_35_is_fine_for_a4x():
    assert parse_a4x({"gpu-fabric:gke.version": "1.35.0-gke.1000000"}).gke.version.startswith(
        "1.35"
    )


def test_firewall_on_the_rdma_vpc_is_refused_with_the_reason():
    problem = only_problem(
        {"gpu-fabric:network.nics.rdma.firewallSourceRanges": ["192.168.0.0/16"]}
    )
    assert problem.key == "gpu-fabric:network.nics.rdma.firewallSourceRanges"
    assert "RDMA (RoCE) network profile do not support firewall rules" in problem.message
    assert "remove it" in problem.message


def test_firewall_sources_on_the_gvnic_vpc_are_allowed():
    cfg = parse_a4x({"gpu-fabric:network.nics.gvnic.firewallSourceRanges": ["192.168.0.0/16"]})
    assert cfg.nic_groups[0].firewall_source_ranges == ["192.168.0.0/16"]


@pytest.mark.parametrize(
    "changes, key",
    [
        (
            {
                "gpu-fabric:images": {
                    "tcpx": {
                        "installer": f"{TCPX_INSTALLER}:v3.1.9",
                        "daemon": f"{TCPX_DAEMON}:v2.0.12",
                    }
                }
            },
            "gpu-fabric:images.tcpx",
        ),
        ({"gpu-fabric:gpuPool.fastSocket": True}, "gpu-fabric:gpuPool.fastSocket"),
        (
            {"gpu-fabric:gpuPool.acceleratorNetworkProfile": "auto"},
            "gpu-fabric:gpuPool.acceleratorNetworkProfile",
        ),
    ],
)
def test_fabric_conflicts_are_refused(changes, key):
    problem = only_problem(changes)
    assert problem.key == key
    assert "remove it" in problem.message


def test_tcpx_with_gib_names_the_incompatibility():
    problem = only_problem(
        {
            "gpu-fabric:images": {
                "tcpx": {
                    "installer": f"{TCPX_INSTALLER}:v3.1.9",
                    "daemon": f"{TCPX_DAEMON}:v2.0.12",
                }
            }
        }
    )
    assert "a TCPX plugin on a gIB cluster is refused" in problem.message


def test_fast_socket_is_refused_on_tcpx_too():
    problem = only_problem({"gpu-fabric:gpuPool.fastSocket": True}, stack="a3-prod")
    assert "gpudirect-tcpx" in problem.message


def test_accelerator_network_profile_explains_the_conflict():
    problem = only_problem({"gpu-fabric:gpuPool.acceleratorNetworkProfile": "auto"})
    assert "additional node networks" in problem.message
    assert "Device-type Networks" in problem.message


@pytest.mark.parametrize("group, names", [("rdma", ["r0", "r1", "r2", "r3"]), ("gvnic", ["eth1"])])
def test_fixed_network_object_names_cannot_be_renamed(group, names):
    problem = only_problem({f"gpu-fabric:network.nics.{group}.objectNames": names})
    assert problem.key == f"gpu-fabric:network.nics.{group}.objectNames"
    assert "fixed" in problem.message and "by exact name" in problem.message


def test_a3_network_object_names_may_be_renamed_but_must_be_valid():
    cfg = parse_a4x(
        {"gpu-fabric:network.nics.gpu.objectNames": ["g1", "g2", "g3", "g4"]}, stack="a3-prod"
    )
    assert cfg.nic_groups[0].object_names == ["g1", "g2", "g3", "g4"]
    found = problems(
        {"gpu-fabric:network.nics.gpu.objectNames": ["G_1", "g2", "g3"]}, stack="a3-prod"
    )
    messages = " | ".join(p.message for p in found)
    assert "exactly 4 names" in messages and "DNS label" in messages
    (problem,) = problems(
        {"gpu-fabric:network.nics.gpu.objectNames": ["g1", "g1", "g3", "g4"]}, stack="a3-prod"
    )
    assert problem.key == "gpu-fabric:network.nics.gpu.objectNames[1]"
    assert "repeats item [0]" in problem.message
    (problem,) = problems(
        {"gpu-fabric:network.nics.gpu.objectNames": ["g1", "g2", "g3", "default"]}, stack="a3-prod"
    )
    assert "unique and not 'default'" in problem.message


def test_unknown_nic_group_is_refused():
    problem = only_problem({"gpu-fabric:network.nics.gpu": {"subnets": ["192.168.9.0/24"]}})
    assert problem.key == "gpu-fabric:network.nics.gpu"
    assert "use one of: gvnic, rdma" in problem.message


def test_rdma_subnet_count_must_be_four():
    problem = only_problem({"gpu-fabric:network.nics.rdma.subnets": ["192.168.1.0/24"]})
    assert problem.key == "gpu-fabric:network.nics.rdma.subnets"
    assert "4 rdma NIC(s)" in problem.message


def test_rdma_subnets_must_not_overlap_the_gvnic_subnet():
    found = problems({"gpu-fabric:network.nics.gvnic.subnets": ["192.168.1.0/24"]})
    assert any(p.key == "gpu-fabric:network.nics.rdma.subnets[0]" for p in found)


def test_boot_disk_must_be_hyperdisk():
    problem = only_problem({"gpu-fabric:gpuPool.bootDisk.type": "pd-balanced"})
    assert problem.key == "gpu-fabric:gpuPool.bootDisk.type"
    assert "hyperdisk-balanced only" in problem.message


def test_local_ssd_without_a_catalog_count_is_refused():
    problem = only_problem({"gpu-fabric:gpuPool.localSsd": True})
    assert "no verified local SSD count" in problem.message


def test_bundle_driver_mode_rejects_a_gke_driver_version():
    problem = only_problem(
        {
            "gpu-fabric:gpuPool.driverInstall": "bundle",
            "gpu-fabric:gpuPool.gpuDriverVersion": "LATEST",
        }
    )
    assert problem.key == "gpu-fabric:gpuPool.gpuDriverVersion"
    assert "driverInstall: bundle" in problem.message


@pytest.mark.parametrize(
    "changes, key, stack",
    [
        ({"gpu-fabric:storageClass": {"name": "hd"}}, "gpu-fabric:storageClass", "a3-prod"),
        (
            {"gpu-fabric:nvidiaDraDriverVersion": "0.5.1"},
            "gpu-fabric:nvidiaDraDriverVersion",
            "a3-prod",
        ),
        ({"gpu-fabric:images": {"gib": {"installer": "x"}}}, "gpu-fabric:images.gib", "a3-prod"),
        (
            {"gpu-fabric:images": {"trainingRuntime": "x"}},
            "gpu-fabric:images.trainingRuntime",
            "a3-prod",
        ),
        ({"gpu-fabric:smokeTest": True}, "gpu-fabric:smokeTest", "a4x-prod"),
    ],
)
def test_platform_specific_keys_are_refused_elsewhere(changes, key, stack):
    problem = only_problem(changes, stack=stack)
    assert problem.key == key
    assert "not for platform" in problem.message


@pytest.mark.parametrize(
    "changes, key, to",
    [
        ({"gpu-fabric:trainingRuntime": True}, "gpu-fabric:trainingRuntime", "queues.runtime"),
        (
            {"gpu-fabric:images": {"trainingRuntime": "pytorch/pytorch:2.11.0"}},
            "gpu-fabric:images.trainingRuntime",
            "queues.runtimeImage",
        ),
    ],
)
def test_the_keys_of_the_earlier_a4x_runtime_are_refused_with_where_they_went(changes, key, to):
    problem = only_problem(changes, stack="a4x-prod")
    assert problem.key == key
    assert f"moved to gpu-fabric:{to}" in problem.message


def test_a4x_machine_on_the_a3_platform_is_refused():
    # Without the A4X-only keys, so that the platform's own model accepts the rest.
    found = problems(
        {
            "gpu-fabric:platform": "gke-a3-high",
            "gpu-fabric:storageClass": DELETE,
        }
    )
    assert any(p.key == "gpu-fabric:gpuPool.machineType" and "gke-a4x" in p.message for p in found)


@pytest.mark.parametrize(
    "changes",
    [
        {"gpu-fabric:gke.version": "1.33.5-gke.1862000"},
        {"gpu-fabric:network.nics.rdma.firewallSourceRanges": ["192.168.1.0/24"]},
        {
            "gpu-fabric:images": {
                "tcpx": {
                    "installer": f"{TCPX_INSTALLER}:v3.1.9",
                    "daemon": f"{TCPX_DAEMON}:v2.0.12",
                }
            }
        },
        {"gpu-fabric:gpuPool.fastSocket": True},
        {"gpu-fabric:gpuPool.acceleratorNetworkProfile": "auto"},
        {"gpu-fabric:network.nics.rdma.objectNames": ["a", "b", "c", "d"]},
    ],
)
def test_bad_a4x_config_registers_nothing(changes):
    with pytest.raises(ConfigError):
        engine.run("a4x-prod", encode(with_changes(stack_values("a4x-prod"), changes)))
    assert engine.LAST_RUN.resources == []


def test_a_key_of_a3_high_names_no_other_platform_as_its_fix():
    """On gke-a4 the smoke test's refusal must not send the user to gke-a4x."""
    from tests.conftest import assert_single_rule

    assert_single_rule(
        {"gpu-fabric:smokeTest": True},
        "gpu-fabric:smokeTest",
        True,
        "on the other machines `make verify BANDWIDTH=1` tests the fabric",
        "a4-prod",
    )
