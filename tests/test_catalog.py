"""The catalog: it loads, and a malformed entry is refused before any stack uses it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gpu_fabric.catalog import GkeVersionRules, NicGroup, catalog
from gpu_fabric.images import ImageReference, parse_image
from gpu_fabric.versions import GKE_VERSION


def test_catalog_loads_both_machines():
    machines = catalog().machines
    assert machines["a3-highgpu-8g"].accelerator.type == "nvidia-h100-80gb"
    assert machines["a4x-highgpu-4g"].accelerator.type == "nvidia-gb200"
    assert machines["a4x-highgpu-4g"].arch == "arm64"
    assert [g.name for g in machines["a4x-highgpu-4g"].nic_groups] == ["gvnic", "rdma"]


def _group(**changes) -> dict:
    group = catalog().machines["a3-highgpu-8g"].nic_groups[0].model_dump()
    group.update(changes)
    return group


def test_nic_group_needs_one_name_and_subnet_per_nic():
    with pytest.raises(ValidationError, match="one object name and subnet per NIC"):
        NicGroup.model_validate(_group(object_names=["vpc1"]))


def test_nic_group_firewall_name_exactly_where_a_firewall_is_allowed():
    with pytest.raises(ValidationError, match="a firewall name exactly where allowed"):
        NicGroup.model_validate(_group(firewall_forbidden="RDMA"))


def test_patch_floor_filed_under_the_wrong_minor_is_refused():
    with pytest.raises(ValidationError, match="filed under minor 1.28"):
        GkeVersionRules(min_minor="1.27", patch_floors={"1.28": "1.27.7-gke.1121000"})


def test_gke_versions_order_by_build():
    assert GKE_VERSION.parse("1.28.8-gke.1094000") < GKE_VERSION.parse("1.28.8-gke.1095000")
    assert GKE_VERSION.parse("1.28.10-gke.1") > GKE_VERSION.parse("1.28.9-gke.99999")
    assert GKE_VERSION.parse("1.33.5-gke.1862000").minor == "1.33"


DIGEST = "sha256:" + "880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"


@pytest.mark.parametrize(
    "image, parsed",
    [
        ("us-docker.pkg.dev/a/b/c:v3.1.9", ("us-docker.pkg.dev/a/b/c", "v3.1.9", None)),
        (f"gke.gcr.io/pause:3.8@{DIGEST}", ("gke.gcr.io/pause", "3.8", DIGEST)),
        ("localhost:5000/img", ("localhost:5000/img", None, None)),
        ("localhost:5000/img:v1", ("localhost:5000/img", "v1", None)),
        (f"pytorch/pytorch@{DIGEST}", ("pytorch/pytorch", None, DIGEST)),
    ],
)
def test_parse_image(image, parsed):
    assert parse_image(image) == ImageReference(*parsed)


@pytest.mark.parametrize("image", ["", "Upper:v1", "a::b", "img:v1@sha256:short", "x y:1"])
def test_parse_image_refuses_what_is_not_a_reference(image):
    with pytest.raises(ValueError, match="not an image reference"):
        parse_image(image)


def _catalog_with_runtime(**runtime) -> dict:
    from gpu_fabric import yaml_files
    from gpu_fabric.catalog import CATALOG_FILE

    data = yaml_files.load(CATALOG_FILE.read_text())
    data["images"]["training_runtime"].update(runtime)
    return data


def test_the_runtime_image_runs_on_every_gpu_node_and_carries_rdma_user_space():
    from gpu_fabric.catalog import Catalog

    runtime = catalog().images.training_runtime
    assert {m.arch for m in catalog().machines.values()} <= set(runtime.architectures)
    assert runtime.rdma_user_space and "@sha256:" in runtime.reference
    with pytest.raises(ValidationError, match="lists no arm64 image, which arm64 GPU nodes pull"):
        Catalog.model_validate(_catalog_with_runtime(architectures=["amd64"]))
    with pytest.raises(ValidationError, match="without rdma-core leaves NCCL on sockets"):
        Catalog.model_validate(_catalog_with_runtime(rdma_user_space=False))
