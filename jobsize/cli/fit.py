"""``jobsize fit``: fit the SE_m / SE_r models on a trace and report their accuracy.

    jobsize fit [TRACE] [--features probe|actual] [--form tasks|paper] [--clock wall|cpu]
                [--eq7-fit actual|probe] [--method gls|wls|ols] [--cv K] [--cv-groups COLUMN]
                [--calibrate BY | --calibrate-with TRACE ...] [--seed S] [--level L]
                [-o MODEL.json]

Prints R² and median relative errors in-sample, K-fold cross-validated and prequentially beside
the paper's 0.942 / 0.918 / 0.970, then the coefficient tables of eq 6 and eq 7. ``-o`` writes
the model fitted on the whole trace (JSON, atomically). Without TRACE it fits the bundled
history: the measured reference trace in datasets/ and every local draw of kinds, stacked
(``history``), its intervals calibrated by leaving one kind out at a time. TRACE may name a
bundled trace or history (``reference``, ``hadoop-history``); the bundled reference and Hadoop
traces are calibrated on the bundled draws of kinds they never saw (``--calibrate-with``).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table

from jobsize.bundled import CALIBRATION_TRACES, calibration_for, default_trace
from jobsize.cli._options import level
from jobsize.errors import InputError
from jobsize.models.design import EQUATION, FEATURE_SETS, FORMS
from jobsize.models.evaluation import (
    PAPER_R2,
    QUANTITIES,
    SMALL_JOB_S,
    Evaluation,
    Scores,
    coefficient_tables,
    evaluate,
)
from jobsize.models.modelfile import save_model
from jobsize.models.regression import DEFAULT_LEVEL, PhaseModel
from jobsize.models.size_model import CLOCKS, FORM_DEFAULT, SizeModel
from jobsize.models.variance import METHODS
from jobsize.progress import progress_bar
from jobsize.schema import read_trace, read_traces

_LABEL = {"SE_m": "SE_m", "SE_r": "SE_r", "S": "S (memory·s)"}
#: Variance inflation above which `fit` warns that terms are nearly collinear (a common rule of
#: thumb puts trouble at 10; 100 means a term's values are 99 % explained by the others).
COLLINEAR_VIF = 100.0


def _folds(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"K must be 0 (no cross-validation) or at least 2, "
                                         f"got {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fit",
        help="fit the SE_m/SE_r models on a trace; report R² beside the paper's",
        description="Fit the paper's eq 6 (SE_m) and eq 7 (SE_r) on a trace of job records and "
        "report R² and median relative errors in-sample, K-fold cross-validated and "
        "prequentially, beside the paper's 0.942 / 0.918 / 0.970, with the coefficient tables.",
    )
    parser.add_argument("trace", nargs="?", metavar="TRACE",
                        help="job-record trace (parquet) or a bundled one by name; default: the "
                        "bundled history (the reference trace and the local draws)")
    parser.add_argument("--features", choices=FEATURE_SETS, default="probe",
                        help="probe: probe counters scaled by eq 8 (the paper's model); actual: "
                        "the job's own counters, the upper bound (default: probe)")
    parser.add_argument("--form", choices=FORMS, default=FORM_DEFAULT,
                        help="tasks: per-task costs scaled by N_m/N_r, per-map sort and combiner "
                        "terms (default); paper: the paper's eq 6-8 exactly")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="what SE measures: summed elapsed task time (wall, the paper's) "
                        "or summed task CPU time (cpu: steadier on a busy machine)")
    parser.add_argument("--eq7-fit", choices=FEATURE_SETS, default=None,
                        help="what eq 7 (SE_r) is fitted on — the jobs' own counters (actual) "
                        "or the probe's — predicting from --features either way (default: "
                        "actual with probe features in the tasks form, else --features)")
    parser.add_argument("--calibrate", default="auto", metavar="BY",
                        help="calibrate intervals and quantiles on out-of-sample errors, "
                        "leaving one BY out at a time: auto (job_type or the application of "
                        "the job name, default), a column name, folds (K-fold), or none")
    parser.add_argument("--calibrate-with", action="append", metavar="TRACE",
                        help="calibrate intervals and quantiles instead on the errors the model "
                        "makes on this trace's jobs, of kinds it never saw (repeatable; default: "
                        "for the bundled history, none (its kinds left out); for a bundled "
                        "trace, its bundled draws — "
                        + "; ".join(f"{trace}: {' and '.join(draws)}"
                                    for trace, draws in CALIBRATION_TRACES.items())
                        + "; none: leave kinds out)")
    parser.add_argument("--method", choices=METHODS, default="gls",
                        help="feasible GLS, WLS with variance ∝ mean², or OLS (default: gls)")
    parser.add_argument("--cv", type=_folds, default=5, metavar="K",
                        help="folds of cross-validation; 0 skips it (default: 5)")
    parser.add_argument("--cv-groups", metavar="COLUMN",
                        help="cross-validate leaving one group out at a time instead of K folds, "
                        "e.g. job_type: each job predicted by a model that never saw its kind of "
                        "job (sklearn's LeaveOneGroupOut)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the cross-validation shuffle (default: 0)")
    parser.add_argument("--level", type=level, default=DEFAULT_LEVEL,
                        help=f"coverage of prediction intervals (default: {DEFAULT_LEVEL:g})")
    parser.add_argument("-o", "--output", metavar="MODEL.json",
                        help="write the model fitted on the whole trace here")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    trace = Path(args.trace or default_trace())
    records = read_trace(trace)
    calibrate_by = {"none": None, "folds": None}.get(args.calibrate, args.calibrate)
    unseen, unseen_paths = _calibration_jobs(args, trace)
    model, evaluation = evaluate(records, args.features, args.method, args.level, args.cv,
                                 args.seed, progress=progress_bar, source=trace,
                                 groups=args.cv_groups, form=args.form, clock=args.clock,
                                 calibrate_by=calibrate_by if args.calibrate != "none" else
                                 "none", eq7_fit=args.eq7_fit, calibrate_with=unseen,
                                 calibration_source=", ".join(map(str, unseen_paths)))
    console = Console()
    sources = sorted(set(records["source"].dropna()))
    print_table(console, accuracy_table(evaluation, trace, model, sources))
    for phase, table in coefficient_tables(model).items():
        phase_model = model.se_m if phase == "SE_m" else model.se_r
        assert phase_model is not None
        print_table(console, coefficient_table(phase, table, phase_model))
    if model.se_r is None:
        console.print(model.training.get("note", "no eq 7 model"), style="yellow")
    console.print(model_summary(model), highlight=False)
    if args.output:
        model.training["trace"] = str(trace)
        model.training["evaluation"] = evaluation.to_dict()
        path = save_model(model, args.output)
        console.print(f"model written to {path}", soft_wrap=True, highlight=False)
    return 0


def _calibration_jobs(args: argparse.Namespace, trace: Path
                      ) -> tuple[pd.DataFrame | None, list[str]]:
    """The jobs of unseen kinds to calibrate on (``--calibrate-with``), or None."""
    given = args.calibrate_with or []
    if given == ["none"]:
        return None, []
    if given and args.calibrate != "auto":
        raise InputError("--calibrate and --calibrate-with are two ways to calibrate: give one")
    paths = given or ([] if args.calibrate != "auto" else
                      [str(p) for p in calibration_for(trace)])
    return (read_traces(paths), paths) if paths else (None, [])


# ---------------------------------------------------------------------------------------------
# Tables


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` whole: on a terminal as wide as the terminal, elsewhere (a file, a pipe)
    as wide as its cells need, so that no number is cut to fit rich's 80 columns."""
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    needed = console.measure(table, options=console.options.update_width(10_000)).maximum
    console.width = max(width, needed)  # print(width=) only narrows
    try:
        console.print(table)
    finally:
        console.width = width


def _r2(value: float) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.3f}"


def _pct(value: float) -> str:
    return "—" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def accuracy_table(ev: Evaluation, trace: Path, model: SizeModel,
                   sources: list[str] | None = None) -> Table:
    """R² and median errors per evaluation mode beside the paper's; ``sources`` names where the
    records came from (the trace's ``source`` column), so generated data says so."""
    modes: list[tuple[str, Scores | None]] = [("in-sample", ev.in_sample)]
    if ev.groups:
        modes.append((f"CV by {ev.groups}", ev.cross_validated))
    elif ev.folds:
        modes.append((f"{ev.folds}-fold CV", ev.cross_validated))
    modes.append(("prequential", ev.prequential))
    t = model.training
    origin = f" from {', '.join(sources)}" if sources else ""
    table = Table(
        title=f"Size-model accuracy — {trace.name}: {t['jobs']} jobs{origin} "
        f"({t['SE_m_jobs']} in eq 6, {t['SE_r_jobs']} in eq 7, {t['uber']} uber, "
        f"{t['map_only']} map-only) — {ev.features} features, {ev.form} form, "
        f"{ev.clock} clock, {ev.method}",
        caption="R²: unweighted, original scale. Error: median |predicted − actual| / actual. "
        "Within ±25 % / off by 2×: share of jobs. Coverage: share of jobs whose actual S lies "
        f"in its {100 * ev.level:g} % interval (CV: each fold's model calibrated on its own "
        "training jobs). "
        f"Small jobs: actual SE_m < {SMALL_JOB_S:g} s. SE_r scored on jobs with reduces. "
        "Prequential: each job predicted by a model fitted only on jobs that finished before "
        f"it ({ev.warmup} earliest jobs unscored). Paper: §IV-B, the authors' cluster and "
        "workload, not this trace.",
        title_justify="left",
        caption_justify="left",
    )
    table.add_column("")
    for name, _ in modes:
        table.add_column(name, justify="right")
    table.add_column("paper", justify="right", style="dim")

    def row(label: str, cell: Callable[[Scores], str], paper: str = "—") -> None:
        table.add_row(label, *(cell(s) if s is not None else "—" for _, s in modes), paper)

    row("jobs scored", lambda s: str(s.jobs))
    for q in QUANTITIES:
        row(f"R² {_LABEL[q]}", lambda s, q=q: _r2(s.r2[q]), f"{PAPER_R2[q]:.3f}")
    for q in QUANTITIES:
        row(f"median error {_LABEL[q]}", lambda s, q=q: _pct(s.mdare[q]))
    row("S within ±25 %", lambda s: _pct(s.within_25.get("S", math.nan)))
    row("S off by 2× or more", lambda s: _pct(s.off_2x.get("S", math.nan)))
    row(f"S in its {100 * ev.level:g} % interval", lambda s: _pct(s.coverage))
    row(f"small jobs (SE_m < {SMALL_JOB_S:g} s)", lambda s: str(s.small_jobs))
    for q in QUANTITIES:
        row(f"  median error {_LABEL[q]}", lambda s, q=q: _pct(s.mdare_small[q]))
    return table


def model_summary(model: SizeModel) -> str:
    """How the model scales the probe and how its intervals were made."""
    forms = {"tasks": "per-task form (per-task costs × N_m / N_r, per-map sort, combiner "
                      "terms)", "paper": "the paper's eq 6-8"}
    cal = model.training.get("calibration")
    intervals = (f"intervals and quantiles calibrated on {cal['jobs']} out-of-sample errors "
                 f"({cal['by']})" if cal else "GLS prediction intervals (not calibrated)")
    if cal and cal.get("probed_uber_jobs") and model.calibration_of(True)[1]:
        intervals += (f", and apart on {cal['probed_uber_jobs']} uber jobs sized from their "
                      "probes")
    apps = sum(len(v) for v in model.recurring.sums.values())
    cpu = model.training.get("function_time_from_cpu")
    fallback = (f" {cpu} jobs had no function times (no timing wrapper): their MFE/RFE are "
                "the tasks' CPU time." if cpu else "")
    keys = (f"; a key costs a reduce {model.key_cost:g} records' worth (κ, from the history)"
            if model.form == "tasks" and model.features == "probe" else "")
    eq7 = (f" (eq 7 fitted on the jobs' own counters, fed the {model.features}'s)"
           if model.eq7_fit else "")
    if model.form == "tasks":
        keys += (f"; reduces wait for the map waves of {model.map_slots:g} containers a job "
                 "(C, from the history)" if model.map_slots else
                 "; no reduce waits for map waves in the history (C = 0)")
    return (f"Model: {forms[model.form]}, {model.features} features{eq7}{keys}, "
            f"{model.clock}-clock "
            f"task times; {intervals}; per-application corrections for {apps} "
            f"application phase{'s' * (apps != 1)} (shrinkage k = {model.recurring.k:.3g})."
            f"{fallback}")


def coefficient_table(phase: str, coefs: pd.DataFrame, model: PhaseModel) -> Table:
    var, s = model.variance, math.sqrt(model.s2)
    spread = (f"residual sd {s:.3g} s" if var.power == 0 else
              f"residual sd ∝ mean^{var.power / 2:.2f} ({s:.3g} s at a geometric-mean job)")
    table = Table(
        title=f"eq {EQUATION[phase]}: {phase} (s) — {model.stats.n} jobs, {model.method}, "
        f"{spread}",
        title_justify="left",
    )
    for name in ("term", "coef", "std err", "t", "P>|t|", "VIF", "unit"):  # statsmodels' names
        table.add_column(name, justify="left" if name in ("term", "unit") else "right",
                         no_wrap=name == "term")  # a term's name is never cut
    for r in coefs.itertuples(index=False):
        if r.aliased:
            table.add_row(r.term, "0", "—", "—", "—", "—", r.unit)
        else:
            vif = "—" if math.isnan(r.vif) else f"{r.vif:.3g}"
            table.add_row(r.term, f"{r.coef:.4g}", f"{r.std_err:.3g}", f"{r.t:.2f}",
                          f"{r.p:.2g}", vif, r.unit)
    collinear = [r.term for r in coefs.itertuples(index=False)
                 if not r.aliased and r.vif >= COLLINEAR_VIF]
    aliased = [r.term for r in coefs.itertuples(index=False)
               if r.aliased and r.term != "wait"]  # C = 0: said under the tables
    notes = []
    if aliased:
        notes.append(f"{', '.join(aliased)}: aliased (no variation of their own in this trace), "
                     "dropped with coefficient 0.")
    if collinear:
        notes.append(
            f"{', '.join(collinear)}: VIF ≥ {COLLINEAR_VIF:g}, nearly a combination of the other "
            "terms in this trace. Their coefficients are unstable and may offset each other; "
            "jobs unlike the trace's in these terms can be predicted far off.")
    if notes:
        table.caption = " ".join(notes)
        table.caption_justify = "left"
        table.caption_style = "yellow"
    return table
