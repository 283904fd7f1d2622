"""Variance models of the residuals: what makes a least-squares fit OLS, WLS or feasible GLS.

Task times are heteroscedastic — a job ten times larger varies far more than ten small ones — so
the fits weight each job by the inverse of its relative variance ``v(x)``:

- ``ols``: ``v = 1`` (ordinary least squares; every job counts the same).
- ``wls``: ``v = m²`` with ``m`` the OLS fitted value — a constant coefficient of variation, a
  fixed assumption with nothing estimated.
- ``gls``: ``v = m^γ`` with the power γ estimated from a fit's residuals by regressing
  ``log r²`` on ``log m`` (Harvey's multiplicative heteroscedasticity) — feasible generalised
  least squares, the default. γ is clipped to [0, 4]. :mod:`models.regression` estimates it
  from the OLS fit and once more from the first GLS fit.

``m`` is floored at the 5th percentile of the positive targets, so a tiny or negative fitted value
cannot give one job an unbounded weight. ``v`` is normalised to a geometric mean of 1 over the
training jobs; the fit's residual scale s² carries the absolute level, so a job's predictive
variance is ``s²·v(x)`` plus the coefficients' own uncertainty.

The mean ``m`` comes from the coefficients the variance model was estimated from, frozen with it,
so a job's weight depends on that job alone: online updates then equal a batch refit with the
same variance model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import mul

import numpy as np

from jobsize.errors import ConfigError

METHODS: tuple[str, ...] = ("gls", "wls", "ols")
POWER_RANGE = (0.0, 4.0)
_FLOOR_PERCENTILE = 5.0
_LARGEST_EXPONENT = math.log(np.finfo(float).max)


def check_method(method: str) -> None:
    if method not in METHODS:
        raise ConfigError(f"unknown fitting method {method!r}; expected one of "
                          f"{', '.join(METHODS)}")


@dataclass(frozen=True, eq=False)
class VarianceModel:
    """``v(x) = exp(power·log max(x·mean_coef, floor) − centre)``; ``power = 0`` means OLS."""

    power: float
    mean_coef: np.ndarray
    floor: float
    centre: float
    _coefs: list[float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_coefs", self.mean_coef.tolist())

    @classmethod
    def constant(cls, p: int) -> VarianceModel:
        return cls(power=0.0, mean_coef=np.zeros(p), floor=1.0, centre=0.0)

    @classmethod
    def fit(cls, method: str, x: np.ndarray, y: np.ndarray, coef: np.ndarray
            ) -> VarianceModel:
        """Estimate the variance model of ``method`` from a fit's coefficients ``coef``."""
        check_method(method)
        if method == "ols":
            return cls.constant(x.shape[1])
        fitted = x @ coef
        positive = y[y > 0]
        floor = float(np.percentile(positive, _FLOOR_PERCENTILE)) if len(positive) else 1.0
        log_m = np.log(np.maximum(fitted, floor))
        power = 2.0 if method == "wls" else _power(y - fitted, log_m)
        centre = float(np.mean(power * log_m))
        return cls(power=power, mean_coef=np.asarray(coef, dtype=float).copy(),
                   floor=floor, centre=centre)

    def relative(self, x: np.ndarray) -> np.ndarray:
        """Relative variance of each row of the design matrix ``x``."""
        if self.power == 0.0:
            return np.ones(len(x))
        m = np.maximum(x @ self.mean_coef, self.floor)
        exponent = self.power * np.log(m) - self.centre
        # as relative_one: beyond the largest float the variance is infinite, without a warning
        big = exponent >= _LARGEST_EXPONENT
        return np.where(big, math.inf, np.exp(np.where(big, 0.0, exponent)))

    def relative_one(self, row: list[float]) -> float:
        """:meth:`relative` of one design row (plain floats)."""
        if self.power == 0.0:
            return 1.0
        m = max(sum(map(mul, row, self._coefs)), self.floor)
        exponent = self.power * math.log(m) - self.centre if m < math.inf else math.inf
        return math.exp(exponent) if exponent < _LARGEST_EXPONENT else math.inf


def _power(residuals: np.ndarray, log_m: np.ndarray) -> float:
    """Slope of ``log r²`` on ``log m``, clipped to :data:`POWER_RANGE`."""
    r2 = residuals * residuals
    mean_r2 = float(np.mean(r2))
    if mean_r2 <= 0 or np.ptp(log_m) == 0:
        return 0.0
    # A residual of exactly zero has log r² = −∞; a tiny offset keeps it finite.
    response = np.log(r2 + 1e-12 * mean_r2)
    centred = log_m - log_m.mean()
    slope = float(centred @ (response - response.mean()) / (centred @ centred))  # simple LS
    return float(np.clip(slope, *POWER_RANGE))
