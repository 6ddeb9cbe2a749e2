"""The stack configuration: one model per platform, picked by `gpu-fabric:platform`; loading.

`parse` validates a raw mapping (as in a stack file) into the platform's model and then runs that
platform's cross-field rules. Every failure is a `Problem` naming the stack key, the bad value and
the fix; all of them are raised together in one `ConfigError`, before any resource is registered.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import itertools
import json
import re
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import ErrorDetails

from . import yaml_files
from .config_base import NAMESPACE, ConfigModel, Layers, StackModel
from .problems import MISSING, ConfigError, Problem
from .registry import SPECS, Platform
from .secrets import secret_texts
from .stack_file import SECRET_PLACEHOLDER, STACKS_DIR, offline_value

MODELS: dict[Platform, type[StackModel]] = {
    Platform(name): model for spec in SPECS for name, model in spec.platforms.items()
}
"""The config model of each platform, from the platform specs."""
CROSS_FIELD_RULES: dict[Platform, Callable[[Any], list[Problem]]] = {
    Platform(name): spec.rules for spec in SPECS for name in spec.platforms
}
if TYPE_CHECKING:
    # To a type checker, any platform's model: the union below is built from the specs at import.
    StackConfig: TypeAlias = StackModel
else:
    StackConfig = Annotated[
        Union[tuple(dict.fromkeys(MODELS.values()))],  # noqa: UP007 (built from the specs)
        Field(discriminator="platform"),
    ]
"""Any platform's config; `cfg.platform` says which."""
PROVIDER_KEYS = {key for spec in SPECS for key in spec.provider_keys}
"""The provider keys the program reads, each under its own name (a field alias)."""

_ADAPTER: TypeAdapter = TypeAdapter(StackConfig)

# What a value of the wrong type must be, in the stack file's words.
_TYPE_FIXES = {
    "string_type": 'must be text; quote it in the stack file (a version 1.30 must be "1.30")',
    "int_type": "must be a whole number, written without quotes (not yes/no)",
    "bool_type": "must be true or false, written without quotes",
    "list_type": "must be a list",
    "dict_type": "must be a mapping of keys to values",
    "model_type": "must be a mapping of keys to values",
    "model_attributes_type": "must be a mapping of keys to values",
    "string_too_short": "must not be empty: give a value, or remove the key where it has a default",
}
# What a key of each type needs, for a secret (text) written where it does not fit.
_SECRET_TYPE_NEEDS = {
    "int_type": "a whole number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}


# --- pydantic's per-field errors, in the stack file's words ------------------------------------


def _stack_key(loc: tuple) -> str:
    if loc and loc[0] in PROVIDER_KEYS:
        return loc[0]
    path = ".".join(str(part) if not isinstance(part, int) else f"[{part}]" for part in loc)
    return f"{NAMESPACE}:{path.replace('.[', '[')}"


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return [
        c
        for c in itertools.chain(candidates, *(getattr(c, "__args__", ()) for c in candidates))
        if isinstance(c, type) and issubclass(c, BaseModel)
    ]


def _model_at(model: type[BaseModel], path: tuple) -> type[BaseModel] | None:
    """The config model that owns the key at the end of `path` (a field path under `model`)."""
    for part in path[:-1]:
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if part == (f.alias or n)), None)
        if field is None:  # a dict key (e.g. a NIC group name): the value's model is next
            continue
        nested = _nested_models(field.annotation)
        if not nested:
            return None
        model = nested[0]
    return model


def _has_key(model: type[BaseModel], path: tuple) -> bool:
    owner = _model_at(model, path)
    return owner is not None and any(
        path[-1] == (f.alias or n) for n, f in owner.model_fields.items()
    )


def _unknown_key(platform: Platform, path: tuple, value: Any) -> Problem:
    key = _stack_key(path)
    dotted = ".".join(str(p) for p in path if not isinstance(p, int))
    own_provider_keys = {
        f.alias.split(":", 1)[1]: f.alias
        for f in MODELS[platform].model_fields.values()
        if f.alias and ":" in f.alias
    }
    if len(path) == 1 and str(path[0]) in own_provider_keys:
        provider_key = own_provider_keys[str(path[0])]
        return Problem(
            key,
            value,
            f"this is read from the provider's own key {provider_key} only (one source of the "
            f"identity); set {provider_key} and remove {key}",
        )
    owners = [p for p, m in MODELS.items() if p is not platform and _has_key(m, path)]
    if owners:
        why = next(
            (MODELS[p].ONLY_HERE[dotted] for p in owners if dotted in MODELS[p].ONLY_HERE), ""
        )
        names = " and ".join(p.value for p in owners)
        return Problem(
            key,
            value,
            f"not for platform {platform.value}: a key of {names}"
            f"{f' ({why})' if why else ''}; remove it",
        )
    model = _model_at(MODELS[platform], path)
    known = sorted(f.alias or n for n, f in model.model_fields.items()) if model else []
    known = [k for k in known if k != "platform" and k not in PROVIDER_KEYS]
    close = difflib.get_close_matches(str(path[-1]), known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return Problem(key, value, f"unknown key; {hint}remove it or use one of: {', '.join(known)}")


def _problem_from_pydantic(error: ErrorDetails, secret: frozenset[str] = frozenset()) -> Problem:
    """The Problem of one pydantic error; `secret`: the raw top-level keys that are secret."""
    kind = error["type"]
    if kind == "union_tag_not_found":
        return Problem(
            f"{NAMESPACE}:platform",
            MISSING,
            f"required; one of {', '.join(p.value for p in MODELS)}",
        )
    if kind == "union_tag_invalid":
        return Problem(
            f"{NAMESPACE}:platform",
            error["ctx"]["tag"],
            f"must be one of {', '.join(p.value for p in MODELS)}",
        )
    platform, *rest = error["loc"]
    path = tuple(rest)
    key = _stack_key(path)
    if kind == "missing":
        return Problem(key, MISSING, "required; set it in the stack file")
    if kind == "extra_forbidden":
        return _unknown_key(Platform(platform), path, error["input"])
    offline_secret = error["input"] == SECRET_PLACEHOLDER
    in_secret_key = bool(path) and path[0] in secret
    if kind in _SECRET_TYPE_NEEDS and (
        offline_secret or (in_secret_key and isinstance(error["input"], str))
    ):
        # Pulumi secrets are text (`pulumi config set --secret` encrypts a string); a nested
        # `secure:` value under a count, a switch or a list cannot be read as one.
        return Problem(
            key,
            SECRET_PLACEHOLDER,
            f"holds an encrypted (secure:) value, and secrets are text, but this key needs "
            f"{_SECRET_TYPE_NEEDS[kind]}; it is not a secret: set it in plain text with "
            f"`pulumi config set --path '{key}' VALUE` (without --secret). Only text keys may "
            "hold a secret",
        )
    # (A secret key's values are masked in every problem at once, by `_without_secrets`.)
    shown = error["input"]
    if kind == "value_error":
        message = str(error["ctx"]["error"])
        if offline_secret:
            message += (
                " (the value is encrypted, secure:, and the offline plan cannot decrypt it to "
                "check it: keep this key in plain text, or check it with `pulumi preview`)"
            )
        return Problem(key, shown, message)
    if kind == "enum":
        return Problem(key, shown, f"must be one of {error['ctx']['expected']}")
    if kind == "literal_error":
        return Problem(key, shown, f"must be {error['ctx']['expected']}")
    if kind in _TYPE_FIXES:
        return Problem(key, shown, f"{_TYPE_FIXES[kind]}; fix the value in the stack file")
    return Problem(key, shown, f"{error['msg']}; fix the value in the stack file")


# --- loading -----------------------------------------------------------------------------------


_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|PuTTY-User-Key-File")


def written_problems(raw: dict[str, Any]) -> list[Problem]:
    """What the models cannot see once they have parsed a value: a key left blank (null), which
    would read as "unset" and take its default, and an item written twice in a list, which would
    make two resources of one name (Pulumi stops on the duplicate URN) or count one range twice."""
    problems: list[Problem] = []

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, str) and _PRIVATE_KEY.search(value):
            problems.append(
                Problem(
                    _stack_key(path),
                    "[private key material, not shown]",
                    "holds a private key, which would be written in plain text into every "
                    "resource that takes it; give the public key (ssh-ed25519 AAAA... or "
                    "ssh-rsa AAAA...), and keep the private key out of the stack",
                )
            )
            return
        if isinstance(value, dict):
            items: list[tuple[Any, Any]] = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
            seen: dict[str, int] = {}
            for i, item in items:
                text = json.dumps(item, sort_keys=True)
                if text in seen:
                    problems.append(
                        Problem(
                            _stack_key((*path, i)),
                            item,
                            f"repeats item [{seen[text]}] of the list; keep one",
                        )
                    )
                seen.setdefault(text, i)
        else:
            return
        for key, item in items:
            if item is None:
                problems.append(
                    Problem(
                        _stack_key((*path, key)),
                        None,
                        "is blank (null), which would silently take the default; give it a "
                        "value, or remove the key",
                    )
                )
            else:
                walk(item, (*path, key))

    walk(raw, ())
    return problems


def parse(
    raw: dict[str, Any], stack: str = "", secret: frozenset[str] = frozenset()
) -> StackConfig:
    """Validate a raw config mapping (camelCase keys, as in a stack file) or raise ConfigError.

    `secret`: the raw mapping's top-level keys that Pulumi holds as secrets (their problems say
    so: a secret is text, and only a text key may hold one)."""
    written = _without_secrets(written_problems(raw), raw, secret)
    try:
        # As JSON, which is what Pulumi hands a program: strict models then take enum values and
        # literals as written, and refuse every coercion (see ConfigModel).
        cfg = _ADAPTER.validate_json(json.dumps(raw))
    except ValidationError as err:
        keys = {p.key for p in written}
        found = [_problem_from_pydantic(e, secret) for e in err.errors()]
        found = _without_secrets(found, raw, secret)
        raise ConfigError(stack, written + [p for p in found if p.key not in keys]) from None
    if written:
        raise ConfigError(stack, written)
    problems = layer_problems(cfg) + CROSS_FIELD_RULES[cfg.platform](cfg)
    if problems:
        raise ConfigError(stack, _without_secrets(problems, raw, secret))
    return cfg


def _without_secrets(
    problems: list[Problem], raw: dict[str, Any], secret: frozenset[str]
) -> list[Problem]:
    """`problems` with no secret in them: the value of a problem under a secret key is
    SECRET_PLACEHOLDER, and any secret text a message quotes (a cross-field rule names values)
    is replaced by it too. Pulumi holds a whole top-level key secret once any part of it is."""
    texts = sorted(
        {t for key in secret if key in raw for t in _texts(raw[key]) if len(t) >= 4},
        key=len,
        reverse=True,
    )
    if not texts:
        return problems
    out = []
    for problem in problems:
        namespace, _, name = problem.key.partition(":")
        top = problem.key if problem.key in secret else re.split(r"[.\[]", name, maxsplit=1)[0]
        hidden = namespace == NAMESPACE and top in secret or problem.key in secret
        message = problem.message
        for text in texts:
            message = message.replace(text, SECRET_PLACEHOLDER)
        out.append(Problem(problem.key, SECRET_PLACEHOLDER if hidden else problem.value, message))
    return out


def _texts(value: Any) -> list[str]:
    """Every text (and number, as written) inside a config value."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def layer_problems(cfg) -> list[Problem]:
    """`gpu-fabric:layers` and `gpu-fabric:cloudStack` go together."""
    if cfg.layers is Layers.FABRIC and cfg.cloud_stack is None:
        return [
            Problem(
                f"{NAMESPACE}:cloudStack",
                MISSING,
                "required with gpu-fabric:layers: fabric; name the stack that runs the cloud "
                "layer (<organization>/<project>/<stack>), whose outputs this stack reads",
            )
        ]
    if cfg.layers is not Layers.FABRIC and cfg.cloud_stack is not None:
        return [
            Problem(
                f"{NAMESPACE}:cloudStack",
                cfg.cloud_stack,
                f"has no effect with gpu-fabric:layers: {cfg.layers.value} (only a fabric stack "
                "reads another stack); remove it, or set gpu-fabric:layers: fabric",
            )
        ]
    return []


# The cloud providers' SDK packages, whose config keys a stack of their platform may set.
CLOUD_SDKS = {"gcp": "pulumi_gcp", "oci": "pulumi_oci", "alicloud": "pulumi_alicloud"}
# Namespaces whose keys configure nothing here: the Kubernetes providers are built from each
# cluster's own kubeconfig, and the CRD gates' commands take no provider config.
UNUSED_NAMESPACES = {
    "kubernetes": "the program builds its Kubernetes providers from the cluster's kubeconfig",
    "command": "the program's commands (the CRD gates) take no provider config",
}
OTHER_NAMESPACES = {"pulumi", *CLOUD_SDKS, *UNUSED_NAMESPACES}
"""Namespaces a stack file may name besides the project's own (Pulumi's own settings included)."""


@functools.cache
def provider_keys(namespace: str) -> frozenset[str]:
    """The config keys a cloud provider reads (`gcp:project`, ...), from its SDK's config module."""
    config = importlib.import_module(f"{CLOUD_SDKS[namespace]}.config")
    exportable = config.vars._ExportableConfig
    return frozenset(
        to_camel(name)
        for name in dir(exportable)
        if isinstance(getattr(exportable, name), property)
    )


def key_problems(values: dict[str, Any], project: str = NAMESPACE) -> list[Problem]:
    """Keys that no part of the program would read: every key is used as written or refused."""
    known = {project, *OTHER_NAMESPACES}
    model = _platform_model(values, project)
    problems = []
    for key, value in values.items():
        namespace, colon, name = key.partition(":")
        if not colon:
            problems.append(Problem(key, value, f"has no namespace; write it as {project}:{key}"))
        elif namespace not in known:
            close = difflib.get_close_matches(namespace.lower(), sorted(known), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}:{name}? " if close else ""
            problems.append(
                Problem(
                    key,
                    value,
                    f"the namespace {namespace!r} is neither this project's ({project}) nor a "
                    f"provider's this program uses ({', '.join(sorted(OTHER_NAMESPACES))}); "
                    f"{hint}fix or remove it",
                )
            )
        elif namespace == project and "." in name:
            head = name.split(".", 1)[0]
            problems.append(
                Problem(
                    key,
                    value,
                    f"a flat key: `pulumi config set` wrote it without --path, so no part of the "
                    f"config reads it. Nest it under {project}:{head}: "
                    f"`pulumi config rm '{name}'` and `pulumi config set --path '{name}' VALUE`",
                )
            )
        elif namespace in UNUSED_NAMESPACES:
            problems.append(
                Problem(
                    key,
                    value,
                    f"configures nothing here: {UNUSED_NAMESPACES[namespace]}; remove it",
                )
            )
        elif namespace in CLOUD_SDKS and model is not None and key not in PROVIDER_KEYS:
            problems += _provider_key_problems(key, value, namespace, name, model)
    return problems


def _platform_model(values: dict[str, Any], project: str) -> type[ConfigModel] | None:
    """The model of the platform the stack names, if it names one."""
    named = values.get(f"{project}:platform")
    return next((m for p, m in MODELS.items() if p.value == named), None)


def _provider_key_problems(key, value, namespace, name, model) -> list[Problem]:
    platform = model.model_fields["platform"].annotation.__args__[0]
    if namespace != model.PROVIDER:
        return [
            Problem(
                key,
                value,
                f"not for platform {platform}: it configures the {namespace} provider, which "
                f"{platform} does not use (it uses {model.PROVIDER}); remove it",
            )
        ]
    if name in provider_keys(namespace):
        return []
    close = difflib.get_close_matches(name, sorted(provider_keys(namespace)), n=1)
    hint = f"did you mean {namespace}:{close[0]}? " if close else ""
    return [
        Problem(
            key,
            value,
            f"not a config key of the {namespace} provider; {hint}fix or remove it (`pulumi "
            "config set --path` writes nested keys under this project's namespace, not here)",
        )
    ]


def parse_pulumi_config(
    values: dict[str, Any],
    stack: str,
    project: str = NAMESPACE,
    stacks_dir: Path | None = STACKS_DIR,
    secret_keys: Collection[str] = (),
):
    """Validate Pulumi's config map (keys and values) into the stack's config, or raise.

    `stacks_dir`: the stack files whose names this stack must not take (None: do not look).
    `secret_keys`: the keys Pulumi holds as secrets (`gpu-fabric:gpuNodes`, `gcp:project`).
    """
    problems = key_problems(values, project)
    known = {k: v for k, v in values.items() if k.partition(":")[0] in (project, *OTHER_NAMESPACES)}
    secret = frozenset(
        key if key in PROVIDER_KEYS else key.partition(":")[2]
        for key in secret_keys
        if key in PROVIDER_KEYS or key.partition(":")[0] == project
    )
    try:
        cfg = parse(raw_from_pulumi_config(known, project), stack, secret)
    except ConfigError as err:
        raise ConfigError(stack, problems + err.problems) from None
    if stacks_dir is not None:
        problems += copied_stack_problems(stack, cfg, stacks_dir, project)
    if problems:
        raise ConfigError(stack, problems)
    return cfg


def copied_stack_problems(stack: str, cfg, stacks_dir: Path, project: str) -> list[Problem]:
    """Names this stack shares with another stack file in the same scope, and cloud resources
    that only one owner may hold (`exclusive_resources`): a copied stack file that kept the
    other's would take over (or collide with) its resources. A cloud stack and its fabric stack
    (`_same_deployment`) share them by design."""
    mine = {scoped: key for key, scoped in cfg.owned_names.items()}
    my_exclusive = {
        (scope, what): (key, why) for key, (scope, what, why) in exclusive_resources(cfg).items()
    }
    problems = []
    for path in sorted(stacks_dir.glob("Pulumi.*.yaml")):
        other = path.name[len("Pulumi.") : -len(".yaml")]
        if other == stack:
            continue
        theirs = _other_stack(path, path.stat().st_mtime_ns, project)
        if theirs is None:
            continue  # a broken stack file is that stack's problem, reported when it runs
        if _same_deployment(cfg, stack, theirs, other):
            continue  # a cloud stack and its fabric stack share the cluster by design
        for scoped in set(mine) & set(theirs.owned_names.values()):
            scope, name = scoped
            key = mine[scoped]
            problems.append(
                Problem(
                    f"{NAMESPACE}:{key}",
                    name.rsplit(" ", 1)[-1],
                    f"stack {other} ({path.name}) already uses {name} in {scope}; is this a copy "
                    "of its stack file? Give this stack names of its own",
                )
            )
        their_exclusive = {(s, w) for s, w, _ in exclusive_resources(theirs).values()}
        for scoped in sorted(set(my_exclusive) & their_exclusive):
            scope, what = scoped
            key, why = my_exclusive[scoped]
            problems.append(
                Problem(
                    f"{NAMESPACE}:{key}",
                    what.rsplit(" ", 1)[-1],
                    f"stack {other} ({path.name}) already uses {what} in {scope}, and {why}; is "
                    f"this a copy of its stack file? Give stack {stack} its own (or make it "
                    f"{other}'s fabric stack, gpu-fabric:cloudStack: {other})",
                )
            )
    return problems


def exclusive_resources(cfg) -> dict[str, tuple[str, str, str]]:
    """Existing cloud resources a stack names (not derives from its own names) that the cloud lets
    only one owner hold: stack key -> (scope, resource, why only one), from the platform model's
    `exclusive_resources` (GKE: reservations; ACK: the Lingjun node group).

    OKE has none: the compute cluster and the GPU nodes are created by the stack (named after
    `oke.name`, checked by `owned_names`), and an existing VCN and its subnets may hold several
    OKE clusters (OKE docs, "Network Resource Configuration for Cluster Creation and
    Deployment": clusters can share a VCN and subnets).
    """
    return dict(getattr(cfg, "exclusive_resources", {}))


@functools.lru_cache(maxsize=64)
def _other_stack(path: Path, mtime_ns: int, project: str):
    """Another stack file, parsed (None if it does not parse); kept while the file is unchanged:
    every plan compares itself with every other stack file."""
    other = path.name[len("Pulumi.") : -len(".yaml")]
    try:
        return parse_pulumi_config(_stack_file_values(path), other, project, None)
    except (ConfigError, ValueError, OSError):
        return None


def referenced_stack(reference: str) -> str:
    """The stack name of a `gpu-fabric:cloudStack` reference (`org/project/stack` or `stack`)."""
    return reference.rsplit("/", 1)[-1]


def _same_deployment(cfg, stack: str, theirs, other: str) -> bool:
    return any(
        fabric.cloud_stack is not None and referenced_stack(fabric.cloud_stack) == cloud
        for fabric, cloud in ((cfg, other), (theirs, stack))
    )


def _stack_file_values(path: Path) -> dict[str, Any]:
    """A stack file's config as Pulumi hands it to a program (objects as JSON text). A top-level
    encrypted value is left out (its key then reads as unset); a nested one reads as
    SECRET_PLACEHOLDER, as in the offline plan (`stack_file.offline_value`)."""
    config = (yaml_files.load(path.read_text()) or {}).get("config") or {}
    values = {
        str(k): offline_value(v)
        for k, v in config.items()
        if not (isinstance(v, dict) and set(v) == {"secure"})
    }
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


def raw_from_pulumi_config(values: dict[str, Any], project: str = NAMESPACE) -> dict[str, Any]:
    """Turn Pulumi's flat config map (`gpu-fabric:gke` -> JSON text) into a raw mapping.

    Every `gpu-fabric:*` key is kept, so an unknown top-level key is reported, not ignored; the
    provider keys of `PROVIDER_KEYS` are read under their field names.
    """
    raw: dict[str, Any] = {}
    for key, value in values.items():
        namespace, _, name = key.partition(":")
        if key in PROVIDER_KEYS:
            raw[key] = value
        elif namespace == project and "." not in name:
            raw[name] = _decode(value)
    return raw


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def load_stack_config() -> tuple[StackConfig, set[str]]:
    """Read and validate the current stack's config (call before registering any resource).

    Also returns the texts of its secret keys, which must stay secret in whatever uses them.
    """
    import pulumi
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret_keys = [k for k in values if runtime_config.is_config_secret(k)]
    secret_keys += runtime_config.get_config_secret_keys_env()
    plain_credentials = credential_problems(values, set(secret_keys))
    cfg = parse_pulumi_config(
        values, pulumi.get_stack(), pulumi.get_project(), secret_keys=secret_keys
    )
    if plain_credentials:
        raise ConfigError(pulumi.get_stack(), plain_credentials)
    for warning in cfg.warnings:
        pulumi.log.warn(warning)
    return cfg, secret_texts(values, secret_keys)


CREDENTIAL_KEYS = frozenset(
    {
        "gcp:credentials",
        "gcp:accessToken",
        "oci:privateKey",
        "oci:privateKeyPassword",
        "alicloud:accessKey",
        "alicloud:secretKey",
        "alicloud:securityToken",
    }
)
"""Provider keys that hold a credential: in a stack file only as Pulumi secrets."""


def credential_problems(values: dict[str, Any], secret_keys: set[str]) -> list[Problem]:
    """Provider credentials written in plain text: the stack file (and every PR that shows it)
    would hold them. `pulumi config set --secret` encrypts them."""
    return [
        Problem(
            key,
            "[not shown]",
            f"a credential in plain text; remove it from the stack file and set it encrypted: "
            f"`pulumi config set --secret {key} ...` (or use the provider's environment variables)",
        )
        for key in sorted(values)
        if key in CREDENTIAL_KEYS and key not in secret_keys
    ]
