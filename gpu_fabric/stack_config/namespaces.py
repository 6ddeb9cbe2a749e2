"""Every key of a stack file is used as written or refused: namespaces, flat keys, provider keys
and credentials in plain text."""

from __future__ import annotations

import difflib
import functools
from typing import Any

from pydantic.alias_generators import to_camel

from ..config_base import ConfigModel
from ..problems import NAMESPACE, Problem
from ..pulumi_internals import provider_config_keys
from ..registry import SPECS, spec_of
from .models import MODELS, PROVIDER_KEYS

# The cloud providers' SDK packages, whose config keys a stack of their platform may set.
CLOUD_SDKS = {spec.cloud: spec.sdk for spec in SPECS}
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
    return frozenset(to_camel(name) for name in provider_config_keys(CLOUD_SDKS[namespace]))


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
    cloud = spec_of(platform).cloud
    if namespace != cloud:
        return [
            Problem(
                key,
                value,
                f"not for platform {platform}: it configures the {namespace} provider, which "
                f"{platform} does not use (it uses {cloud}); remove it",
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


CREDENTIAL_KEYS = frozenset(key for spec in SPECS for key in spec.credential_keys)
"""Provider keys that hold a credential: in a stack file only as Pulumi secrets."""
CREDENTIAL_PATH_KEYS = frozenset(key for spec in SPECS for key in spec.credential_path_keys)
"""Credential keys that may name the credential's file instead: a path is not a secret."""


def _is_path(value: Any) -> bool:
    """A file path, not key material: one line, not a JSON document nor a PEM block."""
    text = str(value).strip()
    return bool(text) and "\n" not in text and not text.startswith(("{", "-----"))


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
        if key in CREDENTIAL_KEYS
        and key not in secret_keys
        and not (key in CREDENTIAL_PATH_KEYS and _is_path(values[key]))
    ]
