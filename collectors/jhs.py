"""MapReduce JobHistory Server REST API → job records of finished jobs.

Endpoints used (``/ws/v1/history/mapreduce/...``, see Hadoop's HistoryServerRest):
``jobs`` (filtered by state, user, queue, finished-time window, limit), ``jobs/{id}``,
``jobs/{id}/counters``, ``jobs/{id}/conf``, ``jobs/{id}/tasks`` and
``jobs/{id}/tasks/{task}/attempts``.

With attempts (the default) SE_m and SE_r are summed from the successful attempts' start and
finish times, wasted time from the failed and killed ones, as for ``.jhist`` files, and every
attempt becomes a task row. Without attempts (``attempts=False``: four requests per job instead
of four plus one per task) SE_m is ``avgMapTime × successfulMapAttempts`` and SE_r
``(avgShuffleTime + avgMergeTime + avgReduceTime) × successfulReduceAttempts`` from the job
resource — Hadoop's averages are whole milliseconds, so these can be short by up to one ms per
attempt — and wasted time stays null.

:func:`collect_jhs` is incremental and resumable: jobs already in the output trace are skipped,
the trace is rewritten atomically every ``checkpoint`` jobs and when the run ends (also when it
is interrupted), and a job whose requests keep failing is reported by id in
:attr:`CollectResult.failed`, never dropped silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from jobsize.collectors.conf import container_sizes
from jobsize.collectors.counter_columns import Counters, record_columns
from jobsize.collectors.probe_join import (
    Probe,
    find_probe,
    join_probes,
    probe_identity,
    read_probes,
    write_probes,
)
from jobsize.collectors.rest import HttpOptions, JsonView, RestClient

from jobsize.errors import ConfigError, JobsizeError
from jobsize.schema import (
    JOB_COLUMNS,
    TASK_COLUMNS,
    conform,
    read_trace,
    records,
    tasks_frame,
    tasks_path,
    write_trace,
)

API = "ws/v1/history/mapreduce/"
STATES = ("SUCCEEDED", "FAILED", "KILLED", "ERROR")
_FINAL = {"SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED", "ERROR": "FAILED"}


@dataclass(frozen=True)
class JobFilter:
    """The ``jobs`` query: all optional; times are epoch milliseconds."""

    state: str | None = None
    user: str | None = None
    queue: str | None = None
    finished_begin_ms: int | None = None
    finished_end_ms: int | None = None
    limit: int | None = None

    def params(self) -> dict[str, Any]:
        if self.state is not None and self.state not in STATES:
            raise ConfigError(f"state must be one of {', '.join(STATES)}, not {self.state!r}")
        pairs = {"state": self.state, "user": self.user, "queue": self.queue,
                 "finishedTimeBegin": self.finished_begin_ms,
                 "finishedTimeEnd": self.finished_end_ms, "limit": self.limit}
        return {k: v for k, v in pairs.items() if v is not None}


@dataclass
class CollectedJob:
    """One finished job: its record and attempt rows, and the probe it is (None: a production
    job, which may carry a probe identity)."""

    record: dict[str, Any]
    rows: list[dict[str, Any]]
    probe: Probe | None = None
    identity: str | None = None


@dataclass
class JobSummary:
    """One entry of the ``jobs`` list."""

    job_id: str
    state: str
    finish_time_ms: int | None


class HistoryServer:
    """Client for one JobHistory Server (``url`` like ``http://jhs:19888``)."""

    def __init__(self, url: str, options: HttpOptions | None = None) -> None:
        self.client = RestClient(url, options)

    def _get(self, path: str, params: dict[str, Any] | None = None) -> JsonView:
        full = API + path
        return JsonView(self.client.get_json(full, params), self.client.url(full))

    def jobs(self, query: JobFilter = JobFilter()) -> list[JobSummary]:
        """Finished jobs matching ``query``, oldest finish first."""
        doc = self._get("jobs", query.params())
        out = []
        for job in doc.get("jobs").items("job"):
            out.append(JobSummary(job.str("id"), job.str("state"),
                                  job.int("finishTime", required=False)))
        out.sort(key=lambda j: (j.finish_time_ms or 0, j.job_id))
        return out

    def job(self, job_id: str) -> JsonView:
        return self._get(f"jobs/{job_id}").get("job")

    def counters(self, job_id: str) -> dict[str, Counters]:
        """``{"total"|"map"|"reduce": {group: {counter: value}}}`` of a job."""
        doc = self._get(f"jobs/{job_id}/counters").get("jobCounters")
        out: dict[str, Counters] = {"total": {}, "map": {}, "reduce": {}}
        for group in doc.items("counterGroup"):
            name = group.str("counterGroupName")
            for counter in group.items("counter"):
                cname = counter.str("name")
                for side, key in (("total", "totalCounterValue"), ("map", "mapCounterValue"),
                                  ("reduce", "reduceCounterValue")):
                    value = counter.int(key, required=side == "total")
                    if value is not None:
                        out[side].setdefault(name, {})[cname] = value
        return out

    def conf(self, job_id: str) -> dict[str, str]:
        doc = self._get(f"jobs/{job_id}/conf").get("conf")
        conf = {}
        for prop in doc.items("property"):
            conf[prop.str("name")] = prop.str("value", required=False) or ""
        return conf

    def tasks(self, job_id: str) -> list[JsonView]:
        return self._get(f"jobs/{job_id}/tasks").get("tasks").items("task")

    def attempts(self, job_id: str, task_id: str) -> list[JsonView]:
        doc = self._get(f"jobs/{job_id}/tasks/{task_id}/attempts")
        return doc.get("taskAttempts").items("taskAttempt")

    def collect_job(self, job_id: str, *, attempts: bool = True) -> CollectedJob:
        """The record of one finished job and its attempt rows (empty without attempts); for a
        probe job, the probe (:mod:`jobsize.collectors.probe_join`)."""
        job = self.job(job_id)
        counters = self.counters(job_id)
        conf = self.conf(job_id)
        conf_url = self.client.url(API + f"jobs/{job_id}/conf")
        sizes = container_sizes(conf, source=conf_url)
        state = job.str("state")
        record: dict[str, Any] = {
            "job_id": job.str("id"), "job_name": job.str("name", required=False),
            "user": job.str("user", required=False), "queue": job.str("queue", required=False),
            "state": _FINAL.get(state or "", state), "uberized": job.bool("uberized",
                                                                         required=False),
            "complete": True, "source": "jhs",
            "submit_time_ms": job.int("submitTime", required=False),
            "launch_time_ms": job.int("startTime", required=False),
            "finish_time_ms": job.int("finishTime", required=False),
            "n_maps": job.int("mapsTotal", required=False),
            "n_reduces": job.int("reducesTotal", required=False),
            **sizes, **record_columns(counters),
        }
        rows: list[dict[str, Any]] = []
        if attempts:
            rows = self._attempt_rows(job_id, sizes)
            record.update(_times(rows))
        else:
            record.update(_average_times(job))
        probe = find_probe(record, conf, source=conf_url)
        return CollectedJob(record, rows, probe, probe_identity(conf))

    def _attempt_rows(self, job_id: str, sizes: dict[str, int]) -> list[dict[str, Any]]:
        rows = []
        for task in self.tasks(job_id):
            task_id = task.str("id")
            for attempt in self.attempts(job_id, task_id):
                kind = attempt.str("type")
                phase = "map" if kind == "MAP" else "reduce"
                rows.append({
                    "job_id": job_id, "task_id": task_id, "attempt_id": attempt.str("id"),
                    "task_type": kind, "status": attempt.str("state"),
                    "start_time_ms": attempt.int("startTime", required=False),
                    "finish_time_ms": attempt.int("finishTime", required=False),
                    "shuffle_finish_time_ms": attempt.int("shuffleFinishTime", required=False),
                    "sort_finish_time_ms": attempt.int("mergeFinishTime", required=False),
                    "memory_mb": sizes[f"{phase}_memory_mb"], "vcores": sizes[f"{phase}_vcores"],
                })
        return rows


def _times(rows: list[dict[str, Any]]) -> dict[str, int]:
    """SE_m, SE_r and wasted time from attempt rows (as for .jhist files)."""
    out = {"map_time_ms": 0, "reduce_time_ms": 0, "map_wasted_ms": 0, "reduce_wasted_ms": 0}
    for row in rows:
        start, finish = row["start_time_ms"], row["finish_time_ms"]
        if start is None or finish is None or finish <= 0 or row["task_type"] not in (
                "MAP", "REDUCE"):
            continue
        phase = "map" if row["task_type"] == "MAP" else "reduce"
        if row["status"] == "SUCCEEDED":
            out[f"{phase}_time_ms"] += max(0, finish - start)
        elif row["status"] in ("FAILED", "KILLED"):
            out[f"{phase}_wasted_ms"] += max(0, finish - start)
    return out


def _average_times(job: JsonView) -> dict[str, int | None]:
    def product(avg_keys: tuple[str, ...], count_key: str) -> int | None:
        count = job.int(count_key, required=False)
        avgs = [job.int(k, required=False) for k in avg_keys]
        if count is None or any(a is None for a in avgs):
            return None
        return sum(avgs) * count  # type: ignore[arg-type]

    return {"map_time_ms": product(("avgMapTime",), "successfulMapAttempts"),
            "reduce_time_ms": product(("avgShuffleTime", "avgMergeTime", "avgReduceTime"),
                                      "successfulReduceAttempts")}


# ---------------------------------------------------------------------------------------------
# Collecting into a trace


@dataclass
class CollectResult:
    """What a collection run did: jobs written, skipped (already there) and failed (by id);
    probe jobs fetched, joined to their jobs, and not joined (every probe in the trace's probe
    table still without a job, with the reason)."""

    output: Path
    listed: int = 0
    collected: int = 0
    skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    probes: int = 0
    probes_joined: int = 0
    probes_unjoined: dict[str, str] = field(default_factory=dict)


class _Trace:
    """The output trace, its task table and its probe table, extended and rewritten atomically.

    Probes are kept in the probe table, joined or not, so that a later run neither fetches them
    again nor loses one whose job it has not seen yet.
    """

    def __init__(self, output: Path) -> None:
        self.output = output
        self.jobs: list[pd.DataFrame] = []
        self.tasks: list[pd.DataFrame] = []
        self.new_jobs: list[dict[str, Any]] = []
        self.new_tasks: list[dict[str, Any]] = []
        self.identities: dict[str, str | None] = {}
        self.probes: list[Probe] = read_probes(output)
        self.new_probes = 0
        self.dirty = not output.exists()
        self.joined = 0
        self.unjoined: dict[str, str] = {}
        if output.exists():
            self.jobs.append(read_trace(output))
            task_file = tasks_path(output)
            if task_file.exists():
                self.tasks.append(read_trace(task_file, columns=TASK_COLUMNS))

    def known_ids(self) -> set[str]:
        jobs = {str(i) for frame in self.jobs for i in frame["job_id"].dropna()}
        return jobs | {p.job_id for p in self.probes}

    def latest_finish_ms(self) -> int | None:
        values = [frame["finish_time_ms"].max() for frame in self.jobs if len(frame)]
        values = [int(v) for v in values if not pd.isna(v)]
        return max(values) if values else None

    def add(self, job: CollectedJob) -> None:
        if job.probe is not None:
            self.probes.append(job.probe)
            self.new_probes += 1
        else:
            self.new_jobs.append(job.record)
            self.new_tasks.extend(job.rows)
            self.identities[str(job.record["job_id"])] = job.identity
        self.dirty = True

    def save(self) -> None:
        """Join the probes not joined yet; rewrite the tables if anything changed."""
        if self.new_jobs:
            self.jobs.append(records(self.new_jobs, source=self.output))
            self.tasks.append(tasks_frame(self.new_tasks, source=self.output))
            self.new_jobs, self.new_tasks = [], []
        joined = join_probes(_concat(self.jobs, JOB_COLUMNS), self.probes, self.identities)
        jobs = joined.jobs
        tasks = _concat(self.tasks, TASK_COLUMNS)
        self.jobs, self.tasks, self.probes = [jobs], [tasks], joined.probes
        self.joined += joined.report.joined
        self.unjoined = joined.report.unjoined
        if not (self.dirty or joined.report.joined):
            return
        self.dirty = False
        # Tasks first: a job id in the trace always has its attempt rows saved; probes last,
        # so a probe marked joined always has its job's columns saved.
        write_trace(tasks, tasks_path(self.output), columns=TASK_COLUMNS)
        write_trace(jobs, self.output)
        if self.probes:
            write_probes(self.probes, self.output)


def _concat(frames: list[pd.DataFrame], columns: tuple) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return conform(pd.DataFrame(), columns=columns)
    return conform(pd.concat(frames, ignore_index=True), columns=columns)


def collect_jhs(
    url: str,
    output: str | os.PathLike[str],
    *,
    query: JobFilter = JobFilter(),
    since_last: bool = False,
    attempts: bool = True,
    workers: int = 8,
    checkpoint: int = 200,
    options: HttpOptions | None = None,
    advance: Callable[..., None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> CollectResult:
    """Collect finished jobs from a JobHistory Server into the trace ``output``.

    Jobs already in ``output`` are skipped. ``since_last`` starts the finished-time window at
    the latest finish time already in the trace. At most ``workers`` jobs are fetched at once.
    ``on_total(n)`` learns how many jobs will be fetched, ``advance()`` is called per job.
    """
    if workers < 1:
        raise ConfigError(f"workers must be ≥ 1, not {workers}")
    server = HistoryServer(url, options or HttpOptions(pool=max(workers, 1)))
    trace = _Trace(Path(output))
    if since_last and query.finished_begin_ms is None:
        latest = trace.latest_finish_ms()
        if latest is not None:
            query = JobFilter(**{**query.__dict__, "finished_begin_ms": latest})
    listed = server.jobs(query)
    known = trace.known_ids()
    todo = [j.job_id for j in listed if j.job_id not in known]
    result = CollectResult(Path(output), listed=len(listed), skipped=len(listed) - len(todo))
    if on_total is not None:
        on_total(len(todo))
    try:
        _fetch_all(server, todo, trace, result, attempts, workers, checkpoint, advance)
    finally:
        trace.save()
        result.probes, result.probes_joined = trace.new_probes, trace.joined
        result.probes_unjoined = trace.unjoined
    return result


def _fetch_all(server: HistoryServer, todo: list[str], trace: _Trace, result: CollectResult,
               attempts: bool, workers: int, checkpoint: int,
               advance: Callable[..., None] | None) -> None:
    pending = iter(todo)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="jhs") as pool:
        running: dict[Future, str] = {}
        try:
            for job_id in pending:
                running[pool.submit(server.collect_job, job_id, attempts=attempts)] = job_id
                if len(running) >= workers * 2:
                    _drain(running, trace, result, checkpoint, advance, FIRST_COMPLETED)
            while running:
                _drain(running, trace, result, checkpoint, advance, FIRST_COMPLETED)
        except BaseException:
            for future in running:
                future.cancel()
            raise


def _drain(running: dict[Future, str], trace: _Trace, result: CollectResult, checkpoint: int,
           advance: Callable[..., None] | None, how: str) -> None:
    done, _ = wait(list(running), return_when=how)
    for future in done:
        job_id = running.pop(future)
        try:
            job = future.result()
        except JobsizeError as exc:
            result.failed[job_id] = str(exc)
        else:
            trace.add(job)
            result.collected += job.probe is None
            if (result.collected + trace.new_probes) % checkpoint == 0:
                trace.save()
        if advance is not None:
            advance()
