"""A layer's args, checked before it registers anything: every problem by property path, at once.

A layer is hosted for other languages (`component_package.py`, `pulumi package add`), where no stack
config stands in front of it. So each layer checks its own args with the rules the stack config
already has: a field of the args takes the type of the config field it comes from (`NodeCount`,
`Cidr`, `GpuPoolConfig.node_count`, ...), validated with pydantic, and a platform adds the rules
that need the catalog (`<platform>/inputs.py`). Every problem is collected with its property path
(`gpuPools[0].nodeCount`, the component's schema names) and one `pulumi.InputPropertiesError`
reports them all, as pulumi-eks does (`nodejs/eks/nodes/nodegroup.ts`, `propertyPath`). On the
stack-config path the config was refused before with the stack's own keys; these checks pass there.

A `pulumi.Input[T]` field (a kubeconfig, the cloud layer's outputs, a reservation's name) is not
checked when it is an Output, which may be unknown at preview; a plain value of it is checked by
its rule, if it has one. Every other field takes a plain value, and an Output there is refused.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal, NotRequired

import pulumi
import typing_extensions
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    TypeAdapter,
    ValidationError,
    WrapValidator,
)
from pydantic.alias_generators import to_camel

from .layers import field_type, takes_outputs, whole_numbers
from .problems import MISSING

FieldRules = Mapping[str, Mapping[str, Any]]
"""Per args type (a TypedDict, by class name): its field -> the type that checks it (the type of
the config field it comes from)."""


@dataclass(frozen=True)
class InputProblem:
    """One bad input: its property path, its value and what to do."""

    path: str
    """The property path, as the component's schema names it: `gpuPools[0].nodeCount`."""
    value: Any
    message: str
    """What is wrong and the fix."""

    @property
    def reason(self) -> str:
        if self.value is MISSING:
            shown = "(not set)"
        elif isinstance(self.value, pulumi.Output):
            shown = "(an Output)"
        else:
            shown = json.dumps(self.value, default=str)
        return f"{shown}: {self.message}"


ArgsPath = tuple[str | int, ...]
"""Where in a layer's args: field names (snake case) and list indexes."""


@dataclass(frozen=True)
class ArgsProblem:
    """A rule's finding on a layer's args, where a stack file and a hosted layer both report it:
    the stack program names the stack key (`stack_key_in`), the layer the property path
    (`property_path_of`)."""

    path: ArgsPath
    value: Any
    message: str
    """What is wrong and the fix."""


def property_path_of(path: ArgsPath) -> str:
    """`("system_pool", "instance_types", 1)` -> `systemPool.instanceTypes[1]`."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f"{'.' if text else ''}{to_camel(part)}"
    return text


def stack_key_in(path: ArgsPath, keys: Mapping[tuple[str, ...], str]) -> str:
    """The stack key (without the namespace) of an args path, by the platform's map of args paths
    without indexes (`keys`): `("system_pool", "instance_types", 1)` ->
    `ack.systemPool.instanceTypes[1]`."""
    names = tuple(part for part in path if isinstance(part, str))
    indexes = "".join(f"[{part}]" for part in path if isinstance(part, int))
    return keys[names] + indexes


CrossRules = Callable[[dict[str, Any]], list[InputProblem]]
"""A platform's rules over several fields or the catalog, run on args whose fields are valid."""


def created_or_existing(
    args: Mapping[str, Any], created: str, existing: str, what: str
) -> list[InputProblem]:
    """The rule of a layer that creates a network or uses one: exactly one of the two args."""
    if (created in args) == (existing in args):
        return [
            InputProblem(
                to_camel(created),
                args.get(created),
                f"set exactly one of {to_camel(created)} ({what} to create) and "
                f"{to_camel(existing)} (one to use)",
            )
        ]
    return []


def same_as(model: type[BaseModel], field: str, *more: Any) -> Any:
    """The check of a config model's field, for an args field that takes its value: its type and
    constraints (`ge`, validators), without None (unset is the args' NotRequired) and with an
    enum as the texts of its values (the args carry them as text); `more`: validators after
    those."""
    info = model.model_fields[field]
    annotation = info.annotation
    members = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, _UNION_TYPE) and len(members) == 1:
        annotation = members[0]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        annotation = values_of(annotation)
    metadata = [*info.metadata, *more]
    return Annotated[annotation, *metadata] if metadata else annotation


def values_of(enum: type[Enum]) -> Any:
    """The texts of an enum's values, as a type: what a layer takes where the config has it."""
    return Literal[tuple(member.value for member in enum)]


_UNION_TYPE = type(int | None)


def _plain(value: Any) -> Any:
    if isinstance(value, pulumi.Output):
        raise ValueError(
            "takes a plain value, not an Output (or a secret): the layer reads it to decide what "
            "it creates, before any Output is known; pass the value itself"
        )
    return value


_PLAIN = BeforeValidator(_plain)


def _output_or_checked(value: Any, handler: Any) -> Any:
    return value if isinstance(value, pulumi.Output) else handler(value)


_OUTPUTS_UNCHECKED = WrapValidator(_output_or_checked)
"""An Input field with a rule: a plain value is checked by it, an Output (maybe unknown at
preview) is not."""


def _is_input(annotation: Any) -> bool:
    """`pulumi.Input[T]` (a union with `Output[T]`), or a resource: never checked here."""
    is_resource = isinstance(annotation, type) and issubclass(annotation, pulumi.Resource)
    return is_resource or takes_outputs(annotation)


class _CheckingTypes:
    """The args types with their rules on: TypedDicts pydantic validates, built once each."""

    def __init__(self, rules: FieldRules) -> None:
        self.rules = rules
        self.built: dict[type, type] = {}

    def of(self, annotation: Any) -> Any:
        if _is_input(annotation):
            return Any
        if typing.is_typeddict(annotation):
            return self.typeddict(annotation)
        origin = typing.get_origin(annotation)
        if origin is list:
            (item,) = typing.get_args(annotation)
            return list.__class_getitem__(self.of(item))
        if origin is dict:
            key, value = typing.get_args(annotation)
            return dict.__class_getitem__((key, self.of(value)))
        return annotation

    def typeddict(self, args_type: type) -> type:
        """`args_type` with the rules on its fields (and its nested TypedDicts')."""
        if args_type not in self.built:
            own = self.rules.get(args_type.__name__, {})
            fields = {}
            for name, annotation in args_type.__annotations__.items():
                field = field_type(annotation)
                checked: Any
                if not _is_input(field):
                    checked = Annotated[own.get(name, self.of(field)), _PLAIN]
                elif name in own:
                    checked = Annotated[own[name], _OUTPUTS_UNCHECKED]
                else:
                    checked = Any
                required = name in args_type.__required_keys__  # type: ignore[attr-defined]
                fields[name] = checked if required else NotRequired[checked]
            # typing_extensions' TypedDict: pydantic refuses typing's before Python 3.12.
            make_typeddict: Any = typing_extensions.TypedDict
            checking = make_typeddict(args_type.__name__, fields)
            # Strict: a value is used as given or refused, as in the stack config
            # (`ConfigModel`); whole numbers from other languages are ints by then.
            checking.__pydantic_config__ = ConfigDict(strict=True, extra="forbid")
            self.built[args_type] = checking
        return self.built[args_type]


def property_path(args_type: type, loc: tuple) -> str:
    """A pydantic error location under `args_type` as a property path: fields in camelCase
    (`gpuPools[0].nodeCount`), list items `[i]`, map keys `["key"]`."""
    path, current = "", args_type
    for part in loc:
        origin = typing.get_origin(current)
        if isinstance(part, int) and origin is list:
            path += f"[{part}]"
            current = typing.get_args(current)[0]
        elif origin is dict:
            path += f"[{json.dumps(part)}]"
            current = typing.get_args(current)[1]
        else:
            path += f"{'.' if path else ''}{to_camel(str(part))}"
            current = field_type(getattr(current, "__annotations__", {}).get(part, Any))
    return path


def _message(error: Any) -> str:
    kind = error["type"]
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "missing":
        return "required; set it"
    if kind == "extra_forbidden":
        return "not a property of this component; remove it"
    return f"{error['msg']}; fix the value"


class LayerInputs:
    """The checks of one layer's args: the rules of its args types' fields, and its cross rules.

    The rules name the args types by class name (they are unique in the package: one schema
    namespace), so a platform's rules need not import its layers.
    """

    def __init__(self, rules: FieldRules, cross_rules: CrossRules | None = None) -> None:
        self.rules = rules
        self.cross_rules = cross_rules
        self._adapters: dict[type, TypeAdapter] = {}

    def _adapter(self, args_type: type) -> TypeAdapter:
        if args_type not in self._adapters:
            self._adapters[args_type] = TypeAdapter(_CheckingTypes(self.rules).typeddict(args_type))
        return self._adapters[args_type]

    def field_problems(self, args_type: type, args: Mapping[str, Any]) -> list[InputProblem]:
        """Every problem of each field on its own: its type, and its rule."""
        try:
            self._adapter(args_type).validate_python(args)
        except ValidationError as err:
            return [
                InputProblem(
                    property_path(args_type, tuple(e["loc"])),
                    MISSING if e["type"] == "missing" else e["input"],
                    _message(e),
                )
                for e in err.errors()
            ]
        return []

    def problems(self, args_type: type, args: Mapping[str, Any]) -> list[InputProblem]:
        """The field problems; when there are none, the cross rules' (they read valid fields)."""
        problems = self.field_problems(args_type, args)
        if not problems and self.cross_rules is not None:
            problems = self.cross_rules(dict(args))
        return problems

    def checked(self, args_type: type, name: str, args: Mapping[str, Any]) -> Any:
        """`args` as the layer uses them (whole numbers as ints), once every rule passes; else
        one `pulumi.InputPropertiesError` naming each problem's property path. `name`: the
        layer's resource name, for the message."""
        args = whole_numbers(dict(args))
        problems = self.problems(args_type, args)
        if problems:
            layer = args_type.__name__.removesuffix("Args")
            lines = [f"{layer} {name}: {len(problems)} input problem(s):"]
            lines += [f"  - {p.path}: {p.reason}" for p in problems]
            raise pulumi.InputPropertiesError(
                "\n".join(lines),
                [{"property_path": p.path, "reason": p.reason} for p in problems],
            )
        return args
