"""Hadoop Scheduler Load Simulator (SLS) files: job traces and node files.

An SLS job trace is a stream of job objects (``job.id``, ``job.user``, ``job.queue.name``,
``job.start.ms``, ``job.end.ms`` and ``job.tasks``: containers with ``container.type``
map/reduce, ``container.start.ms``, ``container.end.ms`` and, in newer traces,
``container.memory`` / ``container.vcores``). Times are milliseconds from the start of the
simulation. Each container becomes a task row with the duration the simulator replays; the
job record gets N_m, N_r, SE_m and SE_r (summed container durations) and its times. The
trace says nothing of counters or final states, so those columns stay null.

An SLS node file is a stream of ``{"rack": …, "nodes": [{"node": …, "memory-mb": …,
"vcores": …}]}``; entries without a node name (the Hadoop sample ends with ``{}``) are skipped.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
from jobsize.collectors.json_stream import documents, read_bytes
from jobsize.collectors.rest import JsonView

from jobsize.boundedjson import LONG
from jobsize.errors import ParseError
from jobsize.schema import JAVA_INT
from jobsize.validation import RecordCheck, validated

NODE_COLUMNS = ("node", "rack", "memory_mb", "vcores")
_TYPES = {"map": "MAP", "reduce": "REDUCE"}


def _nonneg(view: JsonView, key: str, high: int = LONG) -> int | None:
    value = view.int(key, required=False)
    if value is not None and not 0 <= value < high:
        raise ParseError(f"expected a number from 0 to {high - 1}, found {value}",
                         source=view.source, where=f"{view.path}.{key}")
    return value


def _job(job: JsonView, index: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    job_id = job.str("job.id", required=False) or f"job_{index}"
    rows: list[dict[str, Any]] = []
    counts = {"MAP": 0, "REDUCE": 0}
    times = {"MAP": 0, "REDUCE": 0}
    for task in job.items("job.tasks"):
        kind = task.str("container.type", required=False) or "map"
        if kind not in _TYPES:
            raise ParseError(f"container.type must be map or reduce, not {kind!r}"[:120],
                             source=task.source, where=task.path)
        task_type = _TYPES[kind]
        start, end = _nonneg(task, "container.start.ms"), _nonneg(task, "container.end.ms")
        if start is None or end is None or end < start:
            raise ParseError("a container needs container.start.ms ≤ container.end.ms",
                             source=task.source, where=task.path)
        number = counts[task_type]
        counts[task_type] += 1
        times[task_type] += end - start
        task_id = f"task_{job_id.removeprefix('job_')}_{kind[0]}_{number:06d}"
        rows.append({"job_id": job_id, "task_id": task_id, "attempt_id": f"{task_id}_0",
                     "task_type": task_type, "status": "SUCCEEDED", "start_time_ms": start,
                     "finish_time_ms": end, "memory_mb": _nonneg(task, "container.memory"),
                     "vcores": _nonneg(task, "container.vcores")})
    record = {"job_id": job_id, "user": job.str("job.user", required=False),
              "queue": job.str("job.queue.name", required=False), "source": "sls",
              "complete": True,
              "submit_time_ms": _nonneg(job, "job.start.ms"),
              "finish_time_ms": _nonneg(job, "job.end.ms"),
              "n_maps": counts["MAP"], "n_reduces": counts["REDUCE"],
              "map_time_ms": times["MAP"], "reduce_time_ms": times["REDUCE"]}
    return record, rows


def parse_sls(data: bytes, *, source: object = "<sls>", check: RecordCheck | None = None
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Parse SLS job-trace content; see :func:`read_sls`."""
    jobs, tasks, places = [], [], []
    for index, (value, line) in enumerate(documents(data, source)):
        if not isinstance(value, dict) or "job.tasks" not in value:
            raise ParseError("expected an SLS job object with job.tasks", source=source,
                             where=f"line {line}")
        record, rows = _job(JsonView(value, f"{source}: line {line}"), index)
        jobs.append(record)
        tasks.extend(rows)
        places.append(f"line {line}")
    if not jobs:
        raise ParseError("no jobs in the trace", source=source)
    return validated(jobs, tasks, source=source, places=places, check=check)


def read_sls(path: str | os.PathLike[str], *, check: RecordCheck | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read an SLS job trace: (job records, one task row per container), each job checked
    (:mod:`jobsize.validation`; ``check`` says what a bad one does)."""
    return parse_sls(read_bytes(path, "an SLS JSON trace"), source=path, check=check)


def parse_sls_nodes(data: bytes, *, source: object = "<sls nodes>") -> pd.DataFrame:
    """Parse SLS node-file content; see :func:`read_sls_nodes`."""
    rows = []
    for value, line in documents(data, source):
        rack = JsonView(value, f"{source}: line {line}")
        if not isinstance(value, dict):
            raise ParseError("expected a rack object", source=source, where=f"line {line}")
        name = rack.str("rack", required=False)
        for node in rack.items("nodes"):
            if not isinstance(node.value, dict):
                raise ParseError("expected a node object", source=node.source, where=node.path)
            host = node.str("node", required=False)
            if host is None:
                continue
            rows.append({"node": host, "rack": name,
                         "memory_mb": _nonneg(node, "memory-mb", JAVA_INT),
                         "vcores": _nonneg(node, "vcores", JAVA_INT)})
    frame = pd.DataFrame.from_records(rows, columns=list(NODE_COLUMNS))
    return frame.astype({"node": "string", "rack": "string", "memory_mb": "Int64",
                         "vcores": "Int64"})


def read_sls_nodes(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an SLS node file: columns node, rack, memory_mb, vcores (null where not given)."""
    return parse_sls_nodes(read_bytes(path, "an SLS node file"), source=path)


def parse_sls_synth(data: bytes, *, source: object = "<sls synth>") -> pd.DataFrame:
    """Parse an SLS synthetic-workload spec; see :func:`read_sls_synth`."""
    docs = documents(data, source)
    if len(docs) != 1 or not isinstance(docs[0][0], dict):
        raise ParseError("expected one synthetic-workload object", source=source)
    spec = JsonView(docs[0][0], source)
    rows = []
    for workload in spec.items("workloads"):
        head = {"workload_name": workload.str("workload_name", required=False),
                "workload_weight": workload.number("workload_weight", required=False),
                "queue_name": workload.str("queue_name", required=False)}
        for job_class in workload.items("job_classes"):
            if not isinstance(job_class.value, dict):
                raise ParseError("expected a job class object", source=source,
                                 where=job_class.path)
            row = dict(head)
            for key, value in job_class.value.items():
                if not _is_text(key) or (isinstance(value, str) and not _is_text(value)):
                    raise ParseError("expected UTF-8 text", source=source,
                                     where=job_class.path)
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    row[key] = value
            rows.append(row)
    if not rows:
        raise ParseError("no job classes in the workload spec", source=source)
    frame = pd.DataFrame.from_records(rows)
    frame.attrs.update({k: v for k, v in spec.value.items()
                        if isinstance(v, (str, int, float)) and not isinstance(v, bool)
                        and _is_text(k) and (not isinstance(v, str) or _is_text(v))})
    return frame


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_sls_synth(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an SLS synthetic-workload spec (SYNTH ``syn.json``): one row per job class with
    its workload, queue and the distributions' avg/stddev fields; top-level settings
    (num_jobs, num_nodes, rand_seed, …) in ``frame.attrs``. ``jobsize.collectors.sls_synth`` draws
    its jobs."""
    return parse_sls_synth(read_bytes(path, "an SLS synthetic workload spec"), source=path)
