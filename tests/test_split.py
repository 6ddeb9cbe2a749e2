"""A split deployment has one source of truth per key: the cloud stack holds the cloud layer's
keys and exports them (`cloudConfig`); the fabric stack holds only its own and reads the rest
before it registers anything. A key in the stack whose layer does not read it is refused, naming
the stack that does."""

from __future__ import annotations

import json

import pulumi
import pytest

from gpu_fabric.layers import CLOUD_CONFIG_OUTPUT
from gpu_fabric.problems import ConfigError
from gpu_fabric.registry import Platform
from gpu_fabric.stack_config import MODELS, parse_pulumi_config
from gpu_fabric.stack_config.split import (
    FabricStack,
    cloud_config_of,
    cloud_fields,
    cloud_keys,
    fabric_keys,
)
from offline import engine
from tests.conftest import (
    DELETE,
    assert_single_rule,
    encode,
    planned,
    stack_values,
    with_changes,
    write_stack_file,
)

SPLIT = [("oke-dranet", "oke-dranet-fabric"), ("ack-lingjun", "ack-lingjun-fabric")]
"""Example cloud stacks with the fabric stack that reads them."""


def _model(stack: str):
    return MODELS[Platform(stack_values(stack)["gpu-fabric:platform"])]


def _stack_key(key: str) -> str:
    return key if ":" in key else f"gpu-fabric:{key}"


def _fabric_keys(stack: str) -> list[str]:
    return sorted(_stack_key(key) for key in fabric_keys(_model(stack)))


def _cloud_keys(stack: str) -> list[str]:
    return sorted(_stack_key(key) for key in cloud_keys(_model(stack)))


def _fabric_plan(fabric: str, cloud_outputs: dict, values: dict | None = None) -> engine.Plan:
    return engine.run(fabric, encode(values or stack_values(fabric)), None, cloud_outputs)


def test_the_example_fabric_stacks_hold_only_their_own_keys():
    for cloud, fabric in SPLIT:
        allowed = {*_fabric_keys(fabric), "gpu-fabric:layers", "gpu-fabric:cloudStack"}
        assert set(stack_values(fabric)) - {"gpu-fabric:platform"} <= allowed
        assert not set(stack_values(cloud)) & set(_fabric_keys(cloud))


@pytest.mark.parametrize("cloud, fabric", SPLIT)
def test_every_fabric_key_in_a_cloud_stack_is_refused_naming_its_fabric_stack(
    cloud, fabric, tmp_path
):
    write_stack_file(tmp_path, fabric, stack_values(fabric))
    for key in _fabric_keys(cloud):
        values = {**stack_values(cloud), key: {} if key != "gpu-fabric:nodeWaitTimeout" else "1h"}
        with pytest.raises(ConfigError) as err:
            parse_pulumi_config(encode(values), cloud, stacks_dir=tmp_path)
        (problem,) = [p for p in err.value.problems if p.key == key]
        assert "has no effect with gpu-fabric:layers: cloud" in problem.message, problem
        assert f"a key of the fabric stack {fabric}; move it" in problem.message, problem


@pytest.mark.parametrize("cloud, fabric", SPLIT)
def test_every_cloud_key_in_a_fabric_stack_is_refused_naming_its_cloud_stack(cloud, fabric):
    for key in _cloud_keys(fabric):
        value = stack_values(cloud).get(key, "x")
        values = {**stack_values(fabric), key: value}
        with pytest.raises(ConfigError) as err:
            parse_pulumi_config(encode(values), fabric, stacks_dir=None)
        (problem,) = err.value.problems
        assert problem.key == key
        assert f"is a key of the cloud stack {cloud}" in problem.message
        assert "remove it here" in problem.message


@pytest.mark.parametrize("cloud, fabric", SPLIT)
def test_a_cloud_stack_exports_its_cloud_keys_and_the_fabric_stack_reads_them(cloud, fabric):
    outputs = planned(cloud).outputs
    exported = json.loads(outputs[CLOUD_CONFIG_OUTPUT])
    written = stack_values(cloud)
    assert exported["platform"] == written["gpu-fabric:platform"]
    for key in _cloud_keys(cloud):
        if key in written:
            short = key.removeprefix("gpu-fabric:")
            assert exported[short if short in exported else key] == written[key], key
    cfg = parse_pulumi_config(encode(stack_values(fabric)), fabric, stacks_dir=None)
    assert isinstance(cfg, FabricStack)
    whole = cfg.merged(outputs[CLOUD_CONFIG_OUTPUT], False)
    cloud_cfg = parse_pulumi_config(encode(written), cloud, stacks_dir=None)
    for name in cloud_fields(type(cloud_cfg)):
        assert getattr(whole, name) == getattr(cloud_cfg, name), name


def test_the_fabric_stack_waits_for_the_node_count_the_cloud_stack_exports():
    """No copy to disagree: the count the fabric layer waits for is the cloud stack's."""
    outputs = dict(planned("oke-dranet").outputs)
    exported = json.loads(outputs[CLOUD_CONFIG_OUTPUT])
    exported["gpuNodes"]["count"] = 3
    outputs[CLOUD_CONFIG_OUTPUT] = json.dumps(exported)
    plan = _fabric_plan("oke-dranet-fabric", outputs)
    counts = {
        r.inputs["environment"]["COUNT"]
        for r in plan.of_type("command:local:Command")
        if "COUNT" in r.inputs.get("environment", {})
    }
    assert counts == {"3"}


@pytest.mark.parametrize(
    "exported, says",
    [
        (None, "has no `cloudConfig` output"),
        ("{not json", "has no `cloudConfig` output"),
        (json.dumps({"platform": "ack-lingjun"}), "names a stack that runs ack-lingjun"),
    ],
)
def test_a_cloud_stack_without_a_usable_export_is_refused_before_anything_is_registered(
    exported, says
):
    outputs = {k: v for k, v in planned("oke-dranet").outputs.items() if k != CLOUD_CONFIG_OUTPUT}
    if exported is not None:
        outputs[CLOUD_CONFIG_OUTPUT] = exported
    with pytest.raises(ConfigError) as err:
        _fabric_plan("oke-dranet-fabric", outputs)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:cloudStack" and says in problem.message
    assert engine.LAST_RUN.resources == []
    # The CLI prints a RunError's message alone: no Python traceback under `pulumi up`.
    assert isinstance(err.value, pulumi.RunError)


def test_an_export_holding_a_key_this_version_takes_from_the_fabric_stack_is_refused():
    outputs = dict(planned("oke-dranet").outputs)
    exported = json.loads(outputs[CLOUD_CONFIG_OUTPUT]) | {"claims": []}
    outputs[CLOUD_CONFIG_OUTPUT] = json.dumps(exported)
    with pytest.raises(ConfigError) as err:
        _fabric_plan("oke-dranet-fabric", outputs)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:cloudStack" and "holds claims" in problem.message


def _merged_with_a_bad_node_count(cloud_secret: bool) -> ConfigError:
    """The example fabric stack merged with an export whose GPU node count is -1."""
    cfg = parse_pulumi_config(
        encode(stack_values("oke-dranet-fabric")), "oke-dranet-fabric", stacks_dir=None
    )
    exported = json.loads(planned("oke-dranet").outputs[CLOUD_CONFIG_OUTPUT])
    exported["gpuNodes"]["count"] = -1
    with pytest.raises(ConfigError) as err:
        cfg.merged(json.dumps(exported), cloud_secret)
    return err.value


def test_a_problem_of_the_two_together_says_which_stack_holds_the_cloud_key():
    (problem,) = _merged_with_a_bad_node_count(cloud_secret=False).problems
    assert problem.key == "gpu-fabric:gpuNodes.count" and problem.value == -1
    assert "a key of the cloud stack oke-dranet" in problem.message


def test_a_secret_export_shows_no_cloud_value_in_a_problem():
    assert "-1" not in str(_merged_with_a_bad_node_count(cloud_secret=True))


def test_a_claim_the_cloud_stacks_shape_cannot_hold_is_refused_by_the_fabric_stack():
    values = with_changes(
        stack_values("oke-dranet-fabric"),
        {"gpu-fabric:claims": [{"name": "too-big", "gpus": 9, "rails": 1}]},
    )
    with pytest.raises(ConfigError) as err:
        _fabric_plan("oke-dranet-fabric", planned("oke-dranet").outputs, values)
    assert any(p.key.startswith("gpu-fabric:claims") for p in err.value.problems)
    assert engine.LAST_RUN.resources == []


def test_cloud_config_round_trips_for_every_cloud_stack():
    for stack in engine.stack_names():
        values = engine.stack_config(stack)
        if values.get("gpu-fabric:layers") == "fabric":
            continue
        cfg = parse_pulumi_config(values, stack, stacks_dir=None)
        again = json.loads(cloud_config_of(cfg))
        assert again == json.loads(
            cloud_config_of(type(cfg).model_validate_json(json.dumps(again)))
        )


def test_a_cloud_stack_is_not_held_to_the_defaults_of_keys_its_fabric_stack_sets():
    """A VCN over DRANET's default child range plans when the fabric stack moves the range."""
    network = {
        "vcnCidr": "10.208.0.0/16",
        "apiSubnetCidr": "10.208.0.0/28",
        "loadBalancerSubnetCidr": "10.208.1.0/24",
        "workersSubnetCidr": "10.208.64.0/19",
        "podsSubnetCidr": "10.208.128.0/17",
        "apiAllowedCidrs": [],
    }
    cloud_values = {**stack_values("oke-dranet"), "gpu-fabric:network": network}
    cloud = engine.run("oke-dranet", encode(cloud_values))
    fabric_values = {**stack_values("oke-dranet-fabric"), "gpu-fabric:dranet": {}}
    with pytest.raises(ConfigError) as err:
        _fabric_plan("oke-dranet-fabric", cloud.outputs, fabric_values)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:network.vcnCidr"
    assert "set gpu-fabric:dranet.childCidr to move it" in problem.message
    moved = {**fabric_values, "gpu-fabric:dranet": {"childCidr": "10.64.0.0/12"}}
    assert _fabric_plan("oke-dranet-fabric", cloud.outputs, moved).resources


def test_a_secret_cloud_config_keeps_what_the_fabric_stack_derives_from_it_secret():
    cloud = planned("oke-dranet")
    plan = engine.run(
        "oke-dranet-fabric",
        encode(stack_values("oke-dranet-fabric")),
        None,
        cloud.outputs,
        cloud_secret_outputs=[CLOUD_CONFIG_OUTPUT],
    )
    # The GPU shape is a text of the secret output: each input that holds it is secret.
    holding = [r for r in plan.resources if "BM.GPU.B4.8" in json.dumps(r.inputs)]
    assert holding and all(r.secret_inputs for r in holding)
    plain = _fabric_plan("oke-dranet-fabric", cloud.outputs).resources
    assert any(not r.secret_inputs for r in plain if "BM.GPU.B4.8" in json.dumps(r.inputs))


def test_make_verify_refuses_a_cloud_stack_of_another_project_it_cannot_read_here():
    from gpu_fabric.stack_config import parse_with_cloud_stack_file

    values = {**stack_values("oke-dranet-fabric"), "gpu-fabric:cloudStack": "org/other/oke-dranet"}
    with pytest.raises(ConfigError) as err:
        parse_with_cloud_stack_file(encode(values), "oke-dranet-fabric")
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:cloudStack" and "names a stack of project other" in (
        problem.message
    )


@pytest.mark.parametrize("layers", ["Fabric", ["fabric"], {"fabric": True}])
def test_a_mistyped_layers_in_a_fabric_stack_is_the_one_problem(layers):
    values = {**stack_values("oke-dranet-fabric"), "gpu-fabric:layers": layers}
    with pytest.raises(ConfigError) as err:
        parse_pulumi_config(encode(values), "oke-dranet-fabric", stacks_dir=None)
    (problem,) = err.value.problems
    assert problem.key == "gpu-fabric:layers" and problem.value == layers


@pytest.mark.parametrize("layers", [DELETE, "all"])
def test_a_fabric_file_without_its_layers_is_refused_on_that_key_alone(layers):
    """Not on every cluster key it rightly leaves out: adding them would be refused as misplaced."""
    assert_single_rule(
        {"gpu-fabric:layers": layers},
        "gpu-fabric:layers",
        None,
        "this file names gpu-fabric:cloudStack, which only a fabric stack reads, so it runs the "
        "fabric layer; set gpu-fabric:layers: fabric",
        "oke-dranet-fabric",
    )
