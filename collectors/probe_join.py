"""Probe jobs in a cluster's history, joined to the jobs they probed (paper §III-A, eq 8 inputs).

A probe is a MapReduce job of its own: ``jobsize probe --hadoop`` renders it for a cluster and
the local engine runs it. Its configuration names the job it probes:

- job name ``jobsize probe: <job name>`` and ``jobsize.probe.for = <job name>``;
- ``jobsize.probe.id``: an identity that the production job carries too
  (``-D jobsize.probe.id=...`` on both);
- ``jobsize.probe.fraction`` (f_p), ``jobsize.probe.input.bytes`` (the sample's size) and
  ``jobsize.probe.n_maps`` / ``n_reduces`` (the job's N_m and N_r).

A job whose configuration has ``jobsize.probe.for``, or whose name starts with the prefix, is a
probe: it is never a production job. :func:`join_probes` fills each production job's ``probe_*``
columns from its probe's own record:

1. by identity — the probe whose ``jobsize.probe.id`` the job carries; of several, the latest
   submitted before the job and after its previous run (a recurring job keeps its identity run
   after run). ``jobsize probe`` and ``jobsize run`` derive the identity from the job's user,
   input and programs unless given (:mod:`jobsize.sampler.identity`), so they join by default;
2. else by name and submit order — a job that carries no identity takes the one probe of its
   name submitted before it and after the previous job of that name, among the probes whose
   identity no job carries. Two or more such probes are jobs of one name probed before either
   ran: the join is ambiguous and refused, each probe reported with the reason, never guessed.

Only probes that succeeded are joined, and a job that already has probe columns keeps them.

The probe's columns come from its counters as for any job: MFE and RFE are the timing wrapper's
streaming counters (group ``jobsize``: ``MAP_FUNCTION_MILLIS``, ``REDUCE_FUNCTION_MILLIS``;
null when the probe ran without the wrapper), the probe's CPU time per side is Hadoop's
``CPU_MILLISECONDS`` (what a cluster without the wrapper still records), MO, MOR, RIR and RO
are Hadoop's; a map-only
probe reports zeros for the reduce side. f_p is ``jobsize.probe.fraction``, or where a probe does
not carry it, the sample's bytes over the job's input bytes; the wall time is the probe job's
submit-to-finish time. What a task pays whatever its input — ``probe_map_function_fixed_ms``,
``probe_reduce_function_fixed_ms`` and, per combiner run, ``probe_combine_function_fixed_ms`` —
is the functions' start-up, which the wrapper measures in every task by running the function
once over no input first (``MAP_FUNCTION_STARTUP_MILLIS``, ...; ``COMBINE_RUNS`` counts the
combiner's runs), at most the function's own time per task. The split probe's shape columns
(its two tasks' intercept, growth exponents) stay null: they need two uneven probe tasks of each
kind, which a probe on a cluster does not run; so do the empty tasks'
``probe_*_function_startup_ms`` (no empty task ran: every probe task paid its start-up).
Where the history has the probe's attempts and their counters (a ``.jhist``; not the history
server's job list), a probe of two maps or more also times the maps after its first apart
(:func:`later_maps`), and the probe's first task's start is timed from its launch
(:func:`task_start`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from jobsize.collectors.conf import conf_int
from jobsize.collectors.counter_columns import Counters, lookup

from jobsize.errors import ParseError
from jobsize.schema import (
    COMBINE_FUNCTION_COUNTER,
    FUNCTION_TIME_GROUP,
    JOB_COLUMNS,
    JOB_SCHEMA,
    MAP_FUNCTION_COUNTER,
    PROBE_FOR_KEY,
    PROBE_FRACTION_KEY,
    PROBE_ID_KEY,
    PROBE_INPUT_BYTES_KEY,
    PROBE_NAME_PREFIX,
    PROBE_REDUCES_KEY,
    Column,
    conform,
    read_trace,
    write_trace,
)

#: Hadoop's task counter group (``lookup`` knows its older names too).
_TASK_GROUP = "org.apache.hadoop.mapreduce.TaskCounter"

#: The job record's probe columns, in schema order.
PROBE_COLUMNS: tuple[str, ...] = tuple(c.name for c in JOB_COLUMNS
                                       if c.name.startswith("probe_"))

#: The probe table written beside a trace (``TRACE.probes.parquet``): one row per probe job.
PROBE_TABLE: tuple[Column, ...] = (
    Column("job_id", "string", "", "the probe's own Hadoop job id", "jobid"),
    Column("probe_for", "string", "", "name of the job it probes", PROBE_FOR_KEY),
    Column("probe_id", "string", "", "identity shared with the job it probes", PROBE_ID_KEY),
    Column("submit_time_ms", "Int64", "ms", "the probe's submission time, epoch ms",
           "submitTime"),
    Column("state", "string", "", "the probe's final state", "jobStatus"),
    Column("joined_job_id", "string", "", "the job it was joined to (null: not joined)"),
    *(JOB_SCHEMA[name] for name in PROBE_COLUMNS),
)

_SUCCEEDED = (None, "SUCCEEDED")


@dataclass(frozen=True)
class Probe:
    """A probe job found in history: which job it probes and what it measured."""

    job_id: str
    probe_for: str | None
    probe_id: str | None
    submit_time_ms: int | None
    state: str | None
    columns: Mapping[str, Any]  # the probe_* columns; probe_fraction None until joined
    joined_job_id: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.state in _SUCCEEDED

    def row(self) -> dict[str, Any]:
        return {"job_id": self.job_id, "probe_for": self.probe_for, "probe_id": self.probe_id,
                "submit_time_ms": self.submit_time_ms, "state": self.state,
                "joined_job_id": self.joined_job_id, **self.columns}


def probe_identity(conf: Mapping[str, str]) -> str | None:
    """The ``jobsize.probe.id`` a job ran with, or None."""
    return (conf.get(PROBE_ID_KEY) or "").strip() or None


def probe_target(record: Mapping[str, Any], conf: Mapping[str, str]) -> str | None:
    """The name of the job a probe probes (``jobsize.probe.for``, else its job name after the
    prefix); None for a job that is not a probe."""
    target = conf.get(PROBE_FOR_KEY)
    if target is not None:
        return target
    name = record.get("job_name") or conf.get("mapreduce.job.name") or ""
    return name[len(PROBE_NAME_PREFIX):] if name.startswith(PROBE_NAME_PREFIX) else None


def find_probe(record: Mapping[str, Any], conf: Mapping[str, str], *,
               source: object = None, tasks: Sequence[Mapping[str, Any]] = (),
               task_counters: Mapping[str, Counters] | None = None) -> Probe | None:
    """The probe that a job's record and configuration describe; None for any other job.

    ``tasks`` (attempt rows) and ``task_counters`` (each task's counters by task id), where the
    history has them, give the later maps' columns (:func:`later_maps`)."""
    target = probe_target(record, conf)
    if target is None:
        return None
    sample_bytes = conf_int(conf, PROBE_INPUT_BYTES_KEY, source=source)
    n_reduces = conf_int(conf, PROBE_REDUCES_KEY, source=source)
    columns = probe_columns(record, fraction=_fraction(conf, source),
                            input_bytes=sample_bytes, n_reduces=n_reduces)
    columns.update(later_maps(tasks, task_counters or {}))
    columns.update(task_start(record, tasks))
    return Probe(job_id=str(record["job_id"]), probe_for=target.strip() or None,
                 probe_id=probe_identity(conf), submit_time_ms=record.get("submit_time_ms"),
                 state=record.get("state"), columns=columns)


def _fraction(conf: Mapping[str, str], source: object) -> float | None:
    text = conf.get(PROBE_FRACTION_KEY)
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:
        raise ParseError(f"f_p must be a number in (0, 1], found {text!r}"[:200],
                         source=source, where=f"property {PROBE_FRACTION_KEY!r}")
    return value


def probe_columns(record: Mapping[str, Any], *, fraction: float | None,
                  input_bytes: int | None = None, n_reduces: int | None = None
                  ) -> dict[str, Any]:
    """The ``probe_*`` columns from the probe job's own record, as the local probe reports
    them from its counters.

    ``input_bytes`` is the sample's size (None: the bytes the probe read); ``n_reduces`` the
    probed job's N_r (None: the probe's own reduce count), 0 making the reduce side zeros. The
    per-task fixed costs come from the timing wrapper's start-up counters where it measured
    them; the split probe's shape columns stay null (see the module docstring).
    """
    if n_reduces is None:
        n_reduces = record.get("n_reduces")
    map_only = n_reduces == 0
    submitted, finished = record.get("submit_time_ms"), record.get("finish_time_ms")
    wall = (None if submitted is None or finished is None
            else float(max(0, finished - submitted)))
    combined = record.get("combine_input_records") or 0
    cfe = record.get("combine_function_ms")
    runs = record.get("combine_runs")

    def reduce_side(column: str, zero: Any) -> Any:
        return zero if map_only else record.get(column)

    wrapped = [v for v in (_float(record.get(c)) for c in ("map_wrapper_ms", "combine_wrapper_ms"))
               if v is not None and math.isfinite(v)]

    columns = dict.fromkeys(PROBE_COLUMNS)
    columns.update({
        "probe_fraction": fraction,
        "probe_input_bytes": input_bytes if input_bytes is not None
        else record.get("map_input_bytes"),
        "probe_map_function_ms": record.get("map_function_ms"),
        "probe_reduce_function_ms": reduce_side("reduce_function_ms", 0.0),
        "probe_map_output_bytes": (record.get("map_output_bytes") or 0) if map_only
        else record.get("map_output_bytes"),
        "probe_map_output_records": record.get("map_output_records"),
        "probe_reduce_input_records": reduce_side("reduce_input_records", 0),
        "probe_reduce_output_bytes": record.get("reduce_output_bytes") or 0,
        "probe_wall_ms": wall,
        "probe_map_cpu_ms": _float(record.get("map_cpu_ms")),
        "probe_reduce_cpu_ms": 0.0 if map_only else _float(record.get("reduce_cpu_ms")),
        "probe_map_tasks": record.get("n_maps"),
        # each probe map reads one file of the uploaded sample: one mapper process each
        "probe_map_processes": record.get("n_maps"),
        "probe_reduce_tasks": record.get("n_reduces"),
        "probe_combine_function_ms": cfe if cfe is not None else (0.0 if not combined else None),
        "probe_combine_input_records": combined,
        # Hadoop counts no combiner runs; the timing wrapper does, where it wrapped the combiner
        "probe_combine_runs": runs if combined else 0,
        "probe_map_function_fixed_ms": _per_task(record.get("map_function_startup_ms"),
                                                 record.get("n_maps"),
                                                 record.get("map_function_ms")),
        "probe_reduce_function_fixed_ms": None if map_only else _per_task(
            record.get("reduce_function_startup_ms"), record.get("n_reduces"),
            record.get("reduce_function_ms")),
        "probe_combine_function_fixed_ms": _per_task(
            record.get("combine_function_startup_ms"), runs, cfe) if combined else None,
        "probe_reduce_input_groups": reduce_side("reduce_input_groups", 0),
        "probe_map_task_ms": _float(record.get("map_time_ms")),
        "probe_reduce_task_ms": 0.0 if map_only else _float(record.get("reduce_time_ms")),
        # the wrapper around the mapper and, where there is one, the combiner
        "probe_map_wrapper_ms": sum(wrapped) if wrapped else None,
        "probe_reduce_wrapper_ms": _float(record.get("reduce_wrapper_ms")),
    })
    return columns


def later_maps(tasks: Sequence[Mapping[str, Any]], task_counters: Mapping[str, Counters]
               ) -> dict[str, float | None]:
    """``probe_map_later_task_ms``, ``probe_map_later_function_ms`` and
    ``probe_map_later_input_share``: the summed elapsed time of the probe's map tasks after its
    first (by start time), their MFE + CFE from their own counters, and their share of the
    maps' input records. An uber job runs its maps one after another in one JVM: the first pays
    what a cold JVM pays (class loading, compiling), the later ones run warm, as an uber job's
    later maps do. Null with fewer than two finished maps, where a map read no record, or where
    a map has no ``MAP_FUNCTION_MILLIS`` counter (no timing wrapper, or a history without task
    counters: the history server's job list)."""
    out: dict[str, float | None] = dict.fromkeys((
        "probe_map_later_task_ms", "probe_map_later_function_ms", "probe_map_later_input_share"))
    maps = sorted((t for t in tasks if t.get("task_type") == "MAP"
                   and t.get("status") == "SUCCEEDED" and t.get("start_time_ms") is not None
                   and t.get("finish_time_ms") is not None),
                  key=lambda t: (t["start_time_ms"], t["task_id"]))
    if len(maps) < 2:
        return out
    function = 0.0
    records = []
    for task in maps:
        counters = task_counters.get(task["task_id"], {})
        records.append(lookup(counters, _TASK_GROUP, "MAP_INPUT_RECORDS") or 0)
        if not records[-1]:
            return out  # an empty map (the local engine's probe has one): not like the job's
        group = counters.get(FUNCTION_TIME_GROUP, {})
        if MAP_FUNCTION_COUNTER not in group:
            return out
        if task is not maps[0]:
            function += group[MAP_FUNCTION_COUNTER] + group.get(COMBINE_FUNCTION_COUNTER, 0)
    out["probe_map_later_task_ms"] = float(sum(max(0, t["finish_time_ms"] - t["start_time_ms"])
                                               for t in maps[1:]))
    out["probe_map_later_function_ms"] = function
    out["probe_map_later_input_share"] = sum(records[1:]) / sum(records)
    return out


def task_start(record: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]]
               ) -> dict[str, float | None]:
    """``probe_task_start_ms``: from the probe job's launch to its first attempt's start — what
    the ApplicationMaster does before an uber job's tasks run. Null without attempts (the
    history server's job list) or a launch time."""
    launch = record.get("launch_time_ms")
    starts = [t["start_time_ms"] for t in tasks if t.get("start_time_ms") is not None]
    if pd.isna(launch) or not starts:
        return {"probe_task_start_ms": None}
    return {"probe_task_start_ms": float(max(0, min(starts) - launch))}


def _per_task(startup_ms: float | None, tasks: int | None, function_ms: float | None
              ) -> float | None:
    """What one task (or combiner run) paid whatever its input: the mean start-up the timing
    wrapper measured over its ``tasks``, at most their mean function time; None unmeasured."""
    if startup_ms is None or function_ms is None or not tasks or tasks <= 0:
        return None
    return min(startup_ms, function_ms) / tasks


# ---------------------------------------------------------------------------------------------
# The join


@dataclass
class JoinReport:
    """What a join did: probes found, joined by identity or by name, and those not joined."""

    probes: int = 0
    by_id: int = 0
    by_name: int = 0
    unjoined: dict[str, str] = field(default_factory=dict)  # probe job id → why

    @property
    def joined(self) -> int:
        return self.by_id + self.by_name

    def summary(self) -> str:
        if not self.probes:
            return "no probe jobs"
        return (f"{self.probes} probe jobs: {self.joined} joined ({self.by_id} by "
                f"{PROBE_ID_KEY}, {self.by_name} by name and submit order), "
                f"{len(self.unjoined)} not joined")


@dataclass
class Joined:
    """The jobs with their probe columns, the probes with the job each joined, the report."""

    jobs: pd.DataFrame
    probes: list[Probe]
    report: JoinReport


def join_probes(jobs: pd.DataFrame, probes: Sequence[Probe],
                identities: Mapping[str, str | None]) -> Joined:
    """Join ``probes`` to the production ``jobs`` (a job-record frame) and fill their
    ``probe_*`` columns.

    ``identities`` maps a job id to the ``jobsize.probe.id`` it ran with (jobs absent from it
    carry none). Probes already joined (``joined_job_id`` set) are kept as they are.
    """
    jobs = conform(jobs)
    report = JoinReport(probes=len(probes))
    open_probes = [p for p in probes if p.joined_job_id is None]
    rows = _unprobed_rows(jobs)
    taken: dict[str, tuple[int, str]] = {}  # probe job id → (row, how)

    def row_identity(i: int) -> str | None:
        return identities.get(str(jobs.at[i, "job_id"]))

    ok = [p for p in open_probes if p.succeeded]
    _pair(jobs, rows, row_identity, _by(ok, lambda p: p.probe_id), taken, "id",
          allow_later=True)
    carried = {v for v in identities.values() if v}
    nameable = [p for p in ok if p.probe_id is None or p.probe_id not in carried]
    ambiguous: dict[str, str] = {}
    _pair(jobs, [i for i in rows if row_identity(i) is None],
          lambda i: _text(jobs.at[i, "job_name"]), _by(nameable, lambda p: p.probe_for),
          taken, "name", allow_later=False, ambiguous=ambiguous)

    updated = {}
    for probe in open_probes:
        if probe.job_id in taken:
            i, how = taken[probe.job_id]
            _fill(jobs, i, probe)
            report.by_id += how == "id"
            report.by_name += how == "name"
            probe = dataclasses.replace(probe, joined_job_id=str(jobs.at[i, "job_id"]))
        else:
            report.unjoined[probe.job_id] = ambiguous.get(probe.job_id) or _why(probe,
                                                                                identities)
        updated[probe.job_id] = probe
    return Joined(jobs, [updated.get(p.job_id, p) for p in probes], report)


def _unprobed_rows(jobs: pd.DataFrame) -> list[int]:
    """Rows without probe columns, in submit order."""
    empty = jobs[list(PROBE_COLUMNS)].isna().all(axis=1).to_numpy()
    submit = jobs["submit_time_ms"].fillna(0).to_numpy()
    return sorted((i for i in range(len(jobs)) if empty[i]),
                  key=lambda i: (int(submit[i]), str(jobs.at[i, "job_id"])))


def _by(probes: Iterable[Probe], key: Callable[[Probe], str | None]) -> dict[str, list[Probe]]:
    out: dict[str, list[Probe]] = defaultdict(list)
    for probe in probes:
        k = key(probe)
        if k is not None:
            out[k].append(probe)
    return out


def _pair(jobs: pd.DataFrame, rows: list[int], key_of: Callable[[int], str | None],
          probes: Mapping[str, list[Probe]], taken: dict[str, tuple[int, str]], how: str,
          *, allow_later: bool, ambiguous: dict[str, str] | None = None) -> None:
    """Give each row the probe of its key submitted in its window: after the previous row of
    the same key, up to the row's own submission.

    By identity (``ambiguous`` None) the latest probe in the window is the job's — several are
    the same job probed again — and with ``allow_later`` a row whose window is empty takes the
    first probe submitted after it, before the next row of its key. By name several probes in
    one window are two jobs of one name probed before either ran: which is which cannot be
    told, so none is taken, and each is reported in ``ambiguous`` with the reason.
    """
    done = {i for i, _ in taken.values()}
    by_key: dict[str, list[int]] = defaultdict(list)
    for i in rows:
        key = key_of(i)
        if i not in done and key is not None:
            by_key[key].append(i)
    for key, keyed in by_key.items():
        free = [p for p in probes.get(key, ()) if p.job_id not in taken]
        bounds = [_int(jobs.at[i, "submit_time_ms"]) for i in keyed]
        for n, i in enumerate(keyed):
            low = bounds[n - 1] if n else None
            high, after = bounds[n], bounds[n + 1] if n + 1 < len(keyed) else None
            window = [p for p in free if p.job_id not in taken
                      and (high is None or _submit(p) <= high)
                      and (low is None or _submit(p) > low)]
            if ambiguous is not None and len(window) > 1:
                for p in window:
                    ambiguous[p.job_id] = (
                        f"ambiguous: {len(window)} probes named {key!r} were submitted before "
                        f"job {jobs.at[i, 'job_id']} with no job of that name between them; "
                        f"run each job with the {PROBE_ID_KEY} its probe printed")
                continue
            if not window and allow_later and high is not None:
                window = sorted((p for p in free if p.job_id not in taken and _submit(p) > high
                                 and (after is None or _submit(p) <= after)),
                                key=lambda p: (_submit(p), p.job_id))[:1]
            if window:
                probe = max(window, key=lambda p: (_submit(p), p.job_id))
                taken[probe.job_id] = (i, how)


def _submit(probe: Probe) -> int:
    return probe.submit_time_ms or 0


def _fill(jobs: pd.DataFrame, i: int, probe: Probe) -> None:
    values = dict(probe.columns)
    if values["probe_fraction"] is None:
        total = _int(jobs.at[i, "map_input_bytes"])
        sample = values["probe_input_bytes"]
        if total and sample is not None:
            values["probe_fraction"] = min(1.0, sample / total)
    for column, value in values.items():
        jobs.at[i, column] = pd.NA if value is None else value


def _why(probe: Probe, identities: Mapping[str, str | None]) -> str:
    if not probe.succeeded:
        return f"the probe {probe.state}"
    if probe.probe_id is not None and probe.probe_id in set(identities.values()):
        return f"its job ({PROBE_ID_KEY}={probe.probe_id}) has another probe already"
    if probe.probe_id is not None:
        return (f"no job with {PROBE_ID_KEY}={probe.probe_id}, and no job named "
                f"{probe.probe_for!r} submitted after it without a probe")
    return f"no job named {probe.probe_for!r} submitted after it without a probe"


def _float(value: object) -> float | None:
    return None if value is None or value is pd.NA else float(value)  # type: ignore[arg-type]


def _text(value: object) -> str | None:
    return None if value is None or value is pd.NA else str(value)


def _int(value: object) -> int | None:
    return None if value is None or value is pd.NA else int(value)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------------
# The probe table beside a trace


def probes_path(trace: str | os.PathLike[str]) -> Path:
    """Where the probe table of a trace lives: ``X.parquet`` → ``X.probes.parquet``."""
    p = Path(trace)
    stem = p.name[: -len(".parquet")] if p.name.endswith(".parquet") else p.name
    return p.with_name(f"{stem}.probes.parquet")


def write_probes(probes: Sequence[Probe], trace: str | os.PathLike[str]) -> Path:
    """Write the probe table beside ``trace`` (atomically)."""
    frame = pd.DataFrame.from_records([p.row() for p in probes],
                                      columns=[c.name for c in PROBE_TABLE])
    return write_trace(frame, probes_path(trace), columns=PROBE_TABLE)


def read_probes(trace: str | os.PathLike[str]) -> list[Probe]:
    """The probe table beside ``trace``; empty when there is none."""
    path = probes_path(trace)
    if not path.exists():
        return []
    frame = read_trace(path, columns=PROBE_TABLE)
    out = []
    for row in frame.to_dict(orient="records"):
        row = {k: (None if v is pd.NA else v) for k, v in row.items()}
        out.append(Probe(job_id=row["job_id"], probe_for=row["probe_for"],
                         probe_id=row["probe_id"], submit_time_ms=row["submit_time_ms"],
                         state=row["state"], joined_job_id=row["joined_job_id"],
                         columns={c: row[c] for c in PROBE_COLUMNS}))
    return out
