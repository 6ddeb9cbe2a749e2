"""offline/replacements.yaml: derived from the Terraform providers, verified, and complete.

Which resource types the stacks create is checked against the table by
tests/test_diff.py::test_every_resource_type_the_stacks_create_is_covered (every stack's offline
plan), and each listed field against the pinned SDK by
test_every_listed_field_is_an_input_of_the_sdk; this file checks where the fields come from.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from gpu_fabric import yaml_files
from offline import diff

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import replacements_from_providers as tool  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "replacements"
TABLE = yaml_files.read(diff.REPLACEMENTS_FILE)
DERIVED = yaml_files.read(tool.DERIVED_FILE)
SOURCES = tool.load_sources()
BRIDGED = [t for t in TABLE["types"] if t.split(":")[0] in tool.SDKS]


def test_no_entry_is_unverified_and_every_source_names_a_version():
    text = diff.REPLACEMENTS_FILE.read_text()
    assert "UNVERIFIED" not in text
    for type_, rule in TABLE["types"].items():
        source = " ".join(rule["source"].split())
        assert re.search(r"\bv?\d+\.\d+\.\d+\b", source), f"{type_}: no version in its source"


def test_every_bridged_type_has_a_terraform_source_and_a_derived_list():
    assert set(BRIDGED) == set(SOURCES["types"]) == set(DERIVED["types"])
    for package in tool.SDKS:
        provider = SOURCES["providers"][package]
        pinned = provider["pulumi"].split()[-1]
        requirement = f"pulumi-{package}=={pinned}"
        assert requirement in (ROOT / "requirements.txt").read_text().split(), requirement
        assert re.fullmatch(r"[0-9a-f]{40}", provider["commit"]), package
    for type_, spec in SOURCES["types"].items():
        assert spec["terraform"] and spec["schema"], type_
        if {"add", "drop_fields", "refine"} & set(spec):
            assert spec.get("why", "").strip(), f"{type_}: a hand adjustment without its source"


@pytest.mark.parametrize("type_", BRIDGED, ids=lambda t: t.split(":")[-1])
def test_the_table_lists_what_the_provider_source_forces(type_):
    """replacements.yaml's replace: is what the script derived from the provider source."""
    assert TABLE["types"][type_]["replace"] == DERIVED["types"][type_]["replace"]
    for rule in TABLE["types"][type_].get("unless", {}):
        assert rule in TABLE["types"][type_]["replace"], f"{type_}: unless {rule}"


def test_the_script_reads_forcenew_fields_from_go_schemas():
    spec = {"schema": [{"file": "provider/svc/resource_thing.go", "symbol": "ResourceThing"}]}
    derived = tool.derive(FIXTURES, spec)
    assert derived.replace == [
        "ipRange",  # CustomizeDiff customdiff.ForceNewIfChange
        "name",  # top-level ForceNew
        "nodeConfig.guestAccelerator",  # ForceNew block whose fields all force (no SDK: camelCase)
        "nodeConfig.oauthScopes",  # ForceNew primitive set inside a ForceNew block
        "placement",  # ForceNew block whose fields all force: listed whole
        "project",  # from a merged package variable
        "rules",  # a set of blocks with a ForceNew field: an element change removes and adds
    ]
    # node_config is ForceNew but machine_type and labels are not: adding or removing the block
    # forces, a change inside it only through its ForceNew fields.
    assert derived.blocks == ["nodeConfig"]
    assert derived.conditional == {"ipRange": "customdiff.ForceNewIfChange"}
    assert derived.unresolved == []


def test_the_script_maps_terraform_names_to_the_sdk_inputs():
    args = tool.args_class("gcp:container/nodePool:NodePool")
    assert tool.pulumi_path(args, "node_config.guest_accelerator.type") == (
        "nodeConfig.guestAccelerators.type"
    )
    assert tool.pulumi_path(args, "no_such_field") is None
    instance = tool.args_class("oci:Core/instance:Instance")
    assert tool.pulumi_path(instance, "metadata.user_data") == "metadata.user_data"


def test_the_script_rewrites_only_the_replace_lists():
    text = diff.REPLACEMENTS_FILE.read_text()
    derived = {
        t: tool.Derived(e["replace"], e.get("blocks", []), {}, [])
        for t, e in DERIVED["types"].items()
    }
    assert tool.update_replacements(text, derived) == text
    one = {"gcp:compute/firewall:Firewall": tool.Derived(["direction", "name"], [], {}, [])}
    changed = yaml_files.load(tool.update_replacements(text, one))["types"]
    assert changed["gcp:compute/firewall:Firewall"]["replace"] == ["direction", "name"]
    assert changed["gcp:compute/network:Network"] == TABLE["types"]["gcp:compute/network:Network"]
