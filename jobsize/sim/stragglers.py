"""Stragglers: task attempts that run much longer than their task's usual time.

Each attempt of a task is slowed, with probability ``probability``, by a factor drawn uniformly
from ``slowdown`` (a faulty disk, a busy node, a software misconfiguration — the causes LATE and
DynamicMR's SEPB name). The slowness belongs to the attempt, not to the task: a speculative copy
or a rerun of a straggler draws afresh and usually runs at the normal speed, which is what makes
speculative execution worth anything.

A task's first attempt draws from a generator seeded by ``seed`` and the task's position in the
workload, so every scheduler of a comparison meets the same first-attempt stragglers; later
attempts (reruns, speculative copies) draw from the simulation's own generator, seeded the same
way. The simulator uses the model when given one (``Simulation(..., stragglers=Stragglers())``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError


@dataclass(frozen=True)
class Stragglers:
    """Attempt slowdowns (see the module docstring)."""

    probability: float = 0.05
    slowdown: tuple[float, float] = (3.0, 6.0)
    seed: int = 0

    def __post_init__(self) -> None:
        lo, hi = self.slowdown
        if not 0 <= self.probability <= 1 or not 1 <= lo <= hi or not np.isfinite(hi):
            raise ConfigError(f"stragglers: probability {self.probability!r} must be in [0, 1] "
                              f"and the slowdown range {self.slowdown!r} within [1, ∞)")

    def first_factors(self, n: int, kind: int) -> np.ndarray:
        """Slowdown factors of the first attempts of ``n`` tasks of one kind (1 = normal)."""
        rng = np.random.default_rng((self.seed, kind))
        slow = rng.random(n) < self.probability
        factor = rng.uniform(self.slowdown[0], self.slowdown[1], n)
        return np.where(slow, factor, 1.0)

    def generator(self) -> np.random.Generator:
        """The generator of later attempts' factors."""
        return np.random.default_rng((self.seed, 99))

    def draw(self, rng: np.random.Generator) -> float:
        """One later attempt's factor."""
        if rng.random() < self.probability:
            return float(rng.uniform(self.slowdown[0], self.slowdown[1]))
        return 1.0

    def describe(self) -> str:
        return (f"{100 * self.probability:g} % of attempts slowed "
                f"{self.slowdown[0]:g}-{self.slowdown[1]:g}×")
