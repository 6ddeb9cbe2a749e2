"""`python -m gpu_fabric`: serve the component package to the Pulumi engine.

This is the entry point the Pulumi CLI runs for `pulumi package add` (through
`python -m pulumi.run.plugin gpu-fabric`; gpu_fabric/component_package.py says how). It is not a
command for people: the `gpu-fabric` command is, and the stack program is `program/__main__.py`.
"""

from gpu_fabric.component_package import main

main()
