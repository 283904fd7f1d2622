"""Recurring jobs: a per-application correction learned online, shrunk toward the global model.

Most production jobs run again and again — the same name and programs on new data. The global
model's error on one application is not noise from run to run: an application whose cost the
features miss is missed every time. So each application keeps the mean of its past runs' log
errors ``r = log(actual / predicted)`` (per phase, each computed before the model learnt from
that run), and its next prediction is multiplied by ``exp(Σr / (n + k))`` — the mean shrunk
toward 0 (the global model) by k pseudo-runs, an empirical-Bayes estimate with
``k = σ²_within / τ²_between`` from the training history (how noisy one run is against how much
applications differ). An application seen once moves a little; one seen often is trusted.

The application of a job is its name with run-specific digits folded (``wordcount-2026-11-23``
and ``wordcount-2026-11-24`` are one application); names that say nothing about the job —
Hadoop Streaming's ``streamjob<digits>.jar``, ``job`` — give none.

Uber jobs sized from their probes keep their own errors (``uber:SE_m``, ``uber:SE_r``): their
sizes come from the probe's task times, not the regression, so what they miss differs (a cold
first map, the commit poll). They are learnt online (``observe``), not at fit, and shrunk by
the same k.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

PHASES = ("SE_m", "SE_r")
#: The phases of uber jobs sized from their probes.
UBER_PHASES = ("uber:SE_m", "uber:SE_r")
#: Shrinkage when the history cannot estimate it (too few applications or runs).
DEFAULT_K = 3.0
#: Bounds of the estimated shrinkage.
K_RANGE = (1.0, 50.0)
#: Job names that identify no application.
_GENERIC = re.compile(r"^(streamjob#?(\.jar)?|job|#|jobsize probe: .*|)$")


def application(job_name: object) -> str | None:
    """The application a job name stands for (digits folded), or None for a generic name."""
    if not isinstance(job_name, str):
        return None
    key = re.sub(r"\d+", "#", job_name.strip().lower())
    return None if _GENERIC.match(key) else key


@dataclass
class Recurring:
    """Per-application sums of log errors, per phase."""

    k: float = DEFAULT_K
    #: phase → application → [n, Σr, Σr²]
    sums: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {p: {} for p in PHASES + UBER_PHASES})

    @classmethod
    def fit(cls, apps: Iterable[str | None], errors: Mapping[str, Iterable[float]]
            ) -> Recurring:
        """From training jobs' applications and their log errors per phase (NaN: none)."""
        apps = list(apps)
        rec = cls()
        for phase in PHASES:
            for app, r in zip(apps, errors[phase], strict=True):
                rec.add(phase, app, r)
        rec.k = rec._estimate_k()
        return rec

    def add(self, phase: str, app: str | None, error: float) -> None:
        """Add one run's log error ``log(actual / predicted)`` of ``phase``."""
        if app is None or not math.isfinite(error):
            return
        entry = self.sums[phase].setdefault(app, [0.0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += error
        entry[2] += error * error

    def factor(self, phase: str, app: str | None) -> float:
        """The multiplicative correction of ``phase`` for a run of ``app`` (1: none)."""
        entry = self.sums[phase].get(app) if app is not None else None
        if not entry:
            return 1.0
        return math.exp(entry[1] / (entry[0] + self.k))

    def _estimate_k(self) -> float:
        """σ²_within / τ²_between (method of moments over applications with ≥ 2 runs)."""
        within_ss = within_dof = 0.0
        means, counts = [], []
        for phase in PHASES:
            for n, total, squares in self.sums[phase].values():
                if n >= 2:
                    mean = total / n
                    within_ss += max(squares - n * mean * mean, 0.0)
                    within_dof += n - 1
                    means.append(mean)
                    counts.append(n)
        if len(means) < 3 or within_dof <= 0:
            return DEFAULT_K
        sigma2 = within_ss / within_dof
        tau2 = float(np.var(means, ddof=1)) - sigma2 * float(np.mean(1.0 / np.asarray(counts)))
        if tau2 <= 0:
            return K_RANGE[1]  # applications differ no more than runs do: trust the model
        return float(min(max(sigma2 / tau2, K_RANGE[0]), K_RANGE[1]))

    def to_json(self) -> dict:
        return {"k": self.k, "sums": self.sums}

    @classmethod
    def from_json(cls, doc: dict) -> Recurring:
        k = float(doc["k"])
        if not (K_RANGE[0] <= k <= K_RANGE[1]):
            raise ValueError(f"shrinkage k = {k} outside {K_RANGE}")

        def phase(name: str) -> dict[str, list[float]]:
            # model files from before uber jobs kept their own errors have none of them
            apps = doc["sums"].get(name, {}) if name in UBER_PHASES else doc["sums"][name]
            return {str(app): _entry(v) for app, v in apps.items()}

        return cls(k=k, sums={name: phase(name) for name in PHASES + UBER_PHASES})


def _entry(value: list) -> list[float]:
    """One application's [n, Σr, Σr²] from a model file: a count of at least one run and a
    non-negative sum of squares (else ValueError)."""
    n, total, squares = (float(v) for v in value[:3])
    if not (n >= 1 and squares >= 0):
        raise ValueError(f"expected [runs ≥ 1, Σr, Σr² ≥ 0], got {value!r}")
    return [n, total, squares]
