"""A synthetic workload from the published Facebook 2009 job-size bins.

Tang's thesis, Table 3.3 (from Zaharia et al.): the share of jobs by number of maps at
Facebook in October 2009. Each job draws a bin by its share and a map count uniformly inside
it (the open last bin, > 3200, is taken as 3201-6400); its reduces are 5 % or 25 % of its maps
(equally likely, at least 1); map task times are LogNormal(9.9511, 1.6764) and reduce task times
LogNormal(12.375, 1.6262), both in milliseconds, as the thesis fits Facebook's durations.
Arrivals are Poisson with the given mean gap. Everything is seeded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError
from jobsize.sim.workload import Workload, make_jobs, offsets_from_counts

#: (fewest maps, most maps, share of jobs) — thesis Table 3.3.
FB2009_BINS: tuple[tuple[int, int, float], ...] = (
    (1, 25, 0.58), (26, 50, 0.096), (51, 100, 0.086), (101, 200, 0.084), (201, 400, 0.056),
    (401, 800, 0.043), (801, 1600, 0.025), (1601, 3200, 0.013), (3201, 6400, 0.017),
)


@dataclass(frozen=True)
class SyntheticFB2009:
    """Parameters of the generator (see the module docstring)."""

    n_jobs: int = 100
    mean_gap_s: float = 14.7
    reduce_fractions: tuple[float, ...] = (0.05, 0.25)
    map_lognormal_ms: tuple[float, float] = (9.9511, 1.6764)
    reduce_lognormal_ms: tuple[float, float] = (12.375, 1.6262)
    seed: int = 0

    def generate(self) -> Workload:
        if self.n_jobs <= 0 or self.mean_gap_s < 0:
            raise ConfigError("synthetic workload: need n_jobs > 0 and mean_gap_s ≥ 0")
        rng = np.random.default_rng(self.seed)
        lo, hi, share = (np.array(c, dtype=float) for c in zip(*FB2009_BINS, strict=True))
        b = rng.choice(len(share), size=self.n_jobs, p=share / share.sum())
        n_maps = rng.integers(lo[b].astype(np.int64), hi[b].astype(np.int64) + 1)
        frac = rng.choice(np.asarray(self.reduce_fractions), size=self.n_jobs)
        n_reduces = np.maximum(1, np.ceil(n_maps * frac)).astype(np.int64)
        mu_m, s_m = self.map_lognormal_ms
        mu_r, s_r = self.reduce_lognormal_ms
        map_s = rng.lognormal(mu_m, s_m, int(n_maps.sum())) / 1000.0
        reduce_s = rng.lognormal(mu_r, s_r, int(n_reduces.sum())) / 1000.0
        gaps = rng.exponential(self.mean_gap_s, self.n_jobs)
        submit = np.cumsum(gaps) - gaps[0]
        jobs = make_jobs(self.n_jobs, job_id=[f"syn{i}" for i in range(self.n_jobs)],
                         submit_s=submit)
        return Workload(f"synthetic-fb2009(n={self.n_jobs}, seed={self.seed})", jobs, map_s,
                        offsets_from_counts(n_maps), reduce_s, reduce_s.copy(),
                        offsets_from_counts(n_reduces), first_gap_s=float(gaps[0]))
