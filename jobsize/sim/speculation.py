"""LATE speculative execution (Zaharia et al., OSDI 2008), as Hadoop 1.2.1 runs it.

A running attempt is a *straggler* worth copying when

- it has run at least ``lag_s`` (Hadoop waits a minute before speculating a task);
- its progress rate (fraction done per second) is below the ``slow_percentile``-th percentile
  of the rates of its job's running attempts of the same kind (LATE's SlowTaskThreshold, 25);
- its estimated time left, ``elapsed · (1 − progress) / progress`` (LATE's estimate under
  linear progress), exceeds what a fresh copy would take: the mean duration of the job's
  completed tasks of that kind;
- it has no copy yet, and fewer than ``cap`` (a fraction of the cluster's slots, LATE's
  SpeculativeCap, 10 %) copies run.

Of the stragglers, LATE copies the one with the longest time left. The slow-node threshold of
LATE (never launch a copy on a node whose own tasks are slow) is not modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError


@dataclass(frozen=True)
class Late:
    """LATE's thresholds (see the module docstring)."""

    cap: float = 0.1
    slow_percentile: float = 25.0
    lag_s: float = 60.0

    def __post_init__(self) -> None:
        if not 0 <= self.cap <= 1 or not 0 <= self.slow_percentile <= 100 or self.lag_s < 0:
            raise ConfigError("LATE needs a cap in [0, 1], a percentile in [0, 100] and a lag "
                              "≥ 0 s")

    def straggler(self, attempts: list[tuple[int, float, float]], mean_done_s: float) -> int:
        """Among running attempts ``(container, elapsed s, progress)`` of one job and kind (none
        of them copied), the one to copy, or -1. ``mean_done_s``: the mean duration of the
        job's completed tasks of that kind (NaN: none completed yet — no copy)."""
        # An attempt launched this instant has no rate yet: LATE cannot judge it, and an
        # infinite rate would make the percentile NaN.
        timed = [a for a in attempts if a[1] > 0]
        if not timed or math.isnan(mean_done_s):
            return -1
        rates = np.array([p / e for _, e, p in timed])
        threshold = np.percentile(rates, self.slow_percentile)
        best, best_left = -1, mean_done_s
        for (cid, elapsed, progress), rate in zip(timed, rates.tolist(), strict=True):
            if elapsed < self.lag_s or rate > threshold:
                continue
            left = np.inf if progress <= 0 else elapsed * (1 - progress) / progress
            if left > best_left:
                best, best_left = cid, left
        return best


#: LATE with its published thresholds
DEFAULT_LATE = Late()
