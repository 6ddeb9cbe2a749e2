"""The user documents: a short README that links every page of docs/, links that resolve inside the
repository, and no internal names or paths that a user of the repository cannot follow."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *DOCS]

FENCE = re.compile(r"^(```+|~~~+)")
# A code span closes with a backtick run as long as the one that opens it (CommonMark).
INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
# [text](target) and ![alt](target); the target ends at whitespace (an optional "title" follows).
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose_lines(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def _links(path: Path) -> list[str]:
    """Every link target in the file's prose (not in code blocks or code spans); a link's text may
    run over a line break."""
    prose = INLINE_CODE.sub("", "\n".join(_prose_lines(path)))
    return LINK.findall(prose)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, no punctuation, spaces as hyphens, -N for repeats."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose_lines(path):
        match = HEADING.match(line)
        if not match:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))  # a link's text only
        slug = re.sub(r"[^\w\- ]", "", text.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _relative(path: Path) -> list[str]:
    return [t for t in _links(path) if not SCHEME.match(t)]


def test_readme_is_a_quickstart_of_at_most_300_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail into docs/"


def test_the_documents_exist():
    assert README.exists()
    assert {p.name for p in DOCS} >= {
        "architecture.md",
        "choices.md",
        "component-package.md",
        "config-reference.md",
        "reviewing-changes.md",
        "security.md",
        "verifying.md",
        "gke.md",
        "oke.md",
        "ack.md",
    }


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_every_docs_page_is_linked_from_the_readme(page):
    linked = {
        (README.parent / unquote(t.split("#", 1)[0])).resolve()
        for t in _relative(README)
        if t.split("#", 1)[0]
    }
    assert page.resolve() in linked, f"README.md does not link docs/{page.name}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document):
    broken = []
    for target in _relative(document):
        file_part, _, anchor = target.partition("#")
        resolved = (document.parent / unquote(file_part)).resolve() if file_part else document
        if not resolved.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor} in {resolved.name}")
    assert not broken, f"{document.relative_to(ROOT)}: {broken}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_path_to_the_shared_folder(document):
    """Users do not have the folder beside the clone that the project's research notes live in."""
    text = document.read_text(encoding="utf-8")
    assert "../shared" not in text
    assert not [t for t in _links(document) if "shared/" in t and not SCHEME.match(t)]


# What a reader cannot follow: internal source numbers ("seed 000"), the project's own issue
# numbers, and the notes folder beside the clone. Cite the document by its name or URL, or by its
# id in the catalog's `sources:` table (`sources: gke-gpudirect-tcpx`).
SEED_NUMBER = re.compile(r"seed\s*0\d", re.IGNORECASE)
UNFOLLOWABLE = [
    SEED_NUMBER,
    re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE),
    re.compile(r"shared/"),
    re.compile(r"\bFACTS\b|FAMILIES\.md|\bDOC-[A-Z0-9]"),  # the notes' files and their ids
]
CODE = sorted(
    path
    for path in [
        *(
            p
            for d in ("gpu_fabric", "offline", "verify", "bench", "tools", ".ci", ".github")
            for p in (ROOT / d).rglob("*")
            if p.is_file()
        ),
        ROOT / "program" / "__main__.py",
        ROOT / "Makefile",
    ]
    if "__pycache__" not in path.parts and path.exists()
)
TESTS = sorted(p for p in (ROOT / "tests").glob("*.py") if p.name != Path(__file__).name)
"""Every test module but this one, whose rules and examples name what they ban."""
SOURCE_ID = re.compile(r"sources: ([a-z0-9]+(?:-[a-z0-9]+)+)")
"""A citation by id: `sources: gke-gpudirect-tcpx` (ids are hyphenated)."""


def _unfollowable(path: Path, patterns: list[re.Pattern]) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []  # a binary file cites nothing
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return [
        f"{name}:{n}: {line.strip()}"
        for n, line in enumerate(text.splitlines(), 1)
        if any(p.search(line) for p in patterns)
    ]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_sources_are_named_not_numbered(document):
    """Internal source numbers ("seed 000") mean nothing to a reader: name the guide instead."""
    assert not _unfollowable(document, UNFOLLOWABLE)


def test_code_and_catalog_cite_what_a_reader_can_open():
    """Code, the catalog, the Makefile and CI: no seed or issue numbers, no path to the notes
    folder beside the clone (messages and objects the package writes come from here too)."""
    found = [line for path in CODE for line in _unfollowable(path, UNFOLLOWABLE)]
    assert not found, "\n".join(found)


def test_tests_name_no_seed_numbers():
    """Tests may name fixture files (tests/fixtures/seeds/...), not "seed 00N"."""
    found = [line for path in TESTS for line in _unfollowable(path, [SEED_NUMBER])]
    assert not found, "\n".join(found)


def test_the_checks_find_what_they_ban(tmp_path):
    cited = tmp_path / "cited.py"
    cited.write_text(
        "# Seed 000: the guide\n# the GKE GPUDirect-TCPX guide\n# issue 14, item 5\n"
        "# ../shared/reference\n# seed002\n# cluster-toolkit PR #5673\n# (FACTS 3.4)\n"
        "# (DOC-A3U-A4)\n# platform facts\n"
    )
    found = [line.split(":")[1] for line in _unfollowable(cited, UNFOLLOWABLE)]
    assert found == ["1", "3", "4", "5", "7", "8"]


def test_every_cited_source_id_is_in_the_catalog():
    """`sources: <id>` names an entry of the catalog's `sources:` table, which says what to open."""
    from gpu_fabric.catalog import catalog

    sources = catalog().sources
    cited = {
        (path.relative_to(ROOT), match)
        for path in [*CODE, *DOCUMENTS]
        if path.suffix in (".py", ".yaml", ".md")
        for match in SOURCE_ID.findall(path.read_text(encoding="utf-8"))
    }
    assert cited, "nothing cites a source by its id"
    unknown = sorted(f"{p}: {i}" for p, i in cited if i not in sources)
    assert not unknown, f"no such entry in gpu_fabric/catalog.yaml sources: {unknown}"
    for name, source in sources.items():
        assert source.title and source.cited_as, name
        assert source.url is None or source.url.startswith("https://"), name


def test_the_anchor_rule_matches_github():
    """The slug rule the link test relies on, on headings of the kind these pages have."""
    anchors = _anchors(ROOT / "docs" / "architecture.md")
    assert "split-deployment-private-api-endpoints" in anchors
    assert "using-the-layers-from-other-languages-pulumi-package-add" in anchors


def test_install_lines_name_the_repository_and_pin_only_released_versions():
    """The repository in every install line is pyproject.toml's; `@v<version>` appears only once
    CHANGELOG.md dates that version (until then the tag does not exist)."""
    import tomllib

    from gpu_fabric import __version__

    repository = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    repository_url = repository["Repository"]
    released = not re.search(
        rf"^## {re.escape(__version__)} \(unreleased\)", (ROOT / "CHANGELOG.md").read_text(), re.M
    )
    for doc in [ROOT / "README.md", *DOCS]:
        text = doc.read_text()
        for url in re.findall(r"https://github\.com/[^/\s]+/gpu-fabric\b", text):
            assert url == repository_url, (doc.name, url)
        assert "<org>/gpu-fabric" not in text, doc.name
        if not released:
            assert not re.search(r"gpu-fabric@v\d", text), doc.name


def test_the_layout_table_is_what_the_tree_gives():
    from tools import layout

    written = layout.PAGE.read_text(encoding="utf-8")
    assert layout.render(written) == written, (
        f"the layout table is out of date; run {layout.REGENERATE}"
    )


def test_every_file_the_where_a_change_goes_table_names_exists():
    """The table's file lists are real: a moved or renamed file fails here, not in a reader."""
    from tools import layout

    text = layout.PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Where a change goes") : text.index("BEGIN GENERATED: layout")]
    root = layout.ROOT
    named = set(
        re.findall(r"`((?:gpu_fabric|tests|tools|verify|docs)/[\w/.-]+\.(?:py|yaml|md))`", section)
    )
    assert len(named) > 15
    assert sorted(p for p in named if not (root / p).exists()) == []
