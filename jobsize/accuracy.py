"""The size model's accuracy on a trace as the FSPY paper shows it (§IV-B, Figures 2-4):
predicted against actual SE_m (total map time), SE_r (total reduce time) and S (job size,
memory·s), on log-log axes with the diagonal, and their R².

Each job of the trace is predicted either by a given fitted model (``model``: a
:class:`~jobsize.predictor.SizePredictor` or a model file — in-sample if it was fitted on this
trace, out-of-sample otherwise) or, without one, prequentially: each job by a model fitted only
on the jobs that finished before it, which is what a live FSPY meets. R² is unweighted on the
original scale, as the paper reports it; SE_r is scored on jobs with reduces. Jobs whose actual
or predicted value is not positive cannot sit on a log axis: they count in R² but are left out
of the plot, and the report says how many.

    from jobsize.accuracy import accuracy, write_accuracy_report
    report = accuracy(records, model="model.json", trace="trace.parquet")
    write_accuracy_report(report, Path("out"))
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.errors import ModelError

#: (quantity, actual column, predicted column, axis label, paper's figure, paper's R²)
QUANTITIES: tuple[tuple[str, str, str, str, int, float], ...] = (
    ("SE_m", "SE_m_s", "SE_m_pred_s", "total map time SE_m (s)", 2, 0.942),
    ("SE_r", "SE_r_s", "SE_r_pred_s", "total reduce time SE_r (s)", 3, 0.918),
    ("S", "S_mb_s", "S_pred_mb_s", "job size S (MB·s)", 4, 0.970),
)


@dataclass
class AccuracyReport:
    """Pairs of actual and predicted values per job, and the scores of each quantity."""

    pairs: pd.DataFrame
    r2: dict[str, float]
    mdare: dict[str, float]
    jobs: dict[str, int]
    mode: str  # how the jobs were predicted
    trace: str


def accuracy(records: pd.DataFrame, model: Any = None, *, trace: str = "",
             features: str = "probe", method: str = "gls") -> AccuracyReport:
    """Predict every job of ``records`` (see the module docstring) and score the predictions."""
    from jobsize.models.evaluation import MIN_HISTORY, in_sample_pairs, prequential_predictions

    if model is None:
        if len(records) <= MIN_HISTORY:
            raise ModelError(f"{len(records)} jobs: prequential predictions start after "
                             f"{MIN_HISTORY} finished jobs", source=trace or None)
        pairs = prequential_predictions(records, features=features, method=method)
        mode = (f"prequential ({features} features, {method}): each job predicted by a model "
                "fitted on the jobs that finished before it")
    else:
        from jobsize.predictor import SizePredictor

        predictor = (SizePredictor.load(model) if isinstance(model, str | os.PathLike)
                     else model)
        label = Path(model).name if isinstance(model, str | os.PathLike) else "fitted model"
        pairs = in_sample_pairs(predictor._model(), records)
        mode = f"model {label} ({predictor.features} features, {predictor.method})"
    if len(pairs) < 2:
        raise ModelError(f"{len(pairs)} jobs could be predicted; accuracy needs at least 2",
                         source=trace or None)
    r2, mdare, jobs = {}, {}, {}
    for name, actual_col, pred_col, *_ in QUANTITIES:
        actual, pred = _scored(pairs, name, actual_col, pred_col)
        jobs[name] = len(actual)
        r2[name] = _r2(actual, pred)
        pos = actual > 0
        mdare[name] = (float(np.median(np.abs(pred[pos] - actual[pos]) / actual[pos]))
                       if pos.any() else math.nan)
    return AccuracyReport(pairs=pairs, r2=r2, mdare=mdare, jobs=jobs, mode=mode, trace=trace)


def _scored(pairs: pd.DataFrame, name: str, actual_col: str, pred_col: str
            ) -> tuple[np.ndarray, np.ndarray]:
    rows = np.ones(len(pairs), bool)
    if name == "SE_r":
        rows = pairs["n_reduces"].to_numpy(float) > 0
    actual = pairs[actual_col].to_numpy(float)[rows]
    pred = pairs[pred_col].to_numpy(float)[rows]
    ok = np.isfinite(actual) & np.isfinite(pred)
    return actual[ok], pred[ok]


def _r2(actual: np.ndarray, pred: np.ndarray) -> float:
    from sklearn.metrics import r2_score

    if len(actual) < 2 or np.ptp(actual) == 0:
        return math.nan
    return float(r2_score(actual, pred))


# ---------------------------------------------------------------------------------------------


def scatter(report: AccuracyReport, quantity: str, path: Path) -> tuple[Path, int]:
    """Log-log scatter of predicted against actual ``quantity`` with the diagonal; returns the
    path and how many jobs could not be drawn (a value ≤ 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    name, actual_col, pred_col, label, figure, paper = next(
        q for q in QUANTITIES if q[0] == quantity)
    actual, pred = _scored(report.pairs, name, actual_col, pred_col)
    drawable = (actual > 0) & (pred > 0)
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    if drawable.any():
        x, y = actual[drawable], pred[drawable]
        ax.scatter(x, y, s=10, alpha=0.6)
        lo, hi = min(x.min(), y.min()), max(x.max(), y.max())
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(f"actual {label}")
    ax.set_ylabel(f"predicted {label}")
    r2 = report.r2[name]
    ax.set_title(f"Fig {figure}: {name}, R² = {r2:.3f} (paper {paper:.3f})"
                 if math.isfinite(r2) else f"Fig {figure}: {name}")
    ax.grid(alpha=0.3, which="both")
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path, int((~drawable).sum())


def write_accuracy_report(report: AccuracyReport, out: Path) -> list[Path]:
    """pairs.parquet, fig2_SE_m.png, fig3_SE_r.png, fig4_S.png and accuracy.md in ``out``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    paths = []
    with atomic_write(out / "pairs.parquet") as handle:
        pq.write_table(pa.Table.from_pandas(report.pairs, preserve_index=False), handle)
    paths.append(out / "pairs.parquet")
    hidden = {}
    for name, _, _, _, figure, _ in QUANTITIES:
        path, hidden[name] = scatter(report, name, out / f"fig{figure}_{name}.png")
        paths.append(path)
    atomic_write_text(out / "accuracy.md", markdown(report, hidden))
    return [*paths, out / "accuracy.md"]


def markdown(report: AccuracyReport, hidden: dict[str, int] | None = None) -> str:
    """The summary: R² beside the paper's, median relative error, jobs scored."""
    buf = io.StringIO()
    buf.write(f"# Size-model accuracy on {Path(report.trace).name or 'the trace'}\n\n")
    buf.write(f"- predictions: {report.mode}\n")
    buf.write(f"- jobs predicted: {len(report.pairs)}\n\n")
    buf.write("| quantity | figure | jobs | R² | paper R² | median \\|error\\| / actual |\n")
    buf.write("|---|---|---|---|---|---|\n")
    for name, _, _, _, figure, paper in QUANTITIES:
        r2, md = report.r2[name], report.mdare[name]
        buf.write(f"| {name} | fig{figure}_{name}.png | {report.jobs[name]} | "
                  f"{r2:.3f} | {paper:.3f} | "
                  f"{'–' if not math.isfinite(md) else f'{100 * md:.1f} %'} |\n")
    if hidden and any(hidden.values()):
        buf.write("\nNot drawn on the log axes (a value ≤ 0, still scored): "
                  + ", ".join(f"{k} {v}" for k, v in hidden.items() if v) + ".\n")
    buf.write("\nR² is unweighted on the original scale (seconds; S in memory MB·s), as the "
              "paper reports it; SE_r counts jobs with reduces. The paper's values come from "
              "its authors' cluster and workload.\n")
    return buf.getvalue()
