"""pydantic's per-field errors in the stack file's words: each a `Problem` naming the stack key,
the bad value and the fix (an unknown key says whose key it is, or the closest known one)."""

from __future__ import annotations

import difflib
import itertools
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from ..problems import MISSING, Problem, UnshownValueError
from ..problems import key as stack_key
from ..registry import Platform
from ..stack_file import SECRET_PLACEHOLDER
from .models import MODELS, PROVIDER_KEYS

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
    "too_short": "must not be an empty list: list at least one, or remove the key where it has a "
    "default",
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


def stack_key_of(loc: tuple) -> str:
    """The stack key of a pydantic error location (`("gke", "version")`, `("gpuPools", 0)`)."""
    if loc and loc[0] in PROVIDER_KEYS:
        return loc[0]
    path = ".".join(str(part) if not isinstance(part, int) else f"[{part}]" for part in loc)
    return stack_key(path.replace(".[", "["))


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
    key = stack_key_of(path)
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


def problem_from_pydantic(error: ErrorDetails, secret: frozenset[str] = frozenset()) -> Problem:
    """The Problem of one pydantic error; `secret`: the raw top-level keys that are secret."""
    kind = error["type"]
    if kind == "union_tag_not_found":
        return Problem(
            stack_key("platform"),
            MISSING,
            f"required; one of {', '.join(p.value for p in MODELS)}",
        )
    if kind == "union_tag_invalid":
        return Problem(
            stack_key("platform"),
            error["ctx"]["tag"],
            f"must be one of {', '.join(p.value for p in MODELS)}",
        )
    platform, *rest = error["loc"]
    path = tuple(rest)
    key = stack_key_of(path)
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
    # (A secret key's values are masked in every problem at once, by `without_secrets`.)
    shown = error["input"]
    if kind == "value_error":
        cause = error["ctx"]["error"]
        if isinstance(cause, UnshownValueError):
            shown = cause.shown
        message = str(cause)
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
