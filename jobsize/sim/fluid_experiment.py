"""The load-normalised fluid experiment of the size-based scheduling literature (schedsim).

A SWIM trace is replayed as a whole on one server of rate 1. A job's size comes from its
bytes, as in Dell'Amico et al.'s simulator: ``m + (1 + d/n)·s + r`` with ``m`` the map
input, ``s`` the shuffle and ``r`` the reduce output bytes, ``d/n`` the ratio of the
cluster's aggregate disk to network bandwidth (shuffled bytes cross the network as well as
disks). Sizes are then scaled so that the trace offers ``load`` of the server's capacity
over its span: ``Σ size = load × t_last`` with ``t_last`` the last submission time of the
trace. Size-based policies see each size times exp(σ·Z), one standard normal Z per job and
seed (:class:`~jobsize.sim.size_sources.LognormalSizes`); each (σ, seed) is one run, and
policies that do not look at sizes (FIFO, PS, LAS) and σ = 0 runs once.

The summary gives, per σ and policy, the mean sojourn (response) time of every run, and over
the seeds their mean, standard deviation, minimum and maximum.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from joblib import delayed

from jobsize.errors import ConfigError
from jobsize.sim.backends import ordered_results
from jobsize.sim.fluid import make_policy, simulate_fluid
from jobsize.sim.size_sources import LognormalSizes
from jobsize.sim.workload import Workload

BYTE_COLUMNS = ("map_input_bytes", "reduce_shuffle_bytes", "reduce_output_bytes")
#: policies that never look at sizes: one run whatever σ and the seed
SIZE_BLIND = ("fifo", "ps", "las")


def byte_sizes(workload: Workload, d_over_n: float, load: float) -> np.ndarray:
    """Every job's size on the unit server (see the module docstring)."""
    missing = [c for c in BYTE_COLUMNS if c not in workload.jobs]
    if missing:
        raise ConfigError(f"--load needs the SWIM byte counts; workload lacks {missing[0]!r}",
                          source=workload.name)
    if not (load > 0 and np.isfinite(load)) or not (d_over_n >= 0 and np.isfinite(d_over_n)):
        raise ConfigError(f"--load {load!r} must be > 0 and --d-over-n {d_over_n!r} ≥ 0")
    j = workload.jobs
    raw = (j["map_input_bytes"].to_numpy(float) + (1 + d_over_n)
           * j["reduce_shuffle_bytes"].to_numpy(float) + j["reduce_output_bytes"].to_numpy(float))
    span = float(workload.submit_s().max()) if workload.n_jobs else 0.0
    if raw.sum() <= 0 or span <= 0:
        raise ConfigError("the trace has no bytes or no time span to scale to a load",
                          source=workload.name)
    return raw * (load * span / raw.sum())


def _run(workload: Workload, size: np.ndarray, policy: str, sigma: float, seed: int
         ) -> pd.DataFrame:
    est = size * LognormalSizes(sigma, seed).factors(workload) if sigma else size
    submit = workload.submit_s()
    done = simulate_fluid(submit, size, make_policy(policy), est).completion
    return pd.DataFrame({"sigma": sigma, "seed": seed, "scheduler": policy,
                         "job_id": workload.jobs["job_id"].to_numpy(), "submit_s": submit,
                         "size_s": size, "finish_s": done, "response_s": done - submit})


def runs(policies: Sequence[str], sigmas: Sequence[float], seeds: Sequence[int]
         ) -> list[tuple[str, float, int]]:
    """Every (policy, σ, seed) to simulate."""
    out = []
    for sigma in sigmas:
        for name in policies:
            blind = name in SIZE_BLIND or sigma == 0
            out.extend((name, sigma, s) for s in (seeds[:1] if blind else seeds))
    return out


def run_experiment(workload: Workload, policies: Sequence[str], sigmas: Sequence[float],
                   seeds: Sequence[int], *, d_over_n: float = 4.0, load: float = 0.9,
                   n_jobs: int = 1, advance: Callable[..., None] | None = None
                   ) -> pd.DataFrame:
    """Per-job results of every run (see :func:`runs`)."""
    for name in policies:
        make_policy(name)  # fail before any work
    size = byte_sizes(workload, d_over_n, load)
    tasks = [delayed(_run)(workload, size, name, sigma, seed)
             for name, sigma, seed in runs(policies, sigmas, seeds)]
    frames = []
    for frame in ordered_results(tasks, n_jobs):
        frames.append(frame)
        if advance is not None:
            advance(1)
    return pd.concat(frames, ignore_index=True)


def per_seed(per_job: pd.DataFrame) -> pd.DataFrame:
    """Mean sojourn time of every run: sigma, scheduler, seed, jobs, mean_response_s."""
    return (per_job.groupby(["sigma", "scheduler", "seed"], sort=True)
            .agg(jobs=("job_id", "size"), mean_response_s=("response_s", "mean"))
            .reset_index())


def summarize(per_job: pd.DataFrame) -> pd.DataFrame:
    """Per σ and scheduler: runs, and the mean, standard deviation, minimum and maximum over
    the runs of their mean sojourn time."""
    runs_ = per_seed(per_job)
    return (runs_.groupby(["sigma", "scheduler"], sort=True)["mean_response_s"]
            .agg(runs="size", mean="mean", std=lambda s: float(s.std(ddof=1)) if len(s) > 1
                 else 0.0, min="min", max="max")
            .reset_index())
