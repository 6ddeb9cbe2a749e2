"""GKE machine presets (gpu_fabric/presets/gke.py): the layers of one family from a few values,
with the catalog's facts filled in and the stack config's rules applied."""

from __future__ import annotations

import pytest

import gpu_fabric.gke
from gpu_fabric.catalog import catalog
from gpu_fabric.gke.cloud import GkeCloud
from gpu_fabric.gke.fabric import GkeFabric
from gpu_fabric.presets import gke as presets
from gpu_fabric.presets.preset import Preset
from gpu_fabric.problems import ConfigError
from gpu_fabric.registry import spec_of
from offline import engine
from offline.plan import pick

COMMON = {
    "project": "my-project",
    "region": "us-central1",
    "zone": "us-central1-c",
    "primary": presets.PrimaryRanges("10.0.0.0/20", "10.64.0.0/19", "10.65.0.0/19"),
}
SUBNETS = [f"192.168.{n}.0/24" for n in range(1, 9)]
FAMILIES = {
    "a3_high": ("gke-a3-high", {"gpu_subnets": SUBNETS[:4], "version": "1.33"}),
    "a3_mega": ("gke-a3-mega", {"gpu_subnets": SUBNETS, "version": "1.33"}),
    "a3_ultra": ("gke-a3-ultra", {"gvnic_subnet": "192.168.0.0/24", "rdma_subnets": SUBNETS}),
    "a4": ("gke-a4", {"gvnic_subnet": "192.168.0.0/24", "rdma_subnets": SUBNETS}),
    "a4x": ("gke-a4x", {"gvnic_subnet": "192.168.0.0/24", "rdma_subnets": SUBNETS[:4]}),
}
GIB = {"version": "1.34", "reservation": "my-reservation"}  # reservation-bound machines


def family(name: str) -> Preset:
    platform, args = FAMILIES[name]
    extra = GIB if "rdma_subnets" in args else {}
    return getattr(gpu_fabric.gke, name)("train", **COMMON, **args, **extra)


GKE_PLATFORMS = sorted(
    {m.platform for m in catalog().machines.values() if spec_of(m.platform).package == "gke"}
)
"""Every GKE platform the catalog's machines name: a new family needs no line here."""


def catalog_preset(platform: str) -> Preset:
    """The generic preset of `platform` from its catalog machine alone: each NIC group's default
    ranges, the machine's minimum minor, a reservation where its capacity is reservation-bound."""
    ((machine_type, machine),) = catalog().machines_of(platform).items()
    subnets = {group.name: list(group.default_subnets) for group in machine.nic_groups}
    reserved = {"reservation": "my-reservation"} if machine.reservation_bound else {}
    version = max(machine.gke.min_minor, "1.33", key=lambda v: tuple(map(int, v.split("."))))
    return presets.preset(
        platform, "train", nic_subnets=subnets, version=version, **COMMON, **reserved
    )


@pytest.mark.parametrize("platform", GKE_PLATFORMS)
def test_each_family_plans_its_two_layers_with_the_catalogs_facts(platform):
    ((machine_type, machine),) = catalog().machines_of(platform).items()
    made = catalog_preset(platform)

    def program():
        cloud = GkeCloud("train", made.cloud_args)
        GkeFabric("train", made.fabric_args(cloud))

    plan = engine.run("preset", {}, program=program)
    pools = [r for r in plan.resources if r.type == "gcp:container/nodePool:NodePool"]
    gpu = [r for r in pools if pick(r.inputs, "nodeConfig.machineType") == machine_type]
    assert len(gpu) == 1 and len(pools) == 2  # the GPU pool and the system pool
    local_ssds = made.cloud_args["gpu_pools"][0]["local_ssd_count"]
    assert local_ssds == (machine.local_ssd_count or 0)  # every SSD the machine has (A4X: none)
    networks = [r for r in plan.resources if r.type == "gcp:compute/network:Network"]
    vpcs = sum(group.count if group.vpc_per_nic else 1 for group in machine.nic_groups)
    assert len(networks) == 1 + vpcs
    assert all(r.inputs["name"].startswith("train-") for r in networks)
    assert any(r.type.startswith("kubernetes:") for r in plan.resources)  # the fabric layer


@pytest.mark.parametrize("name", list(FAMILIES))
def test_each_named_preset_is_the_generic_preset_of_its_platform(name):
    """Same machine, disks, driver and NICs (the named ones take their own ranges)."""
    platform, _ = FAMILIES[name]
    named, generic = family(name).cloud_args, catalog_preset(platform).cloud_args
    facts = ("machine_type", "local_ssd_count", "boot_disk_type", "gpu_driver_version")
    assert [named["gpu_pools"][0][f] for f in facts] == [generic["gpu_pools"][0][f] for f in facts]
    layout = [[len(n["subnets"]), n["mtu"]] for n in named["gpu_networks"]]
    assert layout == [[len(n["subnets"]), n["mtu"]] for n in generic["gpu_networks"]]


def test_a_preset_refuses_what_the_stack_config_refuses_naming_each_key():
    with pytest.raises(ConfigError) as err:
        gpu_fabric.gke.a4x(
            "train", **COMMON, version="1.33", gvnic_subnet="192.168.0.0/24", rdma_subnets=[]
        )
    keys = {p.key for p in err.value.problems}
    assert {"gpu-fabric:gke.version", "gpu-fabric:gpuPool.reservation"} <= keys
    assert "gpu-fabric:network.nics.rdma.subnets" in keys


def test_overrides_are_written_in_the_stack_files_words_and_merged():
    made = gpu_fabric.gke.a3_high(
        "train",
        **COMMON,
        version="1.33",
        gpu_subnets=SUBNETS[:4],
        overrides={"gpuPool": {"nodeCount": 4}, "gke": {"privateNodes": False}},
    )
    assert made.config.pool.node_count == 4 and made.config.gke.private_nodes is False
    assert made.config.pool.zone == "us-central1-c"  # the rest of the section is kept


def test_the_presets_load_when_first_named():
    assert gpu_fabric.gke.a4 is presets.a4
    with pytest.raises(AttributeError, match="no attribute 'a5'"):
        gpu_fabric.gke.a5  # noqa: B018


def test_every_public_name_of_the_presets_module_is_importable_from_the_package():
    own = {
        name
        for name, value in vars(presets).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == presets.__name__
    }
    assert set(gpu_fabric.gke.PRESETS) == own


def test_a_platform_of_several_machine_types_wants_one_named(monkeypatch):
    two = {"a3-highgpu-8g": object(), "a3-highgpu-4g": object()}
    monkeypatch.setattr(type(catalog()), "machines_of", lambda self, platform: two)
    with pytest.raises(
        ValueError, match=r"gke-a3-high builds \['a3-highgpu-4g', 'a3-highgpu-8g'\]"
    ):
        presets.preset("gke-a3-high", "train", **COMMON, version="1.33", nic_subnets={})
