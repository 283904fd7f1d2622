"""Size of uber jobs left unprobed, from the history's uber jobs (paper §III-A;
``--uber-from-history``).

Uber jobs run inside their AM container, and the paper does not probe them; it estimates their size
"using historic average task execution time" (:class:`UberEstimate`): per phase, the running mean
and variance of the per-job mean task time ``SE / N`` over finished uber jobs. Until an uber job
with that phase has been seen, the history of all finished jobs stands in, and a reduce phase with
no history at all borrows the map phase's — each fallback is reported by
:meth:`UberEstimate.source`. The predictive variance of ``N·ē`` is ``N²·s²·(1 + 1/k)`` over k past
jobs with sample variance s² of their mean task times.

A mean task time ignores what an uber job does tell before it runs: its map count and input
size. Once the history holds enough uber jobs, :class:`UberModel` predicts each phase's total
task time from them, log-linearly (uber jobs span orders of magnitude in input, and their times
grow less than in proportion, start-up dominating the smallest)::

    log SE_m = u0 + u1·log N_m + u2·log(1 + MI / 1 MiB)
    log SE_r = v0 + v1·log(1 + MI / 1 MiB)            (uber jobs have at most one reduce)

fitted by least squares with O(p²) online updates; its predictive variance on the log scale
gives the interval. Recurring applications get the same per-application correction as other
jobs (:mod:`jobsize.models.recurring`).

Neither knows a kind the history never ran (a new kind's uber job came out at a third of its
size), so ``jobsize probe`` probes uber jobs by default, and they are sized from their probes'
task times (:func:`jobsize.models.uberprobe.uber_task_times`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

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


#: Fewest uber jobs with a phase before :class:`UberModel` replaces the mean task time.
MIN_UBER_JOBS = 8
#: Largest log-linear answer taken (log seconds): an uber job is small, so a total task time
#: beyond 10⁹ s is a degenerate history's extrapolation, and the mean task time answers.
MAX_LOG_SECONDS = math.log(1e9)
_MIB = float(1 << 20)


def uber_features(phase: str, n_maps: float, input_bytes: float) -> list[float]:
    """The regressors of :class:`UberModel` for one job."""
    size = math.log1p(max(input_bytes, 0.0) / _MIB)
    if phase == "map":
        return [1.0, math.log(max(n_maps, 1.0)), size]
    return [1.0, size]


@dataclass
class LogLinear:
    """Least squares of ``log y`` on a few regressors, kept as sufficient statistics."""

    p: int
    gram: list[list[float]] = field(default_factory=list)
    moment: list[float] = field(default_factory=list)
    yy: float = 0.0
    n: int = 0

    def __post_init__(self) -> None:
        if not self.gram:
            self.gram = [[0.0] * self.p for _ in range(self.p)]
            self.moment = [0.0] * self.p

    def add(self, z: list[float], y: float) -> None:
        if not (y > 0 and math.isfinite(y)):
            return
        ly = math.log(y)
        for i in range(self.p):
            self.moment[i] += z[i] * ly
            for j in range(self.p):
                self.gram[i][j] += z[i] * z[j]
        self.yy += ly * ly
        self.n += 1

    def predict(self, z: list[float]) -> tuple[float, float]:
        """Mean and predictive variance of ``log y`` at ``z``."""
        gram = np.asarray(self.gram)
        inv = np.linalg.pinv(gram)
        coef = inv @ np.asarray(self.moment)
        ssr = max(self.yy - float(coef @ np.asarray(self.moment)), 0.0)
        dof = max(self.n - self.p, 1)
        s2 = ssr / dof
        x = np.asarray(z)
        return float(x @ coef), s2 * (1.0 + float(x @ inv @ x))


@dataclass
class UberModel:
    """Per-phase log-linear models of uber jobs' total task times, over the mean fallback."""

    fallback: UberEstimate = field(default_factory=UberEstimate)
    map: LogLinear = field(default_factory=lambda: LogLinear(3))
    reduce: LogLinear = field(default_factory=lambda: LogLinear(2))

    def add(self, n_m: float, n_r: float, mi: float | None, se_m: float, se_r: float | None,
            uber: bool) -> None:
        """Add a finished job (times in seconds): every job feeds the mean-task-time fallback,
        uber jobs also the log-linear models."""
        self.fallback.add(n_m, n_r, se_m, se_r, uber)
        if uber:
            self.learn(n_m, n_r, mi, se_m, se_r)

    def learn(self, n_m: float, n_r: float, mi: float | None, se_m: float,
              se_r: float | None) -> None:
        """Add an uber job to the log-linear models only."""
        if mi is None or not math.isfinite(mi):
            return
        if n_m > 0:
            self.map.add(uber_features("map", n_m, mi), se_m)
        if n_r > 0 and se_r is not None:
            self.reduce.add(uber_features("reduce", n_m, mi), se_r)

    def predict(self, phase: str, n: float, n_maps: float, input_bytes: float | None
                ) -> tuple[float, float, int, bool]:
        """Total task time of the phase, its variance on the log scale (or of the time itself
        for the fallback), the history size, and whether the log-linear model answered."""
        model = self.map if phase == "map" else self.reduce
        if n <= 0:
            return 0.0, 0.0, 0, False
        if model.n >= MIN_UBER_JOBS and input_bytes is not None and math.isfinite(input_bytes):
            mean, var = model.predict(uber_features(phase, n_maps, input_bytes))
            if mean <= MAX_LOG_SECONDS:
                return math.exp(mean), var, model.n, True
        se, var, k = self.fallback.predict(phase, n)
        return se, var, k, False


def task_times(values: np.ndarray) -> TaskTimes:
    """The count, mean and spread of the finite ``values`` (mean task times, s)."""
    values = values[np.isfinite(values)]
    if not len(values):
        return TaskTimes()
    mean = float(np.mean(values))
    return TaskTimes(count=len(values), mean=mean, m2=float(np.sum((values - mean) ** 2)))

