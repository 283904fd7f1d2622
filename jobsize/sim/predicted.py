"""Predicted sizes for size-based policies: fitted models on probe records, measured error
distributions, and what a probe costs.

Besides the exact and lognormal sources of :mod:`jobsize.sim.size_sources`, a simulated FSPY (or
SRPT, FSP) can be fed sizes the way a real one would be:

- :class:`ModelSizes` — a fitted :class:`~jobsize.predictor.SizePredictor` applied to each job's
  probe record (traces of local runs carry them). The estimate exists only once the probe has
  run (``known_after_s`` = the probe's recorded wall time). Uber jobs are not probed: the model
  sizes them from history at submission. The model learns online: in a simulation a policy asks
  :meth:`ModelSizes.online` for a sizer and reports every finished job to it; the static
  :meth:`ModelSizes.estimate` learns along the trace's own timeline instead (each job is
  predicted after learning from the jobs whose recorded finish precedes its prediction).
- :class:`ErrorDistributionSizes` — for workloads without probe records (SWIM): the relative
  errors of the model measured prequentially on a reference trace of real runs
  (:func:`jobsize.predictor.prequential_predictions`), by size decile. A job in the k-th size
  decile of its workload draws one job of the reference trace's k-th decile and takes that
  job's ratios predicted/actual for SE_m and SE_r (the same reference job for both, so their
  correlation survives; a job with reduces draws among reference jobs with reduces).
- :class:`ProbeCost` — how long a probe runs: the trace's ``probe_wall_ms`` where recorded;
  otherwise a cost model: a fixed start-up plus the job's work scaled by the probe's sample
  fraction — Algorithm 1's ``1 / max(N_m, N_r)``, within a budget where one is given, as
  ``jobsize probe`` samples (the probe runs the job's own functions over that share of the
  input in one uber container). Uber jobs have none.
  :class:`WithProbe` adds it as ``known_after_s`` to any other source.

Every source's ``name`` says what it is, so reports can state which sizes a run used.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from jobsize.errors import ConfigError, InputError, JobsizeError
from jobsize.sampler.sampling import (
    DEFAULT_MAX_FRACTION,
    DEFAULT_MIN_SAMPLE_BYTES,
    check_budget,
    sample_fraction,
)
from jobsize.sim.size_sources import (
    QUANTILES,
    ExactSizes,
    LognormalSizes,
    SizeEstimates,
    SizeSource,
    job_uniforms,
)
from jobsize.sim.workload import Workload

#: A prediction below this share of the actual value is raised to it (a linear model may
#: predict ≤ 0; a scheduler needs a positive size).
RATIO_FLOOR = 0.01
DECILES = 10

#: Job-record columns a size model reads from a workload's jobs (besides its probe columns).
_RECORD_KEYS = ("job_id", "state", "n_maps", "n_reduces", "map_input_bytes", "uberized",
                "map_memory_mb", "map_vcores", "reduce_memory_mb", "reduce_vcores",
                "am_memory_mb", "am_vcores")


@dataclass(frozen=True)
class ProbeCost:
    """Probe durations: recorded ``probe_wall_ms`` where present, else the cost model
    ``startup_s + (SE_m + SE_r) · f_p`` (seconds), f_p the fraction ``jobsize probe`` samples:
    ``1 / max(N_m, N_r)``, at most ``max_fraction`` (None: no cap) unless that leaves fewer
    than ``min_sample_bytes`` of the job's ``map_input_bytes`` (where the workload has them);
    uber jobs are not probed."""

    startup_s: float = 5.0
    use_recorded: bool = True
    max_fraction: float | None = DEFAULT_MAX_FRACTION
    min_sample_bytes: int = DEFAULT_MIN_SAMPLE_BYTES

    def __post_init__(self) -> None:
        if not (self.startup_s >= 0 and math.isfinite(self.startup_s)):
            raise ConfigError(f"probe start-up {self.startup_s!r} must be a non-negative number")
        check_budget(self.max_fraction, self.min_sample_bytes)

    def fractions(self, workload: Workload) -> np.ndarray:
        """Each job's sample fraction."""
        jobs = workload.jobs
        mi = (pd.to_numeric(jobs["map_input_bytes"], errors="coerce").fillna(0).to_numpy(float)
              if "map_input_bytes" in jobs else np.zeros(workload.n_jobs))
        each = np.vectorize(sample_fraction, otypes=[float])
        return each(workload.n_maps, workload.n_reduces, self.max_fraction, mi,
                    self.min_sample_bytes)

    def modeled(self, workload: Workload) -> np.ndarray:
        """The cost model's probe duration of every job (0 for uber jobs)."""
        fraction = self.fractions(workload)
        work = workload.map_work_s() + workload.reduce_work_s()
        out = self.startup_s + fraction * work
        return np.where(_uber(workload), 0.0, out)

    def durations(self, workload: Workload) -> np.ndarray:
        """Every job's probe duration in seconds (0 for uber jobs)."""
        out = self.modeled(workload)
        jobs = workload.jobs
        if self.use_recorded and "probe_wall_ms" in jobs:
            rec = pd.to_numeric(jobs["probe_wall_ms"], errors="coerce").to_numpy(float) / 1000.0
            ok = np.isfinite(rec) & (rec >= 0)
            out = np.where(ok & ~_uber(workload), rec, out)
        return out

    def describe(self, workload: Workload) -> str:
        jobs = workload.jobs
        recorded = (self.use_recorded and "probe_wall_ms" in jobs
                    and pd.to_numeric(jobs["probe_wall_ms"], errors="coerce").notna().any())
        cap = ("" if self.max_fraction is None else
               f", at most {self.max_fraction:g} of the input")
        model = f"{self.startup_s:g} s + (SE_m + SE_r)/max(N_m, N_r){cap}"
        return f"recorded probe_wall_ms, else {model}" if recorded else model


def _uber(workload: Workload) -> np.ndarray:
    return workload.jobs["uber"].to_numpy(bool)


class WithProbe(SizeSource):
    """``source``'s estimates, known only once the job's probe has run (:class:`ProbeCost`)."""

    def __init__(self, source: SizeSource, probe: ProbeCost | None = None) -> None:
        self.source = source
        self.probe = probe or ProbeCost()
        self.name = f"{source.name} after probe"

    def estimate(self, workload: Workload) -> SizeEstimates:
        est = self.source.estimate(workload)
        delay = np.maximum(est.known_after_s, self.probe.durations(workload))
        return SizeEstimates(est.map_time_s, est.reduce_time_s, est.size_mb_s, delay,
                             f"{est.source} (probe: {self.probe.describe(workload)})",
                             est.quantiles)


# ---------------------------------------------------------------------------------------------
# A fitted model on probe records


class OnlineSizer:
    """One simulation's view of a model that learns: predict a job, learn from a finished one."""

    def __init__(self, predictor: Any, records: list[dict[str, Any]], cluster: tuple[float, float]
                 ) -> None:
        self.predictor = predictor
        self.records = records
        self.cluster = cluster
        self.observed = 0

    def predict(self, j: int) -> tuple[float, float] | None:
        """(SE_m, SE_r) of job ``j`` in seconds, or None if the model cannot size it."""
        p = self.prediction(j)
        return None if p is None else (max(p.SE_m, 0.0), max(p.SE_r, 0.0))

    def prediction(self, j: int) -> Any:
        """The model's whole :class:`~jobsize.models.prediction.Prediction` of job ``j``
        (intervals and quantiles too), or None if the model cannot size it."""
        from jobsize.predictor import predict

        try:
            return predict(self.predictor, self.records[j], self.cluster)
        except JobsizeError:
            return None

    def history(self, j: int) -> tuple[float, float] | None:
        """(SE_m, SE_r) from historical mean task times, as for an uber job."""
        from jobsize.predictor import predict

        job = {k: v for k, v in self.records[j].items() if not k.startswith("probe_")}
        job["uberized"] = True
        try:
            p = predict(self.predictor, job, self.cluster)
        except JobsizeError:
            return None
        return p.SE_m, p.SE_r

    def observe(self, j: int) -> None:
        """Learn from finished job ``j`` (its record carries the actual map and reduce time)."""
        try:
            self.predictor.observe(self.records[j])
        except JobsizeError:
            return
        self.observed += 1


class ModelSizes(SizeSource):
    """A fitted size model applied to the probe records of a trace (see the module docstring).

    ``model``: a fitted :class:`~jobsize.predictor.SizePredictor` or a model file. Each
    simulation works on its own copy, so online learning in one run never leaks into another.
    """

    def __init__(self, model: Any, *, probe: ProbeCost | None = None, learn: bool = True,
                 cluster: tuple[float, float] | None = None) -> None:
        from jobsize.predictor import SizePredictor

        if isinstance(model, str | os.PathLike):
            self.label = Path(model).name
            self._base = SizePredictor.load(model)
        elif isinstance(model, SizePredictor):
            self.label = "fitted model"
            self._base = model
        else:
            raise ConfigError(f"a size model must be a SizePredictor or a model file, got "
                              f"{type(model).__name__}")
        self.probe = probe or ProbeCost()
        self.learn = learn
        self.cluster = cluster
        self.name = f"model({self.label}{', online' if learn else ''})"

    def _sizer(self, workload: Workload, cluster: tuple[float, float] | None) -> OnlineSizer:
        records = _records(workload)
        probed = [k for k in workload.jobs.columns if k.startswith("probe_")]
        if not probed:
            raise InputError("the workload has no probe records; a fitted model needs them "
                             "(for SWIM workloads use the measured error distribution)",
                             source=workload.name)
        from jobsize.models.resources import PAPER_CLUSTER

        cr = cluster or self.cluster or (PAPER_CLUSTER.memory, PAPER_CLUSTER.vcores)
        return OnlineSizer(copy.deepcopy(self._base), records, cr)

    def online(self, workload: Workload, cluster: tuple[float, float] | None = None
               ) -> OnlineSizer:
        """A sizer that learns from the jobs the caller reports finished."""
        return self._sizer(workload, cluster)

    def estimate(self, workload: Workload) -> SizeEstimates:
        """Predictions along the trace's own timeline (see the module docstring)."""
        sizer = self._sizer(workload, None)
        n = workload.n_jobs
        delay = self.probe.durations(workload)
        submit = _column_ms(workload, "submit_time_ms", workload.submit_s() * 1000.0)
        finish = _column_ms(workload, "finish_time_ms", np.full(n, np.inf))
        by_finish = np.argsort(finish, kind="stable")
        se_m, se_r = np.zeros(n), np.zeros(n)
        learned = 0
        # a job is predicted when its probe ends — or, had it finished first, when it ended,
        # from the jobs that finished strictly before (never from itself)
        at_ms = np.minimum(submit + delay * 1000.0, finish)
        # quantiles as multiples of the model's own point S, applied to the simulator's S
        spread = {p: np.ones(n) for p in QUANTILES}
        for j in np.argsort(at_ms, kind="stable"):
            at = at_ms[j]
            while self.learn and learned < n and finish[by_finish[learned]] < at:
                sizer.observe(int(by_finish[learned]))
                learned += 1
            p = sizer.prediction(int(j))
            if p is None:
                got = sizer.history(int(j))
                delay[j] = math.inf  # never sized by a probe
                se_m[j], se_r[j] = got if got is not None else (0.0, 0.0)
                continue
            se_m[j], se_r[j] = max(p.SE_m, 0.0), max(p.SE_r, 0.0)
            for q, value in p.quantiles.items():
                if q in spread and p.S.memory > 0:
                    spread[q][j] = value / p.S.memory
        est = SizeEstimates.from_phases(workload, se_m, se_r, delay, self.name)
        est.quantiles.update({q: est.size_mb_s * f for q, f in spread.items()})
        return est


def _column_ms(workload: Workload, name: str, default: np.ndarray) -> np.ndarray:
    if name not in workload.jobs:
        return default
    values = pd.to_numeric(workload.jobs[name], errors="coerce").to_numpy(float)
    return np.where(np.isfinite(values), values, default)


def _records(workload: Workload) -> list[dict[str, Any]]:
    """Each job's record (known values only) for the predictor."""
    jobs = workload.jobs
    keys = [k for k in jobs.columns if k in _RECORD_KEYS or k.startswith("probe_")
            or k.endswith(("_time_ms", "_bytes", "_records", "_function_ms"))]
    out = []
    for row in jobs[keys].to_dict(orient="records"):
        out.append({k: v for k, v in row.items() if not _missing(v)})
    return out


def _missing(value: object) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


# ---------------------------------------------------------------------------------------------
# A measured error distribution


class ErrorDistributionSizes(SizeSource):
    """True sizes times the prediction errors measured on a reference trace, by size decile.

    ``pairs``: :func:`jobsize.predictor.prequential_predictions` of the reference trace
    (columns ``S_mb_s``, ``SE_m_s``, ``SE_m_pred_s``, ``SE_r_s``, ``SE_r_pred_s``,
    ``n_reduces``). Estimates are known once the probe has run (:class:`ProbeCost`'s cost
    model; SWIM jobs record no probe).
    """

    def __init__(self, pairs: pd.DataFrame, *, seed: int = 0, probe: ProbeCost | None = None,
                 label: str = "reference") -> None:
        need = ("S_mb_s", "SE_m_s", "SE_m_pred_s", "SE_r_s", "SE_r_pred_s", "n_reduces")
        missing = [c for c in need if c not in pairs]
        if missing:
            raise InputError(f"prediction pairs lack column {missing[0]!r}", source=label)
        ok = pairs[(pairs["SE_m_s"] > 0) & np.isfinite(pairs["SE_m_pred_s"])
                   & np.isfinite(pairs["S_mb_s"])]
        if len(ok) < DECILES:
            raise InputError(f"{len(ok)} prequentially predicted jobs; the error distribution "
                             f"needs at least {DECILES} (one per size decile)", source=label)
        self.seed = int(seed)
        self.probe = probe or ProbeCost()
        self.label = label
        self.jobs = len(ok)
        s = ok["S_mb_s"].to_numpy(float)
        self._decile = _deciles(s)
        self._ratio_m = np.maximum(ok["SE_m_pred_s"].to_numpy(float)
                                   / ok["SE_m_s"].to_numpy(float), RATIO_FLOOR)
        se_r = ok["SE_r_s"].to_numpy(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio_r = ok["SE_r_pred_s"].to_numpy(float) / se_r
        self._has_r = (ok["n_reduces"].to_numpy(float) > 0) & (se_r > 0) & np.isfinite(ratio_r)
        self._ratio_r = np.where(self._has_r, np.maximum(ratio_r, RATIO_FLOOR), 1.0)
        self.name = (f"prequential errors of {label} ({self.jobs} jobs) by size decile, "
                     f"seed {self.seed}")

    @classmethod
    def from_trace(cls, path: str | os.PathLike[str], *, seed: int = 0,
                   probe: ProbeCost | None = None, features: str = "probe",
                   method: str = "gls") -> ErrorDistributionSizes:
        """Measure the errors on the trace at ``path`` (prequentially, as a live FSPY meets
        them)."""
        from jobsize.predictor import prequential_predictions
        from jobsize.schema import read_trace

        pairs = prequential_predictions(read_trace(path), features=features, method=method)
        return cls(pairs, seed=seed, probe=probe, label=Path(path).name)

    def ratios(self) -> pd.DataFrame:
        """The measured ratios predicted/actual per reference job, with its size decile."""
        return pd.DataFrame({"decile": self._decile, "ratio_SE_m": self._ratio_m,
                             "ratio_SE_r": np.where(self._has_r, self._ratio_r, np.nan)})

    def draw(self, size: np.ndarray, has_reduces: np.ndarray, u: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        """Ratios (SE_m, SE_r) for jobs of sizes ``size``: one reference job of the same size
        decile each (among those with reduces where the job has reduces), picked by the job's
        number ``u`` in (0, 1)."""
        decile = _deciles(size)
        pick = np.empty(len(size), dtype=np.int64)
        every = np.arange(len(self._decile))
        with_r = every[self._has_r] if self._has_r.any() else every
        for d in range(DECILES):
            for need_r in (False, True):
                rows = np.flatnonzero((decile == d) & (has_reduces == need_r))
                if not len(rows):
                    continue
                pool = every[(self._decile == d) & (self._has_r | (not need_r))]
                if not len(pool):
                    pool = with_r if need_r else every
                pick[rows] = pool[(u[rows] * len(pool)).astype(np.int64)]
        return self._ratio_m[pick], np.where(has_reduces, self._ratio_r[pick], 1.0)

    def estimate(self, workload: Workload) -> SizeEstimates:
        se_m, se_r = workload.map_work_s(), workload.reduce_work_s()
        size, _ = workload.sizes()
        # the draw belongs to the job: not restarted, identically, for every segment
        rm, rr = self.draw(size, (workload.n_reduces > 0) & (se_r > 0),
                           job_uniforms(workload, self.seed, "errors"))
        delay = self.probe.durations(workload)
        est = SizeEstimates.from_phases(workload, se_m * rm, se_r * rr, delay, self.name)
        est.quantiles.update(self._quantiles(est.size_mb_s))
        return est

    def _quantiles(self, estimate: np.ndarray) -> dict[float, np.ndarray]:
        """Quantiles of the actual S given the estimate: the estimate over the quantiles of
        the predicted/actual ratio among reference jobs of the estimate's size decile."""
        decile = _deciles(estimate)
        ratio = self._ratio_m  # S is mostly map time: the map ratio stands for S's
        out = {p: np.empty(len(estimate)) for p in QUANTILES}
        for d in range(DECILES):
            rows = decile == d
            pool = ratio[self._decile == d]
            pool = pool if len(pool) else ratio
            for p in QUANTILES:
                # actual = estimate / ratio, so actual's p-quantile uses the ratio's (1 − p)
                out[p][rows] = estimate[rows] / np.quantile(pool, 1.0 - p)
        return out


def _deciles(values: np.ndarray) -> np.ndarray:
    """Size decile 0..9 of each value by rank (ties broken by position)."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(values, kind="stable")] = np.arange(n)
    return np.minimum(rank * DECILES // n, DECILES - 1)


# ---------------------------------------------------------------------------------------------


def parse_size_source(spec: str, *, seed: int = 0, probe: ProbeCost | None = None,
                      reference: str | os.PathLike[str] | None = None) -> SizeSource:
    """A size source from a spec.

    ``exact``; ``lognormal:σ``; ``model:MODEL.json`` (a fitted model on the workload's probe
    records, learning online); ``errors`` (the error distribution of the bundled reference
    trace, or of ``reference``) or ``errors:TRACE.parquet``. ``exact`` and ``lognormal`` are
    known at submission; add ``+probe`` (``exact+probe``) to make them wait for the probe.
    """
    text = spec.strip()
    with_probe = text.endswith("+probe")
    text = text.removesuffix("+probe")
    kind, _, arg = text.partition(":")
    source: SizeSource
    if kind == "exact" and not arg:
        source = ExactSizes()
    elif kind == "lognormal":
        try:
            sigma = float(arg)
        except ValueError:
            raise ConfigError(f"size source {spec!r}: expected lognormal:σ like "
                              "lognormal:0.5") from None
        source = LognormalSizes(sigma, seed)
    elif kind == "model":
        if not arg:
            raise ConfigError(f"size source {spec!r}: expected model:MODEL.json")
        return ModelSizes(arg, probe=probe)
    elif kind == "errors":
        path = arg or reference
        if path is None:
            from jobsize.bundled import reference_trace

            path = reference_trace()
        return ErrorDistributionSizes.from_trace(path, seed=seed, probe=probe)
    else:
        raise ConfigError(f"size source {spec!r}: expected exact, lognormal:σ, model:FILE or "
                          "errors[:TRACE]")
    return WithProbe(source, probe) if with_probe else source


def describe_source(source: SizeSource | None) -> str:
    """How reports name a size source."""
    return "exact" if source is None else source.name


__all__: list[str] = ["DECILES", "RATIO_FLOOR", "ErrorDistributionSizes", "ModelSizes",
                      "OnlineSizer", "ProbeCost", "WithProbe", "describe_source",
                      "parse_size_source"]

