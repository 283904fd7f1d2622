"""How close the YARN model comes to a real cluster that ran the same jobs.

A run on a real cluster leaves each job's record (submit and finish times) and its task
attempts. The model replays the attempts' durations (:func:`jobsize.sim.traces.from_tables`)
under the same scheduler on the same cluster shape and answers each job's response time; the
error of a job is simulated / measured − 1.

What the model leaves out, it is given as four constants (:class:`Constants`), times a cluster
spends that no task attempt records:

- ``am_startup_s``: from the ApplicationMaster's container to its first task requests (the AM's
  JVM, job initialisation, split reading) — the model's ``am_startup_s``;
- ``am_startup_per_am_s``: what each AM still starting adds to a new AM's start-up (AM JVMs
  that start together share the machine's cores) — the model's ``am_startup_per_am_s``;
- ``task_overhead_s``: from a container's allocation to its attempt's recorded start, and from
  the attempt's end to the container's release (heartbeats, the NodeManager's launch and
  clean-up), added to each attempt's duration;
- ``commit_s``: from the last task's end to the job's end (the output commit, the history
  written), added to each job's finish.

:func:`calibrate` fits them to one run's response times (a grid, the mean absolute log
error: the jobs that found the cluster idle count as much as the queued majority), to be
checked on the runs it was not fitted on; :func:`history_times` shows what the histories
themselves say of them. :func:`transplant` gives a run the attempts of another run of the same
jobs: the model then predicts one scheduler's response times from a run under another, knowing
of the predicted run only when its jobs were submitted.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from jobsize.errors import SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.schedulers import make_scheduler
from jobsize.sim.traces import from_tables
from jobsize.sim.workload import Workload


@dataclass(frozen=True)
class Constants:
    """Times a cluster spends that no task attempt records (see the module docstring)."""

    am_startup_s: float = 0.0
    task_overhead_s: float = 0.0
    commit_s: float = 0.0
    am_startup_per_am_s: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class Setting:
    """The scheduler and its settings on both sides: the name the simulator knows it by, its
    queues (``name:capacity[:max]`` for the Capacity scheduler), the AM share."""

    scheduler: str
    capacity_queues: str | None = None
    max_am_share: float = 0.5
    slowstart: float = 0.05


def measured_response_s(jobs: pd.DataFrame) -> pd.Series:
    """Each job's response time on the cluster (finish − submit, s), by job id."""
    done = (jobs["finish_time_ms"] - jobs["submit_time_ms"]).astype("float64") / 1000.0
    return pd.Series(done.to_numpy(), index=jobs["job_id"].astype(str), name="measured_s")


def history_times(jobs: pd.DataFrame, tasks: pd.DataFrame) -> dict[str, float]:
    """Medians over the run's jobs of what the histories show of the three constants: submit
    to launch (the AM's container found and its JVM started, plus any wait for room), launch
    to the first attempt's start, and the last attempt's end to the job's finish."""
    ok = tasks[tasks["status"].astype("string") == "SUCCEEDED"]
    by_job = ok.groupby(ok["job_id"].astype(str))
    first, last = by_job["start_time_ms"].min(), by_job["finish_time_ms"].max()
    j = jobs.set_index(jobs["job_id"].astype(str)).reindex(first.index)

    def median_s(ms: pd.Series) -> float:
        return round(float(np.nanmedian(ms.astype("float64"))) / 1000.0, 2)

    return {"submit_to_launch_s": median_s(j["launch_time_ms"] - j["submit_time_ms"]),
            "launch_to_first_task_s": median_s(first - j["launch_time_ms"]),
            "last_task_to_finish_s": median_s(j["finish_time_ms"] - last)}


def replayed(jobs: pd.DataFrame, tasks: pd.DataFrame) -> Workload:
    """The run as a workload; queues by their leaf names, as the simulator's schedulers name
    them (Hadoop records the Fair and Capacity schedulers' queue paths: ``root.adhoc``)."""
    leaf = jobs["queue"].astype("string").str.rsplit(".", n=1).str[-1]
    return from_tables(jobs.assign(queue=leaf), tasks, "cluster run")


def same_jobs(source_jobs: pd.DataFrame, jobs: pd.DataFrame) -> dict[str, str]:
    """Each job id of ``source_jobs`` → the id of the same job (by name) in ``jobs``."""
    id_of = dict(zip(jobs["job_name"].astype(str), jobs["job_id"].astype(str), strict=True))
    ids = {}
    for source_id, name in zip(source_jobs["job_id"].astype(str),
                               source_jobs["job_name"].astype(str), strict=True):
        if name not in id_of:
            raise SimulationError(f"job {source_id} ({name}) is not in the other run",
                                  source="the runs compared")
        ids[source_id] = id_of[name]
    return ids


def transplant(source_jobs: pd.DataFrame, source_tasks: pd.DataFrame,
               jobs: pd.DataFrame) -> pd.DataFrame:
    """``source_tasks`` (another run's attempts of the same jobs) under ``jobs``' ids: what
    the model knows of a run it predicts from a run it has seen."""
    ids = same_jobs(source_jobs, jobs)
    return source_tasks.assign(job_id=source_tasks["job_id"].astype(str).map(ids))


def as_before(source_jobs: pd.DataFrame, jobs: pd.DataFrame) -> pd.Series:
    """The baseline a simulator must beat: each job as long as it took in the other run."""
    ids = same_jobs(source_jobs, jobs)
    before = measured_response_s(source_jobs)
    return pd.Series(before.to_numpy(), index=before.index.map(ids), name="simulated_s")


def with_overhead(workload: Workload, overhead_s: float) -> Workload:
    """The workload with ``overhead_s`` added to every attempt's duration (not to a reduce's
    tail: the overhead is the container's launch, before the shuffle)."""
    if overhead_s == 0:
        return workload
    return replace(workload, map_s=workload.map_s + overhead_s,
                   reduce_s=workload.reduce_s + overhead_s)


def simulated_response_s(jobs: pd.DataFrame, tasks: pd.DataFrame, cluster: Cluster,
                         setting: Setting, constants: Constants, *,
                         workload: Workload | None = None) -> pd.Series:
    """Each job's response time in the YARN model, replaying the run's attempts."""
    base = workload if workload is not None else replayed(jobs, tasks)
    policy = make_scheduler(setting.scheduler, capacity_queues=setting.capacity_queues)
    result = simulate(with_overhead(base, constants.task_overhead_s), cluster, policy,
                      slowstart=setting.slowstart, am_startup_s=constants.am_startup_s,
                      am_startup_per_am_s=constants.am_startup_per_am_s,
                      max_am_share=setting.max_am_share)
    out = result.jobs
    return pd.Series(out["response_s"].to_numpy() + constants.commit_s,
                     index=out["job_id"].astype(str), name="simulated_s")


def compare(measured: pd.Series, simulated: pd.Series) -> pd.DataFrame:
    """Per job: measured and simulated response times and the error simulated/measured − 1."""
    frame = pd.concat([measured, simulated], axis=1, join="inner")
    frame["error"] = frame["simulated_s"] / frame["measured_s"] - 1.0
    return frame


def summary(frame: pd.DataFrame) -> dict[str, float]:
    """Median and 90th percentile of |error|, the median signed error, and the mean response
    times both ways."""
    err = frame["error"].abs()
    return {"jobs": len(frame), "median_abs_error": float(err.median()),
            "p90_abs_error": float(err.quantile(0.9)),
            "median_error": float(frame["error"].median()),
            "mean_measured_s": float(frame["measured_s"].mean()),
            "mean_simulated_s": float(frame["simulated_s"].mean())}


#: The grid :func:`calibrate` searches, seconds.
GRID: Mapping[str, tuple[float, ...]] = {
    "am_startup_s": tuple(float(s) for s in range(0, 21, 2)),
    "am_startup_per_am_s": tuple(float(s) for s in range(7)),
    "task_overhead_s": tuple(s / 2 for s in range(9)),
    "commit_s": tuple(float(s) for s in range(6)),
}


def calibrate(jobs: pd.DataFrame, tasks: pd.DataFrame, cluster: Cluster, setting: Setting,
              grid: Mapping[str, Iterable[float]] = GRID) -> tuple[Constants, float]:
    """The constants of ``grid`` whose simulated response times are closest to the run's (the
    mean of |log(simulated / measured)|), and that mean."""
    base = replayed(jobs, tasks)
    measured = measured_response_s(jobs)
    best: tuple[float, Constants] | None = None
    # The commit is added after the run: one simulation serves every commit of the grid.
    for am, per_am, overhead in itertools.product(tuple(grid["am_startup_s"]),
                                                  tuple(grid["am_startup_per_am_s"]),
                                                  tuple(grid["task_overhead_s"])):
        simulated = simulated_response_s(jobs, tasks, cluster, setting,
                                         Constants(am, overhead, 0.0, per_am), workload=base)
        frame = compare(measured, simulated)
        for commit in grid["commit_s"]:
            ratio = (frame["simulated_s"] + commit) / frame["measured_s"]
            score = float(np.mean(np.abs(np.log(ratio))))
            if best is None or score < best[0]:
                best = (score, Constants(am, overhead, commit, per_am))
    assert best is not None
    return best[1], best[0]
