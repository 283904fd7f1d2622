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
a job listed twice is fetched once, the trace and its task table are committed together every
``checkpoint`` jobs and when the run ends (also when it is interrupted, without waiting for
slow servers), a job whose requests keep failing is reported by id in
:attr:`CollectResult.failed` and one holding impossible values in
:attr:`CollectResult.rejected` — never dropped silently, never stored.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from jobsize.collectors.conf import job_settings
from jobsize.collectors.counter_columns import Counters, record_columns
from jobsize.collectors.probe_join import (
    Probe,
    find_probe,
    join_probes,
    probe_identity,
    probes_path,
    read_probes,
    write_probes,
)
from jobsize.collectors.rest import HttpOptions, JsonView, RestClient

from jobsize.atomic import prepare
from jobsize.errors import ConfigError, JobsizeError
from jobsize.fetch import Cancelled
from jobsize.schema import (
    JOB_COLUMNS,
    TASK_COLUMNS,
    conform,
    read_trace,
    tasks_path,
    write_trace_with_tasks,
)
from jobsize.validation import BadRecordError, RecordCheck, Rejection, check_parsed, validated

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
        sizes = job_settings(conf, source=conf_url)
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
        check_parsed(record, rows, source=self.client.url(API + f"jobs/{job_id}"))
        probe = find_probe(record, conf, source=conf_url)
        return CollectedJob(record, rows, probe, probe_identity(conf))

    def _attempt_rows(self, job_id: str, sizes: dict[str, float]) -> list[dict[str, Any]]:
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
    """What a collection run did: jobs written, skipped (already there), failed (by id) and
    rejected (fetched, but holding impossible values: see :mod:`jobsize.validation`); probe
    jobs fetched, joined to their jobs, and not joined (every probe in the trace's probe table
    still without a job, with the reason)."""

    output: Path
    listed: int = 0
    collected: int = 0
    skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    rejected: list[Rejection] = field(default_factory=list)
    probes: int = 0
    probes_joined: int = 0
    probes_unjoined: dict[str, str] = field(default_factory=dict)


class _Trace:
    """The output trace, its task table and its probe table, extended and saved.

    Probes are kept in the probe table, joined or not, so that a later run neither fetches them
    again nor loses one whose job it has not seen yet.

    Each save checks the jobs fetched since the last one (:func:`jobsize.validation.validated`)
    and writes both tables as one commit (:func:`jobsize.schema.write_trace_with_tasks`), so
    a run killed at any point leaves a trace whose jobs all have their task rows, once.
    """

    def __init__(self, output: Path, url: str) -> None:
        self.output, self.url = output, url
        self.jobs: list[pd.DataFrame] = []
        self.tasks: list[pd.DataFrame] = []
        self.new_jobs: list[dict[str, Any]] = []
        self.new_tasks: list[dict[str, Any]] = []
        self.rejected: list[Rejection] = []
        prepare(output, tasks_path(output), probes_path(output))
        self.identities: dict[str, str | None] = {}
        self.probes: list[Probe] = read_probes(output)
        self.new_probes = 0
        self.dirty = not output.exists()
        self.joined = 0
        self.unjoined: dict[str, str] = {}
        if output.exists():
            jobs = read_trace(output)
            self.jobs.append(jobs)
            task_file = tasks_path(output)
            if task_file.exists():
                tasks = read_trace(task_file, columns=TASK_COLUMNS)
                # rows of jobs the trace does not hold (an older layout's interrupted write)
                # or held twice are not the trace's: drop them
                tasks = tasks[tasks["job_id"].isin(set(jobs["job_id"].dropna()))]
                self.tasks.append(tasks.drop_duplicates(subset=["job_id", "attempt_id"]))

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
            check = RecordCheck("skip")
            places = [f"{self.url}{API}jobs/{r.get('job_id')}" for r in self.new_jobs]
            jobs, tasks = validated(self.new_jobs, self.new_tasks, places=places, check=check)
            self.rejected.extend(check.rejected)
            self.jobs.append(jobs)
            self.tasks.append(tasks)  # type: ignore[arg-type]
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
        # The trace and its tasks as one commit; probes after it, so a probe marked joined
        # always has its job's columns saved.
        write_trace_with_tasks(jobs, tasks, self.output)
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
    check: RecordCheck | None = None,
) -> CollectResult:
    """Collect finished jobs from a JobHistory Server into the trace ``output``.

    Jobs already in ``output`` are skipped, and a job listed twice is fetched once.
    ``since_last`` starts the finished-time window at the latest finish time already in the
    trace. At most ``workers`` jobs are fetched at once. The trace and its task table are
    committed together every ``checkpoint`` jobs and when the run ends — also when it is
    interrupted, at once: requests under way are abandoned, what was fetched is kept.
    ``check`` says what a job with impossible values does (default: stop the run with a
    BadRecordError after saving the others). ``on_total(n)`` learns how many jobs will be
    fetched, ``advance()`` is called per job.
    """
    if workers < 1:
        raise ConfigError(f"workers must be ≥ 1, not {workers}")
    if checkpoint < 1:
        raise ConfigError(f"checkpoint must be ≥ 1, not {checkpoint}")
    check = check or RecordCheck()
    server = HistoryServer(url, options or HttpOptions(pool=max(workers, 1)))
    trace = _Trace(Path(output), server.client.base_url)
    if since_last and query.finished_begin_ms is None:
        latest = trace.latest_finish_ms()
        if latest is not None:
            query = JobFilter(**{**query.__dict__, "finished_begin_ms": latest})
    listed = server.jobs(query)
    known = trace.known_ids()
    todo = list(dict.fromkeys(j.job_id for j in listed if j.job_id not in known))
    result = CollectResult(Path(output), listed=len({j.job_id for j in listed}),
                           skipped=len({j.job_id for j in listed} & known))
    if on_total is not None:
        on_total(len(todo))
    try:
        _fetch_all(server, todo, trace, result, attempts, workers, checkpoint, advance, check)
    finally:
        server.client.cancel.set()  # workers still waiting on a server stop at once
        trace.save()
        _account(trace, result)
        result.probes, result.probes_joined = trace.new_probes, trace.joined
        result.probes_unjoined = trace.unjoined
    if check.policy == "fail" and result.rejected:
        first = result.rejected[0]
        raise BadRecordError(f"column {first.column!r}: {first.reason}, found {first.value} "
                             "(--on-bad-record skip leaves such jobs out)", source=first.place)
    return result


def _account(trace: _Trace, result: CollectResult) -> None:
    """Move the jobs the checks refused from ``collected`` to ``rejected``."""
    result.rejected.extend(trace.rejected)
    result.collected -= len(trace.rejected)
    trace.rejected = []


def _fetch_all(server: HistoryServer, todo: list[str], trace: _Trace, result: CollectResult,
               attempts: bool, workers: int, checkpoint: int,
               advance: Callable[..., None] | None, check: RecordCheck) -> None:
    """Fetch ``todo`` on daemon threads; the main thread stores what they bring.

    The threads are daemons so that an interrupted run exits at once, whatever server they
    are waiting on; the client's cancel event stops them when the run ends.
    """
    pending: queue.Queue[str] = queue.Queue()
    for job_id in todo:
        pending.put(job_id)
    done: queue.Queue[tuple[str, Any, BaseException | None]] = queue.Queue()

    def work() -> None:
        while not server.client.cancel.is_set():
            try:
                job_id = pending.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((job_id, server.collect_job(job_id, attempts=attempts), None))
            except Cancelled:
                return
            except BaseException as exc:
                done.put((job_id, None, exc))

    for i in range(min(workers, len(todo))):
        threading.Thread(target=work, name=f"jhs-{i}", daemon=True).start()
    since_save = 0
    for _ in todo:
        job_id, fetched, error = done.get()
        if error is not None and not isinstance(error, JobsizeError):
            raise error
        if error is not None:
            result.failed[job_id] = str(error)
        else:
            trace.add(fetched)
            result.collected += fetched.probe is None
            since_save += 1
            if since_save >= checkpoint:
                since_save = 0
                trace.save()
                _account(trace, result)
                if check.policy == "fail" and result.rejected:
                    return
        if advance is not None:
            advance()
