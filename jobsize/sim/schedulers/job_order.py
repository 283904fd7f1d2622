"""Job orders for FIFO in the MRv1 slot model (Tang's thesis, chapter 3).

A job J_i is seen as a two-stage flow-shop job: its map phase loads the map slots for
``T_i^M = Σ_j t_ij^M / |S^M|`` and its reduce phase the reduce slots for
``T_i^R = Σ_j t_ij^R / |S^R|`` (Algorithm 1, step 1: summed task time over the slots).

- :func:`mk_jr` — Algorithm 1 (MK_JR): Johnson's rule. Jobs with ``T^M ≤ T^R`` first, by
  ``T^M`` ascending; then the others by ``T^R`` descending.
- :func:`mk_tct_jr` — Algorithm 2 (MK_TCT_JR): jobs with ``T_i = T_i^M + T_i^R`` at most the
  geometric mean of all ``T_i`` first, each group in MK_JR order.
- :func:`tct` — Algorithm 5 (TCT): shortest ``T_i`` first.
- :func:`two_stage_makespan` — eq 3.3, the makespan of an order in the simplified case (one
  map and one reduce "slot" of the phase loads); on the MK_JR order it is Lemma 3.3's lower
  bound, and MROrder's TP-ATI waits for it (Algorithm 4, step 5: ``T_A``).
- :func:`makespan_upper_bound` — eqs 3.5/3.6: eq 3.3 plus the longest map and reduce task.

Orders are lists of positions into the arrays given; ties keep the given order (stable sorts).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jobsize.errors import ConfigError


def phase_loads(map_work_s: Sequence[float], reduce_work_s: Sequence[float], map_slots: int,
                reduce_slots: int) -> tuple[np.ndarray, np.ndarray]:
    """``(T^M, T^R)`` per job: summed map and reduce task time over the slots of the phase."""
    if map_slots <= 0 or reduce_slots <= 0:
        raise ConfigError(f"job ordering needs map and reduce slots, found {map_slots} and "
                          f"{reduce_slots}")
    return (np.asarray(map_work_s, float) / map_slots,
            np.asarray(reduce_work_s, float) / reduce_slots)


def mk_jr(tm: Sequence[float], tr: Sequence[float]) -> list[int]:
    """Algorithm 1 (MK_JR): Johnson's rule on the phase loads."""
    tm, tr = np.asarray(tm, float), np.asarray(tr, float)
    idx = np.arange(len(tm))
    first = idx[tm <= tr]
    last = idx[tm > tr]
    first = first[np.argsort(tm[first], kind="stable")]
    last = last[np.argsort(-tr[last], kind="stable")]
    return [*first.tolist(), *last.tolist()]


def mk_tct_jr(tm: Sequence[float], tr: Sequence[float]) -> list[int]:
    """Algorithm 2 (MK_TCT_JR): jobs no longer than the geometric mean of ``T_i = T_i^M +
    T_i^R`` first, then the rest; Johnson's rule inside each group. (Jobs with ``T_i = 0``
    are left out of the mean and go with the small ones.)"""
    tm, tr = np.asarray(tm, float), np.asarray(tr, float)
    total = tm + tr
    positive = total[total > 0]
    if len(positive) == 0:
        return list(range(len(total)))
    # jobs of no work (T_i = 0) have no logarithm: they are small whatever the mean
    gmean = float(np.exp(np.mean(np.log(positive))))
    order: list[int] = []
    for group in (np.flatnonzero(total <= gmean), np.flatnonzero(total > gmean)):
        order += group[mk_jr(tm[group], tr[group])].tolist()
    return order


def tct(tm: Sequence[float], tr: Sequence[float]) -> list[int]:
    """Algorithm 5 (TCT): shortest ``T_i^M + T_i^R`` first."""
    total = np.asarray(tm, float) + np.asarray(tr, float)
    return np.argsort(total, kind="stable").tolist()


def two_stage_makespan(tm: Sequence[float], tr: Sequence[float], order: Sequence[int]) -> float:
    """Eq 3.3: ``max_k (Σ_{i≤k} T_i^M + Σ_{i≥k} T_i^R)`` over ``order`` (0 for no jobs)."""
    if len(order) == 0:
        return 0.0
    m = np.cumsum(np.asarray(tm, float)[list(order)])
    r = np.cumsum(np.asarray(tr, float)[list(order)][::-1])[::-1]
    return float((m + r).max())


def makespan_upper_bound(tm: Sequence[float], tr: Sequence[float], order: Sequence[int],
                         longest_map_s: Sequence[float], longest_reduce_s: Sequence[float],
                         *, over_all: bool = False) -> float:
    """Eq 3.5 (Lemma 3.2): eq 3.3 plus, at each k, the longest map task of the first k jobs
    and the longest reduce task of all; with ``over_all`` the longest map task of all jobs
    (eq 3.6, Lemma 3.3's upper bound over every order)."""
    if len(order) == 0:
        return 0.0
    order = list(order)
    m = np.cumsum(np.asarray(tm, float)[order])
    r = np.cumsum(np.asarray(tr, float)[order][::-1])[::-1]
    tmax_m = np.asarray(longest_map_s, float)[order]
    extra_m = np.full(len(order), tmax_m.max()) if over_all else np.maximum.accumulate(tmax_m)
    return float((m + extra_m + r).max() + np.asarray(longest_reduce_s, float).max())
