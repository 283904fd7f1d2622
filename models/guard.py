"""What a phase model was fitted on, to say when a prediction leaves it — and to keep a linear
model from predicting a negative time.

A linear model extrapolates without complaint: a job with ten times the largest input in the
history, or a mix of features no history job had, gets a number as confident-looking as any
other. :class:`Guard` keeps, per term, the range the fitted jobs spanned and the largest
leverage ``xᵀ(XᵀWX)⁻¹x`` among them; a prediction outside either is flagged (the scheduler
decides what to trust). It also keeps the fastest mean task time seen (``SE / N``), the floor a
phase's prediction is raised to — with a note saying so — when the linear combination falls
below what N tasks have ever cost, including below zero. Where the job's probe ran an empty
task, N times that task's time is the floor instead: a kind of job faster than any in the
history (a mapper such as ``cut``) is not raised to the history's fastest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The probe's empty task of each phase (ms): what one task of the job paid on no input, the
#: job's own floor where its probe measured it.
EMPTY_TASK_COLUMNS = {"SE_m": "probe_map_task_fixed_ms", "SE_r": "probe_reduce_task_fixed_ms"}

#: A term is "beyond the history" when it exceeds the largest value fitted by this factor (or
#: falls below the smallest by it).
RANGE_SLACK = 1.25


@dataclass
class Guard:
    """Per-term ranges, the largest training leverage and the fastest task of one phase."""

    low: list[float]
    high: list[float]
    leverage: float
    task_floor_s: float  # smallest mean task time (s) among the fitted jobs

    @classmethod
    def of(cls, x: np.ndarray, tasks: np.ndarray, y: np.ndarray, xtwx_inv: np.ndarray
           ) -> Guard:
        """From the fitted design rows ``x``, their task counts and targets (s)."""
        lev = np.einsum("ij,jk,ik->i", x, xtwx_inv, x)
        per_task = y[tasks > 0] / tasks[tasks > 0]
        floor = float(np.min(per_task)) if len(per_task) else 0.0
        return cls(low=x.min(axis=0).tolist(), high=x.max(axis=0).tolist(),
                   leverage=float(np.max(lev)) if len(lev) else 0.0,
                   task_floor_s=max(floor, 0.0))

    def outside(self, row: list[float], terms: tuple[str, ...], xtwx_inv: np.ndarray
                ) -> list[str]:
        """Terms of ``row`` beyond the fitted range, and ``leverage`` if it exceeds the
        largest fitted one."""
        out = []
        for name, v, lo, hi in zip(terms, row, self.low, self.high, strict=True):
            if name == "const" or not math.isfinite(v):
                continue
            lowest = lo / RANGE_SLACK if lo > 0 else lo * RANGE_SLACK
            if v > hi * RANGE_SLACK + 1e-12 or v < lowest:
                out.append(name)
        x = np.asarray(row)
        if float(x @ xtwx_inv @ x) > self.leverage * RANGE_SLACK:
            out.append("leverage")
        return out

    def widen(self, row: list[float], tasks: float, y: float) -> None:
        """Take a job learnt online into the ranges."""
        self.low = [min(a, b) for a, b in zip(self.low, row, strict=True)]
        self.high = [max(a, b) for a, b in zip(self.high, row, strict=True)]
        if tasks > 0 and math.isfinite(y) and y >= 0:
            self.task_floor_s = min(self.task_floor_s, y / tasks)

    def floor(self, tasks: float) -> float:
        """The least time ``tasks`` tasks of this phase have cost in the history."""
        return tasks * self.task_floor_s

    def to_json(self) -> dict:
        return {"low": self.low, "high": self.high, "leverage": self.leverage,
                "task_floor_s": self.task_floor_s}

    @classmethod
    def from_json(cls, doc: dict, p: int) -> Guard:
        low, high = [float(v) for v in doc["low"]], [float(v) for v in doc["high"]]
        if len(low) != p or len(high) != p:
            raise ValueError(f"expected {p} term ranges")
        return cls(low=low, high=high, leverage=float(doc["leverage"]),
                   task_floor_s=float(doc["task_floor_s"]))
