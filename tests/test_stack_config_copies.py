"""Cloud resources only one stack may hold (a GKE reservation, a Lingjun node group): a copied
stack file that keeps them is refused, naming both stacks; a fabric stack shares its cloud
stack's."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.problems import ConfigError
from gpu_fabric.stack_config import parse_pulumi_config, parse_with_cloud_stack_file
from tests.conftest import (
    encode,
    stack_values,
    with_changes,
    write_stack_file,
)

ACK, GKE, A4X = "ack-lingjun", "a3-prod", "a4x-prod"


# Resources a cloud lets only one stack hold


def _copy_check(tmp_path, stack: str, mine: dict[str, Any], theirs: dict[str, Any] | None = None):
    """Stack `stack` (with `theirs`) in a stacks folder, and `staging` (a copy with `mine`)
    checked against it."""
    write_stack_file(tmp_path, stack, with_changes(stack_values(stack), theirs or {}))
    values = encode(with_changes(stack_values(stack), mine))
    return parse_pulumi_config(values, "staging", stacks_dir=tmp_path)


ACK_RENAMED = {"gpu-fabric:ack.name": "ack-staging"}
A4X_RENAMED = {"gpu-fabric:gke.name": "a4x-staging", "gpu-fabric:network.prefix": "a4x-staging"}


def test_a_copy_that_keeps_the_lingjun_node_group_is_refused_naming_both_stacks(tmp_path):
    with pytest.raises(ConfigError) as err:
        _copy_check(tmp_path, ACK, ACK_RENAMED)
    assert str(err.value).startswith("stack 'staging'")
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:lingjun.groupId"
    assert problem.value == stack_values(ACK)["gpu-fabric:lingjun"]["groupId"]
    assert "stack ack-lingjun (Pulumi.ack-lingjun.yaml) already uses Lingjun node group" in (
        problem.message
    )
    assert "binds to one node pool only" in problem.message
    assert "Give stack staging its own" in problem.message


def test_a_copy_with_its_own_lingjun_node_group_passes(tmp_path):
    cfg = _copy_check(
        tmp_path, ACK, {**ACK_RENAMED, "gpu-fabric:lingjun.groupId": "i120021051733814190799"}
    )
    assert cfg.lingjun.group_id == "i120021051733814190799"


def test_two_stacks_of_one_lingjun_cluster_with_their_own_groups_pass(tmp_path):
    # The Lingjun cluster holds several groups: sharing its id is fine.
    cfg = _copy_check(
        tmp_path, ACK, {**ACK_RENAMED, "gpu-fabric:lingjun.groupId": "ng-0123456789abc"}
    )
    assert cfg.lingjun.cluster_id == stack_values(ACK)["gpu-fabric:lingjun"]["clusterId"]


def test_the_fabric_stack_of_the_cloud_stack_shares_its_node_group(tmp_path):
    write_stack_file(tmp_path, ACK, stack_values(ACK))
    fabric = "ack-lingjun-fabric"
    write_stack_file(tmp_path, fabric, stack_values(fabric))
    cfg = parse_with_cloud_stack_file(encode(stack_values(fabric)), fabric, stacks_dir=tmp_path)
    assert cfg.lingjun.group_id == stack_values(ACK)["gpu-fabric:lingjun"]["groupId"]


def test_a_copy_that_keeps_a_gke_reservation_is_refused(tmp_path):
    with pytest.raises(ConfigError) as err:
        _copy_check(tmp_path, A4X, A4X_RENAMED)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:gpuPool.reservation.name"
    assert problem.value == "a4x-reservation"
    assert "stack a4x-prod (Pulumi.a4x-prod.yaml) already uses reservation a4x-reservation" in (
        problem.message
    )
    assert "zone us-central1-a" in problem.message


def test_a_gke_reservation_in_gpu_pools_is_compared_too(tmp_path):
    values = with_changes(stack_values(A4X), A4X_RENAMED)
    values["gpu-fabric:gpuPools"] = [values.pop("gpu-fabric:gpuPool")]
    write_stack_file(tmp_path, A4X, stack_values(A4X))
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(values), "staging", stacks_dir=tmp_path)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:gpuPools[0].reservation.name"


@pytest.mark.parametrize(
    "reservation",
    [
        {"name": "a4x-staging-reservation"},
        {"name": "a4x-reservation/reservationBlocks/block-2"},  # another block of it
        {"name": "a4x-reservation", "project": "another-project"},  # a shared one elsewhere
    ],
)
def test_a_copy_with_another_reservation_passes(tmp_path, reservation):
    cfg = _copy_check(tmp_path, A4X, {**A4X_RENAMED, "gpu-fabric:gpuPool.reservation": reservation})
    assert cfg.pool.reservation.name == reservation["name"]


def test_a_gke_stack_without_reservations_holds_nothing_exclusive(tmp_path):
    cfg = _copy_check(
        tmp_path, GKE, {"gpu-fabric:gke.name": "a3-staging", "gpu-fabric:network.prefix": "a3-s"}
    )
    assert cfg.exclusive_resources == {}
