"""The job-size model: eq 6 and eq 7 fitted on a cluster's history plus the uber estimate, and what
a scheduler derives from them — S (eq 5), minE (eq 4), APB (eq 3) — with prediction intervals,
for one job or for a whole trace.

Which jobs train what:

- only jobs that SUCCEEDED (or whose state is not recorded): the paper adds a job to the data set
  "when [it] is finished successfully";
- uber jobs — recorded as uberized or, where that is not recorded, eligible by Hadoop's rule
  (:func:`jobsize.schema.uber_eligible`) — feed only the uber estimate (:mod:`models.uber`);
- other jobs enter eq 6 when every column it reads is known, and eq 7 when they also have reduces
  (N_r > 0); map-only jobs have SE_r = 0 and stay out of eq 7. Jobs never probed have null probe
  columns and are skipped by the ``probe`` models.

A history with no job that has reduces gives no eq 7 (``se_r`` is None): map-only and uber jobs
are still predicted, and predicting a job with reduces raises ModelError.

Predicting SE_r feeds the *predicted* SE_m into eq 7, so the SE_r interval also carries
``β7²·Var(SE_m)``, and S's interval combines both phases:
``Var(S) = (R_m + R_r·β7)²·Var(SE_m) + R_r²·Var(SE_r | SE_m)``, assuming the two models' errors
independent. S's interval uses the larger of the two models' t multipliers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from jobsize.models.design import (
    EQUATION,
    PROBE_FRACTION,
    check_features,
    design_matrix,
    design_row,
    input_columns,
    training_columns,
)
from jobsize.models.job import containers, is_uber
from jobsize.models.prediction import Prediction
from jobsize.models.regression import PhaseModel, check_level, t_quantile
from jobsize.models.resources import (
    PAPER_CLUSTER,
    Resources,
    job_size,
    min_e,
    min_e_array,
    uber_size,
)
from jobsize.models.uber import TaskTimes, UberEstimate
from jobsize.models.variance import check_method

from jobsize.errors import InputError, ModelError, SchemaError
from jobsize.schema import DEFAULT_CONTAINERS, SIZE_INPUTS, TARGETS, UBER_DEFAULTS, conform

SUCCEEDED = "SUCCEEDED"
_MS = 1e-3

#: Columns of :meth:`SizeModel.predict_frame`, units in the names.
PREDICTION_COLUMNS: tuple[str, ...] = (
    "job_id", "uber", "SE_m_s", "SE_m_low_s", "SE_m_high_s", "SE_r_s", "SE_r_low_s",
    "SE_r_high_s", "S_mb_s", "S_low_mb_s", "S_high_mb_s", "S_vcore_s", "S_low_vcore_s",
    "S_high_vcore_s", "minE_s", "APB_mb", "APB_vcores",
)


def _numeric_columns(features: str) -> tuple[str, ...]:
    names = dict.fromkeys((*training_columns("SE_m", features),
                           *training_columns("SE_r", features), *SIZE_INPUTS,
                           "map_input_bytes", *TARGETS.values()))
    return tuple(names)


# ---------------------------------------------------------------------------------------------
# A trace as float arrays


@dataclass
class _Trace:
    job_id: np.ndarray
    cols: dict[str, np.ndarray]
    success: np.ndarray
    uber: np.ndarray
    source: object

    @classmethod
    def of(cls, records: pd.DataFrame, features: str, source: object = None) -> _Trace:
        if not isinstance(records, pd.DataFrame):
            raise InputError(f"expected a DataFrame of job records, got {type(records).__name__}",
                             source=source)
        frame = conform(records, source=source)
        cols = {c: frame[c].to_numpy(dtype="float64", na_value=np.nan)
                for c in _numeric_columns(features)}
        state = frame["state"]
        success = (state.isna() | (state == SUCCEEDED)).fillna(False).to_numpy(dtype=bool)
        trace = cls(job_id=frame["job_id"].to_numpy(dtype=object, na_value=None), cols=cols,
                    success=success, uber=_uber_array(frame["uberized"], cols), source=source)
        trace._validate()
        return trace

    def __len__(self) -> int:
        return len(self.job_id)

    def where(self, i: int) -> str:
        job = self.job_id[i]
        return f"row {i}" + (f" (job {job})" if job is not None else "")

    def known(self, names: tuple[str, ...]) -> np.ndarray:
        ok = np.ones(len(self), dtype=bool)
        for name in names:
            ok &= np.isfinite(self.cols[name])
        return ok

    def subset(self, rows: np.ndarray, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        return {c: self.cols[c][rows] for c in names}

    def _validate(self) -> None:
        for name, values in self.cols.items():
            bad = values < 0
            if name == PROBE_FRACTION:
                bad |= (values == 0) | (values > 1)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                rule = "in (0, 1]" if name == PROBE_FRACTION else "non-negative"
                raise SchemaError(f"{self.where(i)}: {values[i]:g} is not {rule}",
                                  source=self.source, where=f"column {name!r}")


def _uber_array(uberized: pd.Series, cols: Mapping[str, np.ndarray]) -> np.ndarray:
    """Recorded uber flag, else Hadoop's rule with its defaults (see schema.uber_eligible)."""
    known = uberized.notna().to_numpy(dtype=bool)
    flag = uberized.fillna(False).to_numpy(dtype=bool)
    d = UBER_DEFAULTS
    with np.errstate(invalid="ignore"):
        eligible = ((cols["n_maps"] <= d["mapreduce.job.ubertask.maxmaps"])
                    & (cols["n_reduces"] <= min(1, d["mapreduce.job.ubertask.maxreduces"]))
                    & (cols["map_input_bytes"] <= d["mapreduce.job.ubertask.maxbytes"]))
    return np.where(known, flag, eligible)


def _task_times(values: np.ndarray) -> TaskTimes:
    values = values[np.isfinite(values)]
    if not len(values):
        return TaskTimes()
    mean = float(np.mean(values))
    return TaskTimes(count=len(values), mean=mean, m2=float(np.sum((values - mean) ** 2)))


def _interval(mean: float, var: float, t: float) -> tuple[float, float]:
    if math.isinf(t):
        return 0.0, math.inf
    half = t * math.sqrt(var) if var > 0 else 0.0
    return max(mean - half, 0.0), mean + half


# ---------------------------------------------------------------------------------------------


@dataclass
class SizeModel:
    """eq 6 + eq 7 + the uber estimate, fitted on job records."""

    features: str
    method: str
    level: float
    se_m: PhaseModel
    se_r: PhaseModel | None
    uber: UberEstimate
    training: dict[str, Any] = field(default_factory=dict)

    # -- fitting ------------------------------------------------------------------------------

    @classmethod
    def fit(cls, records: pd.DataFrame, features: str = "probe", method: str = "gls",
            level: float = 0.95, *, partial: bool = False, source: object = None) -> SizeModel:
        """Fit on a DataFrame of job records (see the module docstring for which jobs count).

        Too few usable jobs for eq 6 raise ModelError; so do too few for eq 7 unless there are
        none (then ``se_r`` is None) or ``partial`` is set (then ``se_r`` is None as well).
        """
        check_features(features)
        check_method(method)
        check_level(level)
        tr = _Trace.of(records, features, source)
        base = tr.success & ~tr.uber
        n_r = tr.cols["n_reduces"]
        m_rows = base & tr.known(training_columns("SE_m", features))
        r_rows = base & (n_r > 0) & tr.known(training_columns("SE_r", features))
        se_m = _fit_phase(tr, "SE_m", features, method, level, m_rows, base)
        se_r = None
        if r_rows.any():
            try:
                se_r = _fit_phase(tr, "SE_r", features, method, level, r_rows,
                                  base & (n_r > 0))
            except ModelError:
                if not partial:
                    raise
        uber = _uber_history(tr)
        training = {
            "jobs": len(tr), "succeeded": int(tr.success.sum()),
            "uber": int((tr.success & tr.uber).sum()),
            "SE_m_jobs": int(m_rows.sum()), "SE_r_jobs": int(r_rows.sum()),
            "map_only": int((base & (n_r == 0)).sum()),
            "skipped": int((base & ~m_rows).sum()), "observed": 0,
        }
        if se_r is None:
            training["note"] = "no eq 7 (SE_r) model: too few jobs with reduces"
        return cls(features=features, method=method, level=level, se_m=se_m, se_r=se_r,
                   uber=uber, training=training)

    # -- one job ------------------------------------------------------------------------------

    def predict_one(self, values: Mapping[str, float], conf: Mapping[str, object] | None = None,
                    cluster: Resources = PAPER_CLUSTER) -> Prediction:
        """Predict one job from :func:`jobsize.models.job.job_values` (plain floats, no pandas)."""
        try:
            n_m = values["n_maps"]
            n_r = values["n_reduces"]
        except KeyError as exc:
            raise InputError(f"missing {exc.args[0]!r}, needed by every prediction") from None
        rm_mem, rm_vc, rr_mem, rr_vc, ram_mem, ram_vc = containers(values)
        if is_uber(values, conf or {}):
            return self._predict_uber(n_m, n_r, Resources(ram_mem, ram_vc))
        self._check_fraction(values)
        se_m, var_m = self.se_m.predict_one(self._row(values, "SE_m"))
        se_r = var_own = b7 = t_r = 0.0
        if n_r > 0:
            if self.se_r is None:
                raise ModelError("this model has no eq 7 (SE_r): its history had too few jobs "
                                 "with reduces")
            se_r, var_own = self.se_r.predict_one(self._row(values, "SE_r", se_m))
            b7 = self.se_r.coef_list[-1]
            t_r = self.se_r.t
        r_m, r_r = Resources(rm_mem, rm_vc), Resources(rr_mem, rr_vc)
        size = job_size(se_m, se_r, r_m, r_r)
        var_mem = (rm_mem + rr_mem * b7) ** 2 * var_m + rr_mem * rr_mem * var_own
        var_vc = (rm_vc + rr_vc * b7) ** 2 * var_m + rr_vc * rr_vc * var_own
        return _prediction(se_m, var_m, self.se_m.t, se_r, var_own + b7 * b7 * var_m, t_r, size,
                           var_mem, var_vc, max(self.se_m.t, t_r),
                           min_e(se_m, se_r, n_m, n_r, r_m, r_r, cluster), self.level,
                           uber=False)

    def _predict_uber(self, n_m: float, n_r: float, r_am: Resources) -> Prediction:
        se_m, var_m, k_m = self.uber.predict("map", n_m)
        se_r, var_r, k_r = self.uber.predict("reduce", n_r)
        t_m = t_quantile(k_m - 1, self.level) if n_m > 0 else 0.0
        t_r = t_quantile(k_r - 1, self.level) if n_r > 0 else 0.0
        total = se_m + se_r
        var_t = var_m + var_r
        return _prediction(se_m, var_m, t_m, se_r, var_r, t_r, uber_size(se_m, se_r, r_am),
                           r_am.memory ** 2 * var_t, r_am.vcores ** 2 * var_t, max(t_m, t_r),
                           total, self.level, uber=True, apb=r_am)

    def _check_fraction(self, values: Mapping[str, float]) -> None:
        if self.features == "probe":
            f = values.get(PROBE_FRACTION)
            if f is not None and not 0 < f <= 1:
                raise InputError(f"probe_fraction {f:g} is not in (0, 1]",
                                 where=f"key {PROBE_FRACTION!r}")

    def _row(self, values: Mapping[str, float], phase: str,
             se_m: float | None = None) -> list[float]:
        try:
            return design_row(values, phase, self.features, se_m)
        except KeyError as exc:
            raise InputError(
                f"missing {exc.args[0]!r}, needed by eq {EQUATION[phase]} ({phase}) with "
                f"{self.features} features: {', '.join(input_columns(phase, self.features))}"
            ) from None

    def observe(self, values: Mapping[str, float], conf: Mapping[str, object] | None = None,
                state: object = None) -> tuple[str, ...]:
        """Add one finished job online (O(p²) per model); returns the parts it updated.

        The same rules as :meth:`fit` decide which parts a job feeds; jobs that did not succeed
        and jobs lacking a model's columns are left out of that model.
        """
        if state is not None and state != SUCCEEDED:
            return ()
        n_m, n_r = values.get("n_maps"), values.get("n_reduces")
        map_ms, reduce_ms = values.get(TARGETS["SE_m"]), values.get(TARGETS["SE_r"])
        if n_m is None or map_ms is None:
            return ()
        se_m = map_ms * _MS
        se_r = reduce_ms * _MS if reduce_ms is not None else (0.0 if n_r == 0 else None)
        uber = is_uber(values, conf or {})
        self.uber.add(n_m, n_r or 0.0, se_m, se_r, uber)
        updated = ["uber"]
        self.training["observed"] = self.training.get("observed", 0) + 1
        if uber:
            return tuple(updated)
        self._check_fraction(values)
        if all(c in values for c in training_columns("SE_m", self.features)):
            self.se_m.observe(design_row(values, "SE_m", self.features), se_m)
            updated.append("SE_m")
        if (self.se_r is not None and n_r and se_r is not None
                and all(c in values for c in training_columns("SE_r", self.features))):
            self.se_r.observe(design_row(values, "SE_r", self.features, se_m), se_r)
            updated.append("SE_r")
        return tuple(updated)

    # -- many jobs ----------------------------------------------------------------------------

    def predict_frame(self, records: pd.DataFrame, cluster: Resources = PAPER_CLUSTER, *,
                      errors: str = "raise", source: object = None) -> pd.DataFrame:
        """Predictions for every job of ``records`` (:data:`PREDICTION_COLUMNS`).

        ``errors="raise"``: a job that cannot be predicted (a needed column is null) raises
        InputError naming it; ``errors="nan"``: its row is NaN.
        """
        tr = _Trace.of(records, self.features, source)
        out, ok = self._predict_arrays(tr, cluster)
        if errors == "raise" and not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise InputError(f"{tr.where(i)}: {self._row_problem(tr, i)}", source=source)
        frame = pd.DataFrame({"job_id": pd.array(tr.job_id, dtype="string"), "uber": tr.uber,
                              **out})
        return frame[list(PREDICTION_COLUMNS)]

    def _predict_arrays(self, tr: _Trace, cluster: Resources
                        ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        c = tr.cols
        n = len(tr)
        n_m, n_r = c["n_maps"], c["n_reduces"]
        d = DEFAULT_CONTAINERS
        r = {k: np.where(np.isfinite(c[k]), c[k], d[k]) for k in DEFAULT_CONTAINERS}
        se_m, var_m = self.se_m.predict(design_matrix(c, "SE_m", self.features))
        has_r = n_r > 0
        se_r, var_r = np.zeros(n), np.zeros(n)
        b7, t_r = np.zeros(n), np.zeros(n)  # β7 applies to jobs with reduces only
        if self.se_r is not None and has_r.any():
            x_r = design_matrix(c, "SE_r", self.features, se_m=se_m)
            mean_r, v_r = self.se_r.predict(np.nan_to_num(x_r[has_r]))
            bad_r = ~np.isfinite(x_r[has_r]).all(axis=1)
            mean_r[bad_r], v_r[bad_r] = np.nan, np.nan
            se_r[has_r], var_r[has_r] = mean_r, v_r
            b7[has_r] = self.se_r.coef[-1]
            t_r[has_r] = self.se_r.t
        elif has_r.any():
            se_r[has_r] = var_r[has_r] = np.nan
        t_m = np.full(n, self.se_m.t)
        s_mem = r["map_memory_mb"] * se_m + r["reduce_memory_mb"] * se_r
        s_vc = r["map_vcores"] * se_m + r["reduce_vcores"] * se_r
        var_mem = ((r["map_memory_mb"] + r["reduce_memory_mb"] * b7) ** 2 * var_m
                   + r["reduce_memory_mb"] ** 2 * var_r)
        var_vc = ((r["map_vcores"] + r["reduce_vcores"] * b7) ** 2 * var_m
                  + r["reduce_vcores"] ** 2 * var_r)
        var_r = var_r + b7 * b7 * var_m
        min_e = min_e_array(se_m, se_r, n_m, n_r, (r["map_memory_mb"], r["map_vcores"]),
                            (r["reduce_memory_mb"], r["reduce_vcores"]), cluster)
        with np.errstate(divide="ignore", invalid="ignore"):
            apb_mem = np.where(min_e > 0, s_mem / min_e, 0.0)
            apb_vc = np.where(min_e > 0, s_vc / min_e, 0.0)
        arrays = {"se_m": se_m, "var_m": var_m, "t_m": t_m, "se_r": se_r, "var_r": var_r,
                  "t_r": t_r, "s_mem": s_mem, "s_vc": s_vc, "var_mem": var_mem,
                  "var_vc": var_vc, "min_e": min_e, "apb_mem": apb_mem, "apb_vc": apb_vc}
        self._fill_uber(tr, r, arrays)
        ok = np.isfinite(arrays["se_m"]) & np.isfinite(arrays["se_r"]) & np.isfinite(n_m) & \
            np.isfinite(n_r)
        return _columns(arrays, ok), ok

    def _fill_uber(self, tr: _Trace, r: dict[str, np.ndarray], a: dict[str, np.ndarray]) -> None:
        """Overwrite the rows of uber jobs with the historical estimate (see _predict_uber)."""
        rows = tr.uber
        if not rows.any():
            return
        n_m, n_r = tr.cols["n_maps"][rows], tr.cols["n_reduces"][rows]
        try:
            phases = {"map": (n_m, self.uber.history("map")),
                      "reduce": (n_r, self.uber.history("reduce"))}
        except ModelError:
            a["se_m"][rows] = np.nan
            return
        est = {}
        for phase, (n, h) in phases.items():
            has = n > 0
            mean = np.where(has, n * h.mean, 0.0)
            var = np.where(has, n * n * h.variance * (1 + 1 / h.count), 0.0)
            t = np.where(has, t_quantile(h.count - 1, self.level), 0.0)
            est[phase] = (mean, var, t)
        (se_m, var_m, t_m), (se_r, var_r, t_r) = est["map"], est["reduce"]
        total, var_t = se_m + se_r, var_m + var_r
        am_mem, am_vc = r["am_memory_mb"][rows], r["am_vcores"][rows]
        for key, value in (("se_m", se_m), ("var_m", var_m), ("t_m", t_m), ("se_r", se_r),
                           ("var_r", var_r), ("t_r", t_r), ("s_mem", am_mem * total),
                           ("s_vc", am_vc * total), ("var_mem", am_mem ** 2 * var_t),
                           ("var_vc", am_vc ** 2 * var_t), ("min_e", total),
                           ("apb_mem", np.where(total > 0, am_mem, 0.0)),
                           ("apb_vc", np.where(total > 0, am_vc, 0.0))):
            a[key][rows] = value

    def _row_problem(self, tr: _Trace, i: int) -> str:
        c = tr.cols
        for name in ("n_maps", "n_reduces"):
            if not math.isfinite(c[name][i]):
                return f"column {name!r} is null; every prediction needs it"
        if tr.uber[i]:
            return "cannot size this uber job from the history"
        phases = ("SE_m", "SE_r") if c["n_reduces"][i] > 0 else ("SE_m",)
        for phase in phases:
            for name in input_columns(phase, self.features):
                if not math.isfinite(c[name][i]):
                    return (f"column {name!r} is null; eq {EQUATION[phase]} ({phase}) with "
                            f"{self.features} features needs it")
        return "this model has no eq 7 (SE_r): its history had too few jobs with reduces"


def _fit_phase(tr: _Trace, phase: str, features: str, method: str, level: float,
               rows: np.ndarray, candidates: np.ndarray) -> PhaseModel:
    x = design_matrix(tr.subset(rows, input_columns(phase, features)), phase, features,
                      se_m=tr.cols[TARGETS["SE_m"]][rows] * _MS)
    y = tr.cols[TARGETS[phase]][rows] * _MS
    try:
        return PhaseModel.fit(phase, features, method, x, y, level)
    except ModelError as exc:
        raise ModelError(f"{exc.reason}{_null_hint(tr, phase, features, candidates)}",
                         source=tr.source) from None


def _null_hint(tr: _Trace, phase: str, features: str, candidates: np.ndarray) -> str:
    total = int(candidates.sum())
    if not total:
        return " (no successful non-uber job" + (" with reduces)" if phase == "SE_r" else ")")
    nulls = {c: int((~np.isfinite(tr.cols[c]) & candidates).sum())
             for c in training_columns(phase, features)}
    worst = max(nulls, key=nulls.__getitem__)
    if not nulls[worst]:
        return ""
    return f" (column {worst!r} is null in {nulls[worst]} of {total} candidate jobs)"


def _uber_history(tr: _Trace) -> UberEstimate:
    c = tr.cols
    rows = tr.success & np.isfinite(c["n_maps"]) & np.isfinite(c[TARGETS["SE_m"]])
    n_r = np.nan_to_num(c["n_reduces"])
    reduce_s = np.where(n_r == 0, 0.0, c[TARGETS["SE_r"]] * _MS)
    per = {
        "map": np.where(c["n_maps"] > 0, c[TARGETS["SE_m"]] * _MS / c["n_maps"], np.nan),
        "reduce": np.where(n_r > 0, reduce_s / np.where(n_r > 0, n_r, 1), np.nan),
    }
    est = UberEstimate()
    for phase, values in per.items():
        est.every[phase] = _task_times(values[rows])
        est.uber[phase] = _task_times(values[rows & tr.uber])
    return est


def _prediction(se_m: float, var_m: float, t_m: float, se_r: float, var_r: float, t_r: float,
                size: Resources, var_mem: float, var_vc: float, t_s: float, min_e: float,
                level: float, *, uber: bool, apb: Resources | None = None) -> Prediction:
    """Assemble a Prediction; APB is S / minE (eq 3) unless given (an uber job's is its AM)."""
    mem_lo, mem_hi = _interval(size.memory, var_mem, t_s)
    vc_lo, vc_hi = _interval(size.vcores, var_vc, t_s)
    if min_e <= 0:
        apb = Resources(0.0, 0.0)
    elif apb is None:
        apb = size * (1.0 / min_e)
    return Prediction(
        SE_m=se_m, SE_r=se_r, S=size, minE=min_e, APB=apb,
        SE_m_interval=_interval(se_m, var_m, t_m), SE_r_interval=_interval(se_r, var_r, t_r),
        S_interval=(Resources(mem_lo, vc_lo), Resources(mem_hi, vc_hi)), level=level, uber=uber)


def _columns(a: dict[str, np.ndarray], ok: np.ndarray) -> dict[str, np.ndarray]:
    def bounds(mean: np.ndarray, var: np.ndarray, t: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(invalid="ignore"):
            half = np.where(var > 0, t * np.sqrt(np.maximum(var, 0)), 0.0)
        half = np.where(np.isinf(t), np.inf, half)
        return np.maximum(mean - half, 0.0), mean + half

    t_s = np.maximum(a["t_m"], a["t_r"])
    m_lo, m_hi = bounds(a["se_m"], a["var_m"], a["t_m"])
    r_lo, r_hi = bounds(a["se_r"], a["var_r"], a["t_r"])
    s_lo, s_hi = bounds(a["s_mem"], a["var_mem"], t_s)
    v_lo, v_hi = bounds(a["s_vc"], a["var_vc"], t_s)
    out = {
        "SE_m_s": a["se_m"], "SE_m_low_s": m_lo, "SE_m_high_s": m_hi,
        "SE_r_s": a["se_r"], "SE_r_low_s": r_lo, "SE_r_high_s": r_hi,
        "S_mb_s": a["s_mem"], "S_low_mb_s": s_lo, "S_high_mb_s": s_hi,
        "S_vcore_s": a["s_vc"], "S_low_vcore_s": v_lo, "S_high_vcore_s": v_hi,
        "minE_s": a["min_e"], "APB_mb": a["apb_mem"], "APB_vcores": a["apb_vc"],
    }
    return {k: np.where(ok, v, np.nan) for k, v in out.items()}


def actual_sizes(records: pd.DataFrame, features: str = "probe") -> pd.DataFrame:
    """Observed SE_m, SE_r (s) and S (MB·s, vcore·s) of each job, by the rules the model uses.

    Columns: job_id, uber, succeeded, SE_m_s, SE_r_s, S_mb_s, S_vcore_s, finish_time_ms. SE_r of a
    map-only job is 0; S of an uber job is R_am·(SE_m + SE_r).
    """
    tr = _Trace.of(records, features)
    c = tr.cols
    d = DEFAULT_CONTAINERS
    r = {k: np.where(np.isfinite(c[k]), c[k], d[k]) for k in DEFAULT_CONTAINERS}
    se_m = c[TARGETS["SE_m"]] * _MS
    se_r = np.where(c["n_reduces"] == 0, 0.0, c[TARGETS["SE_r"]] * _MS)
    s_mem = np.where(tr.uber, r["am_memory_mb"] * (se_m + se_r),
                     r["map_memory_mb"] * se_m + r["reduce_memory_mb"] * se_r)
    s_vc = np.where(tr.uber, r["am_vcores"] * (se_m + se_r),
                    r["map_vcores"] * se_m + r["reduce_vcores"] * se_r)
    finish = conform(records)["finish_time_ms"].to_numpy(dtype="float64", na_value=np.nan)
    return pd.DataFrame({"job_id": pd.array(tr.job_id, dtype="string"), "uber": tr.uber,
                         "succeeded": tr.success, "n_reduces": c["n_reduces"],
                         "SE_m_s": se_m, "SE_r_s": se_r, "S_mb_s": s_mem, "S_vcore_s": s_vc,
                         "finish_time_ms": finish})

