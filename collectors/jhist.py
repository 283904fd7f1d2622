"""MapReduce job history files (``.jhist``) → job records and task-attempt rows.

Hadoop's EventWriter writes a line ``Avro-Json`` or ``Avro-Binary``, the Avro schema of its
``Event`` record on the second line, then the events: JSON values separated by whitespace (one
per line; 0.23 writes ``"\\n "`` between them, 2.x a blank line), or back-to-back binary Avro
datums. Each file is read under the schema it embeds, so every Hadoop version's events decode.

From the events (JOB_SUBMITTED … JOB_FINISHED / JOB_FAILED / JOB_KILLED) the reader builds:

- the job record: identity, times, N_m and N_r, counter totals, SE_m and SE_r (summed elapsed
  time of the successful map and reduce attempts, paper eq 6 and 7 targets), the time wasted in
  failed and killed attempts, and MFE/RFE where the job recorded them (counter group
  ``jobsize``);
- one row per map or reduce attempt that started and finished (:data:`jobsize.schema.TASK_COLUMNS`),
  as Hadoop's JobHistoryParser lists them;
- the counters as Hadoop grouped them, job totals and the map and reduce sides, and each
  task's own (a probe's later maps are read from them: :func:`~jobsize.collectors.probe_join.
  later_maps`).

A file that ends early — a job still running, an AM that crashed mid-write — yields the events
that are complete and ``complete=False``. Anything else that does not fit the schema is a
:class:`~jobsize.errors.ParseError` naming the file, the line (or byte offset) and the JSON path.
The companion ``<job id>_conf.xml`` supplies container sizes (see :mod:`collectors.conf`).
"""

from __future__ import annotations

import io
import json
import os
import re
import reprlib
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fastavro
import pandas as pd
from jobsize.collectors.avro_json import AvroJsonDecoder, AvroJsonError
from jobsize.collectors.conf import conf_int, job_settings, read_conf
from jobsize.collectors.counter_columns import Counters, merge, record_columns
from jobsize.collectors.probe_join import (
    JoinReport,
    Probe,
    find_probe,
    join_probes,
    probe_identity,
    probe_target,
)

from jobsize.boundedjson import DECODER, loads, unreadable
from jobsize.errors import ParseError
from jobsize.schema import JOB_COLUMNS
from jobsize.validation import ImpossibleValueError, RecordCheck, check_parsed, validated

__all__ = ["HistoryTrace", "JobHistory", "collect_jhist", "find_jhist", "parse_jhist",
           "read_conf", "read_jhist"]

JSON_MAGIC = b"Avro-Json"
BINARY_MAGIC = b"Avro-Binary"

#: Longest schema line accepted; Hadoop's Event schema is about 20 KB.
MAX_SCHEMA_BYTES = 1 << 20

_JOB_ID = re.compile(r"job_\d+_\d+")
_SPACE = re.compile(r"\s*")
_END_STATES = {"JOB_FINISHED": "SUCCEEDED", "JOB_FAILED": "FAILED", "JOB_KILLED": "KILLED",
               "JOB_ERROR": "FAILED"}
_ATTEMPT_END = {"FINISHED": "SUCCEEDED", "FAILED": "FAILED", "KILLED": "KILLED"}


@dataclass
class JobHistory:
    """One job's history: its record, attempt rows, counters (the job's, and each task's by
    task id), and whether the file was whole."""

    record: dict[str, Any]
    tasks: list[dict[str, Any]]
    counters: dict[str, Counters]
    complete: bool
    conf: dict[str, str] = field(default_factory=dict)
    encoding: str = "json"
    task_counters: dict[str, Counters] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Event streams


@dataclass
class _Event:
    kind: str
    body: dict[str, Any]
    where: str


@dataclass
class _Stream:
    events: list[_Event]
    truncated: bool
    encoding: str


def _split_header(data: bytes, source: object) -> tuple[bytes, Any, int]:
    """Magic line, parsed schema and the offset where events begin."""
    first = data.find(b"\n")
    magic = (data if first < 0 else data[:first]).rstrip(b"\r")
    if magic not in (JSON_MAGIC, BINARY_MAGIC):
        raise ParseError(f"not a job history file: line 1 is {magic[:40]!r}, expected "
                         "'Avro-Json' or 'Avro-Binary'", source=source, where="line 1")
    second = data.find(b"\n", first + 1)
    if first < 0 or second < 0:
        raise ParseError("the file ends before its schema line does", source=source,
                         where="line 2")
    if second - first > MAX_SCHEMA_BYTES:
        raise ParseError(f"the schema line is longer than {MAX_SCHEMA_BYTES:,} bytes",
                         source=source, where="line 2")
    schema = loads(data[first + 1:second], source=f"{source}: line 2: schema")
    return magic, schema, second + 1


def _decoder(schema: Any, source: object) -> AvroJsonDecoder:
    try:
        decoder = AvroJsonDecoder(schema)
    except AvroJsonError as exc:
        raise ParseError(str(exc), source=source, where="line 2") from None
    if not {"type", "event"} <= set(decoder.root_fields()):
        raise ParseError("schema: not a job history Event record (fields 'type' and 'event')",
                         source=source, where="line 2")
    return decoder


def _checked_event(value: Any, source: object, where: str) -> _Event:
    if not (isinstance(value, dict) and isinstance(value.get("type"), str)
            and isinstance(value.get("event"), dict)):
        raise ParseError("not a job history event (no 'type' and 'event' record)",
                         source=source, where=where)
    return _Event(value["type"], value["event"], where)


def _json_text(data: bytes, start: int, source: object) -> tuple[str, bool]:
    """The event text, cut before a multi-byte character that the end of the file split."""
    try:
        return data[start:].decode("utf-8"), False
    except UnicodeDecodeError as exc:
        at = start + exc.start
        if b"\n" not in data[at:].rstrip():
            return data[start:at].decode("utf-8"), True
        line = data.count(b"\n", 0, at) + 1
        raise ParseError(f"not UTF-8 (byte offset {at})", source=source,
                         where=f"line {line}") from None


def _json_events(data: bytes, start: int, decoder: AvroJsonDecoder, source: object) -> _Stream:
    text, truncated = _json_text(data, start, source)
    events: list[_Event] = []
    pos, line = 0, data.count(b"\n", 0, start) + 1
    while True:
        skip = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        line += text.count("\n", pos, skip)
        pos = skip
        if pos >= len(text):
            return _Stream(events, truncated, "json")
        try:
            value, end = DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if "\n" not in text[pos:].rstrip():  # the last event was cut off
                return _Stream(events, True, "json")
            bad_line = line + text.count("\n", pos, exc.pos)
            raise ParseError(f"invalid JSON ({exc.msg})", source=source,
                             where=f"line {bad_line}") from None
        except (RecursionError, ValueError) as exc:
            raise unreadable(exc, source=source, where=f"line {line}") from None
        where = f"line {line}"
        try:
            decoded = decoder.decode(value)
        except AvroJsonError as exc:
            raise ParseError(exc.reason, source=source, where=f"{where}, {exc.path}") from None
        events.append(_checked_event(decoded, source, where))
        line += text.count("\n", pos, end)
        pos = end


def _binary_events(data: bytes, start: int, schema: Any, source: object) -> _Stream:
    try:
        parsed = fastavro.parse_schema(schema)
    except (fastavro.schema.SchemaParseException, fastavro.schema.UnknownType, ValueError,
            TypeError, KeyError, AttributeError) as exc:
        raise ParseError(f"schema: {exc}"[:300], source=source, where="line 2") from None
    stream = io.BytesIO(data)
    stream.seek(start)
    events: list[_Event] = []
    while stream.tell() < len(data):
        at = stream.tell()
        try:
            value = fastavro.schemaless_reader(stream, parsed, None)
        except EOFError:
            return _Stream(events, True, "binary")
        except (ValueError, IndexError, KeyError, TypeError, OverflowError, struct.error,
                MemoryError) as exc:
            raise ParseError(f"not a binary Avro event ({type(exc).__name__}: {exc})"[:300],
                             source=source, where=f"offset {at}") from None
        events.append(_checked_event(value, source, f"offset {at}"))
    return _Stream(events, False, "binary")


def _events(data: bytes, source: object) -> _Stream:
    magic, schema, start = _split_header(data, source)
    decoder = _decoder(schema, source)
    if magic == JSON_MAGIC:
        return _json_events(data, start, decoder, source)
    return _binary_events(data, start, schema, source)


# ---------------------------------------------------------------------------------------------
# Typed access to event fields


class _Fields:
    """Reads fields of one event body, checking their types against what the record needs."""

    def __init__(self, event: _Event, source: object) -> None:
        self.body, self.where, self.source = event.body, event.where, source

    def _fail(self, key: str, expected: str, value: Any) -> ParseError:
        return ParseError(f"{key}: expected {expected}, found {reprlib.repr(value)}",
                          source=self.source, where=self.where)

    def str(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None:
            return value
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate from a JSON escape
                raise self._fail(key, "UTF-8 text", value) from None
            return value
        raise self._fail(key, "a string", value)

    def int(self, key: str) -> int | None:
        value = self.body.get(key)
        if value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and abs(value) < 2**63):
            return value
        raise self._fail(key, "an integer", value)

    def bool(self, key: str) -> bool | None:
        value = self.body.get(key)
        if value is None or isinstance(value, bool):
            return value
        raise self._fail(key, "a boolean", value)

    def counters(self, key: str) -> Counters | None:
        """A JhCounters record as ``{group: {counter: value}}``; None when absent."""
        value = self.body.get(key)
        if value is None:
            return None
        groups = value.get("groups") if isinstance(value, dict) else None
        if not isinstance(groups, list):
            raise self._fail(key, "a counters record with groups", value)
        out: Counters = {}
        for group in groups:
            name = group.get("name") if isinstance(group, dict) else None
            counts = group.get("counts") if isinstance(group, dict) else None
            if not isinstance(name, str) or not isinstance(counts, list):
                raise self._fail(key, "counter groups with a name and counts", group)
            into = out.setdefault(name, {})
            for count in counts:
                cname = count.get("name") if isinstance(count, dict) else None
                cvalue = count.get("value") if isinstance(count, dict) else None
                if (not isinstance(cname, str) or not isinstance(cvalue, int)
                        or isinstance(cvalue, bool) or abs(cvalue) >= 2**63):
                    raise self._fail(f"{key} ({name})", "counters with a name and a value",
                                     count)
                into[cname] = cvalue
        return out


# ---------------------------------------------------------------------------------------------
# From events to a job


@dataclass
class _Attempt:
    attempt_id: str
    task_id: str | None = None
    task_type: str | None = None
    status: str | None = None
    start: int | None = None
    finish: int | None = None
    shuffle_finish: int | None = None
    sort_finish: int | None = None

    @property
    def elapsed(self) -> int | None:
        if self.start is None or self.finish is None:
            return None
        return max(0, self.finish - self.start)


@dataclass
class _Job:
    source: object
    fields: dict[str, Any] = field(default_factory=dict)
    attempts: dict[str, _Attempt] = field(default_factory=dict)
    task_counters: dict[str, tuple[str, Counters]] = field(default_factory=dict)
    job_counters: dict[str, Counters] | None = None
    state: str | None = None

    def add(self, event: _Event) -> None:
        f = _Fields(event, self.source)
        kind = event.kind
        if kind == "JOB_SUBMITTED":
            self._set(job_id=f.str("jobid"), job_name=f.str("jobName"), user=f.str("userName"),
                      queue=f.str("jobQueueName"), submit_time_ms=f.int("submitTime"))
        elif kind == "JOB_QUEUE_CHANGED":
            self._set(queue=f.str("jobQueueName"))
        elif kind == "JOB_INITED":
            self._set(launch_time_ms=f.int("launchTime"), n_maps=f.int("totalMaps"),
                      n_reduces=f.int("totalReduces"), uberized=f.bool("uberized"))
        elif kind == "JOB_INFO_CHANGED":
            self._set(submit_time_ms=f.int("submitTime"), launch_time_ms=f.int("launchTime"))
        elif kind in _END_STATES:
            self.state = _END_STATES[kind]
            self._set(finish_time_ms=f.int("finishTime"))
            if kind == "JOB_FINISHED":
                self.job_counters = {"total": f.counters("totalCounters") or {},
                                     "map": f.counters("mapCounters") or {},
                                     "reduce": f.counters("reduceCounters") or {}}
        elif kind in ("TASK_FINISHED", "TASK_FAILED"):
            # A failed (or killed) task records its counters too (Hadoop 2.x on); the history
            # server sums them with the finished tasks' for a job that recorded no totals.
            task_id, counters = f.str("taskid"), f.counters("counters")
            if task_id is not None and counters is not None:
                self.task_counters[task_id] = (f.str("taskType") or "", counters)
        elif "_ATTEMPT_" in kind:
            self._attempt(kind, f)

    def _set(self, **values: Any) -> None:
        self.fields.update({k: v for k, v in values.items() if v is not None})

    def _attempt(self, kind: str, f: _Fields) -> None:
        phase, _, what = kind.partition("_ATTEMPT_")
        attempt_id = f.str("attemptId")
        if phase not in ("MAP", "REDUCE") or attempt_id is None:
            return  # setup and cleanup attempts are not map or reduce work
        attempt = self.attempts.setdefault(attempt_id, _Attempt(attempt_id))
        attempt.task_id = f.str("taskid") or attempt.task_id
        attempt.task_type = phase
        if what == "STARTED":
            attempt.start = f.int("startTime")
        elif what in _ATTEMPT_END:
            attempt.status = _ATTEMPT_END[what]
            attempt.finish = f.int("finishTime")
            if phase == "REDUCE" and what == "FINISHED":
                attempt.shuffle_finish = f.int("shuffleFinishTime")
                attempt.sort_finish = f.int("sortFinishTime")
            elif phase == "REDUCE":
                # A failed or killed attempt's event has no phase times: Hadoop's
                # JobHistoryParser (and so the history server) gives its finish time to both.
                attempt.shuffle_finish = attempt.sort_finish = attempt.finish

    def counters(self) -> dict[str, Counters]:
        if self.job_counters is not None:
            return self.job_counters
        # A failed, killed or unfinished job records no totals: sum its tasks' counters,
        # finished and failed alike, as the history server does (its JobCounterInfo).
        by_type = {"map": [c for t, c in self.task_counters.values() if t == "MAP"],
                   "reduce": [c for t, c in self.task_counters.values() if t == "REDUCE"]}
        return {"total": merge(by_type["map"] + by_type["reduce"]),
                "map": merge(by_type["map"]), "reduce": merge(by_type["reduce"])}

    def times(self) -> dict[str, int]:
        """SE_m, SE_r and the wasted time of failed and killed attempts."""
        out = {"map_time_ms": 0, "reduce_time_ms": 0, "map_wasted_ms": 0,
               "reduce_wasted_ms": 0}
        for attempt in self.attempts.values():
            elapsed = attempt.elapsed
            if attempt.status is None or elapsed is None:
                continue
            phase = "map" if attempt.task_type == "MAP" else "reduce"
            kind = "time" if attempt.status == "SUCCEEDED" else "wasted"
            out[f"{phase}_{kind}_ms"] += elapsed
        return out


def _task_rows(job: _Job, job_id: str, sizes: Mapping[str, int]) -> list[dict[str, Any]]:
    rows = []
    for attempt in job.attempts.values():
        if attempt.status is None or attempt.start is None:
            # Still running when the file ends; or never started: an attempt killed before
            # it ran (a speculative one whose twin finished first) has only its end event,
            # finish time 0, and Hadoop's JobHistoryParser (and so the history server) does
            # not list it.
            continue
        phase = "map" if attempt.task_type == "MAP" else "reduce"
        rows.append({
            "job_id": job_id, "task_id": attempt.task_id, "attempt_id": attempt.attempt_id,
            "task_type": attempt.task_type, "status": attempt.status,
            "start_time_ms": attempt.start, "finish_time_ms": attempt.finish,
            "shuffle_finish_time_ms": attempt.shuffle_finish,
            "sort_finish_time_ms": attempt.sort_finish,
            "memory_mb": sizes.get(f"{phase}_memory_mb"), "vcores": sizes.get(f"{phase}_vcores"),
        })
    return rows


def _assemble(job: _Job, stream: _Stream, conf: Mapping[str, str], conf_source: object,
              file_job_id: str | None) -> JobHistory:
    record: dict[str, Any] = dict(job.fields)
    job_id = record.get("job_id") or file_job_id
    if not job_id:
        raise ParseError("no job id: no JOB_SUBMITTED event and none in the file name",
                         source=job.source)
    complete = job.state is not None and not stream.truncated
    sizes = job_settings(conf, source=conf_source) if conf else {}
    if conf:
        for column, key in (("n_maps", "mapreduce.job.maps"),
                            ("n_reduces", "mapreduce.job.reduces")):
            if record.get(column) is None:
                record[column] = conf_int(conf, key, source=conf_source)
    counters = job.counters()
    record = {column.name: record.get(column.name) for column in JOB_COLUMNS}
    record.update(job_id=job_id, state=job.state, complete=complete, source="jhist", **sizes,
                  **job.times(), **record_columns(counters))
    tasks = _task_rows(job, job_id, sizes)
    check_parsed(record, tasks, source=job.source)  # no negative count or time to a caller
    return JobHistory(record=record, tasks=tasks, counters=counters,
                      complete=complete, conf=dict(conf), encoding=stream.encoding,
                      task_counters={t: c for t, (_, c) in job.task_counters.items()})


def parse_jhist(
    data: bytes,
    *,
    source: object = "<jhist>",
    conf: Mapping[str, str] | None = None,
    conf_source: object = None,
    job_id: str | None = None,
) -> JobHistory:
    """Parse the bytes of a job history file; ``conf`` is the job's configuration, if known.

    ``job_id`` names the job when the file is cut before its JOB_SUBMITTED event.
    """
    stream = _events(data, source)
    job = _Job(source)
    for event in stream.events:
        job.add(event)
    return _assemble(job, stream, conf or {}, conf_source, job_id)


def _conf_beside(path: Path, job_id: str | None) -> Path | None:
    if job_id is None:
        return None
    candidate = path.with_name(f"{job_id}_conf.xml")
    return candidate if candidate.is_file() else None


def read_jhist(
    path: str | os.PathLike[str], conf_path: str | os.PathLike[str] | None = None
) -> JobHistory:
    """Read a ``.jhist`` file (Avro-JSON or binary Avro) and, if found, its ``_conf.xml``.

    With ``conf_path`` None the configuration is looked for beside the file as
    ``<job id>_conf.xml``; without one the container-size columns stay null.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ParseError("no such file", source=path) from None
    except IsADirectoryError:
        raise ParseError("is a directory, expected a .jhist file", source=path) from None
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror})", source=path) from None
    match = _JOB_ID.match(path.name)
    file_job_id = match.group(0) if match else None
    conf_file = Path(conf_path) if conf_path is not None else _conf_beside(path, file_job_id)
    conf = read_conf(conf_file) if conf_file is not None else {}
    history = parse_jhist(data, source=path, conf=conf, conf_source=conf_file,
                          job_id=file_job_id)
    if conf_path is None and conf_file is None:
        # The file name may not carry the id (e.g. job_2.4.0-FAILED.jhist): try the event's.
        found = _conf_beside(path, history.record["job_id"])
        if found is not None:
            history = parse_jhist(data, source=path, conf=read_conf(found), conf_source=found,
                                  job_id=file_job_id)
    return history


def find_jhist(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``.jhist`` files named by ``paths``: files as given, directories searched."""
    found: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.jhist") if p.is_file()))
        elif path.exists():
            found.append(path)
        else:
            raise ParseError("no such file or directory", source=path)
    return found


@dataclass
class HistoryTrace:
    """What a set of history files holds: the production jobs (with their probes' columns
    joined), their attempt rows, the probe jobs and what the join did."""

    jobs: pd.DataFrame
    tasks: pd.DataFrame
    probes: list[Probe]
    report: JoinReport


def collect_jhist(
    paths: Iterable[str | os.PathLike[str]],
    *,
    advance: Callable[..., None] | None = None,
    check: RecordCheck | None = None,
) -> HistoryTrace:
    """Job records and task-attempt rows of the ``.jhist`` files under ``paths``.

    A job found twice keeps its complete history over an incomplete one, else the first.
    Probe jobs are joined to the jobs they probed (:mod:`jobsize.collectors.probe_join`) and
    are not among the jobs. Each job is checked (:mod:`jobsize.validation`); ``check`` says
    what a bad one does. ``advance()`` is called once per file read (for a progress bar).
    """
    histories: dict[str, tuple[Path, JobHistory]] = {}
    for path in find_jhist(paths):
        try:
            history = read_jhist(path)
        except ImpossibleValueError as exc:  # a bad record, as validated() would find it
            if check is None or check.policy == "fail":
                raise
            check.rejected.append(exc.rejection)
            continue
        if probe_target(history.record, history.conf) is None:
            history.task_counters.clear()  # only a probe's are read: the rest would be held
        job_id = history.record["job_id"]
        if job_id not in histories or (history.complete and not histories[job_id][1].complete):
            histories[job_id] = (path, history)
        if advance is not None:
            advance()
    production, probes, identities = [], [], {}
    for job_id, (path, history) in histories.items():
        probe = find_probe(history.record, history.conf, source=f"{job_id}_conf.xml",
                           tasks=history.tasks, task_counters=history.task_counters)
        if probe is None:
            production.append((path, history))
            identities[job_id] = probe_identity(history.conf)
        else:
            probes.append(probe)
    jobs, tasks = validated((h.record for _, h in production),
                            (row for _, h in production for row in h.tasks),
                            places=[str(path) for path, _ in production], check=check)
    joined = join_probes(jobs, probes, identities)
    return HistoryTrace(joined.jobs, tasks, joined.probes, joined.report)  # type: ignore[arg-type]
