"""Shared fixtures: run the real program under mocks with the a3-prod stack file, or a variant."""

from __future__ import annotations

import base64
import copy
import functools
import json
from typing import Any

import pytest

from gpu_fabric.problems import ConfigError, Problem
from gpu_fabric.stack_config import StackConfig, parse_pulumi_config, parse_with_cloud_stack_file
from offline import engine


def pytest_configure(config):
    """Import the provider SDKs once and freeze them out of the garbage collector: their module
    objects are millions of long-lived objects that every full collection would walk again
    (the offline plans of the suite run about 2.5x faster).

    Not in pytest-xdist's controller, which runs no test: its workers do this each."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return
    import gc

    import pulumi_alicloud  # noqa: F401
    import pulumi_gcp  # noqa: F401
    import pulumi_kubernetes  # noqa: F401
    import pulumi_oci  # noqa: F401

    gc.collect()
    gc.freeze()
    # The plans the tests share stay alive for the session: collect the youngest generation less
    # often, so full collections do not keep walking them.
    gc.set_threshold(200_000, 50, 50)


def _ed25519_public_key() -> str:
    """A well-formed ed25519 public key (`TYPE BASE64`): the length-prefixed type, then 32
    bytes of key (RFC 8709), here not anyone's key."""
    blob = b"".join(len(p).to_bytes(4, "big") + p for p in (b"ssh-ed25519", bytes(range(32))))
    return "ssh-ed25519 " + base64.b64encode(blob).decode()


SSH_PUBLIC_KEY = _ed25519_public_key()
"""An SSH public key line without a comment."""


def pair_values(stack: str = "a3-prod") -> dict[str, Any]:
    """`stack_values`; a cloud stack with a fabric stack beside it (`fabric_stack_of`) gives the
    pair's: its own keys and the fabric stack's fabric keys, as one config that `split_values`
    parts again (so a test edits a split deployment as one)."""
    decoded = stack_values(stack)
    fabric = fabric_stack_of(stack)
    if fabric is not None:
        decoded |= {k: v for k, v in stack_values(fabric).items() if k not in _STACK_KEYS}
    return decoded


def stack_values(stack: str = "a3-prod") -> dict[str, Any]:
    """The stack file's config, with object values decoded (so tests can edit them)."""
    decoded = {}
    for key, text in engine.stack_config(stack).items():
        try:
            decoded[key] = json.loads(text)
        except ValueError:
            decoded[key] = text
    return decoded


_STACK_KEYS = tuple(f"gpu-fabric:{k}" for k in ("layers", "cloudStack", "platform"))


def fabric_stack_of(stack: str) -> str | None:
    """The stack file whose `gpu-fabric:cloudStack` names `stack`, where `stack` runs the cloud
    layer (the pairing the program makes: gpu_fabric/stack_config/references.py)."""
    if engine.stack_config(stack).get("gpu-fabric:layers") != "cloud":
        return None
    from gpu_fabric.stack_config.references import fabric_stack_reading

    return fabric_stack_reading(stack, engine.STACKS_DIR, engine.PROJECT)


def split_values(stack: str, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A pair's one config (`stack_values`) as its two stack files hold it: the cloud stack's
    keys, and the fabric stack's (its fabric keys, `layers: fabric`, `cloudStack: <stack>`)."""
    from gpu_fabric.registry import Platform
    from gpu_fabric.stack_config import MODELS
    from gpu_fabric.stack_config.split import fabric_keys

    model = MODELS[Platform(values["gpu-fabric:platform"])]
    in_fabric = {f"gpu-fabric:{key}" for key in fabric_keys(model)}
    cloud = {k: v for k, v in values.items() if k not in in_fabric}
    fabric = {k: v for k, v in values.items() if k in in_fabric}
    fabric |= {
        "gpu-fabric:layers": "fabric",
        "gpu-fabric:cloudStack": stack,
        "gpu-fabric:platform": values.get("gpu-fabric:platform"),
    }
    return cloud, fabric


def with_changes(values: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """Apply `{"gpu-fabric:gke.version": "..."}`-style edits; the value `DELETE` removes a key."""
    values = copy.deepcopy(values)
    for path, new in changes.items():
        key, _, rest = path.partition(".")
        if not rest:
            if new is DELETE:
                values.pop(key, None)
            else:
                values[key] = new
            continue
        node = values.setdefault(key, {})
        *parents, last = rest.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        if new is DELETE:
            node.pop(last, None)
        else:
            node[last] = new
    return values


DELETE = object()

OKE_EXISTING_VCN = {
    "vcnId": "ocid1.vcn.oc1.iad.aaaaexisting",
    "vcnCidr": "10.140.0.0/16",
    "apiSubnetId": "ocid1.subnet.oc1.iad.aaaaapi",
    "workersSubnetId": "ocid1.subnet.oc1.iad.aaaaworkers",
    "workersSubnetCidr": "10.140.64.0/19",
    "podsSubnetId": "ocid1.subnet.oc1.iad.aaaapods",
    "podsSubnetCidr": "10.140.128.0/17",
    "loadBalancerSubnetId": "ocid1.subnet.oc1.iad.aaaalb",
}
"""`gpu-fabric:network.existing` of an oke-dranet stack: a VCN and subnets that exist already."""


def encode(values: dict[str, Any]) -> dict[str, str]:
    """As Pulumi hands config to a program: objects as JSON text, strings as they are."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


def run_stack(
    changes: dict[str, Any] | None = None, stack: str = "a3-prod", cached: bool = True
) -> engine.Plan:
    """Plan `stack` with `changes`. A cloud stack with a fabric stack beside it (oke-dranet and
    oke-dranet-fabric) is planned with it, under the same changes, as one plan of both layers.

    Plans are shared between the tests that ask for the same stack and changes (the suite plans
    each only once): a test reads a plan, it never changes one. A test that patches the engine or
    the catalog asks for a plan of its own (`cached=False`).
    """
    values = with_changes(pair_values(stack), changes or {})
    plan = _planned if cached else _planned.__wrapped__
    return plan(stack, json.dumps(values, sort_keys=True))


@functools.cache
def _planned(stack: str, values_json: str) -> engine.Plan:
    values = json.loads(values_json)
    if values.get("gpu-fabric:layers") != "cloud" or fabric_stack_of(stack) is None:
        return engine.run(stack, encode(values))
    return run_pair(stack, values)


@functools.cache
def planned(stack: str) -> engine.Plan:
    """The plan of `stack`'s file as written (a fabric stack's with its cloud stack's outputs),
    shared by the tests that read it: one planning per process. A test never changes it."""
    return engine.run(stack)


def kubernetes_provider(plan: engine.Plan) -> engine.Registration:
    """The Kubernetes provider the plan's in-cluster objects use: a split pair's is the fabric
    stack's own (built from the cloud stack's outputs)."""
    providers = plan.of_type("pulumi:providers:kubernetes")
    if len(providers) == 1:
        return providers[0]
    (fabric,) = [p for p in providers if p.urn.startswith(f"urn:pulumi:{plan.stack}-fabric::")]
    return fabric


def fabric_plan(cloud_stack: str, changes: dict[str, Any]) -> engine.Plan:
    """The plan of `cloud_stack`'s fabric stack with `changes` to the fabric stack's own file,
    its cloud stack's outputs those of `cloud_stack`'s file as written."""
    fabric = f"{cloud_stack}-fabric"
    values = with_changes(stack_values(fabric), changes)
    return engine.run(fabric, encode(values), None, planned(cloud_stack).outputs)


def run_pair(stack: str, values: dict[str, Any]) -> engine.Plan:
    """The cloud stack's plan and its fabric stack's (the pair's one config, `split_values`),
    as one plan."""
    cloud_values, fabric_values = split_values(stack, values)
    cloud = engine.run(stack, encode(cloud_values))
    fabric_stack = fabric_stack_of(stack)
    assert fabric_stack is not None, stack
    fabric = engine.run(fabric_stack, encode(fabric_values), None, cloud.outputs)
    return engine.Plan(
        stack=stack,
        resources=cloud.resources + fabric.resources,
        outputs={**cloud.outputs, **fabric.outputs},
        secret_outputs=cloud.secret_outputs | fabric.secret_outputs,
        warnings=cloud.warnings + fabric.warnings,
    )


@pytest.fixture
def without_fabric_stacks(monkeypatch):
    """As in a repository that splits no stack: no fabric stack reads a cloud stack, so one may
    run both layers (with a fabric stack reading it, that is refused)."""
    from gpu_fabric.stack_config import references

    monkeypatch.setattr(references, "fabric_stacks_reading", lambda *args: [])


@pytest.fixture(scope="session")
def a3_plan() -> engine.Plan:
    """The a3-prod stack exactly as committed."""
    return engine.run("a3-prod")


def parse_stack(changes: dict[str, Any], stack: str = "a3-prod") -> StackConfig:
    """Validate a stack file with `changes` applied, as the program would. A pair's config
    (`stack_values`) is validated as its two stacks are: each file alone, then the fabric
    stack's keys with the cloud stack's `cloudConfig` (the whole config, `layers: fabric`)."""
    values = with_changes(pair_values(stack), changes)
    if values.get("gpu-fabric:layers") == "fabric":
        return parse_with_cloud_stack_file(encode(values), stack)
    if values.get("gpu-fabric:layers") != "cloud" or fabric_stack_of(stack) is None:
        return parse_pulumi_config(encode(values), stack)
    from gpu_fabric.stack_config.split import cloud_config_of

    cloud_values, fabric_values = split_values(stack, values)
    found: list[Problem] = []
    try:
        cloud = parse_pulumi_config(encode(cloud_values), stack)
    except ConfigError as err:
        found += err.problems
    try:
        fabric = parse_pulumi_config(encode(fabric_values), str(fabric_stack_of(stack)))
    except ConfigError as err:
        found += err.problems
    if found:
        raise ConfigError(stack, found)
    return fabric.merged(cloud_config_of(cloud), False)


def problems(changes: dict[str, Any], stack: str = "a3-prod") -> list[Problem]:
    """The problems `changes` cause (the test fails if they cause none)."""
    with pytest.raises(ConfigError) as err:
        parse_stack(changes, stack)
    return err.value.problems


def only_problem(changes: dict[str, Any], stack: str = "a3-prod") -> Problem:
    (problem,) = problems(changes, stack)
    return problem


def assert_single_rule(changes: dict[str, Any], key: str, value: Any, says: str, stack: str):
    """`changes` cause exactly one problem: at `key`, with `value` (unless None), saying `says`."""
    problem = only_problem(changes, stack)
    assert problem.key == key
    if value is not None:
        assert problem.value == value
    assert says in problem.message


def assert_registers_nothing(changes: dict[str, Any], stack: str) -> None:
    """Running the program with `changes` fails on its config before registering anything (a
    split pair's: in the stack that refuses them, the cloud stack or its fabric stack)."""
    with pytest.raises(ConfigError):
        run_stack(changes, stack, cached=False)
    assert engine.LAST_RUN is not None and engine.LAST_RUN.resources == []


def assert_reports(problems: list[str], wanted: list[str]) -> None:
    """Each wanted line starts one of the problems a fail-closed check reported."""
    for line in wanted:
        assert any(p.startswith(line) for p in problems), (line, problems)


def write_stack_file(directory, stack: str, values: dict[str, Any]):
    """A stack file `Pulumi.<stack>.yaml` in `directory` with `values` as its config."""
    import yaml

    path = directory / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump({"config": values}, sort_keys=False))
    return path


def project_of(stack: str = "a3-prod") -> str:
    """The GCP project a GKE stack file names: tests compare with it, never with a literal, so a
    user's real project in the stack file keeps them green."""
    return stack_values(stack)["gcp:project"]
