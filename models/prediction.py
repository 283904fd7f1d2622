"""The predicted size of one job, as a scheduler consumes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jobsize.models.resources import Resources


@dataclass(frozen=True, slots=True)
class Prediction:
    """A job's predicted size and what FSPY derives from it (paper eq 3-7).

    Times are in seconds. ``S`` (eq 5) is in (MB·s, vcore·s), ``APB`` (eq 3) in (MB, vcores),
    ``minE`` (eq 4) in seconds for the cluster the prediction was made for. Intervals are central
    prediction intervals of coverage ``level`` for the job's *actual* value, lower ends clipped
    at 0; ``interval_method`` says how they were made (``conformal``: calibrated on
    out-of-sample errors, see :mod:`jobsize.models.conformal`; ``gls``: the regression's own).
    ``quantiles`` maps probabilities to quantiles of S's memory·s. ``uber``: the job runs in
    uber mode and was sized as such. ``extrapolation`` names the terms (and ``leverage``) in
    which the job lies beyond the jobs the model was fitted on; ``notes`` say why a value was
    corrected (a recurring application, a linear prediction below the fastest task seen).
    """

    SE_m: float
    SE_r: float
    S: Resources
    minE: float
    APB: Resources
    SE_m_interval: tuple[float, float]
    SE_r_interval: tuple[float, float]
    S_interval: tuple[Resources, Resources]
    level: float
    uber: bool
    quantiles: dict[float, float] = field(default_factory=dict)
    interval_method: str = "gls"
    extrapolation: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with units in the key names."""
        low, high = self.S_interval
        return {
            "SE_m_s": self.SE_m,
            "SE_r_s": self.SE_r,
            "S": {"memory_mb_s": self.S.memory, "vcore_s": self.S.vcores},
            "minE_s": self.minE,
            "APB": {"memory_mb": self.APB.memory, "vcores": self.APB.vcores},
            "intervals": {
                "level": self.level,
                "method": self.interval_method,
                "SE_m_s": list(self.SE_m_interval),
                "SE_r_s": list(self.SE_r_interval),
                "S_memory_mb_s": [low.memory, high.memory],
                "S_vcore_s": [low.vcores, high.vcores],
            },
            "quantiles": {"S_memory_mb_s": {f"{p:g}": q for p, q in self.quantiles.items()}},
            "uber": self.uber,
            "extrapolation": list(self.extrapolation),
            "notes": list(self.notes),
        }
