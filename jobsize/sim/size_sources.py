"""Size sources: the only way job sizes reach a size-based policy.

A policy never reads task durations. It holds a :class:`SizeSource` and asks it, once, for
:class:`SizeEstimates` of the workload it is bound to; only :class:`ExactSizes` hands back the
truth. Further sources (a fitted model applied to probe records, a measured error
distribution) implement the same two members:

- ``name`` — how reports name the source (``exact``, ``lognormal(σ=0.5)``, ...);
- ``estimate(workload) -> SizeEstimates`` — per-job estimates aligned with the workload's jobs,
  with ``known_after_s``, the delay after submission before the estimate exists (0 for exact
  and lognormal sources; a probe's latency for a fitted model), and quantiles of each job's
  actual S where the source knows its own uncertainty (:meth:`SizeEstimates.quantile`), so a
  policy can order by a pessimistic size as well as by the point.

Sizes follow eq 5: S = R_m·SE_m + R_r·SE_r in memory MB·s (AM excluded), with the per-phase
parts SE_m, SE_r in seconds of task time.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from jobsize.errors import ConfigError
from jobsize.sim.workload import Workload

#: Probabilities at which sources that know their uncertainty give quantiles of S.
QUANTILES = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)


@dataclass(frozen=True)
class SizeEstimates:
    """Per-job estimated sizes (arrays aligned with the workload's jobs)."""

    map_time_s: np.ndarray  # SE_m
    reduce_time_s: np.ndarray  # SE_r
    size_mb_s: np.ndarray  # S (eq 5), memory MB·s
    known_after_s: np.ndarray  # delay after submission before the estimate is available
    source: str = ""
    #: probability → per-job quantile of the actual S (memory MB·s), where the source has them
    quantiles: dict[float, np.ndarray] = field(default_factory=dict)

    def quantile(self, p: float) -> np.ndarray:
        """Per-job quantile ``p`` of the actual S, at the nearest probability the source
        gives."""
        if not self.quantiles:
            raise ConfigError(f"size source {self.source!r} gives no quantiles")
        if not 0.0 < p < 1.0:
            raise ConfigError(f"quantile probability must be in (0, 1), found {p!r}")
        nearest = min(self.quantiles, key=lambda q: (abs(q - p), q))
        return self.quantiles[nearest]

    @classmethod
    def from_phases(cls, workload: Workload, se_m: np.ndarray, se_r: np.ndarray,
                    known_after_s: np.ndarray | None = None, source: str = "") -> SizeEstimates:
        j = workload.jobs
        size = (j["map_mb"].to_numpy(np.float64) * se_m
                + j["reduce_mb"].to_numpy(np.float64) * se_r)
        delay = np.zeros(len(se_m)) if known_after_s is None else np.asarray(known_after_s, float)
        return cls(np.asarray(se_m, float), np.asarray(se_r, float), size, delay, source)


class SizeSource(ABC):
    """Where a size-based policy gets its job sizes (see the module docstring)."""

    name: str = "size source"

    @abstractmethod
    def estimate(self, workload: Workload) -> SizeEstimates:
        """Estimates for every job of ``workload``."""


class ExactSizes(SizeSource):
    """The true sizes: the only source through which a policy sees them."""

    name = "exact"

    def estimate(self, workload: Workload) -> SizeEstimates:
        est = SizeEstimates.from_phases(workload, workload.map_work_s(),
                                        workload.reduce_work_s(), source=self.name)
        est.quantiles.update(dict.fromkeys(QUANTILES, est.size_mb_s))  # no uncertainty
        return est


def job_uniforms(workload: Workload, seed: int, stream: str = "") -> np.ndarray:
    """One number in (0, 1) per job, fixed by ``seed``, ``stream`` and the job's id.

    A job draws the same number in every workload it is part of (the whole trace, each
    overlapping segment), and different jobs draw independent ones; a job id repeated within
    the workload is told apart by its occurrence.
    """
    seen: dict[str, int] = {}
    out = np.empty(workload.n_jobs)
    for k, job_id in enumerate(workload.jobs["job_id"].astype(str).tolist()):
        occurrence = seen[job_id] = seen.get(job_id, -1) + 1
        digest = hashlib.blake2b(f"{seed}\x1f{stream}\x1f{job_id}\x1f{occurrence}".encode(),
                                 digest_size=8).digest()
        out[k] = ((int.from_bytes(digest, "little") >> 11) + 0.5) / 2.0**53
    return out


def job_normals(workload: Workload, seed: int, stream: str = "") -> np.ndarray:
    """One standard normal number per job, fixed like :func:`job_uniforms`."""
    inv = NormalDist().inv_cdf
    return np.array([inv(u) for u in job_uniforms(workload, seed, stream).tolist()])


class LognormalSizes(SizeSource):
    """True sizes times exp(σ·Z), one standard normal Z per job, seeded.

    The same factor scales SE_m, SE_r and S, so the error is on the job's size as a whole (the
    error model of the size-based scheduling literature, e.g. PSBS). Z belongs to the job
    (:func:`job_normals`): the job has the same error in every segment of a sweep.
    """

    def __init__(self, sigma: float, seed: int = 0) -> None:
        if not (sigma >= 0 and np.isfinite(sigma)):
            raise ConfigError(f"lognormal σ must be a non-negative number, found {sigma!r}")
        self.sigma, self.seed = float(sigma), int(seed)
        self.name = f"lognormal(σ={self.sigma:g}, seed={self.seed})"

    def factors(self, workload: Workload) -> np.ndarray:
        """Every job's error factor exp(σ·Z)."""
        return np.exp(self.sigma * job_normals(workload, self.seed, "lognormal"))

    def estimate(self, workload: Workload) -> SizeEstimates:
        f = self.factors(workload)
        est = SizeEstimates.from_phases(workload, workload.map_work_s() * f,
                                        workload.reduce_work_s() * f, source=self.name)
        # actual = estimate·exp(−σZ): its quantiles are the estimate's times exp(σ·z_p)
        inv = NormalDist().inv_cdf
        est.quantiles.update({p: est.size_mb_s * float(np.exp(self.sigma * inv(p)))
                              for p in QUANTILES})
        return est


def size_source(spec: str | float | None, seed: int = 0) -> SizeSource:
    """``None``/``"exact"``/0 → exact; a number σ or ``"lognormal:σ"`` → lognormal with ``seed``."""
    if spec is None or spec == "exact":
        return ExactSizes()
    text = str(spec).removeprefix("lognormal:")
    try:
        sigma = float(text)
    except ValueError:
        raise ConfigError(f"size source {spec!r}: expected 'exact' or a σ like 0.5") from None
    return ExactSizes() if sigma == 0 else LognormalSizes(sigma, seed)
