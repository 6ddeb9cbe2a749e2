"""The gpu-fabric component package: the six layer components, hosted for `pulumi package add`.

`pulumi package add <path or git URL>` launches this file as a provider plugin (PulumiPlugin.yaml,
`main: provider.py`); the Pulumi SDK infers the package schema from the components' type
annotations, and the CLI generates a typed SDK from it in the consumer's language
(docs/component-package.md). It is not `__main__.py`: that is the Pulumi program (`pulumi up`).

Importing this module starts nothing: only running it as a script serves the components.
"""

from gpu_fabric import __version__
from gpu_fabric.component_host import serve
from gpu_fabric.registry import SPECS

NAME = "gpu-fabric"
"""The package name: the first part of every component's type token (`gpu_fabric/layers.py`)."""

VERSION = __version__
"""The package (schema and SDK) version: the Python package's (`gpu_fabric/__init__.py`), tagged
`v<VERSION>` for consumers to pin (`pulumi package add <git URL>@v<VERSION>`)."""

COMPONENTS = [
    layer
    for spec in SPECS
    for layer in (spec.stack_module().GpuCluster.CLOUD, spec.stack_module().GpuCluster.FABRIC)
]
"""The hosted components, each under `gpu-fabric:index:<class name>`: each platform's cloud
layer and its in-cluster fabric layer."""


def main() -> None:
    """Serve the components to the Pulumi engine (blocks until the engine shuts the plugin down)."""
    serve(COMPONENTS, NAME, VERSION)


if __name__ == "__main__":
    main()
