"""docs/config-reference.md's key tables are what tools/config_reference.py writes from the models:
a key is described once, in its model's `Field(description=...)`."""

from __future__ import annotations

import pytest
from pydantic import Field

from gpu_fabric.config_base import ConfigModel, StackModel
from gpu_fabric.registry import SPECS
from tools import config_reference


def test_the_page_is_what_the_generator_writes():
    written = config_reference.PAGE.read_text(encoding="utf-8")
    assert config_reference.render(written) == written, (
        f"docs/config-reference.md is out of date with the config models; run "
        f"{config_reference.REGENERATE}"
    )


def test_the_page_has_a_table_for_every_platform_package():
    written = config_reference.PAGE.read_text(encoding="utf-8")
    names = [m["name"] for m in config_reference.BLOCK.finditer(written)]
    assert sorted(names) == sorted(config_reference.spec_name(s) for s in SPECS)


@pytest.mark.parametrize("spec", SPECS, ids=config_reference.spec_name)
def test_every_key_of_every_model_has_a_row(spec):
    table = config_reference.table(spec)
    for model in spec.models:
        for name, field in model.model_fields.items():
            key = field.alias if ":" in (field.alias or "") else f"gpu-fabric:{field.alias}"
            assert f"`{key}" in table, f"{model.__name__}.{name}"


def test_a_key_without_a_description_is_refused():
    class Section(ConfigModel):
        size: int = 1

    class Model(StackModel):
        section: Section = Field(default_factory=Section)

    with pytest.raises(ValueError, match=r"Section\.size \(gpu-fabric:section\.size\)"):
        config_reference._rows(Model, "gpu-fabric:", None, {})


def test_a_row_gives_type_default_description_and_bounds():
    class Model(StackModel):
        count: int = Field(3, ge=1, le=8, description="How many.")
        names: list[str] = Field(default_factory=list, min_length=1, description="Names.")

    rows = {r.key: r for r in config_reference._rows(Model, "gpu-fabric:", None, {})}
    count = rows["gpu-fabric:count"]
    assert (count.type, count.default) == ("integer", "`3`")
    assert count.description == "How many. Bounds: >= 1, <= 8."
    assert rows["gpu-fabric:names"].description == "Names. Bounds: at least 1 item."
    assert rows["gpu-fabric:layers"].type == "one of `all`, `cloud`, `fabric`"


def test_a_marker_of_no_platform_package_is_refused():
    with pytest.raises(ValueError, match="no platform package named"):
        config_reference.render("<!-- BEGIN GENERATED: nope -->\n<!-- END GENERATED -->\n")


def test_check_exits_1_when_the_page_is_out_of_date(tmp_path, monkeypatch, capsys):
    page = tmp_path / "config-reference.md"
    page.write_text("<!-- BEGIN GENERATED: gke -->\nstale\n<!-- END GENERATED -->\n")
    monkeypatch.setattr(config_reference, "PAGE", page)
    assert config_reference.main(["--check"]) == 1
    assert "make docs" in capsys.readouterr().err
    assert config_reference.main([]) == 0
    assert config_reference.main(["--check"]) == 0
    assert "`gpu-fabric:gke.version`" in page.read_text()
