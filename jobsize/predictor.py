"""The public size-prediction API: :class:`SizePredictor` and :func:`predict`.

``SizePredictor`` is a scikit-learn estimator over job records (a DataFrame, one row per job, see
:mod:`jobsize.schema`): it fits the paper's eq 6 and eq 7 (:mod:`models`), predicts a target per
job, scores R² and works in ``sklearn.model_selection`` (``clone``, ``cross_val_score``,
``cross_validate``). It learns online from each finished job (:meth:`SizePredictor.observe`) and
saves to / loads from a JSON model file.

``predict(model, job)`` is the one call a scheduler makes for a newly submitted job::

    import jobsize
    model = jobsize.SizePredictor().fit(history)          # or a model file path
    p = jobsize.predict(model, {"mapreduce.job.maps": 40, "mapreduce.job.reduces": 4,
                                "map_input_bytes": 2_500_000_000, **probe_record})
    p.S.memory, p.APB, p.S_interval

It uses plain Python and no pandas, so it takes microseconds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import NotFittedError as _SklearnNotFitted
from sklearn.metrics import r2_score

from jobsize.errors import ConfigError, InputError, ModelError
from jobsize.models.design import check_features, check_form
from jobsize.models.evaluation import calibrate, prequential_predictions
from jobsize.models.job import flatten, job_values
from jobsize.models.modelfile import load_model, save_model
from jobsize.models.plausibility import Plausibility
from jobsize.models.prediction import Prediction
from jobsize.models.regression import DEFAULT_LEVEL, check_level
from jobsize.models.resources import PAPER_CLUSTER, Resources
from jobsize.models.size_model import (
    FORM_DEFAULT,
    PREDICTION_COLUMNS,
    SizeModel,
    actual_sizes,
    check_clock,
    check_eq7_fit,
)
from jobsize.models.variance import check_method

__all__ = ["PAPER_CLUSTER", "PREDICTION_COLUMNS", "NotFittedError", "Prediction", "Resources",
           "SizePredictor", "predict", "prequential_predictions"]

#: What ``SizePredictor.predict`` returns per target: (prediction column, actual column).
TARGETS: dict[str, tuple[str, str]] = {
    "S": ("S_mb_s", "S_mb_s"),  # memory·s, the paper's ordering dimension
    "S_vcores": ("S_vcore_s", "S_vcore_s"),
    "SE_m": ("SE_m_s", "SE_m_s"),
    "SE_r": ("SE_r_s", "SE_r_s"),
}


class NotFittedError(ModelError, _SklearnNotFitted):
    """A SizePredictor was used before ``fit`` (or ``load``)."""


class SizePredictor(RegressorMixin, BaseEstimator):
    """Job-size predictor (paper eq 5-8) with scikit-learn's estimator contract.

    Parameters
    ----------
    features : "probe" or "actual"
        ``probe``: probe counters scaled to the job by eq 8. ``actual``: the job's own
        counters, the upper bound on accuracy (they are only known after the job ran).
    form : "tasks" or "paper"
        The model's terms and eq 8's scaling (:mod:`jobsize.models.design`): per task and per
        record (default), or exactly the paper's eq 6-8.
    clock : "wall" or "cpu"
        What SE measures: summed elapsed task time (the paper's) or summed task CPU time.
    calibrate : str or None
        Calibrate the intervals and quantiles on out-of-sample errors
        (:func:`jobsize.models.evaluation.calibrate`): ``"auto"`` (default) leaves one job type
        or application out at a time; a column name; ``None`` keeps the GLS intervals.
    method : "gls", "wls" or "ols"
        Feasible GLS (default), WLS with variance ∝ mean², or OLS
        (:mod:`jobsize.models.variance`).
    target : "S", "S_vcores", "SE_m" or "SE_r"
        What :meth:`predict` returns and :meth:`score` scores: S in MB·s (eq 5, memory), S in
        vcore·s, or SE_m / SE_r in seconds.
    level : float
        Coverage of the prediction intervals (default :data:`DEFAULT_LEVEL`, 90 %).
    eq7_fit : "actual", "probe" or None
        What eq 7 (SE_r) is fitted on: the jobs' own counters or the probe's; it predicts from
        ``features`` either way. None (default): the jobs' own counters for probe features in
        the per-task form, else ``features``
        (:func:`jobsize.models.size_model.eq7_fit_default`).

    Learned attributes: ``model_`` (:class:`jobsize.models.size_model.SizeModel`),
    ``training_`` (the training summary). ``fit`` reads X only; targets come from the records,
    ``y`` is ignored.
    """

    def __init__(self, features: str = "probe", method: str = "gls", target: str = "S",
                 level: float = DEFAULT_LEVEL, form: str = FORM_DEFAULT, clock: str = "wall",
                 calibrate: str | None = "auto", eq7_fit: str | None = None) -> None:
        self.features = features
        self.method = method
        self.target = target
        self.level = level
        self.form = form
        self.clock = clock
        self.calibrate = calibrate
        self.eq7_fit = eq7_fit

    # -- scikit-learn -------------------------------------------------------------------------

    def fit(self, X: pd.DataFrame, y: Any = None, calibration: pd.DataFrame | None = None
            ) -> SizePredictor:
        """Fit eq 6 and eq 7 on the job records ``X`` (``y`` is ignored); ``calibration``:
        jobs of kinds X lacks to calibrate the intervals on, when ``calibrate`` is not None."""
        self._check_params()
        self.model_ = SizeModel.fit(X, self.features, self.method, self.level, form=self.form,
                                    clock=self.clock, eq7_fit=self.eq7_fit)
        if self.calibrate is not None:
            calibrate(self.model_, X, groups=self.calibrate, unseen=calibration)
        self.training_ = self.model_.training
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The target for each job of ``X``; a job that cannot be predicted raises InputError."""
        return self.predict_frame(X)[TARGETS[self.target][0]].to_numpy()

    def predict_frame(self, X: pd.DataFrame, cluster: Resources | tuple[float, float] =
                      PAPER_CLUSTER) -> pd.DataFrame:
        """Every prediction for every job (:data:`PREDICTION_COLUMNS`; intervals, minE, APB)."""
        return self._model().predict_frame(X, _cluster(cluster))

    def score(self, X: pd.DataFrame, y: Any = None, sample_weight: Any = None) -> float:
        """R² of :meth:`predict` on the original scale.

        With ``y`` None the actual values come from the records: jobs that succeeded and whose
        target is recorded, and for SE_r only jobs with reduces; jobs the model cannot predict
        (never probed) are left out, as ``fit`` leaves them out.
        """
        pred_col, actual_col = TARGETS[self.target]
        if y is not None:
            return float(r2_score(np.asarray(y, dtype=float), self.predict(X),
                                  sample_weight=sample_weight))
        actual = actual_sizes(X, self.features, self.clock)
        predicted = self._model().predict_frame(X, errors="nan")[pred_col].to_numpy()
        observed = actual[actual_col].to_numpy()
        rows = actual["succeeded"].to_numpy() & np.isfinite(observed) & np.isfinite(predicted)
        if self.target == "SE_r":
            rows &= actual["n_reduces"].to_numpy() > 0
        if rows.sum() < 2:
            raise ModelError(f"R² needs at least 2 predictable jobs with a recorded "
                             f"{self.target}, found {int(rows.sum())}")
        weight = None if sample_weight is None else np.asarray(sample_weight)[rows]
        return float(r2_score(observed[rows], predicted[rows], sample_weight=weight))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "model_")

    # -- online updates and persistence -------------------------------------------------------

    def observe(self, record: Mapping[str, Any] | pd.Series | pd.DataFrame) -> SizePredictor:
        """Learn from finished job(s) online: O(p²) each, equal to a refit over all of them.

        ``record`` is one job (a mapping or Series keyed by column names or Hadoop's names, or a
        job document as ``jobsize probe`` prints it) or a DataFrame of jobs, taken in row order.
        The variance model stays as ``fit`` estimated it. A successful job the model cannot
        learn from raises InputError naming what is missing; jobs that did not succeed are
        skipped.
        """
        model = self._model()
        for job in _mappings(record):
            job = flatten(job)
            model.observe(job_values(job), job, job.get("state"))
        return self

    def implausible(self, record: Mapping[str, Any], plausibility: Plausibility | None = None
                    ) -> str | None:
        """Why this finished job should not be learned, or None if it may be: a record that
        contradicts itself, or one the model finds both many standard errors out and off by a
        large factor, or one that alone would move the fitted model far (Cook's distance); see
        :mod:`jobsize.models.plausibility`. Raises what :meth:`observe` raises for a job it
        cannot learn from at all."""
        job = flatten(_mappings(record)[0])
        return (plausibility or Plausibility()).check(self._model(), job_values(job), job)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the fitted model as JSON (atomically); :meth:`load` reads it back."""
        return save_model(self._model(), path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], target: str = "S") -> SizePredictor:
        """A fitted SizePredictor from a model file (ModelFileError if damaged or foreign)."""
        return cls.from_model(load_model(path), target)

    @classmethod
    def from_model(cls, model: SizeModel, target: str = "S") -> SizePredictor:
        """A fitted SizePredictor around a loaded :class:`SizeModel`."""
        est = cls(features=model.features, method=model.method, target=target,
                  level=model.level, form=model.form, clock=model.clock,
                  calibrate="auto" if model.calibration else None,
                  eq7_fit=model.eq7_features)
        est.model_ = model
        est.training_ = model.training
        return est

    # -- helpers ------------------------------------------------------------------------------

    def _model(self) -> SizeModel:
        try:
            return self.model_
        except AttributeError:
            raise NotFittedError("this SizePredictor is not fitted: call fit(records) or "
                                 "SizePredictor.load(path) first") from None

    def _check_params(self) -> None:
        check_features(self.features)
        check_method(self.method)
        check_level(self.level)
        check_form(self.form)
        check_clock(self.clock)
        if self.eq7_fit is not None:
            check_eq7_fit(self.eq7_fit, self.features)
        if self.target not in TARGETS:
            raise ConfigError(f"unknown target {self.target!r}; expected one of "
                              f"{', '.join(TARGETS)}")


def _cluster(cluster: Resources | tuple[float, float]) -> Resources:
    if isinstance(cluster, Resources):
        return cluster
    try:
        memory, vcores = cluster
        result = Resources(float(memory), float(vcores))
    except (TypeError, ValueError):
        raise ConfigError(f"cluster resources must be (memory MB, vcores), got {cluster!r}"
                          ) from None
    if not (result.memory > 0 and result.vcores > 0):
        raise ConfigError(f"cluster resources must be positive, got {cluster!r}")
    return result


def _mappings(record: Mapping[str, Any] | pd.Series | pd.DataFrame) -> list[Mapping[str, Any]]:
    if isinstance(record, pd.DataFrame):
        return [{k: (None if v is pd.NA else v) for k, v in row.items()}
                for row in record.to_dict(orient="records")]
    if isinstance(record, pd.Series):
        return [{k: (None if v is pd.NA else v) for k, v in record.to_dict().items()}]
    if isinstance(record, Mapping):
        return [record]
    raise InputError(f"expected a job as a mapping, Series or DataFrame, got "
                     f"{type(record).__name__}")


# ---------------------------------------------------------------------------------------------
# The scheduler's call

_FILE_CACHE: dict[str, tuple[tuple[int, int], SizeModel]] = {}


def _resolve(model: SizePredictor | SizeModel | str | os.PathLike[str]) -> SizeModel:
    if isinstance(model, SizePredictor):
        return model._model()
    if isinstance(model, SizeModel):
        return model
    if isinstance(model, str | os.PathLike):
        return _load_cached(os.fspath(model))
    raise InputError(f"expected a SizePredictor or a model file path, got {type(model).__name__}")


def _load_cached(path: str) -> SizeModel:
    """A model file is parsed once and reused until it changes on disk."""
    try:
        st = os.stat(path)
    except OSError:
        return load_model(path)  # raises a ModelFileError naming the file
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _FILE_CACHE.get(path)
    if hit is None or hit[0] != stamp:
        hit = (stamp, load_model(path))
        _FILE_CACHE[path] = hit
    return hit[1]


def predict(
    model: SizePredictor | SizeModel | str | os.PathLike[str],
    job: Mapping[str, Any] | pd.Series | pd.DataFrame,
    cluster: Resources | tuple[float, float] = PAPER_CLUSTER,
) -> Prediction:
    """Predict one job's size: SE_m, SE_r, S, minE, APB and intervals (:class:`Prediction`).

    ``model``: a fitted :class:`SizePredictor` or the path of a model file (parsed once, reread
    when it changes). ``job``: a mapping of job conf values and the job's probe record, keyed by
    job-record column names or Hadoop's names (``mapreduce.job.maps``,
    ``mapreduce.map.memory.mb``, ...), flat or with values nested in ``"conf"``, ``"job"`` and
    ``"probe"`` objects (the document ``jobsize probe`` prints is accepted as is); or a one-row
    record (Series or one-row DataFrame). It needs ``n_maps`` and ``n_reduces``, the inputs of
    eq 6 (and of eq 7 if it has reduces) for the model's feature set, and for the uber decision
    ``map_input_bytes`` and the job's uber-mode settings (or ``uberized``). Container sizes
    default to Hadoop's (1024 MB / 1 vcore; AM 1536 MB / 1 vcore). The job's name (or
    ``mapreduce.job.name``) lets a recurring application's correction apply.

    ``cluster``: total cluster resources CR (memory MB, vcores) for minE and APB; default the
    paper's cluster, 8 nodes × 8 GB × 8 vcores = (65536 MB, 64 vcores).
    """
    m = _resolve(model)
    if type(job) is not dict:
        jobs = _mappings(job)
        if len(jobs) != 1:
            raise InputError(f"expected one job, got {len(jobs)} rows")
        job = jobs[0]
    job = flatten(job)
    return m.predict_one(job_values(job), job, _cluster(cluster))
