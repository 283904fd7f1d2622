"""What every reproduction report shares: where and when it ran, markdown tables, the workload
of the benchmark tables, and writing the result atomically."""

from __future__ import annotations

import datetime as dt
import math
import os
import platform
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.sim.size_sources import ExactSizes, SizeSource
from jobsize.sim.workload import Workload, from_task_lists, make_jobs


def provenance(command: str, elapsed_s: float) -> str:
    """The lines saying what produced a report: the command, date, machine, run time."""
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = (f"{platform.node() or 'unknown host'}, {platform.machine()}, "
               f"{os.cpu_count()} CPUs, Python {platform.python_version()}")
    return (f"- produced by `{command}` on {now}\n- machine: {machine}\n"
            f"- simulation time: {elapsed_s:.0f} s\n")


def fmt(value: object, digits: int = 3) -> str:
    if isinstance(value, float | np.floating):
        v = float(value)
        return "–" if not math.isfinite(v) else f"{v:.{digits}g}"
    return str(value)


def table(frame: pd.DataFrame, digits: int = 3) -> str:
    """A markdown table of ``frame`` (index dropped)."""
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write(out: Path, text: str, frames: dict[str, pd.DataFrame]) -> Path:
    """``report.md`` and one CSV per frame into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        with atomic_write(out / f"{name}.csv", mode="w") as handle:
            frame.to_csv(handle, index=False)
    atomic_write_text(out / "report.md", text)
    return out / "report.md"


#: Tang's thesis, Table 3.2: the Purdue MapReduce benchmarks on the EC2 testbed —
#: (maps, reduces, mean map task s, mean reduce task s).
PURDUE: dict[str, tuple[int, int, float, float]] = {
    "WordCount": (160, 100, 22, 11), "Sort": (320, 200, 9, 24), "Grep": (480, 120, 9, 11),
    "InvertedIndex": (640, 100, 32, 23), "Classification": (160, 120, 6, 13),
    "HistogramMovies": (160, 150, 6, 13), "HistogramRatings": (160, 100, 18, 15),
    "SequenceCount": (320, 150, 38, 21), "TeraSort": (160, 100, 10, 26),
}


def benchmark_jobs(names: Sequence[str], *, submit_s: Sequence[float] | None = None,
                   noise: float = 0.0, seed: int = 0, queues: Sequence[str] | None = None,
                   name: str = "purdue") -> Workload:
    """Jobs of :data:`PURDUE` by name, each task its benchmark's mean time × exp(noise·Z)."""
    rng = np.random.default_rng(seed)
    maps, reduces = [], []
    for b in names:
        n_m, n_r, t_m, t_r = PURDUE[b]
        maps.append(t_m * np.exp(noise * rng.standard_normal(n_m)))
        reduces.append(t_r * np.exp(noise * rng.standard_normal(n_r)))
    n = len(names)
    columns: dict[str, object] = {"job_id": [f"{b}-{i}" for i, b in enumerate(names)],
                                  "submit_s": np.zeros(n) if submit_s is None
                                  else np.asarray(submit_s, float)}
    if queues is not None:
        columns["queue"] = np.asarray(queues)
    return from_task_lists(name, make_jobs(n, **columns), maps, reduces)


#: how the reports name the two kinds of knowledge a size-based scheduler is given
KNOWLEDGE = ("exact", "predicted")


def predicted_source(source: SizeSource | None = None) -> SizeSource:
    """What a reproduction's size-based schedulers know beside the exact sizes: ``source``, or
    by default jobsize's own predictions as FSPY's reproduction gets them — the prediction
    errors measured prequentially on the bundled reference trace, by size decile, each job's
    estimate known once its probe has run."""
    if source is not None:
        return source
    from jobsize.sim.predicted import parse_size_source

    return parse_size_source("errors")


def knowledge_sources(predicted: SizeSource) -> dict[str, SizeSource]:
    """The size source of each kind of :data:`KNOWLEDGE`."""
    return {"exact": ExactSizes(), "predicted": predicted}
