"""Workloads that replay recorded task durations: Rumen and SLS traces, and local runs (and
the drawn durations of SLS synthetic specs).

All three arrive as a job-record table plus a task-attempt table (``jobsize.schema``). Each
successful MAP or REDUCE attempt becomes one task of its job with its recorded duration
(``finish − start``); a reduce's tail is ``finish − shuffle_finish`` where the trace records the
shuffle's end, else its whole duration. Submission times are rebased so the first job arrives at
0. Container sizes come from the job record, else from the attempts, else Hadoop's defaults.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from jobsize.errors import SimulationError
from jobsize.schema import DEFAULT_CONTAINERS, TASK_COLUMNS, read_trace, tasks_path
from jobsize.sim.workload import Workload, make_jobs, offsets_from_counts


def _int_column(jobs: pd.DataFrame, name: str, fallback: pd.Series | None, default: int
                ) -> np.ndarray:
    values = jobs[name] if name in jobs else pd.Series(pd.NA, index=jobs.index)
    if fallback is not None:
        values = values.fillna(fallback)
    return values.fillna(default).to_numpy(dtype=np.int64)


def from_tables(jobs: pd.DataFrame, tasks: pd.DataFrame, name: str) -> Workload:
    """A workload from conformed job-record and task-attempt frames."""
    if len(jobs) == 0:
        raise SimulationError("the trace has no jobs", source=name)
    ok = tasks[(tasks["status"].astype("string") == "SUCCEEDED")
               & tasks["task_type"].isin(["MAP", "REDUCE"])].copy()
    missing = ok["start_time_ms"].isna() | ok["finish_time_ms"].isna()
    if missing.any():
        row = ok[missing].iloc[0]
        raise SimulationError(f"attempt {row['attempt_id']}: no start or finish time",
                              source=name)
    ok["dur_s"] = (ok["finish_time_ms"] - ok["start_time_ms"]).astype("float64") / 1000.0
    shuffle_end = ok["shuffle_finish_time_ms"].astype("Float64")
    tail = (ok["finish_time_ms"] - shuffle_end).astype("Float64") / 1000.0
    ok["tail_s"] = tail.fillna(ok["dur_s"]).clip(lower=0).astype("float64")
    if (ok["dur_s"] < 0).any():
        row = ok[ok["dur_s"] < 0].iloc[0]
        raise SimulationError(f"attempt {row['attempt_id']}: finishes before it starts",
                              source=name)
    jobs = jobs[jobs["submit_time_ms"].notna()].reset_index(drop=True)
    index = {jid: i for i, jid in enumerate(jobs["job_id"].astype(str))}
    ok = ok[ok["job_id"].astype(str).isin(index)]
    ok["j"] = ok["job_id"].astype(str).map(index).astype(np.int64)
    ok = ok.sort_values(["j", "start_time_ms"], kind="stable")
    maps, reds = ok[ok["task_type"] == "MAP"], ok[ok["task_type"] == "REDUCE"]
    n = len(jobs)
    n_maps = np.bincount(maps["j"], minlength=n)
    n_reds = np.bincount(reds["j"], minlength=n)
    recorded = jobs["n_maps"].fillna(0).to_numpy(np.int64) + jobs["n_reduces"].fillna(0) \
        .to_numpy(np.int64)
    lost = (n_maps + n_reds == 0) & (recorded > 0)
    if lost.any():
        jid = jobs["job_id"].iloc[int(np.flatnonzero(lost)[0])]
        raise SimulationError(f"job {jid}: the task table has no successful attempt of it",
                              source=name)
    mem = maps.groupby("j")["memory_mb"].first() if len(maps) else None
    rmem = reds.groupby("j")["memory_mb"].first() if len(reds) else None
    submit_ms = jobs["submit_time_ms"].to_numpy(np.float64)
    uber = jobs["uberized"].fillna(False).to_numpy(bool) if "uberized" in jobs else False
    frame = make_jobs(
        n, job_id=jobs["job_id"].astype(str).to_numpy(),
        submit_s=(submit_ms - submit_ms.min()) / 1000.0,
        map_mb=_int_column(jobs, "map_memory_mb", _aligned(mem, n),
                           DEFAULT_CONTAINERS["map_memory_mb"]),
        map_vcores=_int_column(jobs, "map_vcores", None, DEFAULT_CONTAINERS["map_vcores"]),
        reduce_mb=_int_column(jobs, "reduce_memory_mb", _aligned(rmem, n),
                              DEFAULT_CONTAINERS["reduce_memory_mb"]),
        reduce_vcores=_int_column(jobs, "reduce_vcores", None,
                                  DEFAULT_CONTAINERS["reduce_vcores"]),
        am_mb=_int_column(jobs, "am_memory_mb", None, DEFAULT_CONTAINERS["am_memory_mb"]),
        am_vcores=_int_column(jobs, "am_vcores", None, DEFAULT_CONTAINERS["am_vcores"]),
        uber=uber, queue=jobs["queue"].fillna("default").astype(str).to_numpy(),
    )
    for col in jobs.columns:  # keep the record (probe columns feed fitted size sources)
        if col not in frame.columns:
            frame[col] = jobs[col].to_numpy()
    return Workload(name, frame, maps["dur_s"].to_numpy(), offsets_from_counts(n_maps),
                    reds["dur_s"].to_numpy(), reds["tail_s"].to_numpy(),
                    offsets_from_counts(n_reds))


def _aligned(series: pd.Series | None, n: int) -> pd.Series | None:
    if series is None:
        return None
    return series.reindex(range(n))


def read_rumen_workload(path: str | os.PathLike[str]) -> Workload:
    from jobsize.collectors.rumen import read_rumen

    jobs, tasks = read_rumen(path)
    return from_tables(jobs, tasks, str(path))


def read_sls_workload(path: str | os.PathLike[str]) -> Workload:
    from jobsize.collectors.sls import read_sls

    jobs, tasks = read_sls(path)
    return from_tables(jobs, tasks, str(path))


def read_sls_synth_workload(path: str | os.PathLike[str], seed: int | None = None
                            ) -> Workload:
    """Jobs drawn from an SLS SYNTH spec (``jobsize.collectors.sls_synth``); ``seed`` overrides the
    spec's ``rand_seed``."""
    from jobsize.collectors.sls_synth import generate_sls_synth

    jobs, tasks = generate_sls_synth(path, seed=seed)
    return from_tables(jobs, tasks, str(path))


def read_local_workload(path: str | os.PathLike[str]) -> Workload:
    """A trace of local runs: ``X.parquet`` and its task table ``X.tasks.parquet``."""
    jobs = read_trace(path, require=("job_id", "submit_time_ms"))
    tpath = tasks_path(path)
    if not tpath.exists():
        raise SimulationError(f"no task table {tpath.name} beside the trace; the simulator "
                              "replays recorded task durations", source=path)
    tasks = read_trace(tpath, columns=TASK_COLUMNS, require=("job_id", "task_type", "status",
                                                             "start_time_ms", "finish_time_ms"))
    return from_tables(jobs, tasks, str(path))
