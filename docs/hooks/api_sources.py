"""MkDocs hook: let mkdocstrings find jobsize.models, jobsize.sampler and jobsize.collectors.

mkdocstrings reads the sources without importing them, and finds a package's modules by walking
its folder — but those three sub-packages live in folders beside ``jobsize/`` (setuptools'
package-dir mapping). So, when the build starts, the package's Python files are laid out as a
wheel installs them in ``build/api-sources/`` (ignored by git), which ``mkdocs.yml`` gives the
Python handler as its search path.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
STAGED = ROOT / "build" / "api-sources"


def on_startup(**_: Any) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from lint_imports import stage

    shutil.rmtree(STAGED, ignore_errors=True)
    stage(STAGED)
