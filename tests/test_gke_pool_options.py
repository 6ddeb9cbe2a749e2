"""GKE pool options: a `GpuPoolConfig` field marked `POOL_OPTION` reaches the node pool as written,
in the stack and through the hosted layer, whose args field `make docs` writes from the model."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import AfterValidator, Field

from gpu_fabric.gke.pool.config import POOL_OPTION, GpuPoolConfig, pool_options
from tests.conftest import assert_single_rule, run_stack
from tests.test_component_schema import _analysis, token
from tests.test_gke_pools import pools
from tests.test_layer_inputs import _build, _refused
from tools import pool_options as generator

NODE_POOL = "gcp:container/nodePool:NodePool"


def test_the_hosted_args_are_what_the_generator_writes():
    written = generator.ARGS_FILE.read_text(encoding="utf-8")
    assert generator.render(written) == written, (
        f"GkeGpuPool's pool options are out of date with GpuPoolConfig; run {generator.REGENERATE}"
    )


def test_every_pool_option_is_in_the_hosted_schema_with_its_config_description():
    assert pool_options() == ["queued_provisioning", "create_timeout", "update_timeout"]
    properties = _analysis()[0]["types"][token("GkeGpuPool")]["properties"]
    types = {bool: "boolean", str: "string"}
    for option in pool_options():
        camel = GpuPoolConfig.model_fields[option].alias
        default = GpuPoolConfig.model_fields[option].default
        assert properties[camel]["type"] == types[type(default)]
        assert properties[camel]["description"] == GpuPoolConfig.model_fields[option].description


def test_a_stacks_timeouts_reach_the_gpu_node_pool(a3_plan):
    changed = run_stack(pools("a3-prod", {"createTimeout": "2h", "updateTimeout": "3h30m"}))
    (default,) = [r for r in a3_plan.of_type(NODE_POOL) if r.custom_timeouts.get("update")]
    (given,) = [r for r in changed.of_type(NODE_POOL) if r.custom_timeouts.get("update")]
    assert default.custom_timeouts == {"create": "60m", "update": "60m", "delete": "30m"}
    assert given.custom_timeouts == {"create": "2h", "update": "3h30m", "delete": "30m"}
    assert given.inputs == default.inputs  # a resource option: no input changes


def test_the_hosted_layer_takes_an_option_or_its_default():
    def timeouts(*changes):
        (pool,) = [r for r in _build("GkeCloud", *changes).of_type(NODE_POOL) if r.custom_timeouts]
        return pool.custom_timeouts

    assert timeouts()["create"] == "60m"
    assert timeouts((("gpu_pools", 0, "create_timeout"), "90m"))["create"] == "90m"


def test_the_hosted_layer_refuses_a_bad_option_by_its_property_path():
    _, reasons = _refused(lambda: _build("GkeCloud", (("gpu_pools", 0, "update_timeout"), "1d")))
    assert list(reasons) == ["gpuPools[0].updateTimeout"]
    assert "duration" in reasons["gpuPools[0].updateTimeout"]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("1d", "a duration in hours, minutes and seconds"),
        ("60", "a duration in hours, minutes and seconds"),
        ("5m", "shorter than 10m"),
        ("599s", "shorter than 10m"),
        ("73h", "longer than 72h"),
    ],
)
def test_a_timeout_that_is_no_duration_or_out_of_bounds_is_refused(value, says):
    key = "gpu-fabric:gpuPools[0].createTimeout"
    assert_single_rule(pools("a3-prod", {"createTimeout": value}), key, value, says, "a3-prod")


def test_durations_at_the_bounds_are_accepted():
    assert run_stack(pools("a3-prod", {"createTimeout": "10m", "updateTimeout": "72h"})).resources


def test_the_generator_writes_one_literal_or_joined_literals():
    class Pool(GpuPoolConfig):
        short: str = Field("x", description="Short.", json_schema_extra=POOL_OPTION)
        long: int = Field(1, description="word " * 40, json_schema_extra=POOL_OPTION)

    short = generator._docstring("short", Pool.model_fields["short"])
    joined = generator._docstring("long", Pool.model_fields["long"])
    assert short == ['    """Short."""']
    assert joined[0] == "    (" and joined[-1] == "    )"
    assert all(len(line) <= generator.LINE_LENGTH for line in joined)
    assert "".join(eval(line) for line in joined[1:-1]) == "word " * 40  # noqa: S307
    assert generator._type("long", Pool.model_fields["long"]) == "NotRequired[int]"


def test_the_generator_refuses_an_option_it_cannot_write():
    class Pool(GpuPoolConfig):
        listed: list[str] = Field([], description="A list.", json_schema_extra=POOL_OPTION)
        bare: Annotated[str, AfterValidator(str.strip)] = Field("x", json_schema_extra=POOL_OPTION)

    with pytest.raises(ValueError, match="a pool option is str, int, float, bool"):
        generator._type("listed", Pool.model_fields["listed"])
    with pytest.raises(ValueError, match="without a description"):
        generator._docstring("bare", Pool.model_fields["bare"])
    with pytest.raises(ValueError, match="no `# BEGIN GENERATED: pool options` block"):
        generator.render("class GkeGpuPool: ...\n")
