"""`gpu-fabric:cloudStack` names the cloud layer of this stack's platform, or is refused saying
what the named stack is (gpu_fabric/stack_config/references.py)."""

from __future__ import annotations

import pytest

from gpu_fabric.problems import ConfigError, Problem
from gpu_fabric.stack_config import parse_pulumi_config
from tests.conftest import encode, stack_values, with_changes, write_stack_file

FABRIC, CLOUD = "oke-dranet-fabric", "oke-dranet"
KEY = "gpu-fabric:cloudStack"


def refusal(tmp_path, reference: str, beside: dict[str, dict] | None = None) -> Problem:
    """The one problem of the fabric stack naming `reference`, with `beside` (stack -> config)
    as the other stack files."""
    for stack, values in (beside or {CLOUD: stack_values(CLOUD)}).items():
        write_stack_file(tmp_path, stack, values)
    values = with_changes(stack_values(FABRIC), {KEY: reference})
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(values), FABRIC, stacks_dir=tmp_path)
    (problem,) = err.value.problems
    assert problem.key == KEY and problem.value == reference
    return problem


def test_the_committed_cloud_stack_is_accepted(tmp_path):
    write_stack_file(tmp_path, CLOUD, stack_values(CLOUD))
    cfg = parse_pulumi_config(encode(stack_values(FABRIC)), FABRIC, stacks_dir=tmp_path)
    assert cfg.cloud_stack == CLOUD


def test_a_stack_naming_itself_is_refused(tmp_path):
    assert "names this stack itself" in refusal(tmp_path, FABRIC).message


def test_another_clouds_stack_is_refused_as_what_it_is_not_as_a_copy(tmp_path):
    beside = {CLOUD: stack_values(CLOUD), "a3-prod": stack_values("a3-prod")}
    message = refusal(tmp_path, "a3-prod", beside).message
    assert "runs gke-a3-high (a platform of another cloud)" in message
    assert "copy" not in message


def test_another_fabric_stack_is_refused_naming_the_cloud_stack_it_reads(tmp_path):
    beside = {CLOUD: stack_values(CLOUD), "other-fabric": stack_values(FABRIC)}
    message = refusal(tmp_path, "other-fabric", beside).message
    assert "a fabric stack itself" in message and f"({CLOUD})" in message


def test_a_stack_that_runs_both_layers_is_refused_before_both_own_the_same_objects(tmp_path):
    both = with_changes(stack_values(CLOUD), {"gpu-fabric:layers": "all"})
    message = refusal(tmp_path, CLOUD, {CLOUD: both}).message
    assert "runs both layers (gpu-fabric:layers: all)" in message
    assert "fails with AlreadyExists" in message
    assert f"set gpu-fabric:layers: cloud in Pulumi.{CLOUD}.yaml first" in message


def test_a_stack_of_another_project_is_left_to_the_stack_reference(tmp_path):
    """It has no file here: the program's StackReference reads it (of the same name too)."""
    values = with_changes(stack_values(FABRIC), {KEY: f"my-org/other-project/{FABRIC}"})
    cfg = parse_pulumi_config(encode(values), FABRIC, stacks_dir=tmp_path)
    assert cfg.cloud_stack == f"my-org/other-project/{FABRIC}"
    # In this project, that name is this stack.
    assert "names this stack itself" in refusal(tmp_path, f"my-org/gpu-fabric/{FABRIC}").message


@pytest.mark.parametrize("reference", ["x" * 101, "../../etc/passwd", "a/b", ".", "org/../stack"])
def test_a_reference_that_is_no_stack_name_is_refused_with_the_form(tmp_path, reference):
    problem = refusal(tmp_path, reference)
    assert "must name a stack as <organization>/<project>/<stack>" in problem.message
    assert "at most 100 of them per part" in problem.message


def test_every_reference_leads_to_a_plan_or_a_clear_problem():
    """No traceback on any reference: offline the engine leaves a malformed one to the program."""
    from offline import engine

    for reference in ("x" * 300, "../../etc/passwd", FABRIC, "a3-prod"):
        values = with_changes(stack_values(FABRIC), {KEY: reference})
        with pytest.raises(ConfigError):
            engine.run(FABRIC, encode(values))


def test_fabric_stacks_naming_each_other_get_a_fix_that_leads_out(tmp_path):
    """Not "name the cloud stack it reads" when that is this stack or another fabric stack."""
    other = with_changes(stack_values(FABRIC), {KEY: FABRIC})
    beside = {CLOUD: stack_values(CLOUD), "other-fabric": other}
    message = refusal(tmp_path, "other-fabric", beside).message
    assert "a fabric stack itself" in message
    assert "name the stack whose file sets gpu-fabric:layers: cloud" in message
    assert f"({FABRIC})" not in message


def test_a_circle_of_fabric_stacks_is_refused_offline_not_planned_forever(tmp_path, monkeypatch):
    """The engine plans a fabric stack's cloud stack first: it plans only a cloud stack, so two
    fabric stacks that name each other end in the program's refusal, not in a recursion."""
    from gpu_fabric import stack_file
    from offline import engine

    fabric = stack_values(FABRIC)
    monkeypatch.setattr(engine, "STACKS_DIR", tmp_path)
    monkeypatch.setattr(stack_file, "STACKS_DIR", tmp_path)
    for stack, names in (("a-fabric", "b-fabric"), ("b-fabric", "a-fabric")):
        write_stack_file(tmp_path, stack, with_changes(fabric, {KEY: names}))
    values = with_changes(fabric, {KEY: "b-fabric"})
    with pytest.raises(ConfigError) as err:
        engine.run("a-fabric", encode(values))
    (problem,) = err.value.problems
    assert problem.key == KEY


def test_two_fabric_stacks_on_one_cloud_stack_are_refused(tmp_path):
    """Each would create the same in-cluster objects on the one cluster."""
    beside = {CLOUD: stack_values(CLOUD), "second-fabric": stack_values(FABRIC)}
    message = refusal(tmp_path, CLOUD, beside).message
    assert f"fabric stack second-fabric reads cloud stack {CLOUD} too" in message
    assert "keep one fabric stack per cloud stack" in message


def test_a_cloud_stack_switched_to_both_layers_under_its_fabric_stack_is_refused(tmp_path):
    from tests.conftest import OKE_EXISTING_VCN, pair_values

    write_stack_file(tmp_path, FABRIC, stack_values(FABRIC))
    existing = {**OKE_EXISTING_VCN, "deployPath": "a runner inside the VCN"}
    changes = {"gpu-fabric:layers": "all", "gpu-fabric:network": {"existing": existing}}
    both = with_changes(pair_values(CLOUD), changes)
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(both), CLOUD, stacks_dir=tmp_path)
    problems = err.value.problems
    assert [p.key for p in problems] == ["gpu-fabric:layers"], problems
    assert f"fabric stack {FABRIC} reads this stack's cloud layer" in problems[0].message
    assert (
        f"set gpu-fabric:layers: cloud, or destroy that stack first (pulumi destroy -s {FABRIC})"
        in (problems[0].message)
    )
