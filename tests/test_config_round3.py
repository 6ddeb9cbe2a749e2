"""Issue 15, classes 1 (rest), 3, 6 and 9: nested `secure:` values, cloud resources only one stack
may hold, the GKE Services range, and machine type, zone and region spelling. Each rule is
triggered on both sides, and its problem names the key, the value and the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_fabric import stack_file
from gpu_fabric.problems import ConfigError
from gpu_fabric.stack_config import parse_pulumi_config
from offline import engine
from tests.conftest import (
    assert_single_rule,
    encode,
    parse_stack,
    stack_values,
    with_changes,
)

OKE, ACK, GKE, A4X = "oke-dranet", "ack-lingjun", "a3-prod", "a4x-prod"
SECURE = {"secure": "v1:AAABAxyzEncryptedBytes=="}


# --- class 1: a nested `secure:` value (pulumi config set --path --secret) -------------------


def _write_stack(directory: Path, stack: str, values: dict[str, Any]) -> Path:
    path = directory / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump({"config": values}, sort_keys=False))
    return path


def _nested_secure(tmp_path, monkeypatch, stack: str, changes: dict[str, Any]):
    """The stack file of `stack` with `changes` (a `secure:` value somewhere), read offline."""
    _write_stack(tmp_path, stack, with_changes(stack_values(stack), changes))
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    return stack_file.stack_config_and_secrets(stack)


def test_a_nested_secure_value_parses_and_its_key_is_secret(tmp_path, monkeypatch):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, OKE, {"gpu-fabric:gpuNodes.sshPublicKey": SECURE}
    )
    assert secret == ["gpu-fabric:gpuNodes"]
    assert '"sshPublicKey": "[secret]"' in values["gpu-fabric:gpuNodes"]
    assert "v1:AAAB" not in str(values)
    cfg = parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=secret)
    assert cfg.gpu_nodes.ssh_public_key == stack_file.SECRET_PLACEHOLDER


def test_a_top_level_secure_value_is_still_a_secret_key(tmp_path, monkeypatch):
    values, secret = _nested_secure(tmp_path, monkeypatch, OKE, {"oci:privateKey": SECURE})
    assert secret == ["oci:privateKey"]
    assert values["oci:privateKey"] == stack_file.SECRET_PLACEHOLDER


def test_a_nested_secret_reaches_its_resource_input_as_a_secret(tmp_path, monkeypatch):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, OKE, {"gpu-fabric:gpuNodes.sshPublicKey": SECURE}
    )
    plan = engine.run(OKE, values, secret)
    instance = plan.of_type("oci:Core/instance:Instance")[0]
    assert "metadata" in instance.secret_inputs
    # Without the secret, the same input is plain: the test can fail.
    plain = engine.run(OKE, values, [])
    assert "metadata" not in plain.of_type("oci:Core/instance:Instance")[0].secret_inputs


@pytest.mark.parametrize(
    "stack, path, needs",
    [
        (OKE, "gpuNodes.count", "needs a whole number"),
        (GKE, "gke.privateNodes", "needs true or false"),
        (GKE, "gke.masterAuthorizedNetworks", "needs a list"),
        (ACK, "ack.systemPool.nodeCount", "needs a whole number"),
    ],
)
def test_a_nested_secure_value_under_a_key_that_is_not_text_is_refused(
    tmp_path, monkeypatch, stack, path, needs
):
    key = f"gpu-fabric:{path}"
    values, secret = _nested_secure(tmp_path, monkeypatch, stack, {key: SECURE})
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, stack, stacks_dir=None, secret_keys=secret)
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == (key, "[secret]")
    assert needs in problem.message
    assert f"pulumi config set --path '{key}' VALUE` (without --secret)" in problem.message
    assert "quote it" not in problem.message


def test_a_decrypted_secret_under_a_count_is_refused_the_same_way_under_the_cli():
    # Under the CLI the program gets the decrypted text, and the key among the secret keys.
    values = encode(with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.count": "2"}))
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=["gpu-fabric:gpuNodes"])
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == ("gpu-fabric:gpuNodes.count", "[secret]")
    assert "needs a whole number" in problem.message
    # Not secret: the ordinary type problem, with its value.
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None)
    (problem,) = err.value.problems
    assert problem.value == "2" and "whole number" in problem.message


def test_a_checked_text_key_that_is_secret_says_the_offline_plan_cannot_check_it(
    tmp_path, monkeypatch
):
    values, secret = _nested_secure(
        tmp_path, monkeypatch, ACK, {"gpu-fabric:lingjun.groupId": SECURE}
    )
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, ACK, stacks_dir=None, secret_keys=secret)
    (problem,) = err.value.problems
    assert (problem.key, problem.value) == ("gpu-fabric:lingjun.groupId", "[secret]")
    assert "the offline plan cannot decrypt it" in problem.message


def test_a_secret_keys_bad_value_is_not_echoed():
    bad = "not-an-ocid-but-secret"
    values = encode(with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.imageId": bad}))
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(values, OKE, stacks_dir=None, secret_keys=["gpu-fabric:gpuNodes"])
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:gpuNodes.imageId"
    assert bad not in str(problem.value) and bad not in problem.message


def test_another_stack_file_with_a_nested_secret_is_still_compared(tmp_path):
    # The copy check reads the other stack files too: a nested secret there must not make the
    # file unreadable (and so skip the check).
    other = with_changes(stack_values(OKE), {"gpu-fabric:gpuNodes.sshPublicKey": SECURE})
    _write_stack(tmp_path, "prod", other)
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(stack_values(OKE)), "copy", stacks_dir=tmp_path)
    assert any("stack prod" in p.message for p in err.value.problems)


# --- class 3: resources a cloud lets only one stack hold ----------------------------------------


def _copy_check(tmp_path, stack: str, mine: dict[str, Any], theirs: dict[str, Any] | None = None):
    """Stack `stack` (with `theirs`) in a stacks folder, and `staging` (a copy with `mine`)
    checked against it."""
    _write_stack(tmp_path, stack, with_changes(stack_values(stack), theirs or {}))
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
    _write_stack(tmp_path, ACK, stack_values(ACK))
    fabric = "ack-lingjun-fabric"
    cfg = parse_pulumi_config(encode(stack_values(fabric)), fabric, stacks_dir=tmp_path)
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
    _write_stack(tmp_path, A4X, stack_values(A4X))
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


# --- class 6: the GKE Services range ----------------------------------------------------------


@pytest.mark.parametrize("cidr", ["10.65.0.0/28", "10.65.0.0/30", "10.65.0.0/32"])
def test_a_services_range_smaller_than_a_27_is_refused(cidr):
    assert_single_rule(
        {"gpu-fabric:network.primary.servicesCidr": cidr},
        "gpu-fabric:network.primary.servicesCidr",
        cidr,
        "GKE's Services range is a /27 (32 Services) or wider",
        GKE,
    )


@pytest.mark.parametrize("cidr", ["10.65.0.0/27", "10.65.0.0/20", "10.65.0.0/16"])
def test_a_services_range_of_a_27_or_wider_is_accepted(cidr):
    cfg = parse_stack({"gpu-fabric:network.primary.servicesCidr": cidr}, GKE)
    assert cfg.network.primary.services_cidr == cidr


@pytest.mark.parametrize(
    "key",
    [
        "network.primary.subnetCidr",
        "network.primary.podsCidr",
        "network.primary.servicesCidr",
    ],
)
def test_every_primary_range_refuses_link_local_space(key):
    assert_single_rule(
        {f"gpu-fabric:{key}": "169.254.0.0/20"},
        f"gpu-fabric:{key}",
        "169.254.0.0/20",
        "link-local",
        GKE,
    )


def test_every_nic_range_refuses_link_local_space():
    subnets = [f"192.168.{n}.0/24" for n in range(1, 4)] + ["169.254.4.0/24"]
    assert_single_rule(
        {"gpu-fabric:network.nics": {"gpu": {"subnets": subnets}}},
        "gpu-fabric:network.nics.gpu.subnets[3]",
        "169.254.4.0/24",
        "link-local",
        GKE,
    )


# --- class 9: machine types, zones ------------------------------------------------------------


@pytest.mark.parametrize(
    "given, meant",
    [
        ("E2-standard-4", "e2-standard-4"),
        ("e2_standard_4", "e2-standard-4"),
        ("e2 standard 4", "e2-standard-4"),
        ("e2standard4", None),
    ],
)
def test_a_system_pool_machine_type_is_spelled_as_compute_engine_spells_it(given, meant):
    key = "gpu-fabric:gke.systemPool.machineType"
    hint = f"did you mean {meant}?" if meant else "not a Compute Engine machine type"
    assert_single_rule({key: given}, key, given, hint, GKE)


@pytest.mark.parametrize(
    "machine_type", ["e2-standard-4", "c3-standard-4-lssd", "n2-custom-4-16384", "e2-micro"]
)
def test_well_formed_machine_types_pass_the_grammar(machine_type):
    key = "gpu-fabric:gke.systemPool.machineType"
    assert parse_stack({key: machine_type}, GKE).gke.system_pool.machine_type == machine_type


@pytest.mark.parametrize(
    "given, meant",
    [("a3-highgpu-8", "a3-highgpu-8g"), ("a3-highgpu-4g", "a3-highgpu-8g")],
)
def test_an_unknown_gpu_machine_type_gets_a_did_you_mean(given, meant):
    assert_single_rule(
        {"gpu-fabric:gpuPool.machineType": given},
        "gpu-fabric:gpuPool.machineType",
        given,
        f"unknown machine type; did you mean {meant}?",
        GKE,
    )


def test_a_gpu_machine_type_with_a_capital_is_refused_by_the_grammar():
    assert_single_rule(
        {"gpu-fabric:gpuPool.machineType": "A3-highgpu-8g"},
        "gpu-fabric:gpuPool.machineType",
        "A3-highgpu-8g",
        "did you mean a3-highgpu-8g?",
        GKE,
    )


@pytest.mark.parametrize(
    "given, meant", [("us-central1c", "us-central1-c"), ("US-CENTRAL1-C", "us-central1-c")]
)
def test_a_misspelt_zone_gets_a_did_you_mean(given, meant):
    assert_single_rule(
        {"gpu-fabric:gpuPool.zone": given},
        "gpu-fabric:gpuPool.zone",
        given,
        f"not a zone of region us-central1; did you mean {meant}?",
        GKE,
    )


def test_a_zone_of_another_region_gets_no_guess():
    assert_single_rule(
        {"gpu-fabric:gpuPool.zone": "europe-west4-b"},
        "gpu-fabric:gpuPool.zone",
        "europe-west4-b",
        "use e.g. us-central1-a, or change gpu-fabric:region",
        GKE,
    )


@pytest.mark.parametrize("region, says", [("us-central1-a", "is a zone"), ("uscentral1", "not a")])
def test_a_region_is_spelled_as_compute_engine_spells_it(region, says):
    problems = pytest.raises(ConfigError, parse_stack, {"gpu-fabric:region": region}, GKE)
    assert any(
        p.key == "gpu-fabric:region" and p.value == region and says in p.message
        for p in problems.value.problems
    )


def test_a_cross_field_problem_under_a_secret_key_does_not_show_its_values():
    """A rule that names values (the Lingjun group id equal to the cluster id) under a key Pulumi
    holds secret shows neither the value nor the ids in its message."""
    from gpu_fabric.problems import ConfigError
    from gpu_fabric.stack_config import parse_pulumi_config
    from gpu_fabric.stack_file import SECRET_PLACEHOLDER
    from tests.conftest import encode, stack_values, with_changes

    cluster = "i118191731740041623425"
    values = encode(
        with_changes(stack_values("ack-lingjun"), {"gpu-fabric:lingjun.groupId": cluster})
    )
    with pytest.raises(ConfigError) as plain:
        parse_pulumi_config(values, "ack-lingjun", stacks_dir=None)
    assert cluster in str(plain.value)  # the rule names it when the key is not secret
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(
            values, "ack-lingjun", stacks_dir=None, secret_keys=["gpu-fabric:lingjun"]
        )
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:lingjun.groupId" and problem.value == SECRET_PLACEHOLDER
    assert cluster not in str(err.value)
