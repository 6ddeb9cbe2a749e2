"""gpu-fabric: one GPU cluster stack per environment (`pulumi up -s a3-prod`)."""

import sys
from pathlib import Path

# Pulumi runs this directory (Pulumi.yaml `main: program/`) with `runpy.run_path`, which puts the
# directory itself on sys.path, not the checkout that holds the package beside it.
CHECKOUT = str(Path(__file__).resolve().parent.parent)
if CHECKOUT not in sys.path:
    sys.path.insert(0, CHECKOUT)

import pulumi  # noqa: E402  (after the path above, as the imports of the package)

from gpu_fabric.platforms import build  # noqa: E402
from gpu_fabric.secrets import keep_secret, mark_derived_secrets  # noqa: E402
from gpu_fabric.stack_config import load_stack_config  # noqa: E402

# Validates everything before any resource is registered.
config, secret_texts = load_stack_config()
mark_derived_secrets(secret_texts)

for name, value in build(config).items():
    pulumi.export(name, keep_secret(value, secret_texts))
