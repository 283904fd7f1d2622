"""The layering contract of pyproject.toml holds, and would catch an import against it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from lint_imports import lint_imports  # noqa: E402

pytest.importorskip("importlinter")

def test_every_contract_is_kept() -> None:
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout

@pytest.mark.parametrize(("module", "line", "contract"), [
    ("jobsize/models/job.py", "import jobsize.cli", "never imports the CLI"),
    ("jobsize/sampler/sampling.py", "import jobsize.models.job", "know only records"),
    ("jobsize/schema.py", "import jobsize.sim.cluster", "records → collectors"),
])
def test_an_import_against_the_layers_breaks_a_contract(module, line, contract) -> None:
    def add_import(staged: Path) -> None:
        path = staged / module
        path.write_text(path.read_text() + f"\n{line}\n")

    result = lint_imports(edit=add_import)
    assert result.returncode == 1
    broken = [ln for ln in result.stdout.splitlines() if ln.endswith("BROKEN")]
    assert any(contract in ln for ln in broken), result.stdout
