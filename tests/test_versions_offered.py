"""OKE's and ACK's minors resolved at preview to the newest version each cloud offers
(gpu_fabric/oke/cluster/versions_offered.py, gpu_fabric/ack/cluster/versions_offered.py), as
GKE's are."""

from __future__ import annotations

import base64

import pytest

from gpu_fabric.versions import (
    ACK_VERSION,
    MINOR_VERSION,
    OKE_MINOR,
    OKE_VERSION,
    newest_of_minor,
)
from tests.conftest import assert_single_rule, run_stack

OKE_CLUSTER = "oci:ContainerEngine/cluster:Cluster"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"
INSTANCE = "oci:Core/instance:Instance"
ACK_CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"


def test_the_newest_of_a_minor_is_picked_by_number_not_by_text():
    offered = ["v1.36.9", "v1.36.10", "v1.35.12", "not-a-version"]
    assert newest_of_minor(offered, OKE_MINOR.parse("v1.36"), OKE_VERSION) == "v1.36.10"
    assert newest_of_minor(offered, OKE_MINOR.parse("v1.37"), OKE_VERSION) is None
    aliyun = ["1.33.3-aliyun.1", "1.33.3-aliyun.2", "1.33.10-aliyun.1"]
    assert newest_of_minor(aliyun, MINOR_VERSION.parse("1.33"), ACK_VERSION) == "1.33.10-aliyun.1"


def test_an_oke_minor_is_okes_newest_patch_for_the_cluster_and_every_node():
    plan = run_stack(stack="oke-dranet")
    (cluster,) = plan.of_type(OKE_CLUSTER)
    assert cluster.inputs["kubernetesVersion"] == "v1.36.1"  # the mocks' newest v1.36
    # Set at creation: a newer patch does not upgrade it, an OKE upgrade is not rolled back.
    assert "kubernetesVersion" in cluster.ignore_changes
    (pool,) = plan.of_type(OKE_POOL)
    assert "kubernetesVersion" in pool.ignore_changes
    for instance in plan.of_type(INSTANCE):
        assert instance.inputs["metadata"]["oke-k8version"] == "v1.36.1"
        user_data = base64.b64decode(instance.inputs["metadata"]["user_data"]).decode()
        assert user_data.rstrip().endswith("- v1.36.1")  # the join script's version argument


def test_a_pinned_oke_version_is_taken_as_written_and_stays_managed():
    plan = run_stack({"gpu-fabric:oke.kubernetesVersion": "v1.35.0"}, stack="oke-dranet")
    (cluster,) = plan.of_type(OKE_CLUSTER)
    assert cluster.inputs["kubernetesVersion"] == "v1.35.0"
    assert "kubernetesVersion" not in cluster.ignore_changes


def test_an_ack_minor_is_acks_newest_version_set_at_creation():
    plan = run_stack(stack="ack-lingjun")
    (cluster,) = plan.of_type(ACK_CLUSTER)
    assert cluster.inputs["version"] == "1.33.3-aliyun.1"  # the mocks' newest 1.33
    assert "version" in cluster.ignore_changes
    pinned = run_stack({"gpu-fabric:ack.kubernetesVersion": "1.33.1-aliyun.1"}, stack="ack-lingjun")
    (cluster,) = pinned.of_type(ACK_CLUSTER)
    assert cluster.inputs["version"] == "1.33.1-aliyun.1"
    assert "version" not in cluster.ignore_changes


@pytest.mark.parametrize(
    ("stack", "key", "minor", "offered_by"),
    [
        ("oke-dranet", "gpu-fabric:oke.kubernetesVersion", "v1.39", "OKE"),
        ("ack-lingjun", "gpu-fabric:ack.kubernetesVersion", "1.39", "ACK"),
    ],
)
def test_a_minor_no_longer_offered_warns_and_the_preview_goes_on(stack, key, minor, offered_by):
    plan = run_stack({key: minor}, stack=stack)
    (warning,) = [w for w in plan.warnings if f"{offered_by} offers no {minor} version" in w]
    assert "a running cluster keeps what it runs" in warning


@pytest.mark.parametrize(
    ("stack", "key", "value", "says"),
    [
        ("oke-dranet", "gpu-fabric:oke.kubernetesVersion", "1.36", "write a minor, e.g. v1.36"),
        ("ack-lingjun", "gpu-fabric:ack.kubernetesVersion", "v1.33", "write a minor, e.g. 1.33"),
        ("oke-dranet", "gpu-fabric:oke.kubernetesVersion", "v1.33", "pick v1.34.x or newer"),
        ("ack-lingjun", "gpu-fabric:ack.kubernetesVersion", "1.30", "1.31.x or newer"),
    ],
)
def test_a_version_or_minor_in_another_form_or_below_the_floor_is_refused(stack, key, value, says):
    assert_single_rule({key: value}, key, value, says, stack)
