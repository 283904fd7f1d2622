"""Rumen job traces (``LoggedJob`` JSON, as Hadoop's Rumen TraceBuilder writes) → records.

A trace is one JSON object per job. Each job lists its map, reduce and other (setup, cleanup)
tasks with their attempts: start and finish times, result (SUCCESS, FAILED, KILLED) and the
attempt's counters (``hdfsBytesRead``, ``mapOutputBytes``, ``reduceShuffleBytes``, …; -1 means
not recorded). The record's counter columns are sums over successful map or reduce attempts;
SE_m and SE_r are the successful attempts' summed elapsed times, wasted time the failed and
killed ones'. ``jobMapMB``/``jobReduceMB`` give the container memory where positive. Every map
and reduce attempt becomes a task row — the recorded durations the simulator replays.

A trace may hold one job twice (Rumen's own test traces do): a copy that reads as the same
record and the same attempts is kept once, with a :class:`~jobsize.errors.JobsizeWarning`; a
copy that differs is a :class:`~jobsize.errors.ParseError` naming the file, the job, both lines
and what differs.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import pandas as pd
from jobsize.collectors.json_stream import documents, read_bytes
from jobsize.collectors.rest import JsonView

from jobsize.errors import JobsizeWarning, ParseError
from jobsize.validation import RecordCheck, validated

_OUTCOMES = {"SUCCESS": "SUCCEEDED", "SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED",
             "KILLED": "KILLED"}

#: Record column ← (task kind, attempt field(s) tried in order); sums over successful attempts.
_ATTEMPT_COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "map_input_bytes": ("MAP", ("mapInputBytes", "hdfsBytesRead")),
    "map_input_records": ("MAP", ("mapInputRecords",)),
    "map_output_bytes": ("MAP", ("mapOutputBytes",)),
    "map_output_records": ("MAP", ("mapOutputRecords",)),
    "reduce_shuffle_bytes": ("REDUCE", ("reduceShuffleBytes",)),
    "reduce_input_records": ("REDUCE", ("reduceInputRecords",)),
    "reduce_input_groups": ("REDUCE", ("reduceInputGroups",)),
    "reduce_output_records": ("REDUCE", ("reduceOutputRecords",)),
}


def _known(view: JsonView, key: str) -> int | None:
    """An attempt or job number, None when absent or -1 (Rumen's "not recorded")."""
    value = view.int(key, required=False)
    return None if value is None or value < 0 else value


def _attempts(job: JsonView, job_id: str) -> list[tuple[str, JsonView, dict[str, Any]]]:
    out = []
    for key, kind in (("mapTasks", "MAP"), ("reduceTasks", "REDUCE")):
        for task in job.items(key):
            task_id = task.str("taskID")
            for attempt in task.items("attempts"):
                result = attempt.str("result", required=False)
                row = {"job_id": job_id, "task_id": task_id,
                       "attempt_id": attempt.str("attemptID"), "task_type": kind,
                       "status": _OUTCOMES.get(result or ""),
                       "start_time_ms": _known(attempt, "startTime"),
                       "finish_time_ms": _known(attempt, "finishTime"),
                       "shuffle_finish_time_ms": _known(attempt, "shuffleFinished"),
                       "sort_finish_time_ms": _known(attempt, "sortFinished")}
                out.append((kind, attempt, row))
    return out


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def job_record(job: JsonView) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One Rumen ``LoggedJob`` → (record, attempt rows)."""
    job_id = job.str("jobID")
    attempts = _attempts(job, job_id)  # type: ignore[arg-type]
    map_mb, reduce_mb = _known(job, "jobMapMB"), _known(job, "jobReduceMB")
    ok = [(kind, a) for kind, a, row in attempts if row["status"] == "SUCCEEDED"]
    record: dict[str, Any] = {
        "job_id": job_id, "job_name": job.str("jobName", required=False),
        "user": job.str("user", required=False), "queue": job.str("queue", required=False),
        "state": _OUTCOMES.get(job.str("outcome", required=False) or ""),
        "complete": True, "source": "rumen",
        "submit_time_ms": _known(job, "submitTime"), "launch_time_ms": _known(job, "launchTime"),
        "finish_time_ms": _known(job, "finishTime"),
        "n_maps": _known(job, "totalMaps"), "n_reduces": _known(job, "totalReduces"),
        "map_memory_mb": map_mb or None, "reduce_memory_mb": reduce_mb or None,
    }
    for column, (kind, fields) in _ATTEMPT_COUNTERS.items():
        record[column] = _sum([_first_known(a, fields) for k, a in ok if k == kind])
    writer = "REDUCE" if record["n_reduces"] else "MAP"
    record["reduce_output_bytes"] = _sum([_known(a, "hdfsBytesWritten") for k, a in ok
                                          if k == writer])
    times = {"map_time_ms": 0, "reduce_time_ms": 0, "map_wasted_ms": 0, "reduce_wasted_ms": 0}
    rows = []
    for kind, _, row in attempts:
        row["memory_mb"] = map_mb if kind == "MAP" else reduce_mb
        row["memory_mb"] = row["memory_mb"] or None
        start, finish = row["start_time_ms"], row["finish_time_ms"]
        if row["status"] is None or start is None or finish is None:
            continue
        phase = "map" if kind == "MAP" else "reduce"
        times[f"{phase}_{'time' if row['status'] == 'SUCCEEDED' else 'wasted'}_ms"] += max(
            0, finish - start)
        rows.append(row)
    record.update(times)
    return record, rows


def _first_known(attempt: JsonView, fields: tuple[str, ...]) -> int | None:
    for name in fields:
        value = _known(attempt, name)
        if value is not None:
            return value
    return None


def parse_rumen(data: bytes, *, source: object = "<rumen>", check: RecordCheck | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse Rumen trace content; see :func:`read_rumen`."""
    jobs, tasks, places = [], [], []
    seen: dict[Any, tuple[int, dict[str, Any], list[dict[str, Any]]]] = {}
    for value, line in documents(data, source):
        view = JsonView(value, f"{source}: line {line}")
        if not isinstance(value, dict):
            raise ParseError("expected a job object", source=source, where=f"line {line}")
        record, rows = job_record(view)
        job_id = record["job_id"]
        if job_id in seen:
            first_line, first, first_rows = seen[job_id]
            conflict = _conflict(first, first_rows, record, rows)
            if conflict:
                raise ParseError(f"job {job_id} appears twice and the copies differ: "
                                 f"{conflict} (first at line {first_line})", source=source,
                                 where=f"line {line}")
            warnings.warn(f"{source}: line {line}: job {job_id} appears again, identical to "
                          f"line {first_line}; kept once", JobsizeWarning, stacklevel=2)
            continue
        seen[job_id] = (line, record, rows)
        jobs.append(record)
        tasks.extend(rows)
        places.append(f"line {line}")
    if not jobs:
        raise ParseError("no jobs in the trace", source=source)
    return validated(jobs, tasks, source=source, places=places, check=check)


def _conflict(first: dict[str, Any], first_rows: list[dict[str, Any]],
              again: dict[str, Any], rows: list[dict[str, Any]]) -> str | None:
    """What differs between two readings of one job (None: nothing the record keeps): an
    attempt first (the job's times are sums of its attempts'), else a column of the record."""
    attempts = {row["attempt_id"]: row for row in first_rows}
    others = {row["attempt_id"]: row for row in rows}
    for attempt_id in sorted(attempts.keys() | others.keys(), key=str):
        a, b = attempts.get(attempt_id), others.get(attempt_id)
        if a is None or b is None:
            return f"attempt {attempt_id} is in {'the second' if a is None else 'the first'} " \
                   "copy only"
        for column, value in a.items():
            if b.get(column) != value:
                return f"attempt {attempt_id}: {column} {value!r} then {b.get(column)!r}"
    for column, value in first.items():
        if again.get(column) != value:
            return f"{column} {value!r} then {again.get(column)!r}"
    return None


def read_rumen(path: str | os.PathLike[str], *, check: RecordCheck | None = None
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a Rumen job trace (``.json`` or ``.json.gz``): (job records, attempt rows).

    Each job is checked (:mod:`jobsize.validation`); ``check`` says what a bad one does."""
    return parse_rumen(read_bytes(path, "a Rumen JSON trace"), source=path, check=check)
