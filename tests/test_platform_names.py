"""No shared module names a cloud, a platform or a fabric: what differs per platform is looked up
in its platform spec (gpu_fabric/platform_spec.py), like the import guard of tests/test_layers.py.

The rule, on each shared module's syntax tree (`ast`, so comments never count):
- the names: every spec's cloud (`gcp`), platform package (`gke`) and platform names
  (`gke-a3-high`), and the catalog's fabrics (`gpudirect-tcpxo`, `oke-dranet`), machine types
  (`a3-highgpu-8g`) and OCI shapes. Stack names are not among them: a stack's name is its user's
  choice (any word), not a fact of a platform;
- a string literal (f-string parts included) names one when the name occurs in it between
  characters that are not letters or digits, in any case (`"gcp:project"`, `"networking.gke.io"`,
  `"mock-oke-ca"`; not `"spoke"`). Docstrings and other string statements are prose, not looked
  up, and are not checked;
- an identifier (a variable, attribute, function, class, argument, keyword or import name) names
  one when one of its words is a one-word name, the words split at `_` and at case changes
  (`oke_benchmark`, `GkeCloud`, `from gpu_fabric import gke`).

Shared modules: the top level of gpu_fabric/, offline/, verify/ but each platform's check and
benchmarks (`verify/platforms.py`), bench/, tools/ and program/__main__.py. The exceptions below are
named with their reason, and each must still need its exception.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.registry import SPECS
from offline.engine import ROOT
from verify.platforms import BENCHMARKS, CHECKS, benchmarks_of, checks_of

EXCEPTIONS = {
    "gpu_fabric/registry.py": "the one list of the platforms: it imports each platform package",
    "verify/platforms.py": "`make verify`'s list of each platform's check and benchmarks, by "
    "platform package: it imports each",
    "gpu_fabric/catalog.py": "the model of catalog.yaml, the one place of machine and fabric "
    "facts, whose sections are per cloud",
    "gpu_fabric/versions.py": "the grammar of each cloud's version form beside the one Version "
    "type: the catalog's model parses GKE floors with it before any platform package loads",
    "gpu_fabric/workload_security.py": "the waivers of the GKE fabrics' upstream DaemonSets, by "
    "manifest: GKE fabric facts that move with the GKE fabric modules",
    "tools/package_check.py": "`make package-check`'s check of the wheel installed with one "
    "cloud's extra (GKE): it plans that cloud's layers and names the SDKs that must not come",
    "tools/pool_options.py": "`make docs`'s writer of the GKE pool options into GKE's hosted pool "
    "args: a development tool, not shipped, about one GKE model",
}


@cache
def platform_names() -> frozenset[str]:
    """Every name of a cloud, a platform or a fabric, lower case."""
    names = set()
    for spec in SPECS:
        names |= {spec.cloud, spec.package, *spec.platforms}
    data = catalog()
    names |= {m.fabric for m in data.machines.values()} | set(data.machines)
    names |= {t.fabric for t in data.nccl_thresholds} | set(data.oci_shapes)
    return frozenset(name.lower() for name in names)


def _in_text() -> re.Pattern:
    alternatives = "|".join(map(re.escape, sorted(platform_names(), key=len, reverse=True)))
    return re.compile(rf"(?<![a-z0-9])({alternatives})(?![a-z0-9])", re.IGNORECASE)


def _words(identifier: str) -> list[str]:
    return [
        word.lower()
        for part in identifier.split("_")
        for word in re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+", part)
    ]


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword):
        return [node.arg] if node.arg else []
    if isinstance(node, ast.alias):
        return [*node.name.split("."), *([node.asname] if node.asname else [])]
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")
    return []


def names_in(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal and identifier of `source` that names a cloud, a
    platform or a fabric."""
    tree = ast.parse(source)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    pattern, one_word = _in_text(), platform_names()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in prose and pattern.search(node.value):
                found.append((node.lineno, node.value))
            continue
        for identifier in _identifiers(node):
            if one_word & set(_words(identifier)):
                found.append((getattr(node, "lineno", 0), identifier))
    return sorted(set(found))


def shared_modules() -> list[Path]:
    platform_modules = {
        Path(module.__file__) for module in (*CHECKS.values(), *BENCHMARKS.values())
    }
    paths = [
        *(ROOT / "gpu_fabric").glob("*.py"),
        *(ROOT / "gpu_fabric" / "stack_config").glob("*.py"),
        *(ROOT / "offline").glob("*.py"),
        *(ROOT / "verify").glob("*.py"),
        *(ROOT / "bench").glob("*.py"),
        *(ROOT / "tools").glob("*.py"),
        ROOT / "program" / "__main__.py",
    ]
    return sorted(p for p in paths if p not in platform_modules)


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", shared_modules(), ids=_relative)
def test_no_shared_module_names_a_cloud_a_platform_or_a_fabric(path):
    found = names_in(path.read_text())
    if _relative(path) in EXCEPTIONS:
        assert found, f"{_relative(path)} names no platform now: remove its exception"
    else:
        assert found == [], f"{_relative(path)}: look these up in the platform specs"


def test_the_shared_modules_are_the_ones_no_platform_owns():
    shared = {_relative(p) for p in shared_modules()}
    assert {
        "offline/engine.py",
        "verify/bandwidth.py",
        "gpu_fabric/stack_config/namespaces.py",
    } <= shared
    for spec in SPECS:
        assert _relative(Path(checks_of(spec).__file__)) not in shared
        assert _relative(Path(benchmarks_of(spec).__file__)) not in shared
    assert set(EXCEPTIONS) <= shared


@pytest.mark.parametrize(
    "source",
    [
        'CLOUDS = {"gcp": 1}',
        'key = "alicloud:region"',
        'url = "https://example/gpudirect-tcpx/nccl-config-default.yaml"',
        'annotation = "networking.gke.io/interfaces"',
        'label = f"{x}-oke-dranet"',
        'ca = "mock-oke-ca"',
        'kind = "GPUDirect-TCPXO"',
        'shape = "BM.GPU.B4.8"',
        "def oke_benchmark(): pass",
        "class GkeCloud: pass",
        "from gpu_fabric import gke",
        "from gpu_fabric.ack.config import REGION_KEY",
        "value = cfg.oci_region",
        "run(ack=1)",
    ],
)
def test_a_name_put_back_into_a_shared_module_is_found(source):
    module = ROOT / "offline" / "plan.py"
    planted = module.read_text() + "\n" + source + "\n"
    assert names_in(module.read_text()) == []
    assert names_in(planted)


@pytest.mark.parametrize(
    "source",
    [
        '"""Mocks of each cloud (GCP, OCI, Alibaba Cloud) for GKE, OKE and ACK."""',
        "# gke: a comment",
        'word = "spoke, rollback, package, backup"',
        "def backing_store(stack): pass",
        'platform = spec.cloud + ":" + "region"',
    ],
)
def test_prose_and_words_that_merely_contain_a_name_are_not_found(source):
    assert names_in(source) == []
