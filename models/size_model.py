"""The job-size model: eq 6 and eq 7 fitted on a cluster's history plus the uber model, and what
a scheduler derives from them — S (eq 5), minE (eq 4), APB (eq 3) — with intervals and
quantiles, for one job or for a whole trace.

Which jobs train what:

- only jobs that SUCCEEDED (or whose state is not recorded): the paper adds a job to the data set
  "when [it] is finished successfully";
- uber jobs — recorded as uberized or, where that is not recorded, by Hadoop's decision with
  Hadoop's defaults (:mod:`jobsize.ubermode`) — feed only the uber model
  (:mod:`jobsize.models.uber`), which sizes the uber jobs that carry no probe (one probed
  anyway is sized from its probe, in its ApplicationMaster's container);
- other jobs enter eq 6 when every term is known, and eq 7 when they also have reduces
  (N_r > 0); map-only jobs have SE_r = 0 and stay out of eq 7. Jobs never probed have null probe
  columns and are skipped by the ``probe`` models — except that eq 7 of a per-task probe
  model is fitted on the jobs' own counters (:func:`eq7_fit_default`), so every job with
  reduces and its own counters enters it; predictions feed it the probe's estimates.

A model has a ``form`` (:mod:`jobsize.models.design`: the paper's eq 6-8, or the per-task form)
and a ``clock``: ``wall`` (SE as the paper defines it, summed elapsed task time) or ``cpu``
(summed task CPU time, ``CPU_MILLISECONDS``, steadier on a loaded machine).

Predicting SE_r feeds the *predicted* SE_m into eq 7. Beyond the regression, each prediction
passes through what :meth:`SizeModel.fit` learnt besides the coefficients: a per-application
correction for recurring jobs (:mod:`jobsize.models.recurring`), a floor of N × the probe's
empty task or else the fastest task the history saw (:mod:`jobsize.models.guard`, which also
flags extrapolation), and, when
the model was calibrated, conformal intervals and quantiles (:mod:`jobsize.models.conformal`).
Without a calibration the intervals are GLS's: ``Var(S) = (R_m + R_r·b)²·Var(SE_m) +
R_r²·Var(SE_r | SE_m)`` with ``b = dSE_r/dSE_m`` (β7, plus β8·W with the wait term),
assuming the two models' errors independent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from jobsize.models.conformal import Calibration
from jobsize.models.design import (
    EQUATION,
    PROBE_FRACTION,
    check_features,
    check_form,
    design_matrix,
    design_row,
    input_columns,
    job_quantities,
    optional_columns,
    quantities,
    terms,
    training_columns,
)
from jobsize.models.guard import EMPTY_TASK_COLUMNS, Guard
from jobsize.models.job import containers, is_uber
from jobsize.models.prediction import Prediction
from jobsize.models.recurring import PHASES, UBER_PHASES, Recurring, application
from jobsize.models.regression import DEFAULT_LEVEL, PhaseModel, check_level, t_quantile
from jobsize.models.resources import (
    PAPER_CLUSTER,
    Resources,
    job_size,
    min_e,
    uber_size,
)
from jobsize.models.scaling import (
    KEY_COST_COLUMNS,
    PROBE_OPTIONAL,
    PROBE_REQUIRED,
    fit_key_cost,
    used_cpu_for_function_time,
)
from jobsize.models.uber import UberModel, task_times
from jobsize.models.uberprobe import UBER_PROBE_COLUMNS, uber_task_times
from jobsize.models.variance import check_method
from jobsize.models.waves import fit_map_slots, wave_factor, wave_factor_one

from jobsize.errors import ConfigError, InputError, ModelError, SchemaError
from jobsize.schema import DEFAULT_CONTAINERS, SIZE_INPUTS, conform
from jobsize.ubermode import decide_array

SUCCEEDED = "SUCCEEDED"
_MS = 1e-3
CLOCKS: dict[str, dict[str, str]] = {
    "wall": {"SE_m": "map_time_ms", "SE_r": "reduce_time_ms"},
    "cpu": {"SE_m": "map_cpu_ms", "SE_r": "reduce_cpu_ms"},
}
FORM_DEFAULT = "tasks"

#: Fewest out-of-sample errors a calibration needs before its intervals replace GLS's.
MIN_CALIBRATION = 20
#: Prefix of the calibrations of probed uber jobs (``uber:S``, ...): sized from the probe's
#: task times (on the wall clock), not as the regression sizes other jobs, they err their own way.
UBER_CALIBRATION = "uber:"
#: What each set of calibrations (the main one, the probed uber jobs') calibrates.
CALIBRATED: tuple[str, ...] = ("SE_m", "SE_r", "S")

#: Columns of :meth:`SizeModel.predict_frame`, units in the names.
PREDICTION_COLUMNS: tuple[str, ...] = (
    "job_id", "uber", "SE_m_s", "SE_m_low_s", "SE_m_high_s", "SE_r_s", "SE_r_low_s",
    "SE_r_high_s", "S_mb_s", "S_low_mb_s", "S_high_mb_s", "S_vcore_s", "S_low_vcore_s",
    "S_high_vcore_s", "minE_s", "APB_mb", "APB_vcores", "extrapolation",
)


def check_clock(clock: str) -> None:
    if clock not in CLOCKS:
        raise ConfigError(f"unknown clock {clock!r}; expected one of "
                          f"{', '.join(CLOCKS)}")


def eq7_fit_default(features: str, form: str) -> str:
    """What eq 7 is fitted on unless told: the jobs' own counters (``"actual"``) for a model of
    probe features in the per-task form, else the model's features (the paper fits both
    equations on the probe's). A probe's reduces see N_r / N_m of what one of the job's reduces
    does, so the probe's RFE is the noisiest feature; fitted on it, eq 7 shrinks RFE's
    coefficient toward 0 and lets the record terms stand in for the reduce function, which a
    kind with a cheap or a costly reducer does not share. Fitted on the jobs' own counters,
    eq 7 learns what a reduce's time is made of and is then fed the probe's estimates."""
    return "actual" if features == "probe" and form == "tasks" else features


def check_eq7_fit(eq7_fit: str, features: str) -> None:
    if eq7_fit not in (features, "actual"):
        raise ConfigError(f"eq 7 of a model of {features} features is fitted on its own "
                          f"features or on the jobs' own counters ('actual'), not {eq7_fit!r}")


def _numeric_columns(features: str, form: str, clock: str, eq7_fit: str | None = None
                     ) -> tuple[str, ...]:
    eq7 = eq7_fit or features
    names = dict.fromkeys((*training_columns("SE_m", features, form),
                           *training_columns("SE_r", features, form),
                           *optional_columns(features, form),
                           *training_columns("SE_r", eq7, form), *optional_columns(eq7, form),
                           *SIZE_INPUTS,
                           "map_input_bytes", *CLOCKS[clock].values(),
                           *CLOCKS["wall"].values(), *EMPTY_TASK_COLUMNS.values(),
                           *KEY_COST_COLUMNS))
    if features == "probe":  # an uber job's probe, scaled whatever the form (uber_task_times)
        names.update(dict.fromkeys((*PROBE_REQUIRED["SE_r"], *PROBE_OPTIONAL,
                                    *UBER_PROBE_COLUMNS)))
    return tuple(names)


# ---------------------------------------------------------------------------------------------
# A trace as float arrays


@dataclass
class _Trace:
    job_id: np.ndarray
    cols: dict[str, np.ndarray]
    success: np.ndarray
    uber: np.ndarray
    apps: list[str | None]
    source: object

    @classmethod
    def of(cls, records: pd.DataFrame, features: str, form: str, clock: str,
           source: object = None, eq7_fit: str | None = None) -> _Trace:
        if not isinstance(records, pd.DataFrame):
            raise InputError(f"expected a DataFrame of job records, got {type(records).__name__}",
                             source=source)
        frame = conform(records, source=source)
        cols = {c: frame[c].to_numpy(dtype="float64", na_value=np.nan)
                for c in _numeric_columns(features, form, clock, eq7_fit)}
        state = frame["state"]
        success = (state.isna() | (state == SUCCEEDED)).fillna(False).to_numpy(dtype=bool)
        apps = [application(n) for n in frame["job_name"].to_numpy(dtype=object, na_value=None)]
        trace = cls(job_id=frame["job_id"].to_numpy(dtype=object, na_value=None), cols=cols,
                    success=success, uber=_uber_array(frame["uberized"], cols), apps=apps,
                    source=source)
        trace._validate()
        return trace

    def __len__(self) -> int:
        return len(self.job_id)

    def where(self, i: int) -> str:
        job = self.job_id[i]
        return f"row {i}" + (f" (job {job})" if job is not None else "")

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
    """Recorded uber flag, else Hadoop's decision with Hadoop's defaults (uber mode off)."""
    known = uberized.notna().to_numpy(dtype=bool)
    flag = uberized.fillna(False).to_numpy(dtype=bool)
    eligible = decide_array(cols["n_maps"], cols["n_reduces"], cols["map_input_bytes"])
    return np.where(known, flag, eligible)


def _finite_rows(x: np.ndarray) -> np.ndarray:
    return np.isfinite(x).all(axis=1)


# ---------------------------------------------------------------------------------------------


@dataclass
class SizeModel:
    """eq 6 + eq 7 + the uber model, fitted on job records, with what serves predictions."""

    features: str
    method: str
    level: float
    se_m: PhaseModel
    se_r: PhaseModel | None
    uber: UberModel
    training: dict[str, Any] = field(default_factory=dict)
    form: str = "paper"
    clock: str = "wall"
    guards: dict[str, Guard] = field(default_factory=dict)
    recurring: Recurring = field(default_factory=Recurring)
    calibration: dict[str, Calibration] = field(default_factory=dict)
    key_cost: float = 0.0  # κ: what a key costs a reduce, in records (probe features, tasks form)
    map_slots: float = 0.0  # C: map containers a job gets, for eq 7's wait (0: no waves)
    probe_overhead: float = math.nan  # P̄ (s): the history's median probe start-up (NaN: none)
    eq7_fit: str | None = None  # what eq 7 was fitted on (None: the model's features)

    @property
    def eq7_features(self) -> str:
        """The features eq 7 was fitted on; it predicts from the model's own."""
        return self.eq7_fit or self.features

    # -- fitting ------------------------------------------------------------------------------

    @classmethod
    def fit(cls, records: pd.DataFrame, features: str = "probe", method: str = "gls",
            level: float = DEFAULT_LEVEL, *, form: str = FORM_DEFAULT, clock: str = "wall",
            partial: bool = False, source: object = None, eq7_fit: str | None = None
            ) -> SizeModel:
        """Fit on a DataFrame of job records (see the module docstring for which jobs count).

        ``eq7_fit``: what eq 7 is fitted on — the model's features or ``"actual"``, the jobs'
        own counters (default: :func:`eq7_fit_default`); it predicts from the model's features
        either way.

        Too few usable jobs for eq 6 raise ModelError; so do too few for eq 7 unless there are
        none (then ``se_r`` is None) or ``partial`` is set (then ``se_r`` is None as well).
        The model is not calibrated: see :func:`jobsize.models.evaluation.calibrate`.
        """
        check_features(features)
        check_method(method)
        check_level(level)
        check_form(form)
        check_clock(clock)
        eq7_fit = eq7_fit or eq7_fit_default(features, form)
        check_eq7_fit(eq7_fit, features)
        tr = _Trace.of(records, features, form, clock, source, eq7_fit)
        base = tr.success & ~tr.uber
        n_m, n_r = tr.cols["n_maps"], tr.cols["n_reduces"]
        targets = CLOCKS[clock]
        y_m = tr.cols[targets["SE_m"]] * _MS
        y_r = np.where(n_r == 0, 0.0, tr.cols[targets["SE_r"]] * _MS)
        key_cost = (fit_key_cost(tr.cols, base) if features == "probe" and form == "tasks"
                    else 0.0)
        x_r = design_matrix(tr.cols, "SE_r", eq7_fit, se_m=y_m, form=form, key_cost=key_cost)
        r_rows = base & (n_r > 0) & _finite_rows(x_r) & np.isfinite(y_r)
        map_slots = 0.0
        if r_rows.any() and "wait" in terms("SE_r", form) and clock == "wall":
            # a waiting reduce burns no CPU: on the CPU clock there is no wait to fit
            map_slots = _fit_waves(x_r, r_rows, y_m, y_r, n_m, n_r, eq7_fit, method, level,
                                   form)
        q = quantities(tr.cols, features, form, key_cost)
        overhead = _median_overhead(q, base) if form == "tasks" else math.nan
        x_m = design_matrix(tr.cols, "SE_m", features, form=form, q=q, overhead=overhead)
        m_rows = base & _finite_rows(x_m) & np.isfinite(y_m)
        se_m = _fit_phase(tr, "SE_m", features, method, level, form, clock, x_m[m_rows],
                          y_m[m_rows], base)
        guards = {"SE_m": Guard.of(x_m[m_rows], n_m[m_rows], y_m[m_rows],
                                   se_m.solution.xtwx_inv)}
        se_r = None
        if r_rows.any():
            try:
                se_r = _fit_phase(tr, "SE_r", features, method, level, form, clock,
                                  x_r[r_rows], y_r[r_rows], base & (n_r > 0), eq7_fit)
                guards["SE_r"] = Guard.of(x_r[r_rows], n_r[r_rows], y_r[r_rows],
                                          se_r.solution.xtwx_inv)
            except ModelError:
                if not partial:
                    raise
        training = {
            "jobs": len(tr), "succeeded": int(tr.success.sum()),
            "uber": int((tr.success & tr.uber).sum()),
            "SE_m_jobs": int(m_rows.sum()), "SE_r_jobs": int(r_rows.sum()),
            "map_only": int((base & (n_r == 0)).sum()),
            "skipped": int((base & ~m_rows).sum()), "observed": 0,
        }
        if se_r is None:
            training["note"] = "no eq 7 (SE_r) model: too few jobs with reduces"
        if form == "tasks":
            cpu = used_cpu_for_function_time({k: v[m_rows] for k, v in tr.cols.items()},
                                             features)
            if cpu:
                training["function_time_from_cpu"] = cpu
        model = cls(features=features, method=method, level=level, se_m=se_m, se_r=se_r,
                    uber=_uber_history(tr, y_m, y_r), training=training, form=form,
                    clock=clock, guards=guards, key_cost=key_cost,
                    eq7_fit=None if eq7_fit == features else eq7_fit, map_slots=map_slots,
                    probe_overhead=overhead)
        if eq7_fit != features:  # corrections learn the errors of what predictions are fed
            x_r = design_matrix(tr.cols, "SE_r", features, se_m=y_m, form=form, q=q,
                                map_slots=map_slots)
            r_rows = base & (n_r > 0) & _finite_rows(x_r) & np.isfinite(y_r)
        model.recurring = _recurring(model, tr, x_m, x_r, y_m, y_r, m_rows, r_rows)
        return model

    # -- one job ------------------------------------------------------------------------------

    def predict_one(self, values: Mapping[str, float], conf: Mapping[str, object] | None = None,
                    cluster: Resources = PAPER_CLUSTER) -> Prediction:
        """Predict one job from :func:`jobsize.models.job.job_values` (plain floats); ``conf``
        is the job's mapping as given (its configuration and name)."""
        conf = conf or {}
        try:
            n_m = values["n_maps"]
            n_r = values["n_reduces"]
        except KeyError as exc:
            raise InputError(f"missing {exc.args[0]!r}, needed by every prediction") from None
        app = application(conf.get("job_name", conf.get("mapreduce.job.name")))
        uber = is_uber(values, conf)
        if uber and not self._probed(values):
            return self._predict_uber(values, n_m, n_r, app)
        self._check_fraction(values)
        q = self._quantities(values)
        row_m = self._row(values, "SE_m", q=q)
        se_m, var_m = self.se_m.predict_one(row_m)
        se_r = var_r = b7 = 0.0
        row_r = None
        if n_r > 0:
            if self.se_r is None:
                raise ModelError("this model has no eq 7 (SE_r): its history had too few jobs "
                                 "with reduces")
            row_r = self._row(values, "SE_r", se_m, q)
            se_r, var_r = self.se_r.predict_one(row_r)
            b_m, b_wait = self._eq7_slopes()
            b7 = b_m + b_wait * wave_factor_one(n_m, n_r, self.map_slots)
        return self._finish(se_m, var_m, se_r, var_r, b7, values, n_m, n_r, app, row_m, row_r,
                            cluster, uber)

    def _eq7_slopes(self) -> tuple[float, float]:
        """β7 and the wait term's coefficient (0 without it): a job's dSE_r/dSE_m, what S's
        variance carries of SE_m's, is β7 + β8·W."""
        if self.se_r is None:
            return 0.0, 0.0
        names, coef = self.se_r.terms, self.se_r.coef_list
        return coef[names.index("SE_m")], coef[names.index("wait")] if "wait" in names else 0.0

    def _probed(self, values: Mapping[str, float]) -> bool:
        """Whether the job carries a probe record this model can size it from."""
        return self.features == "probe" and math.isfinite(values.get(PROBE_FRACTION, math.nan))

    def _finish(self, se_m: float, var_m: float, se_r: float, var_r: float, b7: float,
                values: Mapping[str, float], n_m: float, n_r: float, app: str | None,
                row_m: list[float] | None, row_r: list[float] | None,
                cluster: Resources, uber: bool = False) -> Prediction:
        """Corrections, floors, intervals and flags on top of the regression's means.

        An ``uber`` job here is one sized from its probe (``jobsize probe``'s default): its
        task times are the probe's scaled (:func:`~jobsize.models.uberprobe.uber_task_times`;
        eq 6 and 7's where the probe recorded none, or the model is on the CPU clock), and its
        tasks run one after another inside the ApplicationMaster's container — its size is
        that container's (eq 5 with R_am, as :func:`~jobsize.models.resources.uber_size`), its
        ideal run time their sum."""
        notes: list[str] = []
        # an uber job's wall-clock task times from its probe's (the probe times no CPU per task)
        direct = uber_task_times(values, self.key_cost) if uber and self.clock == "wall" \
            else None
        if direct is not None:
            direct = self._corrected(*direct, n_r, app, notes, UBER_PHASES)
            var_m, var_r = _rescaled(var_m, se_m, direct[0]), _rescaled(var_r, se_r, direct[1])
            se_m, se_r = direct
            b7, row_m, row_r = 0.0, None, None  # its SE_r does not follow eq 6's SE_m
        else:
            se_m, se_r = self._corrected(se_m, se_r, n_r, app, notes)
            se_m = self._floored("SE_m", se_m, n_m, values, notes)
            if n_r > 0:
                se_r = self._floored("SE_r", se_r, n_r, values, notes)
        rm_mem, rm_vc, rr_mem, rr_vc, ram_mem, ram_vc = containers(values)
        r_m, r_r = Resources(rm_mem, rm_vc), Resources(rr_mem, rr_vc)
        r_am = Resources(ram_mem, ram_vc) if uber else None
        size = job_size(se_m, se_r, r_m, r_r)
        extrapolation = self._outside(row_m, row_r)
        intervals = self._intervals(se_m, var_m, se_r, var_r, b7, size, r_m, r_r, n_r, r_am)
        m_int, r_int, s_int, quantiles, method = intervals
        if r_am is None:
            minimum = min_e(se_m, se_r, n_m, n_r, r_m, r_r, cluster)
            apb = Resources(0.0, 0.0) if minimum <= 0 else size * (1.0 / minimum)
        else:
            size, minimum = uber_size(se_m, se_r, r_am), se_m + se_r
            apb = r_am if minimum > 0 else Resources(0.0, 0.0)
            notes.append("uber job sized from its probe: its tasks run one after another in "
                         "the ApplicationMaster's container" + (
                             ", each taking what the probe's took beyond its functions"
                             if direct is not None else ""))
        return Prediction(SE_m=se_m, SE_r=se_r, S=size, minE=minimum, APB=apb,
                          SE_m_interval=m_int, SE_r_interval=r_int, S_interval=s_int,
                          level=self.level, uber=uber, quantiles=quantiles,
                          interval_method=method, extrapolation=tuple(extrapolation),
                          notes=tuple(notes))

    def _corrected(self, se_m: float, se_r: float, n_r: float, app: str | None,
                   notes: list[str], phases: tuple[str, str] = PHASES) -> tuple[float, float]:
        """SE_m and SE_r times their application's corrections, learnt on ``phases``' errors."""
        f_m = self.recurring.factor(phases[0], app)
        f_r = self.recurring.factor(phases[1], app) if n_r > 0 else 1.0
        if f_m != 1.0 or f_r != 1.0:
            notes.append(f"recurring application {app!r}: SE_m × {f_m:.3g}, SE_r × {f_r:.3g} "
                         "from its earlier runs")
        return se_m * f_m, se_r * f_r

    def _floored(self, phase: str, value: float, tasks: float, values: Mapping[str, float],
                 notes: list[str]) -> float:
        """``value``, or — below it, or negative — the least ``tasks`` tasks can cost: the
        probe's empty task of this phase where the probe ran one (no task of the job costs
        less; a kind faster than any in the history is not raised to the history's fastest),
        else the fastest mean task time in the history."""
        empty = values.get(EMPTY_TASK_COLUMNS[phase], math.nan) * _MS
        if math.isfinite(empty) and empty >= 0:
            floor, whence = tasks * empty, "the probe's empty task time"
        else:
            guard = self.guards.get(phase)
            floor = guard.floor(tasks) if guard is not None else 0.0
            whence = "the fastest mean task time in the history"
        if value < floor or not value >= 0:
            notes.append(f"{phase}: the linear model gave {value:.4g} s, below {tasks:g} × "
                         f"{whence}; raised to {floor:.4g} s")
            return floor
        return value

    def _outside(self, row_m: list[float] | None, row_r: list[float] | None) -> list[str]:
        out = []
        for phase, row, model in (("SE_m", row_m, self.se_m), ("SE_r", row_r, self.se_r)):
            guard = self.guards.get(phase)
            if row is None or guard is None or model is None:
                continue
            out += [f"{phase}:{name}" for name in guard.outside(row, model.terms,
                                                                 model.solution.xtwx_inv)]
        return out

    def _intervals(self, se_m: float, var_m: float, se_r: float, var_r: float, b7: float,
                   size: Resources, r_m: Resources, r_r: Resources, n_r: float,
                   r_am: Resources | None = None):
        """The phases' and S's intervals, S's quantiles and the method. With ``r_am`` (an
        uber job) S is expressed in the ApplicationMaster's container. Calibrated on probed
        uber jobs (:meth:`calibration_of`), S's quantiles are taken in the bin of that size,
        as calibration saw it; else the conformal scores, log ratios and scale-free, are
        taken in the bin of the job's size in map and reduce containers and scaled to it. The
        GLS variance is that of eq 5 with R_am for both phases."""
        cal, own = self.calibration_of(r_am is not None)
        level = self.level
        if all(cal.get(name) is not None and cal[name].size >= MIN_CALIBRATION
               for name in ("S", "SE_m")):
            m_int = cal["SE_m"].interval(se_m, level) if se_m > 0 else (0.0, 0.0)
            r_int = (cal["SE_r"].interval(se_r, level)
                     if n_r > 0 and se_r > 0 and "SE_r" in cal else (0.0, 0.0))
            shown = size if r_am is None else uber_size(se_m, se_r, r_am)
            if own:
                size = shown
            scale = shown.memory / size.memory if size.memory > 0 else 0.0
            lo, hi = cal["S"].interval(size.memory, level) if size.memory > 0 else (0.0, 0.0)
            ratio = shown.vcores / shown.memory if shown.memory > 0 else 0.0
            s_int = (Resources(lo * scale, lo * scale * ratio),
                     Resources(hi * scale, hi * scale * ratio))
            quantiles = ({q: v * scale for q, v in cal["S"].quantiles(size.memory).items()}
                         if size.memory > 0 else {})
            return m_int, r_int, s_int, quantiles, "conformal"
        if r_am is not None:
            r_m = r_r = r_am
            size = uber_size(se_m, se_r, r_am)
        t_m = self.se_m.t
        t_r = self.se_r.t if (self.se_r is not None and n_r > 0) else 0.0
        var_own = var_r
        var_mem = (r_m.memory + r_r.memory * b7) ** 2 * var_m + r_r.memory ** 2 * var_own
        var_vc = (r_m.vcores + r_r.vcores * b7) ** 2 * var_m + r_r.vcores ** 2 * var_own
        t_s = max(t_m, t_r)
        mem_lo, mem_hi = _interval(size.memory, var_mem, t_s)
        vc_lo, vc_hi = _interval(size.vcores, var_vc, t_s)
        return (_interval(se_m, var_m, t_m), _interval(se_r, var_own + b7 * b7 * var_m, t_r),
                (Resources(mem_lo, vc_lo), Resources(mem_hi, vc_hi)), {}, "gls")

    def calibration_of(self, uber: bool) -> tuple[dict[str, Calibration], bool]:
        """The calibrations that serve a job, and whether they are a probed uber job's own:
        an uber job sized from its probe takes its own (``uber:S``, ...; their errors are not
        those of the jobs eq 6 and 7 size) where calibration saw at least
        :data:`MIN_CALIBRATION` of them, else — and for every other job — the main ones."""
        main = {k: c for k, c in self.calibration.items() if not k.startswith(UBER_CALIBRATION)}
        if not uber:
            return main, False
        own = {k[len(UBER_CALIBRATION):]: c for k, c in self.calibration.items()
               if k.startswith(UBER_CALIBRATION) and c.size >= MIN_CALIBRATION}
        if "S" not in own or "SE_m" not in own:
            return main, False
        return {**main, **own}, True  # SE_r: the main one where too few uber jobs had reduces

    def _predict_uber(self, values: Mapping[str, float], n_m: float, n_r: float,
                      app: str | None) -> Prediction:
        """An uber job: the uber model's (or the history's mean task time's) estimate. Not
        corrected by its application's earlier runs: those corrections are learnt on what the
        regression or the probe made of them, not on the uber model's estimates."""
        mi = values.get("map_input_bytes")
        notes: list[str] = []
        se_m, v_m, k_m, fitted_m = self.uber.predict("map", n_m, n_m, mi)
        se_r, v_r, k_r, fitted_r = self.uber.predict("reduce", n_r, n_m, mi)
        if not (fitted_m and (fitted_r or n_r == 0)):
            notes.append("uber job sized from the history's mean task time (too few uber jobs "
                         "in the history for the uber model)")
        t_m = t_quantile(k_m - 1, self.level) if n_m > 0 else 0.0
        t_r = t_quantile(k_r - 1, self.level) if n_r > 0 else 0.0
        m_int = _log_interval(se_m, v_m, t_m) if fitted_m else _interval(se_m, v_m, t_m)
        r_int = _log_interval(se_r, v_r, t_r) if fitted_r else _interval(se_r, v_r, t_r)
        _, _, _, _, ram_mem, ram_vc = containers(values)
        r_am = Resources(ram_mem, ram_vc)
        size = uber_size(se_m, se_r, r_am)
        total = se_m + se_r
        s_lo, s_hi = m_int[0] + r_int[0], m_int[1] + r_int[1]
        return Prediction(SE_m=se_m, SE_r=se_r, S=size, minE=total,
                          APB=r_am if total > 0 else Resources(0.0, 0.0),
                          SE_m_interval=m_int, SE_r_interval=r_int,
                          S_interval=(r_am * s_lo, r_am * s_hi), level=self.level, uber=True,
                          interval_method="uber", notes=tuple(notes))

    def _check_fraction(self, values: Mapping[str, float]) -> None:
        if self.features == "probe":
            f = values.get(PROBE_FRACTION)
            if f is not None and not 0 < f <= 1:
                raise InputError(f"probe_fraction {f:g} is not in (0, 1]",
                                 where=f"key {PROBE_FRACTION!r}")

    def _quantities(self, values: Mapping[str, float]) -> dict[str, np.ndarray] | None:
        """The job's quantities, computed once for both equations (per-task form with the
        job's own counters; probe features take the plain-float path of ``design_row``)."""
        if self.form == "paper" or self.features == "probe":
            for name in input_columns("SE_m", self.features, self.form):
                if name not in values:
                    raise InputError(self._missing("SE_m", name))
            return None
        for name in input_columns("SE_m", self.features, self.form):
            if name not in values:
                raise InputError(self._missing("SE_m", name))
        return job_quantities(values, self.features, self.form, self.key_cost)

    def _row(self, values: Mapping[str, float], phase: str,
             se_m: float | None = None, q: dict[str, np.ndarray] | None = None,
             features: str | None = None) -> list[float]:
        """The job's design row of ``phase`` in ``features`` (default: the model's own, what
        predictions are fed; ``q`` only with those)."""
        features = features or self.features
        try:
            row = design_row(values, phase, features, se_m, self.form, q, self.key_cost,
                             self.map_slots, self.probe_overhead)
        except KeyError as exc:
            raise InputError(self._missing(phase, exc.args[0], features)) from None
        if not all(math.isfinite(v) for v in row):
            raise InputError(f"eq {EQUATION[phase]} ({phase}) cannot be evaluated for this "
                             "job: a value it needs is not a finite number")
        return row

    def _missing(self, phase: str, name: str, features: str | None = None) -> str:
        features = features or self.features
        return (f"missing {name!r}, needed by eq {EQUATION[phase]} ({phase}) with "
                f"{features} features ({self.form} form): "
                f"{', '.join(input_columns(phase, features, self.form))}")

    def observe(self, values: Mapping[str, float], conf: Mapping[str, object] | None = None,
                state: object = None) -> tuple[str, ...]:
        """Add one finished job online (O(p²) per model); returns the parts it updated.

        The job is first predicted as it would have been before it ran; that error feeds the
        calibration and its application's correction, then the job joins the fit. A job that
        did not succeed is ignored (returns ``()``); a successful job the model cannot learn
        from — no task times, or a non-uber job lacking a column eq 6 reads — raises
        InputError naming what is missing.
        """
        if state is not None and state != SUCCEEDED:
            return ()
        conf = conf or {}
        targets = CLOCKS[self.clock]
        n_m, n_r = values.get("n_maps"), values.get("n_reduces")
        map_ms, reduce_ms = values.get(targets["SE_m"]), values.get(targets["SE_r"])
        for name, value in (("n_maps", n_m), ("n_reduces", n_r), (targets["SE_m"], map_ms)):
            if value is None:
                raise InputError(f"cannot learn from this job: missing {name!r}")
        if n_r > 0 and reduce_ms is None:
            raise InputError(f"cannot learn from this job: missing {targets['SE_r']!r} of a "
                             "job with reduces")
        se_m = map_ms * _MS
        se_r = 0.0 if n_r == 0 else reduce_ms * _MS
        uber = is_uber(values, conf)
        app = application(conf.get("job_name", conf.get("mapreduce.job.name")))
        if uber:
            if self._probed(values):
                self._learn_uber_errors(values, conf, se_m, se_r, app)
            self.uber.add(n_m, n_r, values.get("map_input_bytes"), se_m, se_r, True)
            self.training["observed"] = self.training.get("observed", 0) + 1
            return ("uber",)
        self._check_fraction(values)
        q = self._quantities(values)  # raises, naming what is missing, before any update
        row_m = self._row(values, "SE_m", q=q)
        row_r = None
        if self.se_r is not None and n_r > 0:  # in what eq 7 was fitted on
            row_r = (self._row(values, "SE_r", se_m, features=self.eq7_fit) if self.eq7_fit
                     else self._row(values, "SE_r", se_m, q))
        self._learn_errors(values, row_m, n_r, se_m, se_r, app, conf, q)
        self.uber.add(n_m, n_r, values.get("map_input_bytes"), se_m, se_r, False)
        self.training["observed"] = self.training.get("observed", 0) + 1
        self.se_m.observe(row_m, se_m)
        self._widen("SE_m", row_m, n_m, se_m)
        updated = ["uber", "SE_m"]
        if row_r is not None:
            self.se_r.observe(row_r, se_r)
            self._widen("SE_r", row_r, n_r, se_r)
            updated.append("SE_r")
        return tuple(updated)

    def _learn_errors(self, values, row_m, n_r, se_m, se_r, app, conf, q) -> None:
        """Before learning a job: its out-of-sample errors for the calibration and its
        application's correction."""
        if self.calibration:  # before its own error joins its application's correction
            before = self.predict_one(values, conf)
            rm, _, rr, _, _, _ = containers(values)
            self._add_errors("", before, {"SE_m": se_m, "SE_r": se_r,
                                          "S": rm * se_m + rr * se_r}, n_r)
        raw_m = self.se_m.predict_one(row_m)[0]
        raw_r = 0.0
        if self.se_r is not None and n_r > 0:
            raw_r = self.se_r.predict_one(self._row(values, "SE_r", raw_m, q))[0]
        self.recurring.add("SE_m", app, _log_ratio(se_m, raw_m))
        if n_r > 0:
            self.recurring.add("SE_r", app, _log_ratio(se_r, raw_r))

    def _learn_uber_errors(self, values: Mapping[str, float], conf: Mapping[str, object],
                           se_m: float, se_r: float, app: str | None) -> None:
        """A probed uber job's errors, before it is learnt: for its own calibration, then its
        application's correction (of the probe's task times as scaled); none where its record
        cannot be predicted (the uber model learns it all the same)."""
        try:
            before = self.predict_one(values, conf)
        except (InputError, ModelError):
            return
        n_r = values["n_reduces"]
        ram = containers(values)[4]
        self._add_errors(UBER_CALIBRATION, before, {"SE_m": se_m, "SE_r": se_r,
                                                    "S": ram * (se_m + se_r)}, n_r)
        raw = uber_task_times(values, self.key_cost) if self.clock == "wall" else None
        if raw is not None:
            self.recurring.add(UBER_PHASES[0], app, _log_ratio(se_m, raw[0]))
            if n_r > 0:
                self.recurring.add(UBER_PHASES[1], app, _log_ratio(se_r, raw[1]))

    def _add_errors(self, prefix: str, before: Prediction, actual: Mapping[str, float],
                    n_r: float) -> None:
        """A job's errors added to the calibrations named ``prefix`` + SE_m, SE_r, S (SE_r only
        for a job with reduces)."""
        predicted = {"SE_m": before.SE_m, "SE_r": before.SE_r, "S": before.S.memory}
        for name, value in actual.items():
            cal = self.calibration.get(prefix + name)
            if cal is not None and (name != "SE_r" or n_r > 0):
                cal.add(predicted[name], value)

    def _widen(self, phase: str, row: list[float], tasks: float, y: float) -> None:
        if phase in self.guards:
            self.guards[phase].widen(row, tasks, y)

    # -- many jobs ----------------------------------------------------------------------------

    def predict_frame(self, records: pd.DataFrame, cluster: Resources = PAPER_CLUSTER, *,
                      errors: str = "raise", source: object = None) -> pd.DataFrame:
        """Predictions for every job of ``records`` (:data:`PREDICTION_COLUMNS`).

        ``errors="raise"``: a job that cannot be predicted (a needed column is null) raises
        InputError naming it; ``errors="nan"``: its row is NaN.
        """
        tr = _Trace.of(records, self.features, self.form, self.clock, source)
        c = tr.cols
        n = len(tr)
        q = quantities(c, self.features, self.form, self.key_cost)
        x_m = design_matrix(c, "SE_m", self.features, form=self.form, q=q,
                            overhead=self.probe_overhead)
        mean_m, var_m = self.se_m.predict(np.nan_to_num(x_m))
        mean_m[~_finite_rows(x_m)] = np.nan
        mean_r, var_r = np.zeros(n), np.zeros(n)
        has_r = c["n_reduces"] > 0
        x_r = None
        if self.se_r is not None:
            x_r = design_matrix(c, "SE_r", self.features, se_m=mean_m, form=self.form, q=q,
                                map_slots=self.map_slots)
            mr, vr = self.se_r.predict(np.nan_to_num(x_r))
            mr[~_finite_rows(x_r)] = np.nan
            mean_r, var_r = np.where(has_r, mr, 0.0), np.where(has_r, vr, 0.0)
        rows, ok = [], np.zeros(n, dtype=bool)
        b_m, b_wait = self._eq7_slopes()
        b7 = np.where(has_r, b_m + b_wait * wave_factor(c["n_maps"], c["n_reduces"],
                                                        self.map_slots), 0.0)
        for i in range(n):
            values = {k: float(v[i]) for k, v in c.items() if math.isfinite(v[i])}
            try:
                if not math.isfinite(c["n_maps"][i]) or not math.isfinite(c["n_reduces"][i]):
                    raise InputError("column 'n_maps' or 'n_reduces' is null; every "
                                     "prediction needs it")
                if tr.uber[i] and not self._probed(values):
                    p = self._predict_uber(values, values["n_maps"], values["n_reduces"],
                                           tr.apps[i])
                elif not math.isfinite(mean_m[i]) or (has_r[i] and not math.isfinite(
                        mean_r[i])):
                    raise InputError(self._row_problem(tr, i))
                else:
                    row_r = x_r[i].tolist() if (x_r is not None and has_r[i]) else None
                    p = self._finish(float(mean_m[i]), float(var_m[i]), float(mean_r[i]),
                                     float(var_r[i]), float(b7[i]), values,
                                     values["n_maps"], values["n_reduces"], tr.apps[i],
                                     x_m[i].tolist(), row_r, cluster, bool(tr.uber[i]))
            except (InputError, ModelError) as exc:
                if errors == "raise":
                    raise InputError(f"{tr.where(i)}: {getattr(exc, 'reason', exc)}",
                                     source=source) from None
                rows.append(None)
                continue
            ok[i] = True
            rows.append(p)
        frame = pd.DataFrame([_frame_row(p) for p in rows], columns=list(PREDICTION_COLUMNS[1:]))
        frame.insert(0, "job_id", pd.array(tr.job_id, dtype="string"))
        frame["uber"] = tr.uber
        return frame[list(PREDICTION_COLUMNS)]

    def _row_problem(self, tr: _Trace, i: int) -> str:
        c = tr.cols
        if self.se_r is None and c["n_reduces"][i] > 0:
            return "this model has no eq 7 (SE_r): its history had too few jobs with reduces"
        phases = ("SE_m", "SE_r") if c["n_reduces"][i] > 0 else ("SE_m",)
        for phase in phases:
            for name in input_columns(phase, self.features, self.form):
                if name in c and not math.isfinite(c[name][i]):
                    return (f"column {name!r} is null; eq {EQUATION[phase]} ({phase}) with "
                            f"{self.features} features needs it")
        return "a value eq 6 or eq 7 needs is not a finite number"


_NAN_ROW = {k: math.nan for k in PREDICTION_COLUMNS[2:-1]}


def _frame_row(p: Prediction | None) -> dict[str, object]:
    if p is None:
        return {**_NAN_ROW, "extrapolation": None}
    (s_lo, s_hi) = p.S_interval
    return {
        "SE_m_s": p.SE_m, "SE_m_low_s": p.SE_m_interval[0], "SE_m_high_s": p.SE_m_interval[1],
        "SE_r_s": p.SE_r, "SE_r_low_s": p.SE_r_interval[0], "SE_r_high_s": p.SE_r_interval[1],
        "S_mb_s": p.S.memory, "S_low_mb_s": s_lo.memory, "S_high_mb_s": s_hi.memory,
        "S_vcore_s": p.S.vcores, "S_low_vcore_s": s_lo.vcores, "S_high_vcore_s": s_hi.vcores,
        "minE_s": p.minE, "APB_mb": p.APB.memory, "APB_vcores": p.APB.vcores,
        "extrapolation": ",".join(p.extrapolation),
    }


def _rescaled(variance: float, mean: float, other: float) -> float:
    """eq 6 or 7's ``variance`` about ``mean`` carried to the estimate ``other`` at the same
    relative spread, never wider than it was (the regression's mean may be near zero)."""
    return variance * (other / max(mean, other)) ** 2 if other > 0 else variance


def _log_ratio(actual: float, predicted: float) -> float:
    if actual > 0 and predicted > 0:
        return math.log(actual / predicted)
    return math.nan


def _interval(mean: float, var: float, t: float) -> tuple[float, float]:
    if math.isinf(t):
        return 0.0, math.inf
    half = t * math.sqrt(var) if var > 0 else 0.0
    return max(mean - half, 0.0), mean + half


#: Largest argument of ``math.exp`` below its overflow.
_MAX_EXP = 700.0


def _log_interval(mean: float, var_log: float, t: float) -> tuple[float, float]:
    if mean <= 0:
        return 0.0, 0.0
    if math.isinf(t):
        return 0.0, math.inf
    half = t * math.sqrt(max(var_log, 0.0))
    if half > _MAX_EXP:  # a spread wider than a double holds: no upper bound
        return mean * math.exp(-_MAX_EXP), math.inf
    return mean * math.exp(-half), mean * math.exp(half)


def _median_overhead(q: Mapping[str, np.ndarray], rows: np.ndarray) -> float:
    """P̄ of the ``N_m·ΔPO`` term: the median probe start-up (s) of the history's ``rows``
    where known; NaN where none is (the term is then 0)."""
    po = np.asarray(q["PO"], dtype=float)[rows]
    po = po[np.isfinite(po)]
    return float(np.median(po)) if len(po) else math.nan


def _fit_phase(tr: _Trace, phase: str, features: str, method: str, level: float, form: str,
               clock: str, x: np.ndarray, y: np.ndarray, candidates: np.ndarray,
               fitted_on: str | None = None) -> PhaseModel:
    """The phase model of ``features`` (what it predicts from), fitted on rows ``x`` of
    ``fitted_on`` (default: the same features)."""
    try:
        return PhaseModel.fit(phase, features, method, x, y, level, form)
    except ModelError as exc:
        hint = _null_hint(tr, phase, fitted_on or features, form, clock, candidates)
        raise ModelError(f"{exc.reason}{hint}", source=tr.source) from None


def _fit_waves(x_r: np.ndarray, rows: np.ndarray, y_m: np.ndarray, y_r: np.ndarray,
               n_m: np.ndarray, n_r: np.ndarray, features: str, method: str, level: float,
               form: str) -> float:
    """C of eq 7's wait term from the history's ``rows`` (:func:`fit_map_slots`); ``x_r``'s
    wait column is filled with it."""
    col = terms("SE_r", form).index("wait")
    x, y, se_m, tasks = x_r[rows], y_r[rows], y_m[rows], (n_m[rows], n_r[rows])

    def fit(slots: float) -> tuple[np.ndarray, float] | None:
        x[:, col] = se_m * wave_factor(*tasks, slots)
        try:
            coef = PhaseModel.fit("SE_r", features, method, x, y, level, form).coef
        except ModelError:
            return None
        return x @ coef, float(coef[col])

    slots = fit_map_slots(*tasks, y, fit)
    x_r[:, col] = y_m * wave_factor(n_m, n_r, slots)
    return slots


def _null_hint(tr: _Trace, phase: str, features: str, form: str, clock: str,
               candidates: np.ndarray) -> str:
    total = int(candidates.sum())
    if not total:
        return " (no successful non-uber job" + (" with reduces)" if phase == "SE_r" else ")")
    needed = (*input_columns(phase, features, form), CLOCKS[clock][phase])
    nulls = {c: int((~np.isfinite(tr.cols[c]) & candidates).sum()) for c in needed}
    worst = max(nulls, key=nulls.__getitem__)
    if not nulls[worst]:
        return ""
    return f" (column {worst!r} is null in {nulls[worst]} of {total} candidate jobs)"


def _uber_history(tr: _Trace, y_m: np.ndarray, y_r: np.ndarray) -> UberModel:
    """The uber model: mean task times of all and of uber jobs, and the log-linear models of
    the uber jobs."""
    c = tr.cols
    model = UberModel()
    rows = tr.success & np.isfinite(c["n_maps"]) & np.isfinite(y_m)
    n_m, n_r, mi = c["n_maps"], np.nan_to_num(c["n_reduces"]), c["map_input_bytes"]
    with np.errstate(divide="ignore", invalid="ignore"):
        per = {"map": np.where(n_m > 0, y_m / n_m, np.nan),
               "reduce": np.where(n_r > 0, y_r / n_r, np.nan)}
    for phase, values in per.items():
        model.fallback.every[phase] = task_times(values[rows])
        model.fallback.uber[phase] = task_times(values[rows & tr.uber])
    for i in np.flatnonzero(rows & tr.uber):
        model.learn(float(n_m[i]), float(n_r[i]), float(mi[i]), float(y_m[i]),
                    float(y_r[i]) if math.isfinite(y_r[i]) else None)
    return model


def _recurring(model: SizeModel, tr: _Trace, x_m: np.ndarray, x_r: np.ndarray,
               y_m: np.ndarray, y_r: np.ndarray, m_rows: np.ndarray,
               r_rows: np.ndarray) -> Recurring:
    """Per-application corrections from the fitted jobs' errors (the part of each
    application's cost the global model misses)."""
    err = {"SE_m": np.full(len(tr), np.nan), "SE_r": np.full(len(tr), np.nan)}
    with np.errstate(divide="ignore", invalid="ignore"):
        pm = model.se_m.predict(np.nan_to_num(x_m))[0]
        err["SE_m"] = np.where(m_rows & (pm > 0) & (y_m > 0), np.log(y_m / pm), np.nan)
        if model.se_r is not None:
            pr = model.se_r.predict(np.nan_to_num(x_r))[0]
            err["SE_r"] = np.where(r_rows & (pr > 0) & (y_r > 0), np.log(y_r / pr), np.nan)
    return Recurring.fit(tr.apps, err)


def actual_sizes(records: pd.DataFrame, features: str = "probe", clock: str = "wall"
                 ) -> pd.DataFrame:
    """Observed SE_m, SE_r (s) and S (MB·s, vcore·s) of each job, by the rules the model uses.

    Columns: job_id, uber, probed, succeeded, n_reduces, SE_m_s, SE_r_s, S_mb_s, S_vcore_s,
    finish_time_ms. SE_r of a map-only job is 0; S of an uber job is R_am·(SE_m + SE_r);
    ``probed``: the job carries a probe record the model sizes it from.
    """
    tr = _Trace.of(records, features, "paper", clock)
    c = tr.cols
    d = DEFAULT_CONTAINERS
    r = {k: np.where(np.isfinite(c[k]), c[k], d[k]) for k in DEFAULT_CONTAINERS}
    targets = CLOCKS[clock]
    se_m = c[targets["SE_m"]] * _MS
    se_r = np.where(c["n_reduces"] == 0, 0.0, c[targets["SE_r"]] * _MS)
    s_mem = np.where(tr.uber, r["am_memory_mb"] * (se_m + se_r),
                     r["map_memory_mb"] * se_m + r["reduce_memory_mb"] * se_r)
    s_vc = np.where(tr.uber, r["am_vcores"] * (se_m + se_r),
                    r["map_vcores"] * se_m + r["reduce_vcores"] * se_r)
    finish = conform(records)["finish_time_ms"].to_numpy(dtype="float64", na_value=np.nan)
    probed = (np.isfinite(c[PROBE_FRACTION]) if PROBE_FRACTION in c
              else np.zeros(len(tr), dtype=bool))
    return pd.DataFrame({"job_id": pd.array(tr.job_id, dtype="string"), "uber": tr.uber,
                         "probed": probed, "succeeded": tr.success, "n_reduces": c["n_reduces"],
                         "SE_m_s": se_m, "SE_r_s": se_r, "S_mb_s": s_mem, "S_vcore_s": s_vc,
                         "finish_time_ms": finish})
