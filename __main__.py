"""gpu-fabric: one GPU cluster stack per environment (`pulumi up -s a3-prod`)."""

import pulumi

from components.config_checks import load_stack_config
from components.platforms import build

config = load_stack_config()  # validates everything before any resource is registered

for name, value in build(config).items():
    pulumi.export(name, value)
