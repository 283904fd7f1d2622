"""What a reduce waits for: the map waves still to run when it starts (eq 7's ``wait`` term).

The paper keeps SE_m in eq 7 "because early launched reduce tasks have to wait until all map
tasks are finished". On YARN that wait is not a fixed share of SE_m: it depends on how many
waves the maps run in. A job's maps run C at a time (the map containers the cluster gives it);
its reduces are scheduled once ``mapreduce.job.reduce.slowstart.completedmaps`` (5 %) of the
maps are done — after the first map, about SE_m/N_m in — and MapReduce's ApplicationMaster
gives them at most half of its containers while maps are pending
(``yarn.app.mapreduce.am.job.reduce.rampup.limit``, 0.5). The map phase lasts about SE_m/C,
so each of the ``min(N_r, ⌊C/2⌋)`` reduces that start early waits about SE_m/C − SE_m/N_m for
the waves left, and nothing when the maps run in one wave (N_m ≤ C)::

    wait = SE_m · W(N_m, N_r; C),   W = min(N_r, max(1, ⌊C/2⌋)) · max(0, 1/C − 1/N_m)

eq 7 takes ``wait`` as a term of its own beside β7·SE_m; its coefficient is about 1 where the
formula holds. C is the history's (:func:`fit_map_slots`): the value with which eq 7 fits the
history best, or none (W = 0) where no value removes a tenth of eq 7's squared log error with
a coefficient that could be the wait itself (0.5 to 2) — a cluster whose reduces start after
the maps, as the local engine's, shows no waves, and a small coefficient would be the term
standing in for some other cost that grows with N_m. A cost that grows with N_m·N_r (a
reduce's fetch of each map's segment, at a third of a second each) can pass for waves; the
C a history gives is best checked against the waits its reduce attempts show (the Hadoop
trace's are, in the tests).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: Values of C (map containers a job gets) :func:`fit_map_slots` chooses from.
MAP_SLOTS = (*range(2, 17), 20, 24, 32, 48, 64, 96, 128)
#: Share of eq 7's squared log error that a wave term must remove to be kept.
MIN_GAIN = 0.10
#: Coefficients of the wait term that can be the wait itself (1: the formula exactly).
WAIT_COEF = (0.5, 2.0)
#: Fewest jobs of more maps than C with reduces that C is fitted on.
MIN_JOBS = 10
#: MapReduce's default share of containers reduces may hold while maps are pending.
RAMPUP_LIMIT = 0.5
#: Fitted SE_r values are floored here (seconds) before their log is taken.
_LOG_FLOOR_S = 0.05


def wave_factor(n_m: np.ndarray, n_r: np.ndarray, map_slots: float) -> np.ndarray:
    """W of each job (see the module docstring); 0 everywhere when ``map_slots`` is 0."""
    n_m = np.asarray(n_m, dtype=float)
    if map_slots <= 0:
        return np.zeros_like(n_m)
    early = np.minimum(np.asarray(n_r, dtype=float), _early_reduces(map_slots))
    with np.errstate(divide="ignore", invalid="ignore"):
        left = 1.0 / map_slots - 1.0 / n_m  # > 0 only for more maps than C
    return np.where(left > 0, early * left, 0.0)


def wave_factor_one(n_m: float, n_r: float, map_slots: float) -> float:
    """:func:`wave_factor` of one job, in plain floats."""
    if map_slots <= 0 or not n_m > map_slots:
        return 0.0
    return min(n_r, _early_reduces(map_slots)) * (1.0 / map_slots - 1.0 / n_m)


def _early_reduces(map_slots: float) -> float:
    return max(1.0, math.floor(map_slots * RAMPUP_LIMIT))


def fit_map_slots(n_m: np.ndarray, n_r: np.ndarray, y: np.ndarray,
                  fit: Callable[[float], tuple[np.ndarray, float] | None]) -> float:
    """C from a history of jobs with reduces (``n_m``, ``n_r``, their SE_r ``y`` in seconds):
    the value of :data:`MAP_SLOTS` whose eq 7 fit (``fit(C)``: its in-sample fitted SE_r and
    the wait term's coefficient, or None when it cannot be fitted; ``fit(0)``: eq 7 without
    the term) has the least mean squared log error among those with a coefficient in
    :data:`WAIT_COEF`, kept only if it removes :data:`MIN_GAIN` of that error without the
    term; else 0. Candidates with fewer than :data:`MIN_JOBS` jobs of more maps than C are
    not tried."""
    base = _log_error(fit(0.0), y)
    if not math.isfinite(base):
        return 0.0
    best, best_error = 0.0, base
    for slots in MAP_SLOTS:
        if (n_m > slots).sum() < MIN_JOBS:
            break
        result = fit(float(slots))
        if result is None or not WAIT_COEF[0] <= result[1] <= WAIT_COEF[1]:
            continue
        error = _log_error(result, y)
        if error < best_error:
            best, best_error = float(slots), error
    return best if best_error <= (1.0 - MIN_GAIN) * base else 0.0


def _log_error(result: tuple[np.ndarray, float] | None, y: np.ndarray) -> float:
    if result is None:
        return math.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.log(np.maximum(result[0], _LOG_FLOOR_S) / np.maximum(y, _LOG_FLOOR_S))
    e = e[np.isfinite(e)]
    return float(np.mean(e * e)) if len(e) else math.inf
