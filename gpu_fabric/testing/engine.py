"""The in-process engine: a Pulumi program run under Pulumi mocks, every registration recorded.

Nothing here talks to a cloud or needs the Pulumi CLI: each cloud's resource outputs and function
results are its platform's mocks (`PlatformSpec.mocks`), plausible enough that the program
computes what it would on a real deploy. `run_program` is the one entry; `gpu_fabric.testing`
gives it to users for their own programs, and the repository's offline plan (`offline/engine.py`)
runs its stack program with it.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks

from ..pulumi_internals import sdk, without_source_positions
from ..registry import SPECS
from ..stack_config.in_program import READ_STACK_OUTPUTS

# The SDK's runtime internals the in-process engine drives (gpu_fabric/pulumi_internals.py).
_SIG_KEY = sdk("special_sig_key")
_SECRET_SIG = sdk("special_secret_sig")
SETTINGS = sdk("settings")
set_all_config = sdk("set_all_config")
get_root_resource = sdk("get_root_resource")
set_root_resource = sdk("set_root_resource")
run_pulumi_func = sdk("run_pulumi_func")
_sync_await = sdk("sync_await")
_deserialize_properties = sdk("deserialize_properties")

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


@dataclass
class Registration:
    """One resource as the engine received it."""

    urn: str
    type: str
    name: str
    parent: str
    custom: bool
    provider: str
    """Provider reference (`<provider urn>::<id>`), '' for the default provider."""
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    inputs: dict[str, Any]
    protect: bool
    delete_before_replace: bool
    ignore_changes: list[str]
    secret_inputs: list[str] = field(default_factory=list)
    """Dotted paths of inputs that are Pulumi secrets (masked in the plan file)."""
    aliases: list[str] = field(default_factory=list)
    """The URNs this resource had before (its aliases): Pulumi moves their state to it."""
    retain_on_delete: bool = False
    """`retainOnDelete`: when the resource leaves the program, Pulumi forgets it and leaves the
    object where it is (Pulumi docs, resource option `retainOnDelete`)."""
    replace_on_changes: list[str] = field(default_factory=list)
    """`replaceOnChanges`: input paths whose change replaces the resource, beyond its provider's."""
    custom_timeouts: dict[str, str] = field(default_factory=dict)
    """`customTimeouts`: how long Pulumi waits to create, update or delete it (those given)."""

    @property
    def provider_urn(self) -> str:
        return self.provider.rsplit("::", 1)[0] if self.provider else ""

    def as_json(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "name": self.name,
            "parent": self.parent,
            "custom": self.custom,
            "provider": self.provider_urn,
            # Sorted, so the file diffs cleanly between runs (registration order is async).
            "dependencies": sorted(self.dependencies),
            "propertyDependencies": {
                k: sorted(v) for k, v in sorted(self.property_dependencies.items())
            },
            "protect": self.protect,
            "deleteBeforeReplace": self.delete_before_replace,
            "retainOnDelete": self.retain_on_delete,
            "replaceOnChanges": self.replace_on_changes,
            "ignoreChanges": self.ignore_changes,
            "secretInputs": self.secret_inputs,
            "aliases": sorted(self.aliases),
            "secretDigests": {path: _digest(self.inputs, path) for path in self.secret_inputs},
            "inputs": _masked(self.inputs, self.secret_inputs),
        }


@dataclass
class Plan:
    """Everything the program registered, in registration order, and the stack outputs."""

    stack: str
    resources: list[Registration] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    secret_outputs: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    """What the program logged as warnings (`pulumi.log.warn`)."""
    cloud_stack: str = ""
    """The stack a fabric stack reads (`gpu-fabric:cloudStack`, by stack name), if any."""

    def of_type(self, type_: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_]

    def named(self, name: str) -> Registration:
        (match,) = [r for r in self.resources if r.name == name]
        return match

    def by_urn(self, urn: str) -> Registration:
        (match,) = [r for r in self.resources if r.urn == urn]
        return match

    def depends_on(self, resource: Registration, other: Registration) -> bool:
        """True if `resource` waits for `other`, directly or transitively.

        Pulumi waits for a component by waiting for all of its children, so a dependency on a
        component counts as one on each of its descendants. A parent's own dependencies are not
        inherited by its children (the engine does not either).
        """
        seen: set[str] = set()
        todo = [*resource.dependencies, *sum(resource.property_dependencies.values(), [])]
        while todo:
            urn = todo.pop()
            if urn in seen:
                continue
            seen.add(urn)
            if urn == other.urn:
                return True
            dep = next((r for r in self.resources if r.urn == urn), None)
            if dep is None:
                continue
            todo += [*dep.dependencies, *sum(dep.property_dependencies.values(), [])]
            todo += [r.urn for r in self.resources if r.parent == urn]  # a component's children
        return False

    def kubernetes_objects(self) -> list[Registration]:
        """Every Kubernetes object the program creates itself (not Helm releases)."""
        return [
            r
            for r in self.resources
            if r.custom
            and r.type.startswith("kubernetes:")
            and "providers" not in r.type
            and r.type != HELM_RELEASE
        ]

    def helm_releases(self) -> list[Registration]:
        return self.of_type(HELM_RELEASE)


def manifest(registration: Registration) -> dict[str, Any]:
    """The Kubernetes object as sent to the engine, in `apiVersion, kind, metadata, ...` order."""
    inputs = dict(registration.inputs)
    ordered: dict[str, Any] = {
        key: inputs.pop(key) for key in ("apiVersion", "kind", "metadata") if key in inputs
    }
    return {**ordered, **inputs}


class _RecordingMonitor(pulumi_mocks.MockMonitor):
    def __init__(self, mocks: pulumi_mocks.Mocks, plan: Plan):
        super().__init__(mocks)
        self.plan = plan
        self.urns: set[str] = set()

    def RegisterResource(self, request):  # noqa: N802 (gRPC method name)
        response = super().RegisterResource(request)
        if response.urn in self.urns:
            # What Pulumi's engine answers (resource_monitor: "Duplicate resource URN").
            raise Exception(f"Duplicate resource URN '{response.urn}'; try giving it a unique name")
        self.urns.add(response.urn)
        if request.type != "pulumi:pulumi:Stack":
            secrets: list[str] = []
            inputs = _plain(_deserialize_properties(request.object), "", secrets)
            self.plan.resources.append(
                Registration(
                    urn=response.urn,
                    type=request.type,
                    name=request.name,
                    parent=request.parent,
                    custom=request.custom,
                    provider=request.provider,
                    dependencies=list(request.dependencies),
                    property_dependencies={
                        k: list(v.urns) for k, v in request.propertyDependencies.items()
                    },
                    inputs=inputs,
                    protect=request.protect,
                    delete_before_replace=request.deleteBeforeReplace,
                    ignore_changes=list(request.ignoreChanges),
                    secret_inputs=secrets,
                    aliases=[self._alias_urn(request, alias) for alias in request.aliases],
                    retain_on_delete=bool(request.retainOnDelete),
                    replace_on_changes=list(request.replaceOnChanges),
                    custom_timeouts={
                        operation: getattr(request.customTimeouts, operation)
                        for operation in ("create", "update", "delete")
                        if getattr(request.customTimeouts, operation)
                    },
                )
            )
        return response

    def _alias_urn(self, request, alias) -> str:
        """An alias's URN, named as this monitor names URNs (after the direct parent's type)."""
        if alias.urn:
            return alias.urn
        spec = alias.spec
        parent = "" if spec.noParent else spec.parentUrn or request.parent
        return self.make_urn(parent, spec.type or request.type, spec.name or request.name)


def _plain(value: Any, path: str = "", secrets: list[str] | None = None) -> Any:
    """Unwrap secrets (noting their paths in `secrets`) and turn whole floats back into ints."""
    if isinstance(value, dict):
        if value.get(_SIG_KEY) == _SECRET_SIG:
            if secrets is not None:
                secrets.append(path)
            return _plain(value["value"], path, secrets)
        return {k: _plain(v, f"{path}.{k}".lstrip("."), secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, f"{path}[{i}]", secrets) for i, v in enumerate(value)]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _masked(inputs: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    """`inputs` with every secret path replaced by "[secret]"."""

    def walk(value: Any, path: str) -> Any:
        if path in paths:
            return "[secret]"
        if isinstance(value, dict):
            return {k: walk(v, f"{path}.{k}".lstrip(".")) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    return walk(inputs, "")


def _digest(inputs: dict[str, Any], path: str) -> str:
    """A short fingerprint of the secret at `path`, so `make diff` can tell that it changed.

    Offline, secret inputs are derived from mock outputs and encrypted stack values stand for
    themselves ("[secret]"), so the fingerprint is of nothing confidential.
    """
    value: Any = inputs
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            value = value[int(part[1:-1])]
        elif part:
            value = value[part]
    text = json.dumps(_plain(value), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class _WarningRecorder(logging.Handler):
    def __init__(self, plan: Plan):
        super().__init__(logging.WARNING)
        self.plan = plan

    def emit(self, record: logging.LogRecord) -> None:
        self.plan.warnings.append(record.getMessage())


def _engine_logger(plan: Plan) -> logging.Logger:
    logger = logging.getLogger("gpu-fabric.offline-engine")
    logger.handlers = [_WarningRecorder(plan)]
    logger.propagate = False
    return logger


class _CloudMocks(pulumi_mocks.Mocks):
    """Plausible provider outputs, so the program computes what it would on a real deploy: each
    cloud's answers are its platform's (`PlatformSpec.mocks`), chosen by the type's package."""

    def __init__(
        self,
        config: dict[str, Any],
        stack_outputs: dict[str, dict[str, Any]] | None = None,
        preview: bool = False,
        secret_outputs: dict[str, list[str]] | None = None,
    ):
        self.clouds = {spec.cloud: spec.mocks_module().CloudMocks(config) for spec in SPECS}
        """The mocks of each cloud, by the Pulumi package of its types (`gcp`)."""
        self.stack_outputs = stack_outputs or {}
        """Outputs of the stacks a StackReference names, by reference (their offline plans')."""
        self.preview = preview
        """Answer as a preview: a new resource's computed outputs unknown."""
        self.secret_outputs = secret_outputs or {}
        """The secret ones of `stack_outputs`, by reference (the engine names them beside)."""

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        # Secret inputs arrive wrapped; a provider sees their values (and keeps outputs secret).
        inputs = _plain(dict(args.inputs))
        name = inputs.get("name", args.name)
        state = {**inputs, "name": name}
        typ = args.typ
        if typ == "pulumi:pulumi:StackReference":
            outputs = self.stack_outputs[inputs["name"]]
            return inputs["name"], {"name": inputs["name"], "outputs": outputs}
        if self.preview:
            # What the program gave is known; the id and everything computed is not (the SDK
            # resolves an output missing from a preview's answer as unknown).
            return "", dict(inputs)
        cloud = self.clouds.get(typ.split(":", 1)[0])
        created = cloud.new_resource(typ, args.name, inputs, state) if cloud else None
        return created if created is not None else (f"{name}-id", state)

    def call(self, args: pulumi_mocks.MockCallArgs):
        if args.token == READ_STACK_OUTPUTS:
            # The engine's own function (a fabric stack reads its cloud stack's outputs with it
            # before it registers anything), answered as the engine answers it: a stack that
            # was not planned (not a cloud stack) as one with no outputs, which the program
            # refuses naming gpu-fabric:cloudStack.
            name = args.args["name"]
            secret = self.secret_outputs.get(name, [])
            outputs = self.stack_outputs.get(name, {})
            return {"name": name, "outputs": outputs, "secretOutputNames": secret}
        cloud = self.clouds.get(args.token.split(":", 1)[0])
        result = cloud.call(args.token, args.args) if cloud else None
        return {} if result is None else result


def _settle() -> None:
    """Forget what a failed run left behind (a resource whose input raised stops the run while
    other outputs still hold its error), so that it cannot fail the next run in this process."""
    loop = asyncio.get_event_loop()
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    with SETTINGS.lock:
        for task in SETTINGS.outputs:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: asyncio does not log it as never retrieved
        SETTINGS.outputs.clear()


def run_program(
    program: Callable[[], Any],
    plan: Plan,
    *,
    project: str,
    config: dict[str, str],
    secret_keys: list[str] | None = None,
    stack_outputs: dict[str, dict[str, Any]] | None = None,
    secret_outputs: dict[str, list[str]] | None = None,
    preview: bool = False,
) -> Plan:
    """Run `program` as stack `plan.stack` of `project` under mocks, recording into `plan`.

    `config`: the stack's config as Pulumi hands it to a program (`ns:key` -> text, objects as
    JSON), `secret_keys` those held as secrets. `stack_outputs`: the outputs a StackReference (or
    the engine's `readStackOutputs`) reads, by stack reference, `secret_outputs` their secret
    ones. `preview`: as `pulumi preview` runs it, every output a provider computes (ids,
    endpoints, kubeconfigs) unknown, only what the program gave known; functions (`get_*`) still
    answer, as the engine reads them at preview too.

    Raises whatever the program raises, after the engine settles (the next run starts clean).
    """
    mocks = _CloudMocks(config, stack_outputs, preview, secret_outputs)
    # A fresh root stack per run, so runs in one process stay apart (None resets it, which the
    # SDK's annotation, a Resource, leaves out).
    set_root_resource(None)
    pulumi_mocks.set_mocks(
        mocks,
        project=project,
        stack=plan.stack,
        preview=preview,
        monitor=_RecordingMonitor(mocks, plan),
        logger=_engine_logger(plan),
    )
    set_all_config(config, secret_keys or [])
    try:
        with without_source_positions():
            _sync_await(run_pulumi_func(program))
    except Exception:
        _settle()
        raise

    root = get_root_resource()
    for name, value in getattr(root, "outputs", {}).items():
        output = pulumi.Output.from_input(value)
        plan.outputs[name] = _plain(_sync_await(output.future()))
        if _sync_await(output.is_secret()):
            plan.secret_outputs.add(name)
    return plan


@atexit.register
def _close_idle_event_loops() -> None:
    """Close, at exit, the event loops the SDK's mock monitor opens in its worker threads for
    each function call (the SDK's `_ensure_event_loop`, runtime/sync_await.py) and never
    closes: left to the interpreter's shutdown, each is finalized after its socket and prints
    "Exception ignored in BaseEventLoop.__del__ ... Invalid file descriptor"."""
    for obj in gc.get_objects():
        if isinstance(obj, asyncio.AbstractEventLoop) and not obj.is_running():
            if not obj.is_closed():
                obj.close()
