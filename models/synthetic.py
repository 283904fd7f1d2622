"""Synthetic job records drawn from a *known* linear process — for tests and benchmarks only.

Nothing here is measured. SE_m and SE_r are generated from eq 6 and eq 7 with the coefficients
given (:data:`TRUE_ALPHA`, :data:`TRUE_BETA` by default) plus heteroscedastic Gaussian noise whose
standard deviation is ``noise_cv`` times the mean — the situation feasible GLS is designed for —
so a fit can be checked against the truth. Probe columns are the job's counters times the
probe fraction of Algorithm 1 (``1 / max(N_m, N_r)``), optionally perturbed by sampling noise.
Every record says ``source="synthetic"`` and ``job_type="synthetic"``; none has a job name, so
none belongs to a recurring application.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from jobsize.models.design import design_matrix

from jobsize.schema import conform

#: eq 6 coefficients (const, N_m, MI, MFE, MO, MOR, MOR·log MOR), in s per unit.
TRUE_ALPHA = np.array([2.0, 1.5, 3e-8, 1.0, 5e-9, 2e-7, 1e-8])
#: eq 7 coefficients (const, N_r, MO, RFE, RO, RIR, RIR·log RIR, SE_m), in s per unit.
TRUE_BETA = np.array([3.0, 2.0, 1e-8, 1.0, 2e-8, 1e-7, 5e-9, 0.05])

_BLOCK = 64 * 1024 * 1024
_START_MS = 1_500_000_000_000


def linear_trace(
    n: int,
    *,
    seed: int = 0,
    alpha: np.ndarray = TRUE_ALPHA,
    beta: np.ndarray = TRUE_BETA,
    noise_cv: float = 0.15,
    probe_noise: float = 0.0,
    map_only: float = 0.2,
    uber: float = 0.0,
) -> pd.DataFrame:
    """``n`` conformed job records; SE from eq 6/7 with noise sd = ``noise_cv`` × mean.

    ``map_only`` is the share of jobs without reduces, ``uber`` the share of small uber jobs
    (their time is task count × a mean task time of about 3 s, as §III-A assumes).
    """
    rng = np.random.default_rng(seed)
    n_m = np.maximum(1, np.round(np.exp(rng.uniform(0, np.log(2000), n)))).astype(np.int64)
    mi = np.round(n_m * _BLOCK * rng.uniform(0.3, 1.0, n))
    mo = np.round(mi * rng.uniform(0.05, 1.5, n))
    mor = np.round(mo / rng.uniform(20, 200, n))
    mfe_ms = np.round(mi * np.exp(rng.uniform(np.log(1e-9), np.log(2e-8), n)) * 1e3)
    n_r = np.where(rng.random(n) < map_only, 0,
                   np.minimum(np.maximum(1, np.round(n_m / rng.uniform(2, 30, n))), 64))
    n_r = n_r.astype(np.int64)
    rir = np.where(n_r > 0, np.round(mor * rng.uniform(0.1, 1.0, n)), 0)
    ro = np.where(n_r > 0, np.round(mo * rng.uniform(0.01, 1.0, n)), 0)
    rfe_ms = np.where(n_r > 0, np.round(rir * np.exp(rng.uniform(np.log(1e-7), np.log(2e-6), n))
                                        * 1e3), 0)
    cols = {"n_maps": n_m.astype(float), "map_input_bytes": mi, "map_function_ms": mfe_ms,
            "map_output_bytes": mo, "map_output_records": mor, "n_reduces": n_r.astype(float),
            "reduce_function_ms": rfe_ms, "reduce_output_bytes": ro,
            "reduce_input_records": rir}
    se_m = _noisy(design_matrix(cols, "SE_m", "actual") @ alpha, noise_cv, rng)
    se_r_mean = design_matrix(cols, "SE_r", "actual", se_m=se_m) @ beta
    se_r = np.where(n_r > 0, _noisy(se_r_mean, noise_cv, rng), 0.0)

    is_uber = rng.random(n) < uber
    n_m = np.where(is_uber, rng.integers(1, 10, n), n_m)
    n_r = np.where(is_uber, rng.integers(0, 2, n), n_r)
    se_m = np.where(is_uber, n_m * rng.normal(3.0, 0.5, n).clip(0.5), se_m)
    se_r = np.where(is_uber & (n_r > 0), n_r * rng.normal(4.0, 0.5, n).clip(0.5),
                    np.where(is_uber, 0.0, se_r))
    mi = np.where(is_uber, np.minimum(mi, _BLOCK // 2), mi)

    fraction = 1.0 / np.maximum(n_m, n_r)
    probe = {name: np.where(is_uber, np.nan, np.round(values * fraction * _jitter(
                 probe_noise, rng, n)))
             for name, values in (("probe_map_function_ms", mfe_ms),
                                  ("probe_map_output_bytes", mo),
                                  ("probe_map_output_records", mor),
                                  ("probe_reduce_function_ms", rfe_ms),
                                  ("probe_reduce_input_records", rir),
                                  ("probe_reduce_output_bytes", ro))}
    submit = _START_MS + np.cumsum(rng.exponential(20_000, n)).astype(np.int64)
    finish = submit + (se_m * 1000 / np.minimum(n_m, 64)).astype(np.int64) + 5_000
    frame = pd.DataFrame({
        "job_id": [f"job_{_START_MS // 1000}_{i + 1:04d}" for i in range(n)],
        "job_name": None, "user": "synthetic", "queue": "default",
        "state": "SUCCEEDED", "uberized": is_uber, "complete": True,
        "job_type": "synthetic", "source": "synthetic",
        "submit_time_ms": submit, "launch_time_ms": submit + 1000, "finish_time_ms": finish,
        "n_maps": n_m, "n_reduces": n_r,
        "map_memory_mb": rng.choice([1024, 2048], n), "map_vcores": 1,
        "reduce_memory_mb": rng.choice([1024, 2048, 3072], n),
        "reduce_vcores": rng.choice([1, 2], n),
        "am_memory_mb": 1536, "am_vcores": 1,
        "map_input_bytes": mi, "map_output_bytes": mo, "map_output_records": mor,
        "reduce_input_records": rir, "reduce_output_bytes": ro,
        "map_time_ms": np.round(se_m * 1000), "reduce_time_ms": np.round(se_r * 1000),
        "map_function_ms": mfe_ms, "reduce_function_ms": rfe_ms,
        "probe_fraction": np.where(is_uber, np.nan, fraction),
        "probe_input_bytes": np.where(is_uber, np.nan, np.round(mi * fraction)),
        **probe,
    })
    return conform(frame)


def _noisy(mean: np.ndarray, cv: float, rng: np.random.Generator) -> np.ndarray:
    # Clipping keeps times positive; with cv ≤ 0.3 it almost never binds.
    return np.maximum(mean * (1 + cv * rng.standard_normal(len(mean))), 0.1)


def _jitter(sd: float, rng: np.random.Generator, n: int) -> np.ndarray:
    if sd <= 0:
        return np.ones(n)
    return np.maximum(1 + sd * rng.standard_normal(n), 0.01)
