"""What a measured trace holds, as Markdown: per job type, per FB-2009 bin, and how it was run.

``python -m jobsize.benchtrace.summary DIR`` (or a trace file with its ``.bench-trace.json``
beside it) prints the tables that ``datasets/DATASET.md`` quotes.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from jobsize.benchtrace.draw import FB2009_BINS
from jobsize.schema import read_trace


def _table(header: Sequence[str], rows: Sequence[Sequence[object]],
           right: Sequence[bool] | None = None) -> str:
    right = right or [i > 0 for i in range(len(header))]
    rule = ["---:" if r else "---" for r in right]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _seconds(ms: float) -> str:
    s = ms / 1000
    return f"{s:.2f}" if s < 10 else f"{s:.1f}" if s < 100 else f"{s:.0f}"


def type_table(trace: pd.DataFrame) -> str:
    """Jobs per job type: counts, map and reduce counts, SE_m range."""
    rows = []
    for name, g in trace.groupby("job_type", sort=True):
        rows.append((f"`{name}`", len(g), int((g["n_reduces"] == 0).sum()),
                     int(g["uberized"].fillna(False).sum()),
                     f"{int(g['n_maps'].min())}-{int(g['n_maps'].max())}",
                     f"{int(g['n_reduces'].min())}-{int(g['n_reduces'].max())}",
                     f"{_seconds(g['map_time_ms'].min())}-{_seconds(g['map_time_ms'].max())}"))
    rows.append(("**all**", len(trace), int((trace["n_reduces"] == 0).sum()),
                 int(trace["uberized"].fillna(False).sum()),
                 f"{int(trace['n_maps'].min())}-{int(trace['n_maps'].max())}",
                 f"{int(trace['n_reduces'].min())}-{int(trace['n_reduces'].max())}",
                 f"{_seconds(trace['map_time_ms'].min())}-"
                 f"{_seconds(trace['map_time_ms'].max())}"))
    return _table(("job type", "jobs", "map-only", "uber", "N_m", "N_r", "SE_m (s)"), rows,
                  [False, True, True, True, True, True, True])


def bin_table(trace: pd.DataFrame, map_scale: int) -> str:
    """Jobs per FB-2009 bin (by the map count drawn at Facebook's scale)."""
    n = len(trace)
    rows = []
    for b in FB2009_BINS:
        g = trace[(trace["fb_maps"] >= b.low) & (trace["fb_maps"] <= b.high)]
        rows.append((b.label, f"{100 * b.share:.1f}%",
                     f"{math.ceil(b.low / map_scale)}-{math.ceil(b.high / map_scale)}",
                     len(g), f"{100 * len(g) / max(n, 1):.1f}%",
                     int((g["n_reduces"] == 0).sum()), int(g["n_maps"].sum())))
    return _table(("FB-2009 maps", "FB-2009 share", "maps here", "jobs", "share",
                   "map-only", "maps run"), rows, [False, True, True, True, True, True, True])


def _probe_row(label: str, g: pd.DataFrame) -> tuple[object, ...]:
    # eq 8 scales the probe's map function time by 1/f_p; how far that lands from the job's
    # own map function time is the probe's error before any model is fitted.
    ratio = (g["probe_map_function_ms"] / g["probe_fraction"] / g["map_function_ms"]).astype(float)
    outside = ((g["map_time_ms"] - g["map_function_ms"]) / g["map_time_ms"]).astype(float)
    q1, q2, q3 = ratio.quantile([0.25, 0.5, 0.75])
    return (label, len(g), f"{q2:.2f}", f"{q1:.2f}-{q3:.2f}", f"{100 * outside.median():.0f}%")


def probe_table(trace: pd.DataFrame) -> str:
    """How well each type's probe foretells the job's map function time (MFE/f_p over MFE)."""
    probed = trace[trace["probe_fraction"].notna() & (trace["map_function_ms"] > 0)]
    rows = [_probe_row(f"`{name}`", g) for name, g in probed.groupby("job_type", sort=True)]
    rows.append(_probe_row("**all**", probed))
    return _table(("job type", "probed", "MFE/f_p ÷ job MFE, median", "interquartile range",
                   "SE_m outside the map function, median"), rows,
                  [False, True, True, True, True])


def summary(trace: pd.DataFrame) -> dict[str, Any]:
    """Headline numbers of a trace."""
    se_m = trace["map_time_ms"].to_numpy(dtype=float, na_value=np.nan) / 1000
    positive = se_m[se_m > 0]
    return {
        "jobs": len(trace),
        "succeeded": int((trace["state"] == "SUCCEEDED").sum()),
        "map_only": int((trace["n_reduces"] == 0).sum()),
        "uber": int(trace["uberized"].fillna(False).sum()),
        "probed": int(trace["probe_fraction"].notna().sum()),
        "maps": int(trace["n_maps"].sum()),
        "reduces": int(trace["n_reduces"].sum()),
        "se_m_min_s": float(positive.min()), "se_m_max_s": float(positive.max()),
        "se_m_decades": float(np.log10(positive.max() / positive.min())),
        "input_bytes": int(trace["map_input_bytes"].sum()),
    }


def all_runs(settings: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The runs that made a trace: its own, then those of each ``extensions`` entry — runs of
    another seed or distribution whose jobs were appended to the same trace file, each entry
    with its own ``seed``, ``distribution`` and ``runs``."""
    extra = [r for e in settings.get("extensions", []) for r in e.get("runs", [])]
    return [*settings.get("runs", []), *extra]


def run_table(settings: Mapping[str, Any]) -> str:
    """Each run of the trace (and of its extensions): when, how long, how loaded the machine
    was."""
    rows = []
    for i, r in enumerate(all_runs(settings), start=1):
        load = [x for x in r.get("load_1m", []) if x is not None]
        stats = (f"{min(load):.2f} / {statistics.mean(load):.2f} / {max(load):.2f}"
                 if load else "—")
        rows.append((i, r.get("started", "?"), r.get("finished", "?"), r.get("jobs", 0),
                     f"{r.get('wall_s', 0) / 60:.1f}", stats))
    return _table(("run", "started (UTC)", "finished (UTC)", "jobs", "wall (min)",
                   "load 1-min min / mean / max"), rows,
                  [True, False, False, True, True, False])


def report(trace: pd.DataFrame, settings: Mapping[str, Any]) -> str:
    dist = settings.get("distribution", {})
    s = summary(trace)
    head = (f"{s['jobs']} jobs ({s['succeeded']} succeeded), {s['map_only']} map-only "
            f"({100 * s['map_only'] / max(s['jobs'], 1):.1f}%), {s['uber']} uber, "
            f"{s['probed']} probed; {s['maps']} maps and {s['reduces']} reduces; SE_m from "
            f"{s['se_m_min_s']:.3f} s to {s['se_m_max_s']:.0f} s ({s['se_m_decades']:.1f} "
            f"orders of magnitude); {s['input_bytes'] / 2**20:.0f} MiB of input.")
    parts = [head, type_table(trace), bin_table(trace, int(dist.get("map_scale", 1))),
             probe_table(trace), run_table(settings)]
    return "\n\n".join(parts) + "\n"


def _settings_for(path: Path) -> tuple[Path, dict[str, Any]]:
    if path.is_dir():
        return path / "trace.parquet", json.loads((path / "bench-trace.json").read_text())
    stem = path.name[: -len(".parquet")] if path.name.endswith(".parquet") else path.name
    return path, json.loads(path.with_name(f"{stem}.bench-trace.json").read_text())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jobsize.benchtrace.summary")
    parser.add_argument("trace", help="a bench-trace directory, or a trace with its "
                        ".bench-trace.json beside it")
    args = parser.parse_args(argv)
    trace_path, settings = _settings_for(Path(args.trace))
    sys.stdout.write(report(read_trace(trace_path), settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
