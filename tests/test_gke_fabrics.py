"""GKE's fabric specs (gpu_fabric/gke/fabrics/: by_name.py, spec.py, and `FABRIC` in tcpx.py,
tcpxo.py, gib.py): one per `Fabric`, its catalog entry complete, and what each gives the layers."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from gpu_fabric.catalog import CATALOG_FILE, Catalog, Fabric, catalog
from gpu_fabric.gke.fabrics.by_name import FABRICS, fabric_of, platform_fabric
from gpu_fabric.gke.gpu_cluster import fabric_args
from tests.conftest import parse_stack

# One stack per fabric, with the platform that shows its extras (A3 High's smoke test, A4X's
# training runtime).
STACKS = {Fabric.TCPX: "a3-prod", Fabric.TCPXO: "a3-mega-prod", Fabric.GIB: "a4x-prod"}
CLOUD = {
    name: f"<{name}>"
    for name in (
        "kubeconfig",
        "cluster_id",
        "nic_networks",
        "gpu_subnets",
        "gpu_node_pools",
        "gpu_node_pool_instance_groups",
    )
}


def _catalog_data() -> dict:
    return yaml.safe_load(CATALOG_FILE.read_text())


def test_every_fabric_has_one_spec_and_one_catalog_entry():
    assert set(FABRICS) == set(Fabric) == set(catalog().fabrics)
    assert all(spec.fabric is fabric for fabric, spec in FABRICS.items())
    for machine in catalog().machines.values():
        assert fabric_of(machine) is platform_fabric(machine.platform)


def test_fabric_reads_as_its_catalog_name_in_messages():
    assert f"{Fabric.TCPXO}" == str(Fabric.TCPXO) == "gpudirect-tcpxo"


def test_a_fabric_without_a_catalog_entry_is_refused():
    data = _catalog_data()
    del data["fabrics"]["gpudirect-tcpxo"]
    with pytest.raises(ValidationError, match="fabrics: no entry for gpudirect-tcpxo"):
        Catalog.model_validate(data)


def test_a_machine_whose_fabric_has_no_installer_for_its_architecture_is_refused():
    data = _catalog_data()
    del data["fabrics"]["gpudirect-rdma"]["installers"]["arm64"]
    with pytest.raises(
        ValidationError, match="a4x-highgpu-4g: fabric gpudirect-rdma has no installer for arm64"
    ):
        Catalog.model_validate(data)


def test_a_fabric_images_key_must_name_pinned_images():
    data = _catalog_data()
    data["fabrics"]["gpudirect-tcpx"]["images"] = "tcpz"
    with pytest.raises(ValidationError, match="fabrics.gpudirect-tcpx.images: tcpz is not a key"):
        Catalog.model_validate(data)


def test_the_machines_of_one_platform_share_one_fabric():
    data = _catalog_data()
    data["machines"]["a4-highgpu-8g"]["platform"] = "gke-a3-ultra"
    data["machines"]["a4-highgpu-8g"]["fabric"] = "gpudirect-tcpxo"
    with pytest.raises(ValidationError, match="its platform's machines differ in fabric"):
        Catalog.model_validate(data)


@pytest.mark.parametrize("fabric", list(Fabric))
def test_the_fabric_layer_gets_the_installer_image_its_spec_names(fabric):
    cfg = parse_stack({}, STACKS[fabric])
    args = fabric_args(cfg, None, CLOUD)  # type: ignore[arg-type]
    assert args["installer"]["image"] == fabric_of(cfg.machine).installer_image(cfg)
    # Each stack runs the pinned installer (A4X: the arm64 gIB one, `images.gib.installer`).
    pinned = getattr(catalog().images, catalog().fabrics[fabric].images)
    assert args["installer"]["image"] == pinned.installer


@pytest.mark.parametrize("fabric", list(Fabric))
def test_the_nri_device_injector_comes_with_an_owned_installer_where_the_catalog_says(fabric):
    stack = STACKS[fabric]
    wanted = catalog().fabrics[fabric].nri_device_injector
    owned = fabric_args(parse_stack({}, stack), None, CLOUD)  # type: ignore[arg-type]
    assert ("nri_device_injector_image" in owned) is wanted
    external = parse_stack({"gpu-fabric:installer.owner": "external"}, stack)
    assert "nri_device_injector_image" not in fabric_args(external, None, CLOUD)  # type: ignore[arg-type]


def test_each_fabric_adds_its_own_extras():
    smoke = fabric_args(
        parse_stack({"gpu-fabric:smokeTest": True}, STACKS[Fabric.TCPX]), None, CLOUD
    )  # type: ignore[arg-type]
    assert set(smoke["smoke_test"]) == {"test_image", "daemon_image"}
    a4x = parse_stack({}, STACKS[Fabric.GIB])
    assert fabric_args(a4x, None, CLOUD)["nvlink_driver_version"] == (
        catalog().nvidia_dra_driver.compute_domains_version
    )  # type: ignore[arg-type]


def _gpu_pod(gpus: int) -> dict:
    container = {"name": "train", "image": "i", "resources": {"limits": {"nvidia.com/gpu": gpus}}}
    return {"metadata": {"name": "train"}, "spec": {"containers": [container]}}


@pytest.mark.parametrize(
    ("fabric", "wired_in"),
    [(Fabric.TCPX, "tcpx-daemon"), (Fabric.TCPXO, "tcpxo-daemon"), (Fabric.GIB, "NCCL_NET")],
)
def test_each_fabric_wires_a_pod_for_its_nodes_and_leaves_the_template_alone(fabric, wired_in):
    cfg = parse_stack({}, STACKS[fabric])
    template = _gpu_pod(cfg.machine.accelerator.count)
    wired = fabric_of(cfg.machine).wire_pod(template, cfg)
    assert template == _gpu_pod(cfg.machine.accelerator.count)
    spec = wired["spec"]
    containers = spec["containers"] + spec.get("initContainers", [])
    env = [e["name"] for c in containers for e in c.get("env", [])]
    assert wired_in in [c["name"] for c in containers] + env
