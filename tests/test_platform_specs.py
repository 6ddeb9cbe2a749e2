"""The platform specs (gpu_fabric/platform_spec.py): each fact a spec names is one the rest of the
project agrees with (pyproject's extras, the pinned SDKs, the provider's own config keys), and each
module it names has what the shared modules read from it."""

from __future__ import annotations

import tomllib

import pytest
from packaging.requirements import Requirement

from gpu_fabric.registry import SPECS
from gpu_fabric.stack_config.namespaces import provider_keys
from offline.engine import ROOT
from verify.platforms import benchmarks_of, checks_of

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PINNED = {
    Requirement(line).name: Requirement(line)
    for line in (ROOT / "requirements.txt").read_text().splitlines()
    if line.strip() and not line.startswith(("#", "-e "))  # the package itself, editable
}


def test_each_platform_packages_extra_is_its_specs_sdk_requirement():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {spec.package: [spec.sdk_requirement] for spec in SPECS} == {
        name: requirements for name, requirements in extras.items() if name != "all"
    }
    assert extras["all"] == [f"gpu-fabric[{','.join(spec.package for spec in SPECS)}]"]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.package)
def test_the_sdk_is_the_pinned_one_and_reads_the_clouds_keys(spec):
    requirement = Requirement(spec.sdk_requirement)
    pinned = PINNED[requirement.name]
    (version,) = [s.version for s in pinned.specifier]
    assert requirement.specifier.contains(version)
    assert requirement.name.replace("-", "_") == spec.sdk
    # The provider keys it reads and its credentials are keys of its own cloud's provider.
    for key in (*spec.provider_keys, *spec.credential_keys):
        namespace, _, name = key.partition(":")
        assert namespace == spec.cloud and name in provider_keys(spec.cloud), key


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.package)
def test_the_modules_a_spec_names_have_what_is_read_from_them(spec):
    assert callable(spec.mocks_module().CloudMocks)
    view = spec.plan_view_module()
    # A plan view shows its own cloud's types (and the Kubernetes objects of that cloud alone).
    assert all(t.startswith((f"{spec.cloud}:", "kubernetes:")) for t in view.KEY_SETTINGS)
    assert all(t.startswith(f"{spec.cloud}:") for t in view.NOUNS)
    assert all(word.islower() for word in view.ACRONYMS)
    checks = checks_of(spec)
    assert callable(checks.expected_from) and callable(checks.read_snapshot)
    assert callable(checks.check)
    benchmarks = benchmarks_of(spec)
    assert benchmarks.BUILDERS and benchmarks.MIN_NODES >= 1


def test_no_two_specs_claim_one_cloud_or_one_platform():
    clouds = [spec.cloud for spec in SPECS]
    assert len(set(clouds)) == len(clouds)
    names = [name for spec in SPECS for name in spec.platforms]
    assert len(set(names)) == len(names)
