"""Size of uber jobs from history (paper §III-A): mean task time × task count.

Uber jobs run inside their AM container and are not probed; the paper estimates their size "using
historic average task execution time". Per phase this keeps the running mean and variance of the
per-job mean task time ``SE / N`` over finished uber jobs. Until an uber job with that phase has
been seen, the history of all finished jobs stands in, and a reduce phase with no history at all
borrows the map phase's — each fallback is reported by :meth:`UberEstimate.source`.

The predictive variance of ``N·ē`` is ``N²·s²·(1 + 1/k)`` over k past jobs with sample variance
s² of their mean task times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from jobsize.errors import ModelError


@dataclass
class TaskTimes:
    """Running count, mean and sum of squared deviations (Welford) of mean task times (s)."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (value - self.mean)

    @property
    def variance(self) -> float:
        return self.m2 / (self.count - 1) if self.count > 1 else 0.0


@dataclass
class UberEstimate:
    """Historical mean task time per phase: of uber jobs, and of all jobs as a fallback."""

    uber: dict[str, TaskTimes] = field(
        default_factory=lambda: {"map": TaskTimes(), "reduce": TaskTimes()})
    every: dict[str, TaskTimes] = field(
        default_factory=lambda: {"map": TaskTimes(), "reduce": TaskTimes()})

    def add(self, n_m: float, n_r: float, se_m: float, se_r: float | None, uber: bool) -> None:
        """Add a finished job (times in seconds; ``se_r`` None when unknown)."""
        for phase, n, se in (("map", n_m, se_m), ("reduce", n_r, se_r)):
            if n > 0 and se is not None and math.isfinite(se):
                self.every[phase].add(se / n)
                if uber:
                    self.uber[phase].add(se / n)

    def history(self, phase: str) -> TaskTimes:
        """The task-time history used for ``phase`` ("map" or "reduce")."""
        for times in (self.uber[phase], self.every[phase], self.uber["map"], self.every["map"]):
            if times.count:
                return times
        raise ModelError("no finished job in the training history to estimate an uber job from")

    def source(self, phase: str) -> str:
        h = self.history(phase)
        kind = "uber" if h is self.uber[phase] or h is self.uber["map"] else "all"
        borrowed = " (map task times)" if phase == "reduce" and (
            h is self.uber["map"] or h is self.every["map"]) else ""
        return f"{kind} jobs{borrowed}, {h.count} job{'s' * (h.count != 1)}"

    def predict(self, phase: str, n: float) -> tuple[float, float, int]:
        """Predicted total task time of ``n`` tasks, its variance and the history's size."""
        if n <= 0:
            return 0.0, 0.0, 0
        h = self.history(phase)
        return n * h.mean, n * n * h.variance * (1 + 1 / h.count), h.count
