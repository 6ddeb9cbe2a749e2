"""The repository as the Pulumi CLI resolves it for `pulumi package add` (a plugin directory) and
for `pulumi up` (a project), and the plugin it launches, started the way the CLI starts it.

The CLI's rules, pulumi/pulumi at the pinned SDK's line (sdk/v3.272.0):
- `sdk/go/common/workspace/project.go`, `type PluginProject struct`: PulumiPlugin.yaml has
  `runtime`, `packages`, `requiredPulumiVersion` and `template`, and no entry-point key.
- `sdk/python/cmd/pulumi-language-python/main.go`, `RunPlugin`: a `__main__.py` at the plugin
  directory's root is run as the plugin (`python <dir>`); without one, a buildable package is run
  as `python -m pulumi.run.plugin <pyproject project.name>`.
- `pkg/engine/project.go`, `getPwdMain`: a directory `main` of Pulumi.yaml is the program's working
  directory, where `InstallDependencies` (`sdk/python/toolchain/pip.go`) reads requirements.txt.
- `sdk/python/toolchain/pyproject.go`, `IsBuildablePackage`: buildable means pyproject.toml has
  `project.name` and `build-system.build-backend`; `InstallDependencies` then runs
  `pip install <dir>` before requirements.txt (`req.IsPlugin`).
- `sdk/python/lib/pulumi/run/plugin/__main__.py`: imports the module named after the project
  (`-` as `_`), hosts the component classes in its namespace, and otherwise runs it as
  `python -m <module>`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grpc
import yaml
from pulumi.provider.experimental import host
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

import gpu_fabric
from gpu_fabric import component_package

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PLUGIN_KEYS = {"runtime", "packages", "requiredPulumiVersion", "template"}


def test_the_plugin_manifest_holds_only_keys_the_cli_reads():
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text())
    assert set(manifest) <= PLUGIN_KEYS, set(manifest) - PLUGIN_KEYS
    assert manifest["runtime"]["name"] == "python"
    assert manifest["requiredPulumiVersion"] == ">=3.209.0"
    # One environment for the program and the plugin of a checkout.
    program = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert manifest["runtime"]["options"] == program["runtime"]["options"]


def test_no_root_main_makes_the_cli_run_the_package():
    # A root __main__.py would be run as the plugin: the stack program lives in `main`'s folder.
    assert not (ROOT / "__main__.py").exists()
    program = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert (ROOT / program["main"] / "__main__.py").is_file()
    # `pulumi install` reads requirements.txt in the program's directory (pkg/engine/project.go
    # `getPwdMain`: a `main` directory is the program's working directory; pip.go
    # `InstallDependencies` installs nothing when the file is missing there).
    pins = (ROOT / program["main"] / "requirements.txt").read_text().splitlines()
    assert "-r ../requirements.txt" in pins
    assert PYPROJECT["project"]["name"] == component_package.NAME
    assert PYPROJECT["build-system"]["build-backend"]


def test_the_package_namespace_holds_no_component_so_its_main_module_runs():
    # `pulumi.run.plugin` would host what `gpu_fabric` exports with the SDK's own provider, which
    # reports a layer's refused inputs as a traceback (gpu_fabric/component_host.py).
    assert host.components_from_module(gpu_fabric) == []
    assert (ROOT / "gpu_fabric" / "__main__.py").read_text().count("main()") == 1


def test_the_plugin_serves_the_layers_with_what_the_package_is(tmp_path):
    """`python -m pulumi.run.plugin gpu-fabric <engine>`, from another directory (the installed
    package, not the checkout's files beside it): the provider prints its port, and GetSchema
    answers with every layer and the package's metadata."""
    env = {**os.environ, "PYTHONPATH": ""}
    plugin = subprocess.Popen(
        [sys.executable, "-m", "pulumi.run.plugin", component_package.NAME, "127.0.0.1:1"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert plugin.stdout is not None
        port = plugin.stdout.readline().strip()
        assert port.isdigit(), plugin.stderr.read() if plugin.stderr else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            reply = stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=60)
    finally:
        plugin.kill()
        plugin.wait()
    schema = json.loads(reply.schema)
    assert schema["name"] == "gpu-fabric"
    assert schema["version"] == component_package.VERSION
    assert set(schema["resources"]) == {
        f"gpu-fabric:index:{layer.__name__}" for layer in component_package.COMPONENTS
    }
    assert schema["namespace"] == "gpu-fabric"  # not `pulumi`: SDKs named after the owner
    assert schema["license"] == PYPROJECT["project"]["license"] == "Apache-2.0"
    assert schema["repository"] == PYPROJECT["project"]["urls"]["Repository"]
    assert schema["description"] == PYPROJECT["project"]["description"]


def test_the_package_exports_each_layer_and_its_args_without_holding_them():
    layers = {layer.__name__: layer for layer in component_package.COMPONENTS}
    exported = {name for name in gpu_fabric.__all__ if name != "__version__"}
    assert exported == {*layers, *(f"{name}Args" for name in layers)}
    for name, layer in layers.items():
        assert getattr(gpu_fabric, name) is layer
        assert f"{name}Args" in dir(gpu_fabric)
    # Named, not kept: the plugin host still finds no component in the namespace.
    assert host.components_from_module(gpu_fabric) == []
