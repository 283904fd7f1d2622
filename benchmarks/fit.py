"""Speed of fitting, online updates and predictions, each beside a plain-numpy baseline.

The records are *generated* (models.synthetic: eq 6/7 with known coefficients and noise), not
measured — this measures speed, not accuracy. Rows:

- fit: ``SizePredictor().fit`` (feasible GLS: OLS, variance model, two GLS fits, for eq 6 and
  eq 7, plus the uber history) on N records — baseline: one ``numpy.linalg.lstsq`` per equation
  on design matrices built beforehand. Goal ≤ 5 s for 1M records.
- online update: ``SizePredictor.observe`` of one finished job (O(p²) statistics update) —
  baseline: what it replaces, a lstsq refit of eq 6 over the history. Goal ≤ 100 µs.
- observe + re-solve: the update plus re-solving both p × p systems (what happens when a
  prediction follows every update, as in prequential evaluation).
- one prediction: ``jobsize.predict(model, job_dict)`` with intervals, minE and APB — baseline:
  the bare arithmetic (two numpy dot products of rows built from the dict). Goal ≤ 50 µs.
- batch predictions: ``SizePredictor.predict`` on the N records — baseline: the two
  matrix-vector products on prebuilt design matrices.

    python benchmarks/fit.py [--jobs 1000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import best_of, row
from jobsize.models.design import design_matrix, input_columns
from jobsize.models.size_model import FORM_DEFAULT
from jobsize.models.synthetic import linear_trace

from jobsize.predictor import SizePredictor, predict


def _design(frame, phase):
    cols = {c: frame[c].to_numpy(dtype=float, na_value=np.nan) for c in frame.columns
            if str(frame[c].dtype) in ("Int64", "Float64")}
    x = design_matrix(cols, phase, "probe", se_m=cols["map_time_ms"] / 1000, form=FORM_DEFAULT)
    y = cols["map_time_ms" if phase == "SE_m" else "reduce_time_ms"] / 1000
    rows = np.isfinite(x).all(axis=1) & ~frame["uberized"].to_numpy(bool)
    if phase == "SE_r":
        rows &= cols["n_reduces"] > 0
    return x[rows], y[rows]


def _jobs(frame, n):
    names = [c for c in frame.columns if str(frame[c].dtype) in ("Int64", "Float64")]
    values = frame[names].iloc[:n].to_numpy(dtype=float, na_value=np.nan).tolist()
    uber = frame["uberized"].iloc[:n].to_numpy(bool).tolist()
    return [{**{k: v for k, v in zip(names, r, strict=True) if v == v}, "uberized": u}
            for r, u in zip(values, uber, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    t0 = time.perf_counter()
    frame = linear_trace(args.jobs, seed=0, uber=0.02)
    print(f"generated {len(frame):,} synthetic records in {time.perf_counter() - t0:.1f} s "
          f"(not measured data)")
    xm, ym = _design(frame, "SE_m")
    xr, yr = _design(frame, "SE_r")

    def lstsq_fit():
        return np.linalg.lstsq(xm, ym, rcond=None)[0], np.linalg.lstsq(xr, yr, rcond=None)[0]

    base_fit = best_of(lstsq_fit, args.repeat)
    est = SizePredictor()
    fit_s = best_of(lambda: est.fit(frame), args.repeat)
    row(f"fit {len(frame):,} records (gls)", fit_s, "s", base_fit, "numpy lstsq ×2",
        "goal ≤ 5 s")
    ols_s = best_of(lambda: SizePredictor(method="ols").fit(frame), args.repeat)
    row(f"fit {len(frame):,} records (ols)", ols_s, "s", base_fit, "numpy lstsq ×2")

    # online updates: a model fitted on 10k jobs learns 20k more
    history = frame.iloc[:10_000]
    jobs = _jobs(frame.iloc[10_000:], 20_000)
    hx, hy = _design(history, "SE_m")
    base_refit = best_of(lambda: np.linalg.lstsq(hx, hy, rcond=None), 5) * 1e6
    online = SizePredictor().fit(history)
    t0 = time.perf_counter()
    for job in jobs:
        online.observe(job)
    observe_us = (time.perf_counter() - t0) / len(jobs) * 1e6
    row("online update (observe one job)", observe_us, "µs/job", base_refit,
        "lstsq refit of 10k", "goal ≤ 100 µs")
    model = online.model_
    t0 = time.perf_counter()
    for job in jobs[:5000]:
        online.observe(job)
        model.se_m.refresh()
        model.se_r.refresh()
    resolve_us = (time.perf_counter() - t0) / 5000 * 1e6
    row("observe + re-solve both models", resolve_us, "µs/job", base_refit, "lstsq refit of 10k")

    # one prediction
    form = est.model_.form
    cols = {p: [c for c in input_columns(p, "probe", form) if c != "probe_fraction"]
            for p in ("SE_m", "SE_r")}
    coef_m, coef_r = est.model_.se_m.coef, est.model_.se_r.coef
    at_se_m = est.model_.se_r.terms.index("SE_m")
    probe_jobs = [j for j in jobs if not j["uberized"]][:10_000]

    def row_of(job, phase, width):  # the job's values cut or padded to the row's width
        values = [1.0, *(job[c] for c in cols[phase])][:width]
        return values + [0.0] * (width - len(values))

    def bare(job):  # rows of the right length from the dict, no eq 8 scaling or log term
        se_m = np.array(row_of(job, "SE_m", len(coef_m))) @ coef_m
        xr1 = np.array(row_of(job, "SE_r", len(coef_r)))
        xr1[at_se_m] = se_m
        return se_m, xr1 @ coef_r

    def timed(fn):
        t = time.perf_counter()
        for job in probe_jobs:
            fn(job)
        return (time.perf_counter() - t) / len(probe_jobs) * 1e6

    base_one = min(timed(bare) for _ in range(3))
    one_us = min(timed(lambda job: predict(est, job)) for _ in range(3))
    row("one prediction (jobsize.predict)", one_us, "µs", base_one, "numpy dot ×2",
        "goal ≤ 50 µs")

    # batch predictions
    base_batch = len(frame) / best_of(lambda: (xm @ coef_m, xr @ coef_r), args.repeat)
    batch = len(frame) / best_of(lambda: est.predict(frame), args.repeat)
    row("batch predictions (SizePredictor.predict)", batch, "jobs/s", base_batch,
        "numpy X @ β ×2")


if __name__ == "__main__":
    main()
