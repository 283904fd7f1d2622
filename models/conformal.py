"""Prediction intervals that hold on kinds of job the model never saw: conformal calibration.

GLS intervals assume the model's form is right and its errors normal with the fitted variance.
On a kind of job the history has never seen, neither holds: the error is mostly the model's
misfit to that kind, which the residuals of the fit do not show. So the intervals are
calibrated on **out-of-sample** errors instead — split conformal prediction (Vovk et al.;
Lei et al. 2018), with the errors of each job predicted by a model that never saw its group
(leave-one-kind-out, :func:`jobsize.models.evaluation.cross_validated_pairs`), which is the
situation a new kind of job is in.

The conformity score is the log ratio ``e = log(actual / predicted)``: size errors are
multiplicative, and a log score keeps lower ends positive. The scores are kept per **Mondrian
bin** of the predicted value (small, medium, large jobs: their relative errors differ), and the
interval of probability content L is ``predicted·exp([Q(α/2), Q(1 − α/2)])`` with
``α = 1 − L`` and Q the bin's empirical quantile at the finite-sample rank ``⌈(n + 1)·p⌉`` —
coverage at least L for a job exchangeable with the calibration jobs. Quantiles at other
probabilities (:data:`QUANTILE_LEVELS`) come from the same scores, for schedulers that want a
distribution rather than a point. Each finished job's score (computed before the model learns
from it) can be added online (:meth:`Calibration.add`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

#: Probabilities at which predictions report quantiles of S.
QUANTILE_LEVELS: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
#: Fewest scores a bin keeps; with fewer calibration jobs there is one bin.
MIN_PER_BIN = 40
#: At most this many bins of the predicted value.
MAX_BINS = 3
#: Scores kept per bin (the oldest are dropped when online additions exceed it).
MAX_SCORES = 5000


@dataclass
class Calibration:
    """Conformity scores ``log(actual / predicted)`` per bin of the predicted value."""

    edges: list[float]  # bin boundaries of the predicted value (len = bins − 1)
    scores: list[list[float]] = field(default_factory=list)  # sorted, per bin

    @classmethod
    def fit(cls, predicted: Sequence[float], actual: Sequence[float]) -> Calibration | None:
        """Scores of out-of-sample pairs; None when fewer than 10 usable pairs."""
        p, a = np.asarray(predicted, float), np.asarray(actual, float)
        ok = np.isfinite(p) & np.isfinite(a) & (p > 0) & (a > 0)
        p, a = p[ok], a[ok]
        if len(p) < 10:
            return None
        bins = max(1, min(MAX_BINS, len(p) // MIN_PER_BIN))
        edges = [float(e) for e in np.quantile(p, np.arange(1, bins) / bins)]
        cal = cls(edges=edges, scores=[[] for _ in range(bins)])
        for pi, ai in zip(p.tolist(), a.tolist(), strict=True):
            cal.add(pi, ai)
        return cal

    def bin(self, predicted: float) -> int:
        return bisect.bisect_right(self.edges, predicted)

    def add(self, predicted: float, actual: float) -> None:
        """Add one out-of-sample pair (a job predicted before the model learnt it)."""
        if not (predicted > 0 and actual > 0 and math.isfinite(predicted)
                and math.isfinite(actual)):
            return
        scores = self.scores[self.bin(predicted)]
        bisect.insort(scores, math.log(actual / predicted))
        if len(scores) > MAX_SCORES:
            scores.pop(len(scores) // 2)  # thin evenly rather than bias a tail

    def quantile(self, predicted: float, p: float) -> float:
        """The p-quantile of the actual value of a job predicted at ``predicted``."""
        scores = self.scores[self.bin(predicted)]
        n = len(scores)
        if n == 0:
            return math.nan
        # Conformal ranks; beyond the scores (too few for p) the extreme score stands in,
        # which is what the calibration set can support.
        # ranks ⌈(n+1)p⌉ and ⌊(n+1)p⌋, immune to (n+1)·p landing a hair off an integer
        upper = min(math.ceil((n + 1) * p - 1e-9), n)
        rank = upper if p >= 0.5 else max(math.floor((n + 1) * p + 1e-9), 1)
        return predicted * math.exp(scores[rank - 1])

    def interval(self, predicted: float, level: float) -> tuple[float, float]:
        """Central interval of content ``level``."""
        alpha = 1 - level
        return self.quantile(predicted, alpha / 2), self.quantile(predicted, 1 - alpha / 2)

    def quantiles(self, predicted: float, levels: Iterable[float] = QUANTILE_LEVELS
                  ) -> dict[float, float]:
        return {p: self.quantile(predicted, p) for p in levels}

    @property
    def size(self) -> int:
        return sum(len(s) for s in self.scores)

    def to_json(self) -> dict:
        return {"edges": self.edges, "scores": self.scores}

    @classmethod
    def empty(cls) -> Calibration:
        """No scores yet, one bin: a calibration to fill online (:meth:`add`)."""
        return cls(edges=[], scores=[[]])

    @classmethod
    def from_json(cls, doc: dict) -> Calibration:
        edges = [float(e) for e in doc["edges"]]
        scores = [sorted(float(s) for s in b) for b in doc["scores"]]
        if len(scores) != len(edges) + 1 or edges != sorted(edges):
            raise ValueError("calibration bins do not match their edges")
        return cls(edges=edges, scores=scores)
