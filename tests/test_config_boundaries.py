"""Every numeric limit of the config, tried on both sides.

A rule whose limit moves by one (a `<` turned into `<=`, a threshold doubled, a check limited to
neighbouring items) must fail a test here: each limit is tried at its last accepted value and at
its first refused one.
"""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.config_base import MAX_NODES, WIDEST_PUBLIC_SOURCE
from gpu_fabric.problems import ConfigError
from tests.conftest import assert_single_rule, parse_stack

GKE, A4X, OKE, ACK = "a3-prod", "a4x-prod", "oke-dranet", "ack-lingjun"

# --- "open to the internet": at most a /8 of public addresses, together -------------------------

# 11.0.0.0/8 is public (not RFC 1918 or RFC 6598): exactly the threshold.
AT_THRESHOLD = ["11.0.0.0/8"]
ONE_PAST = ["11.0.0.0/8", "12.0.0.0/32"]


def test_the_threshold_is_a_slash_8():
    assert WIDEST_PUBLIC_SOURCE == 2**24


@pytest.mark.parametrize(
    "key, value",
    [
        ("gpu-fabric:network.nics.gpu.firewallSourceRanges", AT_THRESHOLD),
        ("gpu-fabric:gke.masterAuthorizedNetworks", [{"cidrBlock": c} for c in AT_THRESHOLD]),
    ],
)
def test_public_sources_of_exactly_a_slash_8_are_accepted(key, value):
    parse_stack({key: value}, GKE)


@pytest.mark.parametrize(
    "key, value, sources",
    [
        ("gpu-fabric:network.nics.gpu.firewallSourceRanges", ONE_PAST, ONE_PAST),
        (
            "gpu-fabric:gke.masterAuthorizedNetworks",
            [{"cidrBlock": c} for c in ONE_PAST],
            ONE_PAST,
        ),
        # A /7 is twice the threshold: what a doubled threshold would let through.
        ("gpu-fabric:network.nics.gpu.firewallSourceRanges", ["12.0.0.0/7"], ["12.0.0.0/7"]),
    ],
)
def test_one_public_address_past_a_slash_8_is_refused(key, value, sources):
    assert_single_rule({key: value}, key, sources, "more than a /8", GKE)


def test_private_space_does_not_count_towards_the_threshold():
    ranges = ["11.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"]
    parse_stack({"gpu-fabric:network.nics.gpu.firewallSourceRanges": ranges}, GKE)


# --- ACK vSwitches: /16 to /29 ------------------------------------------------------------------

LINGJUN_ZONE = "cn-wulanchabu-c"


def _node_vswitches(extra: str) -> dict:
    return {
        "gpu-fabric:network.existing.nodeVswitches": [
            {"id": "vsw-0jltest", "zoneId": LINGJUN_ZONE, "cidr": "10.0.0.0/20"},
            {"id": "vsw-0jltest", "zoneId": LINGJUN_ZONE, "cidr": extra},
        ]
    }


@pytest.mark.parametrize("cidr", ["10.0.16.0/29", "10.0.16.0/28"])
def test_an_ack_vswitch_of_a_slash_29_or_wider_is_accepted(cidr):
    cfg = parse_stack(_node_vswitches(cidr), ACK)
    assert cfg.node_vswitches[1].cidr == cidr


def test_an_ack_vswitch_narrower_than_a_slash_29_is_refused():
    assert_single_rule(
        _node_vswitches("10.0.16.0/30"),
        "gpu-fabric:network.existing.nodeVswitches[1].cidr",
        "10.0.16.0/30",
        "a vSwitch range is a /16 to /29",
        ACK,
    )


def test_an_ack_vswitch_of_a_slash_16_is_accepted_and_a_slash_15_refused():
    vpc = {"gpu-fabric:network.existing.vpcCidr": "10.0.0.0/8"}
    wide = {
        "gpu-fabric:network.existing.podVswitches": [
            {"id": "vsw-0jltest", "zoneId": LINGJUN_ZONE, "cidr": "10.1.0.0/16"}
        ],
        **vpc,
    }
    assert parse_stack(wide, ACK).pod_vswitches[0].cidr == "10.1.0.0/16"
    too_wide = {
        "gpu-fabric:network.existing.podVswitches": [
            {"id": "vsw-0jltest", "zoneId": LINGJUN_ZONE, "cidr": "10.2.0.0/15"}
        ],
        **vpc,
    }
    assert_single_rule(
        too_wide,
        "gpu-fabric:network.existing.podVswitches[0].cidr",
        "10.2.0.0/15",
        "a vSwitch range is a /16 to /29",
        ACK,
    )


# --- ACK version floor: the floor itself is accepted ------------------------------------------


def test_the_ack_version_floor_itself_is_accepted():
    floor = catalog().ack.min_kubernetes
    version = f"{floor}.0-aliyun.1"
    assert parse_stack({"gpu-fabric:ack.kubernetesVersion": version}, ACK)


def test_the_last_ack_version_below_the_floor_is_refused():
    major, minor = (int(p) for p in catalog().ack.min_kubernetes.split(".")[:2])
    version = f"{major}.{minor - 1}.99-aliyun.9"
    assert_single_rule(
        {"gpu-fabric:ack.kubernetesVersion": version},
        "gpu-fabric:ack.kubernetesVersion",
        version,
        "Lingjun node pools need ACK managed Pro",
        ACK,
    )


# --- GKE ranges overlap: every pair, not only neighbours -------------------------------------


def test_an_overlap_of_the_first_and_the_last_gke_range_is_refused():
    # The first range checked is the first GPU NIC subnet, the last the Services range: they are
    # as far apart in the list as two ranges can be.
    assert_single_rule(
        {"gpu-fabric:network.primary.servicesCidr": "192.168.1.0/27"},
        "gpu-fabric:network.primary.servicesCidr",
        "192.168.1.0/27",
        "overlaps gpu-fabric:network.nics.gpu.subnets[0] (192.168.1.0/24)",
        GKE,
    )


def test_an_overlap_of_two_nic_subnets_apart_is_refused():
    subnets = ["192.168.1.0/24", "192.168.2.0/24", "192.168.3.0/24", "192.168.1.128/25"]
    assert_single_rule(
        {"gpu-fabric:network.nics.gpu.subnets": subnets},
        "gpu-fabric:network.nics.gpu.subnets[3]",
        "192.168.1.128/25",
        "overlaps gpu-fabric:network.nics.gpu.subnets[0]",
        GKE,
    )


def test_adjacent_ranges_that_only_touch_do_not_overlap():
    parse_stack({"gpu-fabric:network.primary.servicesCidr": "10.64.32.0/19"}, GKE)


# --- GKE: MTU 1300..8896 ----------------------------------------------------------------------


@pytest.mark.parametrize("mtu", [1300, 8896])
def test_mtu_limits_are_accepted(mtu):
    cfg = parse_stack({"gpu-fabric:network.nics.gvnic.mtu": mtu}, A4X)
    assert next(p for p in cfg.nic_groups if p.group.name == "gvnic").mtu == mtu


@pytest.mark.parametrize("mtu", [1299, 8897])
def test_mtu_just_past_its_limits_is_refused(mtu):
    assert_single_rule(
        {"gpu-fabric:network.nics.gvnic.mtu": mtu},
        "gpu-fabric:network.nics.gvnic.mtu",
        mtu,
        "within 1300..8896",
        A4X,
    )


# --- GKE: max pods per node 8..256 ------------------------------------------------------------


@pytest.mark.parametrize("pods", [8, 256])
def test_max_pods_per_node_limits_are_accepted(pods):
    assert parse_stack({"gpu-fabric:gke.maxPodsPerNode": pods}, GKE).max_pods_per_node == pods


@pytest.mark.parametrize("pods, says", [(7, "greater than or equal to 8"), (257, "less than")])
def test_max_pods_per_node_past_its_limits_is_refused(pods, says):
    assert_single_rule(
        {"gpu-fabric:gke.maxPodsPerNode": pods}, "gpu-fabric:gke.maxPodsPerNode", pods, says, GKE
    )


# --- GKE: the pod range holds every node ------------------------------------------------------

# 10.64.0.0/19 at 110 pods (a /24 per node) holds 32 nodes; the system pool takes up to 4.


def test_a_pod_range_exactly_full_is_accepted():
    assert parse_stack({"gpu-fabric:gpuPool.nodeCount": 28}, GKE).pool.node_count == 28


def test_one_node_past_the_pod_range_is_refused():
    assert_single_rule(
        {"gpu-fabric:gpuPool.nodeCount": 29},
        "gpu-fabric:network.primary.podsCidr",
        "10.64.0.0/19",
        "holds 32 nodes at 110 pods per node (a /24 each), but the stack can create 33",
        GKE,
    )


# --- GKE: subnets are /29 or wider and hold their nodes ---------------------------------------

SMALL_NICS = ["192.168.1.0/29", "192.168.2.0/29", "192.168.3.0/29", "192.168.4.0/29"]


def test_a_slash_29_nic_subnet_holds_four_nodes():
    changes = {"gpu-fabric:network.nics.gpu.subnets": SMALL_NICS, "gpu-fabric:gpuPool.nodeCount": 4}
    assert parse_stack(changes, GKE).pool.node_count == 4


def test_a_fifth_node_does_not_fit_a_slash_29():
    changes = {"gpu-fabric:network.nics.gpu.subnets": SMALL_NICS, "gpu-fabric:gpuPool.nodeCount": 5}
    with pytest.raises(ConfigError) as err:
        parse_stack(changes, GKE)
    problems = err.value.problems
    assert len(problems) == 4
    assert all("holds 4 nodes, and the stack can create 5" in p.message for p in problems)


def test_a_slash_30_subnet_is_refused():
    subnets = [*SMALL_NICS[:3], "192.168.4.0/30"]
    assert_single_rule(
        {"gpu-fabric:network.nics.gpu.subnets": subnets, "gpu-fabric:gpuPool.nodeCount": 0},
        "gpu-fabric:network.nics.gpu.subnets[3]",
        "192.168.4.0/30",
        "Compute Engine subnets are /29 or larger",
        GKE,
    )


# --- node counts: 0..1000 ---------------------------------------------------------------------


def test_an_empty_gpu_pool_is_accepted_and_a_negative_one_refused():
    assert parse_stack({"gpu-fabric:gpuPool.nodeCount": 0}, GKE).pool.node_count == 0
    assert_single_rule(
        {"gpu-fabric:gpuPool.nodeCount": -1},
        "gpu-fabric:gpuPool.nodeCount",
        -1,
        "cannot be negative",
        GKE,
    )


def test_the_most_nodes_one_pool_may_ask_for():
    assert MAX_NODES == 1000
    assert parse_stack({"gpu-fabric:gpuNodes.count": 1000}, OKE).gpu_nodes.count == 1000
    assert_single_rule(
        {"gpu-fabric:gpuNodes.count": 1001},
        "gpu-fabric:gpuNodes.count",
        1001,
        "more than 1000 nodes in one pool",
        OKE,
    )


# --- A4X: at most 18 nodes under the 1x72 workload policy ---------------------------------------


def test_an_a4x_pool_of_18_nodes_is_accepted_and_19_refused():
    assert parse_stack({"gpu-fabric:gpuPool.nodeCount": 18}, A4X).pool.node_count == 18
    assert_single_rule(
        {"gpu-fabric:gpuPool.nodeCount": 19},
        "gpu-fabric:gpuPool.nodeCount",
        19,
        "holds at most 18 nodes",
        A4X,
    )


# --- GKE: boot disk 10..65536 GB ----------------------------------------------------------------


@pytest.mark.parametrize("size", [10, 65536])
def test_boot_disk_limits_are_accepted(size):
    cfg = parse_stack({"gpu-fabric:gpuPool.bootDisk.sizeGb": size}, GKE)
    assert cfg.pool.boot_disk.size_gb == size


@pytest.mark.parametrize("size", [9, 65537])
def test_boot_disk_just_past_its_limits_is_refused(size):
    key = "gpu-fabric:gpuPool.bootDisk.sizeGb"
    assert_single_rule({key: size}, key, size, "", GKE)


# --- GKE names: 40 characters for clusters and pools --------------------------------------------


@pytest.mark.parametrize("key", ["gpu-fabric:gke.name", "gpu-fabric:gpuPool.name"])
def test_a_name_of_40_characters_is_accepted_and_41_refused(key):
    forty = "a" * 40
    cfg = parse_stack({key: forty, "gpu-fabric:network.prefix": "a3-prod"}, GKE)
    assert forty in (cfg.gke.name, cfg.pool.name)
    assert_single_rule({key: "a" * 41}, key, "a" * 41, "must be 1-40 characters", GKE)


# --- GKE version floors: the floor itself is accepted -----------------------------------------


def test_the_tcpx_patch_floor_itself_is_accepted_and_the_patch_below_refused():
    floor = "1.28.8-gke.1095000"
    assert parse_stack({"gpu-fabric:gke.version": floor}, GKE).gke.version == floor
    assert_single_rule(
        {"gpu-fabric:gke.version": "1.28.8-gke.1094999"},
        "gpu-fabric:gke.version",
        "1.28.8-gke.1094999",
        f"below the gpudirect-tcpx floor {floor}",
        GKE,
    )


def test_the_last_supported_minor_is_accepted_and_the_first_unsupported_refused():
    rules = catalog().machines["a3-highgpu-8g"].gke
    # 1.34 ships COS 125, which a3-highgpu-8g does not support (catalog, GKE release notes).
    assert rules.unsupported_from_minor == "1.34"
    assert parse_stack({"gpu-fabric:gke.version": "1.33.0-gke.1"}, GKE)
    assert_single_rule(
        {"gpu-fabric:gke.version": "1.34.0-gke.1"},
        "gpu-fabric:gke.version",
        "1.34.0-gke.1",
        "is not supported on GKE 1.34 or newer",
        GKE,
    )


def test_the_first_supported_minor_is_accepted_and_the_one_below_refused():
    assert parse_stack({"gpu-fabric:gke.version": "1.27.7-gke.1121000"}, GKE)
    assert_single_rule(
        {"gpu-fabric:gke.version": "1.26.15-gke.1"},
        "gpu-fabric:gke.version",
        "1.26.15-gke.1",
        "needs 1.27 or newer",
        GKE,
    )
