"""gpu-fabric: GPU clusters whose GPUs get the full bandwidth of every NIC they have.

The import package is `gpu_fabric` in a checkout and installed with pip (`gpu-fabric[gke]`, ...).
Each platform is a subpackage (`gke`, `oke`, `ack`) with a cloud layer and an in-cluster fabric
layer (`cloud.py`, `fabric.py`); the layers and their args are also importable from here:

    from gpu_fabric import GkeCloud, GkeCloudArgs, GkeFabric, GkeFabricArgs

`python -m gpu_fabric` serves the component package to the Pulumi engine.
"""

import importlib

__version__ = "0.1.0"

LAYER_MODULES = ("cloud", "fabric")
"""The layer modules of every platform package, each with `<Platform><Layer>` and its args."""


def _layers() -> dict[str, str]:
    """Each layer and its args type -> its module (`GkeCloud`: `.gke.cloud`), from the platform
    specs' packages."""
    from .registry import SPECS

    packages = [spec.package for spec in SPECS]
    return {
        f"{package.capitalize()}{layer.capitalize()}{suffix}": f".{package}.{layer}"
        for package in packages
        for layer in LAYER_MODULES
        for suffix in ("", "Args")
    }


def __getattr__(name: str):
    """A layer, imported when first named (PEP 562): `from gpu_fabric import GkeCloud` loads the
    GKE SDK only, so a package installed with one cloud's extra imports. Nothing is kept in this
    module's namespace: the Pulumi plugin host would serve component classes found there itself,
    in place of `python -m gpu_fabric` (component_package.py says why that matters)."""
    if name == "__all__":
        return ["__version__", *_layers()]
    # Only a class name reads the specs: `from . import gke` (a lowercase submodule) asks this
    # function first, while the registry that imports the platform packages is being imported.
    module = _layers().get(name) if name[:1].isupper() else None
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_layers()})
