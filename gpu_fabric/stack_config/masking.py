"""No secret in a configuration problem: values under secret keys, and secret texts a message
quotes, are masked."""

from __future__ import annotations

import re
from typing import Any

from ..problems import NAMESPACE, Problem
from ..stack_file import SECRET_PLACEHOLDER


def without_secrets(
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
