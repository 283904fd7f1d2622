"""Every ``python`` and ``sh`` block of README.md and docs/ runs, page by page.

Each page runs in its own interpreter, its blocks in order, in an empty directory outside the
clone — as a user runs them, with no ``datasets/`` beside them: bundled data is reached by name
(``jobsize.read_trace("reference")``), and a block that needs a file makes it. ``jobsize`` and
``python`` of this environment come first on PATH, and ``JOBSIZE_SHARED`` is as the tests see
it. Blocks tagged ``text`` (commands that need a real cluster, output) are not run; every block
must say its language.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from docs_blocks import RUN, blocks

ROOT = Path(__file__).resolve().parent.parent
# As tests/conftest.py finds it (that module's name is ambiguous to import from here).
SHARED = Path(os.environ.get("JOBSIZE_SHARED", ROOT.parent / "shared")).resolve()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUNNABLE = [p for p in PAGES if any(b.runs for b in blocks(p.read_text()))]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", RUNNABLE, ids=_name)
def test_the_page_runs(page: Path, tmp_path: Path) -> None:
    spec = [{"lang": RUN[b.lang], "code": b.code, "where": f"{_name(page)}:{b.line}"}
            for b in blocks(page.read_text()) if b.runs]
    if any("JOBSIZE_SHARED" in block["code"] for block in spec) and \
            not (SHARED / "hadoop").is_dir():
        reason = f"the page reads shared reference data, not found at {SHARED}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    (tmp_path / "blocks.json").write_text(json.dumps(spec))
    bindir = str(Path(sys.executable).parent)
    env = {key: value for key, value in os.environ.items() if key != "JOBSIZE_DATASET"}
    env |= {"PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
            "JOBSIZE_SHARED": str(SHARED), "MPLBACKEND": "Agg", "COLUMNS": "100"}
    with tempfile.TemporaryDirectory(prefix="jobsize-docs-") as scratch:
        work = Path(scratch).resolve()
        assert ROOT not in work.parents and not any(work.iterdir())
        result = subprocess.run([sys.executable, str(Path(__file__).with_name("docs_blocks.py")),
                                 str(tmp_path / "blocks.json")], cwd=work, env=env,
                                capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]


def test_every_block_says_its_language() -> None:
    untagged = [f"{_name(p)}:{b.line}" for p in PAGES for b in blocks(p.read_text())
                if not b.lang]
    assert not untagged, f"tag these blocks (text, if they must not run): {untagged}"


def test_the_harness_finds_blocks_in_lists_and_skips_text() -> None:
    text = "x\n\n- item\n\n    ```sh\n    echo hi\n    ```\n\n```text\nnot run\n```\n"
    found = blocks(text)
    assert [(b.lang, b.code, b.runs) for b in found] == [("sh", "echo hi\n", True),
                                                          ("text", "not run\n", False)]


def test_the_cli_reference_lists_every_command_and_no_hidden_alias() -> None:
    import importlib.util

    from jobsize.cli import COMMANDS, build_parser

    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "docs" / "hooks" / "cli_reference.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    text = hook.cli_reference(build_parser())
    for name in COMMANDS:
        assert f"## `jobsize {name}`" in text
    assert "#### `jobsize collect jhs`" in text
    assert "`--parallel N`" in text and "`-o, --output DIR`" in text
    for hidden in ("--workers", "`--out ", "`--jobs N` | parallel"):
        assert hidden not in text
    page = (ROOT / "docs" / "reference" / "cli.md").read_text()
    assert hook.MARKER in page
