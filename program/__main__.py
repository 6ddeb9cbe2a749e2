"""gpu-fabric: one GPU cluster stack per environment (`pulumi up -s a3-prod`)."""

import pulumi

from gpu_fabric.platforms import build
from gpu_fabric.secrets import keep_secret, mark_derived_secrets
from gpu_fabric.stack_config import load_stack_config

# Validates everything before any resource is registered.
config, secret_texts = load_stack_config()
mark_derived_secrets(secret_texts)

for name, value in build(config).items():
    pulumi.export(name, keep_secret(value, secret_texts))
