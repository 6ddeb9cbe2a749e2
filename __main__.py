"""gpu-fabric: one GPU cluster stack per environment (`pulumi up -s a3-prod`)."""

import pulumi

from components.platforms import build
from components.stack_config import load_stack_config

config = load_stack_config()  # validates everything before any resource is registered

for name, value in build(config).items():
    pulumi.export(name, value)
