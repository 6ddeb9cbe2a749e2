"""gpu_fabric/pulumi_internals.py: every private SDK name it lists resolves in the installed SDK."""

from __future__ import annotations

import importlib.metadata
import pathlib
import re

import pytest

from gpu_fabric import pulumi_internals

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(pulumi_internals.NAMES))
def test_each_private_name_resolves_in_the_installed_sdk(name):
    assert pulumi_internals.sdk(name) is not None


@pytest.mark.parametrize("sdk_module", ["pulumi_gcp", "pulumi_oci", "pulumi_alicloud"])
def test_provider_sdks_expose_their_config_keys(sdk_module):
    assert "region" in pulumi_internals.provider_config_keys(sdk_module)


def test_the_checked_version_is_the_pinned_one():
    """The names were read from the SDK release requirements.txt pins: a pin moved without
    re-reading them fails here (and the names' test above says which one moved)."""
    pinned = re.search(r"^pulumi==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned and pinned.group(1) == pulumi_internals.CHECKED_VERSION
    assert importlib.metadata.version("pulumi") == pulumi_internals.CHECKED_VERSION


def test_no_module_outside_it_names_a_private_sdk_name():
    """`pulumi._types`, `pulumi.runtime.<module>` imports and `_ExportableConfig` appear in the
    program's modules (gpu_fabric/, offline/, verify/, tools/) only in pulumi_internals.py. The
    mocks API (`pulumi.runtime.mocks`) is public: the SDK documents it for unit tests."""
    private = re.compile(
        r"pulumi\._\w+|_ExportableConfig|pulumi\.runtime\.(?!mocks\b)\w+\."
        r"|from pulumi\.runtime\.\w+ import|from pulumi\.runtime import (?!mocks as \w+$)",
        re.M,
    )
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("gpu_fabric", "offline", "verify", "tools")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "pulumi_internals.py" and private.search(path.read_text())
    ]
    assert offenders == []
