"""tools/release_version.py: a tag is released only as the package's version, in the changelog."""

from __future__ import annotations

from tools import release_version

CHANGELOG = "# Changelog\n\n## 0.2.0 (2027-01-15)\n\n### Added\n\n## 0.1.0 (2026-12-20)\n"


def test_the_tag_of_the_packages_version_in_a_dated_section_is_released():
    assert release_version.tag_problem("v0.2.0", "0.2.0", CHANGELOG) is None


def test_a_tag_of_another_version_is_refused_with_the_version_to_tag():
    problem = release_version.tag_problem("v0.3.0", "0.2.0", CHANGELOG)
    assert problem and "is not the package's version v0.2.0" in problem


def test_a_version_the_changelog_lacks_or_still_calls_unreleased_is_refused():
    problem = release_version.tag_problem("v0.3.0", "0.3.0", CHANGELOG)
    assert problem and "no section '## 0.3.0'" in problem
    unreleased = CHANGELOG.replace("0.2.0 (2027-01-15)", "0.2.0 (unreleased)")
    problem = release_version.tag_problem("v0.2.0", "0.2.0", unreleased)
    assert problem and "still marks 0.2.0 '(unreleased)'" in problem
    assert release_version.tag_problem("v0.20.0", "0.20.0", CHANGELOG) is not None  # not 0.2.0


def test_the_command_exits_2_naming_the_fix_and_0_when_released(capsys, monkeypatch):
    assert release_version.main(["v0.0.0-not-it"]) == 2
    assert "error: tag 'v0.0.0-not-it'" in capsys.readouterr().err
    monkeypatch.setattr(release_version, "tag_problem", lambda tag: None)
    assert release_version.main([f"v{release_version.__version__}"]) == 0
    assert release_version.main([]) == 2
