"""A JobHistory Server on loopback that serves the REST documentation's example responses.

The documented examples describe one job, ``job_1326381300833_2_2`` (1 map, 1 reduce). Further
jobs are the same documents with another id and times (``clone``). The documentation has no
REDUCE attempt example, so the reduce task's attempt is built from its field table, with times
consistent with the job's documented averages (avgShuffleTime 2540, avgMergeTime 2589,
avgReduceTime 124961 ms) and the reduce task's finishTime.

Faults can be queued per path: ``"500"``, ``"timeout"`` (answer after the client gave up),
``"reset"`` (TCP reset before any answer), ``"truncate"`` (a JSON body cut short with a
matching Content-Length) and ``"short"`` (a body shorter than its Content-Length). Paths in
``broken`` always answer 500.

``add_job`` adds a job under another id, name and times whose configuration and counters carry
more than the documented ones: a probe job's ``jobsize.probe.*`` properties and the timing
wrapper's ``jobsize`` counters, for instance.
"""

from __future__ import annotations

import copy
import json
import os
import re
import socket
import struct
import threading
import time
from collections import defaultdict
from pathlib import Path

from werkzeug import Request, Response

DOC_JOB = "job_1326381300833_2_2"
REDUCE_ATTEMPT = {
    "assignedContainerId": "container_1326381300833_0002_01_000003", "progress": 100,
    "elapsedTime": 130090, "state": "SUCCEEDED", "diagnostics": "", "rack": "/98.139.92.0",
    "nodeHttpAddress": "host.domain.com:8042", "startTime": 1326381452013,
    "finishTime": 1326381582103, "id": "attempt_1326381300833_2_2_r_0_0", "type": "REDUCE",
    "shuffleFinishTime": 1326381454553, "mergeFinishTime": 1326381457142,
    "elapsedShuffleTime": 2540, "elapsedMergeTime": 2589, "elapsedReduceTime": 124961,
}
ROUTE = re.compile(r"^/ws/v1/history/mapreduce/jobs(?:/(?P<job>[^/]+)"
                   r"(?:/(?P<what>counters|conf|tasks)(?:/(?P<task>[^/]+)/attempts)?)?)?$")


def _load(root: Path) -> dict[str, dict]:
    rest = root / "hadoop" / "jhs-rest"
    return {name: json.loads((rest / f"{name}.json").read_text())
            for name in ("jobs", "job", "job-counters", "job-conf", "tasks", "task-attempts")}


def _replace_ids(document: dict, old: str, new: str) -> dict:
    """The document with job ``old``'s id (also inside task and attempt ids) made ``new``'s."""
    return json.loads(json.dumps(document).replace(old.removeprefix("job_"),
                                                   new.removeprefix("job_")))


class FakeHistoryServer:
    """Routes ``/ws/v1/history/mapreduce/...`` for a set of jobs; records every request."""

    def __init__(self, shared: Path) -> None:
        self.docs = _load(shared)
        self.jobs: dict[str, dict] = {}
        self.extra_conf: dict[str, dict[str, str]] = {}
        self.extra_counters: dict[str, dict[str, dict[str, tuple[int, int, int]]]] = {}
        for entry in self.docs["jobs"]["jobs"]["job"]:
            self._add(entry)
        self.faults: dict[str, list[str]] = defaultdict(list)
        self.broken: set[str] = set()
        self.requests: list[str] = []
        self.latency = 0.0
        self.sleep = 1.0
        self._lock = threading.Lock()

    def _add(self, entry: dict) -> None:
        job_id = entry["id"]
        job = copy.deepcopy(self.docs["job"]["job"])
        job.update(entry)
        self.jobs[job_id] = {"entry": entry, "job": job}

    def clone(self, count: int) -> list[str]:
        """Add ``count`` more jobs like the documented one; returns their ids."""
        base = self.jobs[DOC_JOB]["entry"]
        ids = []
        for k in range(count):
            job_id = f"job_1326381300833_{100 + k}_{100 + k}"
            self._add({**base, "id": job_id, "finishTime": base["finishTime"] + k})
            ids.append(job_id)
        return ids

    def add_job(self, job_id: str, *, name: str, submit: int, finish: int,
                conf: dict[str, str] | None = None,
                counters: dict[str, dict[str, tuple[int, int, int]]] | None = None) -> None:
        """A job like the documented one with its own id, name and submit/finish times, whose
        configuration also has ``conf`` and whose counters also have ``counters``
        (``{group: {name: (total, map, reduce)}}``, replacing documented ones of that name)."""
        base = self.jobs[DOC_JOB]["entry"]
        self._add({**base, "id": job_id, "name": name, "submitTime": submit,
                   "startTime": submit + 20, "finishTime": finish})
        self.extra_conf[job_id] = dict(conf or {})
        self.extra_counters[job_id] = dict(counters or {})

    def only(self, ids: list[str]) -> None:
        self.jobs = {k: v for k, v in self.jobs.items() if k in ids}

    # -- serving -----------------------------------------------------------------------------

    def __call__(self, request: Request) -> Response:
        path = request.path
        with self._lock:
            self.requests.append(path)
            fault = self.faults[path].pop(0) if self.faults[path] else None
        if self.latency:
            time.sleep(self.latency)
        if path in self.broken or fault == "500":
            return Response("oops", status=500)
        if fault == "timeout":
            time.sleep(self.sleep)
        if fault == "reset":
            _reset(request)
            return Response("")
        body = self.body(path, request.args)
        if body is None:
            return Response(json.dumps({"RemoteException": {"message": f"no {path}"}}),
                            status=404, content_type="application/json")
        data = json.dumps(body).encode()
        if fault == "truncate":
            return Response(data[: len(data) // 2], content_type="application/json")
        response = Response(data, content_type="application/json")
        if fault == "short":
            response = Response(data[: len(data) // 2], content_type="application/json")
            response.headers["Content-Length"] = str(len(data))
        return response

    def body(self, path: str, args) -> dict | None:
        match = ROUTE.match(path)
        if not match:
            return None
        job_id, what, task = match.group("job"), match.group("what"), match.group("task")
        if job_id is None:
            return self._list(args)
        if job_id not in self.jobs:
            return None
        job = self.jobs[job_id]
        if what is None:
            return {"job": job["job"]}
        docs = {"counters": "job-counters", "conf": "job-conf", "tasks": "tasks"}
        if task is None:
            doc = _replace_ids(self.docs[docs[what]], DOC_JOB, job_id)
            if what == "conf":
                doc["conf"]["property"] += [
                    {"name": k, "value": v, "source": ["job.xml"]}
                    for k, v in self.extra_conf.get(job_id, {}).items()]
            elif what == "counters":
                _add_counters(doc["jobCounters"], self.extra_counters.get(job_id, {}))
            return doc
        if task.endswith("_m_0"):
            return _replace_ids(self.docs["task-attempts"], DOC_JOB, job_id)
        if task.endswith("_r_0"):
            return _replace_ids({"taskAttempts": {"taskAttempt": [REDUCE_ATTEMPT]}},
                                DOC_JOB, job_id)
        return None

    def _list(self, args) -> dict:
        entries = [j["entry"] for j in self.jobs.values()]
        for key, field in (("state", "state"), ("user", "user"), ("queue", "queue")):
            if key in args:
                entries = [e for e in entries if e[field] == args[key]]
        if "finishedTimeBegin" in args:
            entries = [e for e in entries if e["finishTime"] >= int(args["finishedTimeBegin"])]
        if "finishedTimeEnd" in args:
            entries = [e for e in entries if e["finishTime"] <= int(args["finishedTimeEnd"])]
        if "limit" in args:
            entries = entries[: int(args["limit"])]
        return {"jobs": {"job": entries}}


def _add_counters(doc: dict, extra: dict[str, dict[str, tuple[int, int, int]]]) -> None:
    groups = {g["counterGroupName"]: g for g in doc["counterGroup"]}
    for group, counters in extra.items():
        if group not in groups:
            groups[group] = {"counterGroupName": group, "counter": []}
            doc["counterGroup"].append(groups[group])
        kept = [c for c in groups[group]["counter"] if c["name"] not in counters]
        groups[group]["counter"] = kept + [
            {"name": name, "totalCounterValue": total, "mapCounterValue": on_map,
             "reduceCounterValue": on_reduce}
            for name, (total, on_map, on_reduce) in counters.items()]


def answering_on(server, shared: Path) -> FakeHistoryServer:
    """A fresh fake answering every history request on ``server`` (pytest-httpserver), its
    address in ``.url``."""
    server.clear()
    fake = FakeHistoryServer(shared)
    server.expect_request(re.compile(r"^/ws/v1/history/.*")).respond_with_handler(fake)
    fake.url = server.url_for("/")
    return fake


def _reset(request: Request) -> None:
    """Close the connection with a TCP RST, leaving the server a harmless descriptor."""
    sock = request.environ["werkzeug.socket"]
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    null = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(null, sock.fileno())
    finally:
        os.close(null)
