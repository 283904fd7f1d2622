"""The job's history, as Hadoop's MapReduce ApplicationMaster writes it.

:class:`JobHistoryWriter` collects the job's events as they happen and writes
``<job_id>.jhist`` — the line ``Avro-Json``, the event schema on line 2, then one JSON-encoded
Avro ``Event`` per line (unions as ``{"branch": value}``, as Avro's JSON encoder writes them) —
and :func:`write_conf` writes ``<job_id>_conf.xml``. Both are written atomically: a history file
is complete or absent.
"""

from __future__ import annotations

import io
import json
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from fastavro import json_writer, parse_schema

from jobsize.atomic import atomic_write_text
from jobsize.engine import events
from jobsize.engine.attempt import AttemptResult
from jobsize.engine.counters import Counters, to_jh

HEADER = "Avro-Json"
RACK = "/default-rack"
_SCHEMA = events.schema()
_PARSED = parse_schema(_SCHEMA)


def host() -> str:
    return socket.gethostname() or "localhost"


class JobHistoryWriter:
    """Collects one job's history events in order and writes them as a .jhist file."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        self.events: list[dict[str, Any]] = []
        self.host = host()

    def _add(self, event_type: str, record: str, datum: dict[str, Any]) -> None:
        self.events.append({"type": event_type, "event": (events.full_name(record), datum)})

    # --- job events ---------------------------------------------------------------------------

    def am_started(self, app_attempt: str, container: str, start_ms: int) -> None:
        self._add("AM_STARTED", "AMStarted", {
            "applicationAttemptId": app_attempt, "startTime": start_ms, "containerId": container,
            "nodeManagerHost": self.host, "nodeManagerPort": 0, "nodeManagerHttpPort": 0})

    def job_submitted(self, name: str, user: str, queue: str, submit_ms: int,
                      conf_path: str) -> None:
        self._add("JOB_SUBMITTED", "JobSubmitted", {
            "jobid": self.job_id, "jobName": name, "userName": user, "submitTime": submit_ms,
            "jobConfPath": conf_path, "acls": {}, "jobQueueName": queue,
            "workflowId": "", "workflowName": "", "workflowNodeName": "",
            "workflowAdjacencies": "", "workflowTags": ""})
        self._add("JOB_QUEUE_CHANGED", "JobQueueChange",
                  {"jobid": self.job_id, "jobQueueName": queue})

    def job_inited(self, submit_ms: int, launch_ms: int, n_maps: int, n_reduces: int,
                   uberized: bool) -> None:
        self._add("JOB_INITED", "JobInited", {
            "jobid": self.job_id, "launchTime": launch_ms, "totalMaps": n_maps,
            "totalReduces": n_reduces, "jobStatus": "INITED", "uberized": uberized})
        self._add("JOB_INFO_CHANGED", "JobInfoChange", {
            "jobid": self.job_id, "submitTime": submit_ms, "launchTime": launch_ms})

    def job_finished(self, finish_ms: int, finished_maps: int, finished_reduces: int,
                     total: Counters, maps: Counters, reduces: Counters) -> None:
        self._add("JOB_FINISHED", "JobFinished", {
            "jobid": self.job_id, "finishTime": finish_ms, "finishedMaps": finished_maps,
            "finishedReduces": finished_reduces, "failedMaps": 0, "failedReduces": 0,
            "totalCounters": to_jh(total, "TOTAL_COUNTERS"),
            "mapCounters": to_jh(maps, "MAP_COUNTERS"),
            "reduceCounters": to_jh(reduces, "REDUCE_COUNTERS")})

    def job_failed(self, finish_ms: int, finished_maps: int, finished_reduces: int,
                   diagnostics: str) -> None:
        self._add("JOB_FAILED", "JobUnsuccessfulCompletion", {
            "jobid": self.job_id, "finishTime": finish_ms, "finishedMaps": finished_maps,
            "finishedReduces": finished_reduces, "jobStatus": "FAILED",
            "diagnostics": diagnostics})

    # --- task events --------------------------------------------------------------------------

    def task_started(self, task_id: str, task_type: str, start_ms: int) -> None:
        self._add("TASK_STARTED", "TaskStarted", {
            "taskid": task_id, "taskType": task_type, "startTime": start_ms,
            "splitLocations": self.host if task_type == "MAP" else ""})

    def task_finished(self, result: AttemptResult) -> None:
        self._add("TASK_FINISHED", "TaskFinished", {
            "taskid": result.task_id, "taskType": result.task_type,
            "finishTime": result.finish_ms, "status": "SUCCEEDED",
            "counters": to_jh(result.counters), "successfulAttemptId": result.attempt_id})

    def task_failed(self, task_id: str, task_type: str, finish_ms: int, error: str,
                    attempt_id: str | None, status: str = "FAILED") -> None:
        self._add("TASK_FAILED", "TaskFailed", {
            "taskid": task_id, "taskType": task_type, "finishTime": finish_ms, "error": error,
            "failedDueToAttempt": attempt_id, "status": status, "counters": None})

    def attempt(self, result: AttemptResult, container: str) -> None:
        """The started event and the finished or failed event of one attempt."""
        kind = result.task_type
        self._add(f"{kind}_ATTEMPT_STARTED", "TaskAttemptStarted", {
            "taskid": result.task_id, "taskType": kind, "attemptId": result.attempt_id,
            "startTime": result.start_ms, "trackerName": self.host, "httpPort": 0,
            "shufflePort": 0, "containerId": container,
            "locality": "NODE_LOCAL" if kind == "MAP" else None, "avataar": "VIRGIN"})
        common = {"hostname": self.host, "port": 0, "rackname": RACK,
                  "clockSplits": [], "cpuUsages": [], "vMemKbytes": [], "physMemKbytes": []}
        if not result.ok:
            error = result.error + (f"\n{result.stderr}" if result.stderr else "")
            self._add(f"{kind}_ATTEMPT_FAILED", "TaskAttemptUnsuccessfulCompletion", {
                "taskid": result.task_id, "taskType": kind, "attemptId": result.attempt_id,
                "finishTime": result.finish_ms, **common, "status": "FAILED",
                "error": f"Error: {error}", "counters": None})
        elif kind == "MAP":
            self._add("MAP_ATTEMPT_FINISHED", "MapAttemptFinished", {
                "taskid": result.task_id, "attemptId": result.attempt_id, "taskType": kind,
                "taskStatus": "SUCCEEDED", "mapFinishTime": result.map_finish_ms,
                "finishTime": result.finish_ms, **common, "state": "map",
                "counters": to_jh(result.counters)})
        else:
            self._add("REDUCE_ATTEMPT_FINISHED", "ReduceAttemptFinished", {
                "taskid": result.task_id, "attemptId": result.attempt_id, "taskType": kind,
                "taskStatus": "SUCCEEDED", "shuffleFinishTime": result.shuffle_finish_ms,
                "sortFinishTime": result.sort_finish_ms, "finishTime": result.finish_ms,
                **common, "state": "reduce > reduce", "counters": to_jh(result.counters)})

    # --- output -------------------------------------------------------------------------------

    def text(self) -> str:
        """The whole .jhist file."""
        buffer = io.StringIO()
        buffer.write(f"{HEADER}\n{json.dumps(_SCHEMA, separators=(',', ':'))}\n")
        json_writer(buffer, _PARSED, self.events)
        return buffer.getvalue()

    def write(self, path: Path) -> Path:
        atomic_write_text(path, self.text())
        return path


def write_conf(path: Path, properties: Mapping[str, str]) -> Path:
    """Write a Hadoop configuration XML (``<configuration><property><name>…``) atomically."""
    root = ET.Element("configuration")
    for name, value in properties.items():
        prop = ET.SubElement(root, "property")
        ET.SubElement(prop, "name").text = name
        ET.SubElement(prop, "value").text = str(value)
        ET.SubElement(prop, "source").text = "job.xml"
    ET.indent(root, space="")
    body = ET.tostring(root, encoding="unicode")
    atomic_write_text(path, f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>{body}\n')
    return path


def history_paths(history_dir: Path, job_id: str) -> tuple[Path, Path]:
    """Where a job's .jhist and _conf.xml go."""
    return history_dir / f"{job_id}.jhist", history_dir / f"{job_id}_conf.xml"


def exists(history_dir: Path, job_id: str) -> bool:
    return any(os.path.exists(p) for p in history_paths(history_dir, job_id))
