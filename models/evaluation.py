"""Accuracy of the size model: as the paper reports it (§IV-B) and as a live FSPY would see it.

Three ways to pair each job's actual SE_m, SE_r and S with a prediction:

- **in-sample**: one model fitted on every job predicts every job (what the paper's R² of
  0.942 / 0.918 / 0.970 most likely are);
- **cross-validated**: k-fold (scikit-learn's ``KFold``, shuffled with a seed); each job is
  predicted by the model fitted on the other folds. Grouped by a column (``groups``, e.g.
  ``job_type``: scikit-learn's ``LeaveOneGroupOut``), each job is predicted by a model that saw
  no job of its group — how the model does on an application it was never fitted on;
- **prequential**: jobs in finish-time order, each predicted by a model fitted only on the jobs
  that finished before it — what FSPY, which adds every finished job to its data set, sees.
  The model starts with a batch fit once enough jobs have finished, is refitted in batch each
  time the number of finished jobs has grown by :data:`REFIT_GROWTH` (so the variance model
  follows the data), and learns every other job online in O(p²). The first fit waits for
  :data:`MIN_HISTORY` finished jobs; jobs that finish before it cannot be predicted and are left
  out (:attr:`Evaluation.warmup`).

Scores (:class:`Scores`): R² (unweighted, on the original scale) and the median absolute relative
error |predicted − actual| / actual, overall and for small jobs (actual SE_m < 30 s, where the
paper saw its largest errors). SE_r is scored over jobs with reduces; S is memory·s, the paper's
ordering dimension.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from jobsize.models.conformal import Calibration
from jobsize.models.design import optional_columns, training_columns
from jobsize.models.recurring import application
from jobsize.models.regression import DEFAULT_LEVEL, min_jobs
from jobsize.models.resources import PAPER_CLUSTER
from jobsize.models.size_model import (
    CALIBRATED,
    FORM_DEFAULT,
    UBER_CALIBRATION,
    SizeModel,
    actual_sizes,
    eq7_fit_default,
)
from sklearn.metrics import r2_score
from sklearn.model_selection import GroupKFold, KFold, LeaveOneGroupOut

from jobsize.errors import InputError, ModelError
from jobsize.schema import conform

#: The paper's R² (§IV-B, Figures 2-4).
PAPER_R2: dict[str, float] = {"SE_m": 0.942, "SE_r": 0.918, "S": 0.970}
#: Jobs with an actual SE_m below this many seconds are "small" (the paper's "tiny jobs").
SMALL_JOB_S = 30.0
QUANTITIES: tuple[str, ...] = ("SE_m", "SE_r", "S")
#: Prequential batch refits happen each time the finished-job count grows by this factor.
REFIT_GROWTH = 1.5
#: Finished jobs before the first prequential fit: twice the paper's eq 7's eight coefficients.
MIN_HISTORY = 2 * (min_jobs("SE_r") - 1)
#: Folds of groups a nested calibration leaves out at a time where there are more groups.
NESTED_GROUP_FOLDS = 10

#: Columns of the per-job pairs of actual and predicted values.
PAIR_COLUMNS: tuple[str, ...] = (
    "job_id", "finish_time_ms", "uber", "probed", "n_reduces", "SE_m_s", "SE_m_pred_s", "SE_r_s",
    "SE_r_pred_s", "S_mb_s", "S_pred_mb_s", "S_low_mb_s", "S_high_mb_s", "S_vcore_s",
    "S_pred_vcore_s",
)

Advance = Callable[..., None]
Progress = Callable[[str, float], AbstractContextManager[Advance]]


@contextlib.contextmanager
def _quiet(_description: str, _total: float) -> Iterator[Advance]:
    yield lambda n=1: None


@dataclass(frozen=True)
class Scores:
    """R², median absolute relative errors, the share of jobs within ±25 % and off by 2× or
    more, and the coverage of S's prediction intervals, of one evaluation mode."""

    jobs: int
    small_jobs: int
    r2: dict[str, float]
    mdare: dict[str, float]
    mdare_small: dict[str, float]
    within_25: dict[str, float] = field(default_factory=dict)
    off_2x: dict[str, float] = field(default_factory=dict)
    coverage: float = math.nan  # share of jobs whose actual S lies in its interval

    @classmethod
    def of(cls, pairs: pd.DataFrame) -> Scores:
        small = pairs["SE_m_s"].to_numpy() < SMALL_JOB_S
        r2_, mdare, mdare_small, within, off = {}, {}, {}, {}, {}
        for q in QUANTITIES:
            actual, predicted, rows = _pair(pairs, q)
            r2_[q] = r2(actual[rows], predicted[rows])
            mdare[q] = median_relative_error(actual[rows], predicted[rows])
            mdare_small[q] = median_relative_error(actual[rows & small], predicted[rows & small])
            within[q] = share_within(actual[rows], predicted[rows])
            off[q] = share_off_by(actual[rows], predicted[rows])
        return cls(jobs=len(pairs), small_jobs=int(small.sum()), r2=r2_, mdare=mdare,
                   mdare_small=mdare_small, within_25=within, off_2x=off,
                   coverage=interval_coverage(pairs))


def _pair(pairs: pd.DataFrame, q: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    actual_col, pred_col = {"SE_m": ("SE_m_s", "SE_m_pred_s"), "SE_r": ("SE_r_s", "SE_r_pred_s"),
                            "S": ("S_mb_s", "S_pred_mb_s")}[q]
    rows = (pairs["n_reduces"].to_numpy() > 0) if q == "SE_r" else np.ones(len(pairs), bool)
    return pairs[actual_col].to_numpy(float), pairs[pred_col].to_numpy(float), rows


def r2(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Unweighted R² on the original scale (NaN for fewer than 2 jobs or a constant actual)."""
    if len(actual) < 2 or np.ptp(actual) == 0:
        return math.nan
    return float(r2_score(actual, predicted))


def median_relative_error(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Median of |predicted − actual| / actual over jobs with a positive actual value."""
    pos = actual > 0
    if not pos.any():
        return math.nan
    return float(np.median(np.abs(predicted[pos] - actual[pos]) / actual[pos]))


def share_within(actual: np.ndarray, predicted: np.ndarray, tolerance: float = 0.25) -> float:
    """Share of jobs (positive actual) predicted within ±``tolerance`` of their actual value."""
    pos = actual > 0
    if not pos.any():
        return math.nan
    return float(np.mean(np.abs(predicted[pos] - actual[pos]) <= tolerance * actual[pos]))


def share_off_by(actual: np.ndarray, predicted: np.ndarray, factor: float = 2.0) -> float:
    """Share of jobs (positive actual) predicted ``factor`` times too large or too small, or
    worse (a prediction of zero or less is off by more than any factor)."""
    pos = actual > 0
    if not pos.any():
        return math.nan
    ratio = predicted[pos] / actual[pos]
    return float(np.mean((ratio >= factor) | (ratio <= 1.0 / factor)))


def coverage(actual: np.ndarray, low: np.ndarray, high: np.ndarray) -> float:
    """Share of jobs whose actual value lies inside [low, high], over the jobs whose interval
    is bounded (an unbounded interval says nothing and is left out)."""
    ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(actual)
    if not ok.any():
        return math.nan
    return float(np.mean((low[ok] <= actual[ok]) & (actual[ok] <= high[ok])))


def interval_coverage(pairs: pd.DataFrame) -> float:
    """:func:`coverage` of S (memory·s) by its prediction intervals in ``pairs``."""
    if "S_low_mb_s" not in pairs or "S_high_mb_s" not in pairs:
        return math.nan
    return coverage(pairs["S_mb_s"].to_numpy(float), pairs["S_low_mb_s"].to_numpy(float),
                    pairs["S_high_mb_s"].to_numpy(float))


def probe_cost(probe_s: np.ndarray, task_s: np.ndarray, n_maps: np.ndarray,
               min_maps: int = 10) -> tuple[int, float, float]:
    """The probe's wall time over the job's total task time (SE_m + SE_r), for jobs of at least
    ``min_maps`` maps: (jobs, median, 90th percentile)."""
    rows = (n_maps >= min_maps) & np.isfinite(probe_s) & (task_s > 0)
    if not rows.any():
        return 0, math.nan, math.nan
    ratio = probe_s[rows] / task_s[rows]
    return int(rows.sum()), float(np.median(ratio)), float(np.quantile(ratio, 0.9))


@dataclass(frozen=True)
class ErrorProfile:
    """How far predictions fall from the sizes of a set of jobs, as a scheduler meets them:
    R² of SE_m, SE_r (jobs with reduces) and S; for S (memory·s) the median relative error, the
    shares within ±25 % and off by 2× or more, and the share inside its prediction interval."""

    jobs: int
    r2: dict[str, float]
    mdare: float
    within_25: float
    off_2x: float
    coverage: float

    @classmethod
    def of(cls, pairs: pd.DataFrame) -> ErrorProfile:
        """From pairs of actual and predicted values (:data:`PAIR_COLUMNS`)."""
        scores = {}
        for q in QUANTITIES:
            a, p, rows = _pair(pairs, q)
            scores[q] = r2(a[rows], p[rows])
        actual, predicted, _ = _pair(pairs, "S")
        return cls(jobs=len(pairs), r2=scores,
                   mdare=median_relative_error(actual, predicted),
                   within_25=share_within(actual, predicted, 0.25),
                   off_2x=share_off_by(actual, predicted, 2.0),
                   coverage=interval_coverage(pairs))


@dataclass(frozen=True)
class Evaluation:
    """Scores of the three modes for one feature set and fitting method."""

    features: str
    method: str
    in_sample: Scores
    cross_validated: Scores | None
    folds: int
    prequential: Scores | None
    warmup: int  # jobs that finished before the first prequential prediction
    groups: str | None = None  # cross-validation left one value of this column out at a time
    form: str = FORM_DEFAULT
    clock: str = "wall"
    level: float = DEFAULT_LEVEL

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# Pairs of actual and predicted values


def _evaluable(records: pd.DataFrame, features: str, clock: str = "wall") -> pd.DataFrame:
    act = actual_sizes(records, features, clock)
    ok = act["succeeded"] & np.isfinite(act["SE_m_s"]) & np.isfinite(act["SE_r_s"]) & \
        np.isfinite(act["n_reduces"])
    return act[ok.to_numpy()]


def _pairs(actual: pd.DataFrame, predicted: pd.DataFrame) -> pd.DataFrame:
    """Join actual rows with predictions aligned to them; unpredictable rows dropped."""
    out = actual[["job_id", "finish_time_ms", "uber", "probed", "n_reduces", "SE_m_s",
                  "SE_r_s", "S_mb_s", "S_vcore_s"]].reset_index(drop=True)
    p = predicted.reset_index(drop=True)
    for mine, theirs in (("SE_m_pred_s", "SE_m_s"), ("SE_r_pred_s", "SE_r_s"),
                         ("S_pred_mb_s", "S_mb_s"), ("S_low_mb_s", "S_low_mb_s"),
                         ("S_high_mb_s", "S_high_mb_s"), ("S_pred_vcore_s", "S_vcore_s")):
        out[mine] = p[theirs].to_numpy(dtype=float) if len(p) else np.full(len(out), np.nan)
    out = out[np.isfinite(out["SE_m_pred_s"].to_numpy())]
    return out[list(PAIR_COLUMNS)].reset_index(drop=True)


def in_sample_pairs(model: SizeModel, records: pd.DataFrame) -> pd.DataFrame:
    """Every evaluable job predicted by ``model`` (fitted on ``records``)."""
    frame = conform(records)
    actual = _evaluable(frame, model.features, model.clock)
    predicted = model.predict_frame(frame.iloc[actual.index], errors="nan")
    return _pairs(actual, predicted)


def _splits(frame: pd.DataFrame, folds: int, seed: int, groups: str | None,
            group_folds: int | None = None) -> tuple[str, list[tuple[np.ndarray, np.ndarray]]]:
    """The (train, test) index pairs and their description; with ``group_folds``, more groups
    than that are left out that many folds of groups at a time (scikit-learn's
    ``GroupKFold``), not one by one."""
    if groups is None:
        if folds < 2:
            raise InputError(f"cross-validation needs at least 2 folds, got {folds}")
        if len(frame) < folds:
            raise ModelError(f"{len(frame)} jobs cannot be split into {folds} folds")
        kfold = KFold(n_splits=folds, shuffle=True, random_state=seed)
        return f"{folds}-fold cross-validation", list(kfold.split(frame))
    if groups not in frame.columns:
        raise InputError(f"no column {groups!r} to group the cross-validation by")
    labels = frame[groups]
    if labels.isna().any():
        raise InputError(f"column {groups!r} is missing for {int(labels.isna().sum())} jobs; "
                         "every job needs a group")
    if labels.nunique() < 2:
        raise ModelError(f"cross-validation by {groups!r} needs at least 2 groups")
    names = labels.astype(str).to_numpy()
    what = _left_out(groups, labels.nunique(), group_folds)
    if _in_folds(labels.nunique(), group_folds):
        kfold = GroupKFold(n_splits=group_folds, shuffle=True, random_state=seed)
        return what, list(kfold.split(frame, groups=names))
    return what, list(LeaveOneGroupOut().split(frame, groups=names))


def _in_folds(count: int, group_folds: int | None) -> bool:
    """Whether ``count`` groups are left out in ``group_folds`` folds, not one at a time."""
    return group_folds is not None and count > group_folds


def _left_out(groups: str, count: int, group_folds: int | None) -> str:
    """How ``count`` groups of the column ``groups`` are left out, in words."""
    if _in_folds(count, group_folds):
        return f"{groups} left out in {group_folds} folds"
    return f"leave-one-{groups}-out"


def cross_validated_pairs(records: pd.DataFrame, features: str = "probe", method: str = "gls",
                          level: float = DEFAULT_LEVEL, folds: int = 5, seed: int = 0,
                          progress: Progress = _quiet, groups: str | None = None, *,
                          form: str = FORM_DEFAULT, clock: str = "wall",
                          calibrated: bool = False, eq7_fit: str | None = None,
                          group_folds: int | None = None) -> pd.DataFrame:
    """Each job predicted by a model fitted on the other ``folds − 1`` folds or, with
    ``groups`` (a column such as ``job_type``), on the jobs of the other groups.
    ``calibrated``: each fold's model is itself calibrated on its own training jobs (nested),
    so the intervals are scored as a user would get them — leaving their groups out
    :data:`NESTED_GROUP_FOLDS` folds at a time where there are more, which keeps a history of
    a hundred kinds from costing ten thousand fits. ``eq7_fit``: as in
    :meth:`SizeModel.fit`; ``group_folds``: as in :func:`_splits`."""
    frame = conform(records)
    what, splits = _splits(frame, folds, seed, groups, group_folds)
    actual = _evaluable(frame, features, clock)
    parts = []
    with progress(what, len(splits)) as advance:
        for train, test in splits:
            test_rows = actual.index.intersection(pd.Index(test))
            try:
                model = SizeModel.fit(frame.iloc[train], features, method, level, partial=True,
                                      form=form, clock=clock, eq7_fit=eq7_fit)
                if calibrated:
                    calibrate(model, frame.iloc[train], groups=groups, folds=folds, seed=seed,
                              group_folds=NESTED_GROUP_FOLDS)
            except ModelError:
                advance()
                continue
            predicted = model.predict_frame(frame.iloc[test_rows], errors="nan")
            parts.append(_pairs(actual.loc[test_rows], predicted))
            advance()
    if not parts:
        return pd.DataFrame(columns=list(PAIR_COLUMNS))
    return pd.concat(parts, ignore_index=True)


def prequential_predictions(records: pd.DataFrame, features: str = "probe",
                            method: str = "gls", level: float = DEFAULT_LEVEL,
                            progress: Progress = _quiet, *, form: str = FORM_DEFAULT,
                            clock: str = "wall", eq7_fit: str | None = None) -> pd.DataFrame:
    """Per-job prequential predictions: job_id, actual and predicted SE_m, SE_r (s), S.

    Jobs are taken in finish-time order (file order where it is not recorded); each is predicted
    by a model fitted only on jobs that finished before it (see the module docstring). Columns:
    :data:`PAIR_COLUMNS` — ``*_s`` seconds, ``S_*_mb_s`` MB·s, ``S_*_vcore_s`` vcore·s. Jobs
    finishing before the first fit, and jobs the model cannot predict yet, are absent.
    """
    return _prequential(records, features, method, level, progress, form, clock, eq7_fit)[0]


def _prequential(records: pd.DataFrame, features: str, method: str, level: float,
                 progress: Progress, form: str = FORM_DEFAULT, clock: str = "wall",
                 eq7_fit: str | None = None) -> tuple[pd.DataFrame, int]:
    frame = conform(records)
    actual = _evaluable(frame, features, clock)
    order = actual.index[np.argsort(actual["finish_time_ms"].to_numpy(), kind="stable")]
    jobs = _JobRows(frame, features, form, eq7_fit or eq7_fit_default(features, form))
    model: SizeModel | None = None
    online = {prefix + name: Calibration.empty()
              for prefix in ("", UBER_CALIBRATION) for name in CALIBRATED}
    seen: list[int] = []
    next_fit = MIN_HISTORY
    warmup = 0
    predicted: dict[int, dict[str, float]] = {}
    with progress("prequential evaluation", len(order)) as advance:
        for i in order:
            if len(seen) >= next_fit:
                with contextlib.suppress(ModelError):
                    model = _refit(model, frame.iloc[seen], features, method, level, form,
                                   clock, eq7_fit)
                    model.calibration = online  # calibrated by the errors seen so far
                next_fit = max(len(seen) + 1, math.ceil(len(seen) * REFIT_GROWTH))
            if model is None:
                warmup += 1
            else:
                with contextlib.suppress(InputError, ModelError):
                    p = model.predict_one(jobs[i], jobs.conf(i), cluster=PAPER_CLUSTER)
                    predicted[i] = {"SE_m_s": p.SE_m, "SE_r_s": p.SE_r, "S_mb_s": p.S.memory,
                                    "S_low_mb_s": p.S_interval[0].memory,
                                    "S_high_mb_s": p.S_interval[1].memory,
                                    "S_vcore_s": p.S.vcores}
                with contextlib.suppress(InputError, ModelError):
                    model.observe(jobs[i], jobs.conf(i))
            seen.append(int(i))
            advance()
    rows = [i for i in order if i in predicted]
    pred = pd.DataFrame([predicted[i] for i in rows],
                        columns=["SE_m_s", "SE_r_s", "S_mb_s", "S_low_mb_s", "S_high_mb_s",
                                 "S_vcore_s"])
    return _pairs(actual.loc[rows], pred), warmup


def _refit(previous: SizeModel | None, records: pd.DataFrame, features: str, method: str,
           level: float, form: str, clock: str, eq7_fit: str | None = None) -> SizeModel:
    """A batch refit that keeps what the previous model learnt online about recurring
    applications and its calibration (both made of out-of-sample errors)."""
    model = SizeModel.fit(records, features, method, level, partial=True, form=form,
                          clock=clock, eq7_fit=eq7_fit)
    if previous is not None:
        model.recurring = previous.recurring
        model.calibration = previous.calibration
    return model


class _JobRows:
    """Each job as the plain mapping the one-job path takes (known values only), built on use."""

    def __init__(self, frame: pd.DataFrame, features: str, form: str = "paper",
                 eq7_fit: str | None = None) -> None:
        eq7 = eq7_fit or features  # observing a job reads what eq 7 was fitted on
        self.names = list(dict.fromkeys((
            *training_columns("SE_m", features, form), *training_columns("SE_r", features, form),
            *optional_columns(features, form), *training_columns("SE_r", eq7, form),
            *optional_columns(eq7, form), "map_time_ms", "reduce_time_ms", "map_cpu_ms",
            "reduce_cpu_ms", "n_maps", "n_reduces", "map_input_bytes", "map_memory_mb",
            "map_vcores", "reduce_memory_mb", "reduce_vcores", "am_memory_mb", "am_vcores")))
        self.job_names = frame["job_name"].to_numpy(dtype=object, na_value=None)
        self.values = np.column_stack([frame[c].to_numpy(dtype="float64", na_value=np.nan)
                                       for c in self.names])
        uber = frame["uberized"]
        self.uber = np.where(uber.isna().to_numpy(), np.nan,
                             uber.fillna(False).to_numpy(dtype=float))

    def __getitem__(self, i: int) -> dict[str, float]:
        job = {k: v for k, v in zip(self.names, self.values[i].tolist(), strict=True) if v == v}
        if self.uber[i] == self.uber[i]:
            job["uberized"] = float(self.uber[i])
        return job

    def conf(self, i: int) -> dict[str, object]:
        """The job's non-numeric part the model reads: its name (its application)."""
        return {"job_name": self.job_names[i]}


# ---------------------------------------------------------------------------------------------


def evaluate(records: pd.DataFrame, features: str = "probe", method: str = "gls",
             level: float = DEFAULT_LEVEL, folds: int = 5, seed: int = 0,
             progress: Progress = _quiet, source: object = None, groups: str | None = None,
             *, form: str = FORM_DEFAULT, clock: str = "wall", calibrate_by: str | None = "auto",
             eq7_fit: str | None = None, calibrate_with: pd.DataFrame | None = None,
             calibration_source: object = None) -> tuple[SizeModel, Evaluation]:
    """Fit on all of ``records`` and score in-sample, cross-validated (k-fold; ``folds`` = 0:
    skipped; or leave-one-group-out by the column ``groups``) and prequentially. Returns the
    model fitted on everything and the scores; ``source`` (the trace's path) names the trace in
    errors.

    ``calibrate_by``: how the returned model's intervals are calibrated (:func:`calibrate`:
    ``"auto"``, a column, None for K-fold) or ``"none"`` (GLS intervals); the cross-validated
    scores calibrate each fold's model the same way on its own training jobs.
    ``calibrate_with``: jobs of kinds ``records`` lacks to calibrate the returned model on
    instead (:func:`calibrate_on`; ``calibration_source`` names them in errors). ``eq7_fit``: as
    in :meth:`SizeModel.fit`."""
    if folds < 0 or folds == 1:
        raise InputError(f"cross-validation needs 0 (none) or at least 2 folds, got {folds}")
    model = SizeModel.fit(records, features, method, level, source=source, form=form,
                          clock=clock, eq7_fit=eq7_fit)
    in_sample = Scores.of(in_sample_pairs(model, records))
    cv = None
    if groups is not None or folds >= 2:
        cv = Scores.of(cross_validated_pairs(records, features, method, level, folds, seed,
                                             progress, groups=groups, form=form, clock=clock,
                                             calibrated=calibrate_by != "none",
                                             eq7_fit=eq7_fit))
    pairs, warmup = _prequential(records, features, method, level, progress, form, clock,
                                 eq7_fit)
    if calibrate_by != "none" or calibrate_with is not None:
        calibrate(model, records, groups=calibrate_by, folds=max(folds, 5), seed=seed,
                  progress=progress, unseen=calibrate_with, source=calibration_source)
    preq = Scores.of(pairs) if len(pairs) else None
    return model, Evaluation(features=features, method=method, in_sample=in_sample,
                             cross_validated=cv, folds=folds if folds >= 2 else 0,
                             groups=groups, prequential=preq, warmup=warmup, form=form,
                             clock=clock, level=level)


def calibration_groups(records: pd.DataFrame) -> str | None:
    """What to leave out, one at a time, to calibrate intervals for new kinds of job: the
    ``job_type`` column (or the application of each job's name) when it has at least 3
    values, else None (K-fold)."""
    frame = conform(records)
    if frame["job_type"].dropna().nunique() >= 3:
        return "job_type"
    apps = {application(n) for n in frame["job_name"].dropna()} - {None}
    return "application" if len(apps) >= 3 else None


def calibrate(model: SizeModel, records: pd.DataFrame, *, groups: str | None = "auto",
              folds: int = 5, seed: int = 0, progress: Progress = _quiet,
              unseen: pd.DataFrame | None = None, source: object = None,
              group_folds: int | None = None) -> SizeModel:
    """Calibrate ``model``'s intervals and quantiles (:mod:`jobsize.models.conformal`) on the
    out-of-sample errors of ``records`` (the records it was fitted on): each job predicted by
    a model fitted without its group — ``groups="auto"``: its job type or application
    (:func:`calibration_groups`), so the intervals are those of a kind of job never seen —
    or, with no groups, without its fold.
    ``unseen``: jobs of kinds ``records`` lacks to calibrate on instead (:func:`calibrate_on`;
    ``source`` names them in errors). ``group_folds``: as in :func:`cross_validated_pairs`'s
    nested calibration, groups left out that many folds at a time where there are more."""
    if unseen is not None:
        return calibrate_on(model, unseen, records, source=source)
    frame = conform(records)
    if groups == "auto":
        groups = calibration_groups(frame)
    if groups == "application":
        frame = frame.assign(application=[application(n) or f"#{i}" for i, n in
                                          enumerate(frame["job_name"].to_numpy(object))])
    pairs = cross_validated_pairs(frame, model.features, model.method, model.level, folds,
                                  seed, progress, groups=groups, form=model.form,
                                  clock=model.clock, eq7_fit=model.eq7_features,
                                  group_folds=group_folds)
    by = _left_out(groups, frame[groups].nunique(), group_folds) if groups else f"{folds}-fold"
    return _calibrate_with_pairs(model, pairs, by)


def calibrate_on(model: SizeModel, unseen: pd.DataFrame, history: pd.DataFrame, *,
                 source: object = None) -> SizeModel:
    """Calibrate ``model``'s intervals and quantiles on the errors it makes on ``unseen``:
    jobs of kinds it was not fitted on, predicted by the model itself — split conformal
    prediction with a calibration set of new kinds. Where the history's own kinds, left out one
    at a time, are more alike than the kinds a cluster will meet (kinds written by the same
    hands), their errors make intervals too narrow for a new kind; jobs drawn from a wider
    space of kinds calibrate them for one. A kind (``job_type``) that is also in ``history``
    (the records the model was fitted on) is refused: its errors would not be a new kind's.
    ``source`` names ``unseen`` in errors."""
    frame = conform(unseen)
    shared = sorted(set(conform(history)["job_type"].dropna()) & set(frame["job_type"].dropna()))
    if shared:
        raise InputError(f"the calibration jobs include kinds the model was fitted on "
                         f"({', '.join(shared[:3])}): calibrate on kinds it never saw",
                         source=source)
    pairs = in_sample_pairs(model, frame)
    if len(pairs) < 10:
        raise InputError(f"{len(pairs)} calibration jobs could be predicted; at least 10 "
                         "are needed", source=source)
    kinds = frame["job_type"].nunique()
    return _calibrate_with_pairs(model, pairs, f"jobs of {kinds} kinds never fitted on")


def _calibrate_with_pairs(model: SizeModel, pairs: pd.DataFrame, by: str) -> SizeModel:
    """Conformal scores of the jobs the regression sizes, and apart from them those of the uber
    jobs sized from their probes (``uber:*``, whose errors are their own; where there are
    too few of them, empty, to fill as such jobs finish); an uber job sized from the history
    has intervals of its own and calibrates neither."""
    uber = pairs["uber"].to_numpy(bool)
    probed_uber = uber & pairs["probed"].to_numpy(bool)
    own = _calibrations(pairs[probed_uber])
    model.calibration = {**_calibrations(pairs[~uber]), **{
        UBER_CALIBRATION + name: own.get(name, Calibration.empty()) for name in CALIBRATED}}
    model.training["calibration"] = {"by": by, "jobs": int((~uber).sum()),
                                     "probed_uber_jobs": int(probed_uber.sum())}
    return model


def _calibrations(pairs: pd.DataFrame) -> dict[str, Calibration]:
    with_r = pairs["n_reduces"].to_numpy() > 0
    cal = {"SE_m": Calibration.fit(pairs["SE_m_pred_s"], pairs["SE_m_s"]),
           "SE_r": Calibration.fit(pairs["SE_r_pred_s"][with_r], pairs["SE_r_s"][with_r]),
           "S": Calibration.fit(pairs["S_pred_mb_s"], pairs["S_mb_s"])}
    return {k: v for k, v in cal.items() if v is not None}


def coefficient_tables(model: SizeModel) -> dict[str, pd.DataFrame]:
    """Coefficient tables (with standard errors) of eq 6 and, if fitted, eq 7."""
    tables = {"SE_m": model.se_m.coefficient_table()}
    if model.se_r is not None:
        tables["SE_r"] = model.se_r.coefficient_table()
    return tables
