"""Helpers for benchmark scripts: where the shared data is, and how results are printed.

Every benchmark prints a measurement beside a baseline measured in the same run, and their ratio,
because this machine is shared and absolute timings drift.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def shared_root() -> Path:
    root = Path(os.environ.get("JOBSIZE_SHARED", REPO.parent / "shared")).resolve()
    if not (root / "hadoop").is_dir():
        sys.exit(f"shared reference data not found at {root} (set JOBSIZE_SHARED)")
    return root


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name: str, value: float, unit: str, baseline: float, baseline_name: str,
        goal: str = "") -> None:
    """Print one result: value, baseline, ratio (value / baseline) and the goal it is held to."""
    ratio = value / baseline if baseline else float("nan")
    print(f"{name:<44} {value:>14.4g} {unit:<10} baseline[{baseline_name}] {baseline:>12.4g} "
          f"ratio {ratio:>8.3g}  {goal}")
