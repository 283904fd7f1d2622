"""Check the layering contract (``[tool.importlinter]`` in pyproject.toml) with import-linter.

import-linter finds a package's modules by walking its folder, but ``jobsize.models``,
``jobsize.sampler`` and ``jobsize.collectors`` live in folders beside ``jobsize/`` (setuptools'
package-dir mapping) and are invisible to it in an editable install. So the package is laid out
as a wheel would install it — in a scratch directory, Python files only — and ``lint-imports``
runs there. Exit status: lint-imports' own (0 when every contract is kept).

    python scripts/lint_imports.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stage(target: Path) -> Path:
    """Copy every package's ``.py`` files to ``target`` at its installed place."""
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"]
    for name, src in package_dir.items():
        for source in (ROOT / src).rglob("*.py"):
            dest = target.joinpath(*name.split("."), source.relative_to(ROOT / src))
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
    return target


def lint_imports(*args: str, edit: Callable[[Path], object] | None = None,
                 ) -> subprocess.CompletedProcess[str]:
    """Run lint-imports on the staged package (after ``edit(staged folder)``, if given); its
    output in ``stdout``."""
    with tempfile.TemporaryDirectory(prefix="jobsize-layers-") as scratch:
        staged = stage(Path(scratch))
        if edit is not None:
            edit(staged)
        shutil.copyfile(ROOT / "pyproject.toml", staged / "pyproject.toml")
        env = {**os.environ, "PYTHONPATH": str(staged)}
        exe = Path(sys.executable).with_name("lint-imports")
        return subprocess.run([str(exe), "--no-cache", *args], cwd=staged, env=env,
                              capture_output=True, text=True)


if __name__ == "__main__":
    result = lint_imports(*sys.argv[1:])
    print(result.stdout + result.stderr, end="")
    sys.exit(result.returncode)
