"""What Hadoop itself reads from a job's history, as the job record and task rows jobsize keeps.

:func:`dump` runs ``org.jobsize.hadoop.HistoryDump`` (Hadoop's ``JobHistoryParser``) on
``.jhist`` files; :func:`hadoop_record` and :func:`hadoop_rows` turn its JSON into the columns
jobsize stores, by Hadoop's rules: counters as the parser holds them, SE_m and SE_r as the
summed elapsed times of the successful map and reduce attempts, wasted time as the failed and
killed ones', one row per finished map or reduce attempt.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from typing import Any

from jobsize.collectors.counter_columns import merge, record_columns

MAIN = "org.jobsize.hadoop.HistoryDump"
PHASES = {"MAP": "map", "REDUCE": "reduce"}
#: The task-row columns a .jhist gives (the container size comes from the configuration).
ROW_COLUMNS = ("task_id", "attempt_id", "task_type", "status", "start_time_ms",
               "finish_time_ms", "shuffle_finish_time_ms", "sort_finish_time_ms")
_STATES = {"SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED", "ERROR": "FAILED"}


def dump(cluster, paths: Sequence[os.PathLike[str] | str]) -> list[dict[str, Any]]:
    """HistoryDump's JSON for each file, in order (one JVM for all)."""
    command = cluster.java_command(MAIN, "--jhist", os.pathsep.join(str(p) for p in paths))
    done = subprocess.run(command, capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"HistoryDump exited {done.returncode}: {done.stderr[-3000:]}")
    docs = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(docs) == len(paths), done.stdout[-2000:]
    return docs


def hadoop_counters(doc: dict[str, Any]) -> dict[str, dict[str, dict[str, int]]]:
    """The job's counters as Hadoop reports them: the job's own totals when it recorded them,
    else (a failed or killed job: JobHistoryParser holds none) what the history server shows,
    the sum of every task's counters, finished or failed (its JobCounterInfo)."""
    counters = doc["job"]["counters"]
    if counters["total"] is not None:
        return {side: counters[side] or {} for side in ("total", "map", "reduce")}
    done = [t for t in doc["tasks"] if t["counters"]]
    by_side = {side: merge(t["counters"] for t in done if PHASES.get(t["type"]) == side)
               for side in ("map", "reduce")}
    return {"total": merge(by_side.values()), **by_side}


def attempts(doc: dict[str, Any]):
    for task in doc["tasks"]:
        if task["type"] in PHASES:
            for attempt in task["attempts"]:
                yield task, attempt


def hadoop_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per map or reduce attempt that finished (SUCCEEDED, FAILED or KILLED)."""
    rows = []
    for task, attempt in attempts(doc):
        if attempt["status"] not in _STATES:
            continue
        reduce = task["type"] == "REDUCE"
        rows.append({
            "task_id": task["id"], "attempt_id": attempt["id"], "task_type": task["type"],
            "status": attempt["status"], "start_time_ms": attempt["start_time"],
            "finish_time_ms": attempt["finish_time"],
            "shuffle_finish_time_ms": attempt["shuffle_finish_time"] if reduce else None,
            "sort_finish_time_ms": attempt["sort_finish_time"] if reduce else None,
        })
    return sorted(rows, key=lambda r: r["attempt_id"])


def hadoop_times(doc: dict[str, Any]) -> dict[str, int]:
    out = {"map_time_ms": 0, "reduce_time_ms": 0, "map_wasted_ms": 0, "reduce_wasted_ms": 0}
    for row in hadoop_rows(doc):
        phase = PHASES[row["task_type"]]
        kind = "time" if row["status"] == "SUCCEEDED" else "wasted"
        out[f"{phase}_{kind}_ms"] += row["finish_time_ms"] - row["start_time_ms"]
    return out


def hadoop_record(doc: dict[str, Any]) -> dict[str, Any]:
    """The record's identity, times, shape, counter and time columns, from Hadoop's parse."""
    job = doc["job"]
    return {
        "job_id": job["id"], "job_name": job["name"], "user": job["user"],
        "queue": job["queue"], "state": _STATES[job["status"]], "uberized": job["uberized"],
        "submit_time_ms": job["submit_time"], "launch_time_ms": job["launch_time"],
        "finish_time_ms": job["finish_time"], "n_maps": job["total_maps"],
        "n_reduces": job["total_reduces"], **record_columns(hadoop_counters(doc)),
        **hadoop_times(doc),
    }
