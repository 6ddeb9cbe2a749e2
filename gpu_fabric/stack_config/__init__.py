"""The stack configuration: one model per platform, picked by `gpu-fabric:platform`; loading.

`parse` validates a raw mapping (as in a stack file) into the platform's model and then runs that
platform's cross-field rules. Every failure is a `Problem` naming the stack key, the bad value and
the fix; all of them are raised together in one `ConfigError`, before any resource is registered.

One job per module: `models` (the union of the platforms' models), `pydantic_errors` (pydantic's
errors in the stack file's words), `written` (what the models cannot see), `masking` (no secret in
a problem), `namespaces` (every key used or refused), `copies` (a copied stack file), `split`
(a split deployment's two stack files), `loading`.
"""

from .loading import (
    load_stack_config,
    parse,
    parse_pulumi_config,
    parse_with_cloud_stack_file,
    raw_from_pulumi_config,
)
from .models import MODELS, PROVIDER_KEYS, StackConfig

__all__ = [
    "MODELS",
    "PROVIDER_KEYS",
    "StackConfig",
    "load_stack_config",
    "parse",
    "parse_pulumi_config",
    "parse_with_cloud_stack_file",
    "raw_from_pulumi_config",
]
