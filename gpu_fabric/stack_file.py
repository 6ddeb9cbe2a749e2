"""Stack files as Pulumi reads them: `stacks/Pulumi.<stack>.yaml` into the config a program gets.

Shared by the offline plan and `make verify` (which reads the stack's config without the CLI).
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import yaml

from . import yaml_files
from .problems import NO_VALUE, ConfigError, Problem

ROOT = Path(__file__).resolve().parents[1]


def stacks_dir(root: Path) -> Path:
    """The stack files' folder of the Pulumi project at `root` (its Pulumi.yaml's
    stackConfigDir). An installed package has no project around it: the folder then does not
    exist, and there are no other stack files to compare with."""
    project = root / "Pulumi.yaml"
    if not project.exists():
        return root / "stacks"
    return root / (yaml.safe_load(project.read_text()).get("stackConfigDir") or ".")


STACKS_DIR = stacks_dir(ROOT)
"""Where this project's stack files are."""
SECRET_PLACEHOLDER = "[secret]"
"""What an encrypted (`secure:`) value reads as offline, where it cannot be decrypted."""


class _StrictLoader(yaml_files.SAFE_LOADER):
    """YAML as Pulumi reads a stack file: keys are text and written once (PyYAML lets the last one
    win silently), dates stay text, and tags are not used to build values. Anchors, aliases and
    merge keys (`<<: *base`) are YAML that Pulumi's reader (Go's yaml.v3) accepts: they are read
    as written. libyaml's parser (yaml_files.SAFE_LOADER) stops a document nested deeper than its
    limit with a parse error, where PyYAML's own would end in a RecursionError."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == MERGE_TAG:
                continue  # `<<`: SafeConstructor merges the aliased mapping's keys
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, (str, int, float, bool)):
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    "a key must be text, not a list or mapping",
                    key_node.start_mark,
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    f"the key {key!r} is written twice (first on line {seen[key] + 1}); keep one",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)

    def construct_undefined(self, node):
        raise yaml.constructor.ConstructorError(
            None, None, f"the tag {node.tag} is not a stack-file value", node.start_mark
        )


MERGE_TAG = "tag:yaml.org,2002:merge"


# Dates and binary stay what they are written as: text (a stack file holds text, numbers, booleans).
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag in (
    "tag:yaml.org,2002:binary",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:set",
    "tag:yaml.org,2002:omap",
    "tag:yaml.org,2002:pairs",
):
    _StrictLoader.add_constructor(_tag, _StrictLoader.construct_undefined)


def _file_problem(path: Path, message: str, line: int | None = None) -> ConfigError:
    where = f"{path}:{line}" if line else str(path)
    return ConfigError(path.stem.removeprefix("Pulumi."), [Problem(where, NO_VALUE, message)])


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> Any:
    """The YAML document of a stack file's text. Parsed once per text: the tests and the copy
    check read the same few files hundreds of times."""
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)


MAX_EXPANDED_VALUES = 100_000
"""How many values a stack file may hold once its aliases are expanded. An alias shares the
anchored value, and every reader after the parse (the JSON text Pulumi hands a program) expands it:
a few lines aliasing each other (the "billion laughs" document) would expand without end. Go's
yaml.v3, Pulumi's reader, refuses excessive aliasing too (`decode.go`, `allowedAliasRatio`)."""


def _expands_beyond(document: Any, limit: int) -> bool:
    """Whether `document`, its shared (aliased) values counted at every use, holds over `limit`."""
    count, pending = 0, [document]
    while pending:
        count += 1
        if count > limit:
            return True
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


def read_stack_file(path: Path) -> dict[str, Any]:
    """The stack file's `config:` mapping; a file that is not one is a ConfigError with its line."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _file_problem(path, "is not UTF-8 text; a stack file is YAML") from None
    try:
        # A copy: callers own what they get, and the parse stays as the text gave it.
        document = copy.deepcopy(_parsed(text))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        raise _file_problem(path, f"not valid YAML: {err.problem or err}", line) from None
    except yaml.YAMLError as err:
        raise _file_problem(path, f"not valid YAML: {err}") from None
    if _expands_beyond(document, MAX_EXPANDED_VALUES):
        raise _file_problem(
            path,
            f"its aliases (*name) expand to more than {MAX_EXPANDED_VALUES:,} values; write the "
            "repeated values out, or alias fewer times",
        )
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise _file_problem(
            path, f"must be a mapping with a `config:` key, not a {type(document).__name__}"
        )
    config = document.get("config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise _file_problem(
            path, f"`config:` must be a mapping of keys to values, not a {type(config).__name__}"
        )
    return config


def stack_environments(path: Path) -> list[str]:
    """The Pulumi ESC environments a stack file imports (`environment:`, a list of names, or
    `imports:` under it): the CLI merges their `pulumiConfig` into the stack's config."""
    try:
        document = _parsed(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []  # read_stack_file reports a broken file
    environment = document.get("environment") if isinstance(document, dict) else None
    if isinstance(environment, dict):
        environment = environment.get("imports")
    if not isinstance(environment, list):
        return []
    return [str(name) for name in environment if isinstance(name, str | dict)]


def stack_config(stack: str) -> dict[str, str]:
    """The stack file's `config:` as Pulumi hands it to a program: objects as JSON text."""
    return stack_config_and_secrets(stack)[0]


def stack_config_and_secrets(stack: str) -> tuple[dict[str, str], list[str]]:
    """The stack file's config as Pulumi hands it to a program, and its secret keys."""
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    if not path.exists():
        known = sorted(
            p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS_DIR.glob("Pulumi.*.yaml")
        )
        raise FileNotFoundError(f"no stack file {path}; known stacks: {', '.join(known)}")
    return file_config_and_secrets(path)


def file_config_and_secrets(path: Path) -> tuple[dict[str, str], list[str]]:
    """A stack file's config as Pulumi hands it to a program (objects as JSON text), and its
    secret keys: the one reading of a stack file, for the stack being planned and for the other
    stack files it is compared with. An encrypted (`secure:`) value reads as SECRET_PLACEHOLDER."""
    values = read_stack_file(path)
    problems = [
        Problem(str(key), None, "is null; give it a value or remove the key")
        for key, value in values.items()
        if value is None
    ]
    if problems:
        raise ConfigError(path.name[len("Pulumi.") : -len(".yaml")], problems)
    secret = sorted(str(k) for k, v in values.items() if holds_secure(v))
    return {str(key): _config_text(value) for key, value in values.items()}, secret


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def holds_secure(value: Any) -> bool:
    """True if an encrypted (`secure:`) value is the value or is nested anywhere in it:
    `pulumi config set --path --secret` writes one under the key's mapping, and then Pulumi marks
    the whole top-level key secret."""
    if _is_secure(value):
        return True
    if isinstance(value, dict):
        return any(holds_secure(item) for item in value.values())
    if isinstance(value, list):
        return any(holds_secure(item) for item in value)
    return False


def offline_value(value: Any) -> Any:
    """`value` with every encrypted (`secure:`) value, at any depth, read as SECRET_PLACEHOLDER:
    under the CLI the program gets the decrypted text there; offline it cannot be decrypted."""
    if _is_secure(value):
        return SECRET_PLACEHOLDER
    if isinstance(value, dict):
        return {key: offline_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [offline_value(item) for item in value]
    return value


def _config_text(value: Any) -> str:
    # Encrypted values need the stack's secrets provider; offline they stand for themselves,
    # and their keys are secret keys, as under the CLI (a nested one makes its key secret).
    value = offline_value(value)
    if isinstance(value, (dict, list, bool, int, float)):
        return json.dumps(value)
    return str(value)
