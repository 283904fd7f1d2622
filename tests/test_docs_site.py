"""The documentation site's shape, checked on its Markdown sources (no build needed).

- A page that discusses a figure jobsize draws (names one of its PNGs) shows at least one image,
  and every image a page or the README shows is a file in the repository.
- No page is longer than 1,500 words of prose. Fenced code blocks and table rows are not
  counted: they are reference material — commands, output, option and result tables — that a
  reader looks up rather than reads through, and splitting a page to shorten a table of options
  would scatter it. What makes a page too long to read is its prose.
- Every page is in the navigation; the README is a landing page (at most 8 KiB, two set-up
  commands at the top) whose links into the docs resolve.
- Tables render as written: one separator row, and no ``\\|`` inside a code span (it renders
  with its backslash).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from docs_blocks import blocks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
MAX_WORDS = 1500

# The figures jobsize draws: `jobsize report` (fig2-4), `jobsize simulate` (mean response and
# ECDFs) and `jobsize simulate --reproduce fspy` (fig5-10).
_FIGURE = re.compile(r"\b(fig\d+_\w+|mean_response_by_rcp|ecdf_\w+)\.png\b")
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s#]+\.md)(#[^)\s]*)?\)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def prose(text: str) -> str:
    """The text without fenced code blocks and table rows."""
    kept, fence = [], None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        if line.lstrip().startswith("|"):
            continue
        kept.append(line)
    return "\n".join(kept)


def words(text: str) -> int:
    return len(prose(text).split())


def test_prose_leaves_out_code_and_tables() -> None:
    text = "one two\n\n```sh\nnot counted\n```\n\n| a | b |\n|---|---|\n| c | d |\n\nthree\n"
    assert words(text) == 3


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_page_exceeds_the_word_limit(page: Path) -> None:
    count = words(page.read_text())
    assert count <= MAX_WORDS, \
        f"{_name(page)}: {count} words of prose (at most {MAX_WORDS}): split it"


FIGURE_PAGES = [p for p in PAGES if _FIGURE.search(prose(p.read_text()))]


def test_the_figure_pages_are_found() -> None:
    names = {_name(p) for p in FIGURE_PAGES}
    assert {"docs/results/size-models.md", "docs/results/fspy-reproduction.md",
            "docs/simulator/index.md", "docs/simulator/fspy-and-hfsp.md"} <= names


@pytest.mark.parametrize("page", FIGURE_PAGES, ids=_name)
def test_a_page_that_discusses_a_figure_shows_one(page: Path) -> None:
    images = _IMAGE.findall(page.read_text())
    assert images, f"{_name(page)} names a figure jobsize draws but shows none"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=_name)
def test_every_image_is_a_committed_file(page: Path) -> None:
    for target in _IMAGE.findall(page.read_text()):
        assert "://" not in target, f"{_name(page)}: {target} is not in the repository"
        path = (page.parent / target).resolve()
        assert path.is_file() and DOCS in path.parents, f"{_name(page)}: no image {target}"


def _nav_pages(node) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set().union(*(_nav_pages(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_nav_pages(v) for v in node)) if node else set()
    return set()


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = _nav_pages(config["nav"])
    missing = [p.relative_to(DOCS).as_posix() for p in PAGES
               if p.relative_to(DOCS).as_posix() not in listed]
    assert not missing, f"add these pages to mkdocs.yml's nav: {missing}"
    stale = sorted(name for name in listed if not (DOCS / name).is_file())
    assert not stale, f"mkdocs.yml's nav names missing pages: {stale}"


def test_the_readme_is_a_landing_page() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    assert len(text.encode()) <= 8 * 1024, f"README.md is {len(text.encode())} bytes"
    first = blocks(text)[0]
    commands = first.code.strip().splitlines()
    assert first.lang == "text" and len(commands) == 2
    assert commands[0].endswith("pip install -e . && jobsize fit")
    assert commands[1].endswith("pip install -e '.[test]' && pytest")
    assert text.index(first.code) < text.index("\n## ")
    assert _IMAGE.search(text), "the README shows a figure"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=_name)
def test_links_to_pages_resolve(page: Path) -> None:
    for target, _ in _LINK.findall(prose(page.read_text())):
        if "://" in target:
            continue
        assert (page.parent / target).resolve().is_file(), f"{_name(page)}: no page {target}"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=_name)
def test_tables_render_as_written(page: Path) -> None:
    lines = page.read_text().splitlines()
    separator = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")
    for i, line in enumerate(lines[1:], start=1):
        assert not (separator.match(line) and separator.match(lines[i - 1])), \
            f"{_name(page)}:{i + 1}: a second separator row"
    for i, line in enumerate(lines, start=1):
        if line.lstrip().startswith("|"):
            for span in re.findall(r"`[^`]*`", line):
                assert "\\|" not in span, \
                    f"{_name(page)}:{i}: {span} renders with its backslash inside a table"
