"""The gpu-fabric component package: the six layer components, hosted for `pulumi package add`.

How the Pulumi CLI launches it (pulumi/pulumi, `sdk/python/cmd/pulumi-language-python/main.go`,
`InstallDependencies` and `RunPlugin`, since v3.209.0): the plugin directory (this repository)
has a buildable `pyproject.toml` and no `__main__.py`, so the CLI `pip install`s the directory and
then runs `python -m pulumi.run.plugin gpu-fabric`; that imports `gpu_fabric`, finds no component
class in it (`components_from_module`) and runs the package as a module: `gpu_fabric/__main__.py`,
which calls `main()` here. The SDK infers the schema from the components' type annotations; the
CLI generates a typed SDK from it in the consumer's language (docs/component-package.md).

Importing this module starts nothing: only `main()` serves the components.
"""

from __future__ import annotations

from importlib import metadata

from . import __version__
from .component_host import PackageInfo, serve
from .registry import SPECS

NAME = "gpu-fabric"
"""The package name: the first part of every component's type token (`gpu_fabric/layers.py`),
and the distribution's name in pyproject.toml."""

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


def package_info() -> PackageInfo:
    """What the schema says of the package, from the installed distribution's metadata: the
    `[project]` table of pyproject.toml is the one place of its description, licence and
    repository. The namespace is the repository's owner, so that the generated SDKs are named
    after it (`@<owner>/gpu-fabric`), not like an official Pulumi package (`@pulumi/...`)."""
    about = metadata.metadata(NAME)
    urls = dict(url.split(", ", 1) for url in about.get_all("Project-URL") or [])
    repository = urls["Repository"]
    return PackageInfo(
        description=about["Summary"],
        license=about["License-Expression"],
        repository=repository,
        namespace=repository.rstrip("/").split("/")[-2].lower(),
    )


def main() -> None:
    """Serve the components to the Pulumi engine (blocks until the engine shuts the plugin down)."""
    serve(COMPONENTS, NAME, VERSION, package_info())
