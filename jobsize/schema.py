"""The job record: one row per MapReduce job, the table every jobsize package exchanges.

Column names carry their unit (``_ms``, ``_bytes``, ``_mb``); where Hadoop has a name for the
quantity (a counter, a configuration key, a history field) the column records it in
:attr:`Column.hadoop`. Traces are parquet files written atomically; readers validate them and name
the missing or mistyped column.

A second, optional table holds one row per task attempt (:data:`TASK_COLUMNS`): the recorded
durations that simulator workloads replay (Rumen, SLS, local runs).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from jobsize.atomic import atomic_write, commit_together, recover
from jobsize.boundedjson import LONG
from jobsize.bundled import history_members, resolve
from jobsize.errors import InputError, ParseError, SchemaError

#: Version of the trace layout, stored in each parquet file's metadata.
TRACE_FORMAT = 1
_META_KEY = b"jobsize"

#: Counter group and names under which map and reduce *function* time (the paper's MFE and
#: RFE) are reported — by the local engine, and by the probe's streaming timing wrapper as
#: ``reporter:counter:jobsize,MAP_FUNCTION_MILLIS,<ms>`` on stderr.
FUNCTION_TIME_GROUP = "jobsize"
MAP_FUNCTION_COUNTER = "MAP_FUNCTION_MILLIS"
REDUCE_FUNCTION_COUNTER = "REDUCE_FUNCTION_MILLIS"
#: Time inside the combiner (the local engine reports it; Hadoop's counters have no such time).
COMBINE_FUNCTION_COUNTER = "COMBINE_FUNCTION_MILLIS"
#: Distinct keys of one map task's output, reported by the probe's maps on the local engine.
MAP_OUTPUT_KEYS_COUNTER = "MAP_OUTPUT_KEYS"
#: Times a map task ran its combiner (once per spill, and once more over a merge of
#: ``mapreduce.map.combine.minspills`` or more spills), reported by the local engine and a
#: probe's timing wrapper: each run starts the combiner afresh.
COMBINE_RUNS_COUNTER = "COMBINE_RUNS"
#: A function's start-up: its time over no input, which a cluster probe's timing wrapper
#: measures in every task (and every combiner run) before the function reads its records.
MAP_FUNCTION_STARTUP_COUNTER = "MAP_FUNCTION_STARTUP_MILLIS"
REDUCE_FUNCTION_STARTUP_COUNTER = "REDUCE_FUNCTION_STARTUP_MILLIS"
COMBINE_FUNCTION_STARTUP_COUNTER = "COMBINE_FUNCTION_STARTUP_MILLIS"
#: The timing wrapper's own time around a function (its interpreter's start, the start-up run):
#: what a probe task pays that the job, its functions unwrapped, does not.
MAP_WRAPPER_COUNTER = "MAP_WRAPPER_MILLIS"
REDUCE_WRAPPER_COUNTER = "REDUCE_WRAPPER_MILLIS"
COMBINE_WRAPPER_COUNTER = "COMBINE_WRAPPER_MILLIS"

STATES = ("SUCCEEDED", "FAILED", "KILLED")

#: A probing job carries its production job's identity in its configuration, so that a
#: cluster's history can be joined back: the job name ``jobsize probe: <job name>`` and these
#: properties. ``jobsize.probe.id`` is set on the probe *and* on the production job
#: (``-D jobsize.probe.id=...``); the others only on the probe.
PROBE_NAME_PREFIX = "jobsize probe: "
PROBE_ID_KEY = "jobsize.probe.id"
PROBE_FOR_KEY = "jobsize.probe.for"  # the production job's name
PROBE_FRACTION_KEY = "jobsize.probe.fraction"  # f_p of the sample
PROBE_INPUT_BYTES_KEY = "jobsize.probe.input.bytes"  # bytes in the sample
PROBE_MAPS_KEY = "jobsize.probe.n_maps"  # the production job's N_m
PROBE_REDUCES_KEY = "jobsize.probe.n_reduces"  # and N_r


#: Java's ``int``: Hadoop holds task counts and container sizes in one.
JAVA_INT = 2**31
#: The last millisecond of the year 9999: no epoch time recorded by Hadoop is later.
MAX_EPOCH_MS = 253_402_300_799_999
#: Epoch-time columns (the others in ms are durations).
EPOCH_COLUMNS = frozenset({"submit_time_ms", "launch_time_ms", "finish_time_ms",
                           "start_time_ms", "shuffle_finish_time_ms", "sort_finish_time_ms"})


@dataclass(frozen=True)
class Column:
    """One column of a job-record or task table, with the values it may hold.

    ``low`` and ``high`` bound a numeric column (``low_open``: ``low`` itself excluded),
    ``allowed`` lists a string column's values, ``required`` forbids nulls. Every collector's
    rows are checked against these before anything is stored (:mod:`jobsize.validation`).
    """

    name: str
    dtype: str  # a pandas nullable dtype: "string", "Int64", "Float64" or "boolean"
    unit: str
    doc: str
    hadoop: str | None = None  # Hadoop's own name: counter, conf key or history field
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    allowed: tuple[str, ...] | None = None
    required: bool = False


#: Bounds of numeric columns by unit: (low, high, low excluded).
_UNIT_RANGES: dict[str, tuple[float, float, bool]] = {
    "ms": (0, LONG - 1, False), "bytes": (0, LONG - 1, False), "records": (0, LONG - 1, False),
    "tasks": (0, JAVA_INT - 1, False), "MB": (1, JAVA_INT - 1, False),
    "vcores": (1, JAVA_INT - 1, False), "fraction": (0, 1, False),
}


def _c(name: str, dtype: str, unit: str, doc: str, hadoop: str | None = None, *,
       allowed: tuple[str, ...] | None = None, required: bool = False) -> Column:
    low = high = None
    low_open = False
    if unit in _UNIT_RANGES:
        low, high, low_open = _UNIT_RANGES[unit]
        low_open = low_open or name == "probe_fraction"  # eq 8 divides by f_p
        if name in EPOCH_COLUMNS:
            high = MAX_EPOCH_MS
        elif dtype == "Float64":
            high = 1e18  # a float in ms: ~30 million years
    return Column(name, dtype, unit, doc, hadoop, low, high, low_open, allowed, required)


_TC = "org.apache.hadoop.mapreduce.TaskCounter"
_FIC = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter"
_FOC = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"

#: The job record, in display order: identity, times, shape, containers, counters, actual
#: times, probe.
JOB_COLUMNS: tuple[Column, ...] = (
    # identity
    _c("job_id", "string", "", "Hadoop job id, e.g. job_1329348432655_0001", "jobid",
       required=True),
    _c("job_name", "string", "", "job name", "jobName"),
    _c("user", "string", "", "submitting user", "userName"),
    _c("queue", "string", "", "scheduler queue", "jobQueueName"),
    _c("state", "string", "", "final state: SUCCEEDED, FAILED or KILLED", "jobStatus",
       allowed=STATES),
    _c("uberized", "boolean", "", "ran (or would run) in uber mode",
       "uberized"),
    _c("complete", "boolean", "", "the history was complete (false: truncated, job unfinished)"),
    _c("job_type", "string", "", "workload type for reference runs (wordcount, grep, ...)"),
    _c("source", "string", "", "where the record came from (jhist, jhs, rumen, sls, swim, ...)"),
    # times
    _c("submit_time_ms", "Int64", "ms", "submission time, epoch ms", "submitTime"),
    _c("launch_time_ms", "Int64", "ms", "launch time of the job (AM started), epoch ms",
       "launchTime"),
    _c("finish_time_ms", "Int64", "ms", "finish time, epoch ms", "finishTime"),
    # shape
    _c("n_maps", "Int64", "tasks", "N_m: number of map tasks", "totalMaps"),
    _c("n_reduces", "Int64", "tasks", "N_r: number of reduce tasks", "totalReduces"),
    # container sizes (R_m, R_r, R_am)
    _c("map_memory_mb", "Int64", "MB", "R_m memory", "mapreduce.map.memory.mb"),
    _c("map_vcores", "Int64", "vcores", "R_m vcores", "mapreduce.map.cpu.vcores"),
    _c("reduce_memory_mb", "Int64", "MB", "R_r memory", "mapreduce.reduce.memory.mb"),
    _c("reduce_vcores", "Int64", "vcores", "R_r vcores", "mapreduce.reduce.cpu.vcores"),
    _c("am_memory_mb", "Int64", "MB", "R_am memory", "yarn.app.mapreduce.am.resource.mb"),
    _c("am_vcores", "Int64", "vcores", "R_am vcores", "yarn.app.mapreduce.am.resource.cpu-vcores"),
    # a map's sort buffer: when it spills, and so how often a combiner runs
    _c("map_sort_mb", "Int64", "MB", "a map's sort buffer", "mapreduce.task.io.sort.mb"),
    _c("map_spill_percent", "Float64", "fraction", "share of the sort buffer that starts a spill",
       "mapreduce.map.sort.spill.percent"),
    _c("combine_min_spills", "Int64", "spills", "spills of a map from which the combiner runs "
       "again over their merge", "mapreduce.map.combine.minspills"),
    # counters, totals over the job
    _c("map_input_bytes", "Int64", "bytes", "MI: bytes read by map tasks", f"{_FIC}.BYTES_READ"),
    _c("map_input_records", "Int64", "records", "map input records", f"{_TC}.MAP_INPUT_RECORDS"),
    _c("map_output_bytes", "Int64", "bytes", "MO: map output bytes", f"{_TC}.MAP_OUTPUT_BYTES"),
    _c("map_output_records", "Int64", "records", "MOR: map output records",
       f"{_TC}.MAP_OUTPUT_RECORDS"),
    _c("reduce_shuffle_bytes", "Int64", "bytes", "bytes shuffled to reduces",
       f"{_TC}.REDUCE_SHUFFLE_BYTES"),
    _c("reduce_input_records", "Int64", "records", "RIR: reduce input records",
       f"{_TC}.REDUCE_INPUT_RECORDS"),
    _c("reduce_input_groups", "Int64", "records", "reduce input groups (distinct keys)",
       f"{_TC}.REDUCE_INPUT_GROUPS"),
    _c("reduce_output_bytes", "Int64", "bytes", "RO: bytes written by reduces (map-only: by maps)",
       f"{_FOC}.BYTES_WRITTEN"),
    _c("reduce_output_records", "Int64", "records", "reduce output records",
       f"{_TC}.REDUCE_OUTPUT_RECORDS"),
    _c("combine_input_records", "Int64", "records", "CIR: records into the combiner (0: none)",
       f"{_TC}.COMBINE_INPUT_RECORDS"),
    _c("combine_output_records", "Int64", "records", "records out of the combiner",
       f"{_TC}.COMBINE_OUTPUT_RECORDS"),
    # actual time
    _c("map_time_ms", "Int64", "ms", "SE_m: summed elapsed time of successful map attempts"),
    _c("reduce_time_ms", "Int64", "ms", "SE_r: summed elapsed time of successful reduce attempts"),
    _c("map_wasted_ms", "Int64", "ms", "elapsed time of failed and killed map attempts"),
    _c("reduce_wasted_ms", "Int64", "ms", "elapsed time of failed and killed reduce attempts"),
    _c("map_function_ms", "Float64", "ms", "MFE: time inside the map function",
       f"{FUNCTION_TIME_GROUP}.{MAP_FUNCTION_COUNTER}"),
    _c("reduce_function_ms", "Float64", "ms", "RFE: time inside the reduce function",
       f"{FUNCTION_TIME_GROUP}.{REDUCE_FUNCTION_COUNTER}"),
    _c("combine_function_ms", "Float64", "ms", "CFE: time inside the combiner",
       f"{FUNCTION_TIME_GROUP}.{COMBINE_FUNCTION_COUNTER}"),
    _c("map_function_startup_ms", "Float64", "ms", "the map function's time over no input "
       "(its start-up), summed over the map tasks; a probe's timing wrapper measures it",
       f"{FUNCTION_TIME_GROUP}.{MAP_FUNCTION_STARTUP_COUNTER}"),
    _c("reduce_function_startup_ms", "Float64", "ms", "the reduce function's time over no "
       "input, summed over the reduce tasks; a probe's timing wrapper measures it",
       f"{FUNCTION_TIME_GROUP}.{REDUCE_FUNCTION_STARTUP_COUNTER}"),
    _c("combine_function_startup_ms", "Float64", "ms", "the combiner's time over no records, "
       "summed over its runs; a probe's timing wrapper measures it",
       f"{FUNCTION_TIME_GROUP}.{COMBINE_FUNCTION_STARTUP_COUNTER}"),
    _c("map_wrapper_ms", "Float64", "ms", "the timing wrapper's own time around the map "
       "function (its start, the start-up run), summed over the map tasks",
       f"{FUNCTION_TIME_GROUP}.{MAP_WRAPPER_COUNTER}"),
    _c("reduce_wrapper_ms", "Float64", "ms", "the timing wrapper's own time around the reduce "
       "function, summed over the reduce tasks", f"{FUNCTION_TIME_GROUP}.{REDUCE_WRAPPER_COUNTER}"),
    _c("combine_wrapper_ms", "Float64", "ms", "the timing wrapper's own time around the "
       "combiner, summed over its runs", f"{FUNCTION_TIME_GROUP}.{COMBINE_WRAPPER_COUNTER}"),
    _c("combine_runs", "Int64", "runs", "times the map tasks started the combiner (once per "
       "spill, once more over a merge of mapreduce.map.combine.minspills or more spills)",
       f"{FUNCTION_TIME_GROUP}.{COMBINE_RUNS_COUNTER}"),
    _c("map_cpu_ms", "Int64", "ms", "CPU time of successful map attempts",
       f"map:{_TC}.CPU_MILLISECONDS"),
    _c("reduce_cpu_ms", "Int64", "ms", "CPU time of successful reduce attempts",
       f"reduce:{_TC}.CPU_MILLISECONDS"),
    # probe (null for jobs never probed)
    _c("probe_fraction", "Float64", "fraction", "f_p: sampled bytes / total input bytes"),
    _c("probe_input_bytes", "Int64", "bytes", "bytes the probe read"),
    _c("probe_map_function_ms", "Float64", "ms", "MFE of the probe"),
    _c("probe_reduce_function_ms", "Float64", "ms", "RFE of the probe"),
    _c("probe_map_output_bytes", "Int64", "bytes", "MO of the probe"),
    _c("probe_map_output_records", "Int64", "records", "MOR of the probe"),
    _c("probe_reduce_input_records", "Int64", "records", "RIR of the probe"),
    _c("probe_reduce_output_bytes", "Int64", "bytes", "RO of the probe"),
    _c("probe_wall_ms", "Float64", "ms", "wall time of the whole probe"),
    # the split probe (two map tasks and two reduce tasks over uneven parts of the sample):
    # what is paid per task, and how outputs grow with a task's input; null for a probe of one
    # map and one reduce (eq 8 then scales every probe counter by 1 / f_p)
    _c("probe_map_tasks", "Int64", "tasks", "k_m: map tasks of the probe"),
    _c("probe_reduce_tasks", "Int64", "tasks", "k_r: reduce tasks of the probe (its empty "
       "one included)"),
    _c("probe_map_processes", "Int64", "processes", "mapper processes the probe's maps ran "
       "(one per input file in each map, and the empty map's; a job's map reads one file, so "
       "runs one)"),
    _c("probe_map_split", "Float64", "fraction", "share of the sample's bytes in the smaller "
       "probe map task"),
    _c("probe_reduce_split", "Float64", "fraction", "share of the probe's reduce input "
       "records in the smaller probe reduce task"),
    _c("probe_map_function_fixed_ms", "Float64", "ms",
       "MFE paid by each mapper process whatever the size of its input (start-up, and what a "
       "task with input pays once more): a of MFE = a·processes + b·bytes"),
    _c("probe_reduce_function_fixed_ms", "Float64", "ms",
       "RFE paid by each reduce task whatever the size of its input: a of "
       "RFE = a + b·records"),
    _c("probe_map_function_startup_ms", "Float64", "ms",
       "MFE of the probe's empty map: the mapper's start-up alone"),
    _c("probe_reduce_function_startup_ms", "Float64", "ms",
       "RFE of the probe's empty reduce: the reducer's start-up alone"),
    _c("probe_map_output_exponent", "Float64", "",
       "β of a map task's output records ∝ (its input bytes)^β: 1 grows with the input, "
       "0 is a fixed-size output (in-map top-k)"),
    _c("probe_reduce_input_exponent", "Float64", "",
       "β of the records a map task sends to the reduces ∝ (its input bytes)^β: below 1 "
       "when a combiner saturates"),
    _c("probe_key_exponent", "Float64", "",
       "δ of the distinct keys in a map task's output ∝ (its input bytes)^δ (Heaps' law): 1 "
       "for unique keys, 0 for a fixed key set (centroids, top-k)"),
    _c("probe_reduce_input_groups", "Int64", "records", "reduce input groups (distinct keys) "
       "of the probe"),
    _c("probe_map_cpu_ms", "Float64", "ms", "CPU time of the probe's map tasks (stands in "
       "for MFE where no timing wrapper reported it)"),
    _c("probe_reduce_cpu_ms", "Float64", "ms", "CPU time of the probe's reduce tasks"),
    _c("probe_combine_function_ms", "Float64", "ms", "CFE of the probe"),
    _c("probe_combine_input_records", "Int64", "records", "CIR of the probe"),
    _c("probe_combine_runs", "Int64", "runs", "times the probe's maps ran the combiner"),
    _c("probe_combine_function_fixed_ms", "Float64", "ms",
       "CFE paid by each run of the combiner whatever its input: the combiner's start-up, "
       "measured over no records"),
    # the probe's tasks as the framework ran them: elapsed time, start-up included
    _c("probe_map_task_ms", "Float64", "ms", "summed elapsed time of the probe's map tasks "
       "(the empty one included): function, read, collect, sort, spill, combiner"),
    _c("probe_reduce_task_ms", "Float64", "ms", "summed elapsed time of the probe's reduce "
       "tasks (the empty one included): shuffle, merge, function, write"),
    _c("probe_map_task_fixed_ms", "Float64", "ms", "elapsed time of the probe's empty map "
       "task: what a map task pays whatever its input"),
    _c("probe_reduce_task_fixed_ms", "Float64", "ms", "elapsed time of the probe's empty "
       "reduce task"),
    _c("probe_map_wrapper_ms", "Float64", "ms", "the timing wrapper's own time in the probe's "
       "map tasks (around the mapper and the combiner): a probe task's, not the job's"),
    _c("probe_reduce_wrapper_ms", "Float64", "ms", "the timing wrapper's own time in the "
       "probe's reduce tasks"),
    _c("probe_map_later_task_ms", "Float64", "ms", "summed elapsed time of the probe's map "
       "tasks after its first, where it ran several in one JVM (uber mode): warm tasks"),
    _c("probe_map_later_function_ms", "Float64", "ms", "MFE + CFE of those later map tasks, "
       "from their own counters"),
    _c("probe_map_later_input_share", "Float64", "fraction", "share of the probe's map input "
       "records those later map tasks read"),
    _c("probe_task_start_ms", "Float64", "ms", "from the probe job's launch to its first task's "
       "start: the ApplicationMaster's set-up before an uber job's tasks run"),
)

#: One row per task attempt: recorded durations for simulator workloads.
TASK_COLUMNS: tuple[Column, ...] = (
    _c("job_id", "string", "", "owning job", "jobid", required=True),
    _c("task_id", "string", "", "task id, e.g. task_..._m_000003", "taskid"),
    _c("attempt_id", "string", "", "attempt id", "attemptId"),
    _c("task_type", "string", "", "MAP or REDUCE", "taskType", allowed=("MAP", "REDUCE"),
       required=True),
    _c("status", "string", "", "SUCCEEDED, FAILED or KILLED", "status", allowed=STATES),
    _c("start_time_ms", "Int64", "ms", "attempt start, epoch ms", "startTime"),
    _c("finish_time_ms", "Int64", "ms", "attempt finish, epoch ms", "finishTime"),
    _c("shuffle_finish_time_ms", "Int64", "ms", "reduce: shuffle finished", "shuffleFinishTime"),
    _c("sort_finish_time_ms", "Int64", "ms", "reduce: merge (sort) finished", "sortFinishTime"),
    _c("memory_mb", "Int64", "MB", "container memory"),
    _c("vcores", "Int64", "vcores", "container vcores"),
)

JOB_SCHEMA: dict[str, Column] = {c.name: c for c in JOB_COLUMNS}
TASK_SCHEMA: dict[str, Column] = {c.name: c for c in TASK_COLUMNS}

#: Prediction targets of eq 6 and eq 7.
TARGETS: dict[str, str] = {"SE_m": "map_time_ms", "SE_r": "reduce_time_ms"}

#: Record columns each model (eq 6, eq 7) reads, by feature set. ``probe`` is the paper's
#: model (probe features scaled by eq 8, so ``probe_fraction`` is needed); ``actual`` uses the
#: job's own counters and is the upper bound on accuracy. SE_r also takes SE_m (eq 7's b7 term).
MODEL_INPUTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("SE_m", "actual"): ("n_maps", "map_input_bytes", "map_function_ms", "map_output_bytes",
                         "map_output_records"),
    ("SE_m", "probe"): ("n_maps", "map_input_bytes", "probe_map_function_ms",
                        "probe_map_output_bytes", "probe_map_output_records", "probe_fraction"),
    ("SE_r", "actual"): ("n_reduces", "map_output_bytes", "reduce_function_ms",
                         "reduce_output_bytes", "reduce_input_records"),
    ("SE_r", "probe"): ("n_reduces", "probe_map_output_bytes", "probe_reduce_function_ms",
                        "probe_reduce_output_bytes", "probe_reduce_input_records",
                        "probe_fraction"),
}

#: Columns eq 5 (S) and eq 3-4, 9 (minE, APB) read besides the model outputs.
SIZE_INPUTS: tuple[str, ...] = ("n_maps", "n_reduces", "map_memory_mb", "map_vcores",
                                "reduce_memory_mb", "reduce_vcores", "am_memory_mb", "am_vcores")

#: Hadoop's defaults for container sizes when a configuration does not set them.
DEFAULT_CONTAINERS: dict[str, int] = {
    "map_memory_mb": 1024, "map_vcores": 1, "reduce_memory_mb": 1024, "reduce_vcores": 1,
    "am_memory_mb": 1536, "am_vcores": 1,
}

#: Hadoop's defaults for a map's sort buffer (``MapOutputBuffer``) when a configuration does
#: not set them.
DEFAULT_SORT_BUFFER: dict[str, float] = {
    "map_sort_mb": 100, "map_spill_percent": 0.8, "combine_min_spills": 3,
}


def columns_for(model: str, features: str) -> tuple[str, ...]:
    """Record columns needed to fit ``model`` ("SE_m" or "SE_r") on ``features``."""
    try:
        inputs = MODEL_INPUTS[(model, features)]
    except KeyError:
        raise SchemaError(f"no model {model!r} with features {features!r}") from None
    extra = ("map_time_ms",) if model == "SE_r" else ()
    return (*inputs, TARGETS[model], *extra)


# ---------------------------------------------------------------------------------------------
# Conforming frames to the schema


def _kind_word(dtype: str) -> str:
    return {"Int64": "an integer", "Float64": "a number", "boolean": "a boolean",
            "string": "a string"}[dtype]


def _first_bad(series: pd.Series, bad: np.ndarray) -> str:
    pos = int(np.flatnonzero(bad)[0])
    value = series.iloc[pos]
    if isinstance(value, np.generic):
        value = value.item()
    return f"row {pos}: {value!r}"


def _cast(series: pd.Series, col: Column, source: object) -> pd.Series:
    """Cast ``series`` to the column's dtype or raise a SchemaError naming it and a bad row."""
    where = f"column {col.name!r}"
    if str(series.dtype) == col.dtype:
        return series
    if col.dtype == "string":
        return series.astype("string")
    if col.dtype == "boolean":
        if pd.api.types.is_bool_dtype(series) or series.isna().all():
            return series.astype("boolean")
        if series.dtype == object:
            values = series.to_numpy()
            bad = np.array([not (v is None or v is pd.NA or isinstance(v, bool | np.bool_)
                                 or (isinstance(v, float) and np.isnan(v))) for v in values],
                           dtype=bool)
            if not bad.any():
                return series.astype("boolean")
            raise SchemaError(f"expected a boolean, found {_first_bad(series, bad)}",
                              source=source, where=where)
        if pd.api.types.is_integer_dtype(series):
            bad = ~series.isin([0, 1]).to_numpy() & series.notna().to_numpy()
            if not bad.any():
                return series.astype("boolean")
            raise SchemaError(f"expected a boolean, found {_first_bad(series, bad)}",
                              source=source, where=where)
        raise SchemaError(f"expected a boolean column, found {series.dtype}",
                          source=source, where=where)
    if series.isna().all():
        return series.astype(col.dtype)
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        numeric = pd.to_numeric(series, errors="coerce")
        bad = (numeric.isna() & series.notna()).to_numpy()
        if pd.api.types.is_bool_dtype(series) or bad.any():
            found = _first_bad(series, bad) if bad.any() else f"{series.dtype} values"
            raise SchemaError(f"expected {_kind_word(col.dtype)}, found {found}",
                              source=source, where=where)
        series = numeric
    if col.dtype == "Int64" and pd.api.types.is_float_dtype(series):
        values = series.to_numpy(dtype="float64", na_value=np.nan)
        bad = np.isfinite(values) & (values != np.round(values))
        bad |= np.isinf(values)
        if bad.any():
            raise SchemaError(f"expected an integer, found {_first_bad(series, bad)}",
                              source=source, where=where)
    if col.dtype == "Int64" and (pd.api.types.is_unsigned_integer_dtype(series)
                                 or pd.api.types.is_float_dtype(series)):
        # values past 2^63: pandas' cast would raise a bare TypeError
        if pd.api.types.is_unsigned_integer_dtype(series):
            bad = series.to_numpy(dtype="uint64", na_value=0) > LONG - 1
        else:
            values = series.to_numpy(dtype="float64", na_value=np.nan)
            bad = ~np.isnan(values) & ((values >= LONG) | (values < -LONG))
        if bad.any():
            raise SchemaError(f"expected an integer within ±2^63, found "
                              f"{_first_bad(series, bad)}", source=source, where=where)
    return series.astype(col.dtype)


def conform(
    frame: pd.DataFrame,
    *,
    require: Iterable[str] = (),
    source: object = None,
    columns: Sequence[Column] = JOB_COLUMNS,
) -> pd.DataFrame:
    """Return ``frame`` with every schema column present and of its declared dtype.

    Absent schema columns are added as all-null; columns outside the schema are kept after them.
    ``require`` names columns that must be present in ``frame`` (the rest may be missing).
    Raises :class:`SchemaError` naming the missing or mistyped column.
    """
    for name in require:
        if name not in frame.columns:
            raise SchemaError("missing required column", source=source, where=f"column {name!r}")
    if frame.columns.duplicated().any():
        dup = frame.columns[frame.columns.duplicated()][0]
        raise SchemaError("duplicated column", source=source, where=f"column {dup!r}")
    n = len(frame)
    out: dict[str, pd.Series] = {}
    for col in columns:
        if col.name in frame.columns:
            out[col.name] = _cast(frame[col.name], col, source).reset_index(drop=True)
        else:
            out[col.name] = pd.Series(pd.array([pd.NA] * n, dtype=col.dtype))
    known = {c.name for c in columns}
    for name in frame.columns:
        if name not in known:
            out[name] = frame[name].reset_index(drop=True)
    return pd.DataFrame(out)


def records(rows: Iterable[Mapping[str, object]], *, source: object = None) -> pd.DataFrame:
    """Build a conformed job-record frame from dicts keyed by column name."""
    return conform(pd.DataFrame.from_records(list(rows)), source=source)


def empty_trace() -> pd.DataFrame:
    """A job-record frame with every column and no rows."""
    return conform(pd.DataFrame())


def empty_tasks() -> pd.DataFrame:
    """A task table with every column and no rows."""
    return conform(pd.DataFrame(), columns=TASK_COLUMNS)


def tasks_frame(rows: Iterable[Mapping[str, object]], *, source: object = None) -> pd.DataFrame:
    """Build a conformed task-attempt frame from dicts keyed by column name."""
    return conform(pd.DataFrame.from_records(list(rows)), source=source, columns=TASK_COLUMNS)


# ---------------------------------------------------------------------------------------------
# Parquet I/O


def _parquet_writer(frame: pd.DataFrame, columns: Sequence[Column]) -> Callable[[IO[bytes]], None]:
    """A writer of ``frame`` as a trace parquet file, after the last check of its values."""
    from jobsize.validation import checked_frame  # validation builds on this module

    table = pa.Table.from_pandas(checked_frame(frame, columns=columns), preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[_META_KEY] = json.dumps({"format": TRACE_FORMAT,
                                  "table": "jobs" if columns is JOB_COLUMNS else "tasks"}).encode()
    table = table.replace_schema_metadata(meta)
    return lambda handle: pq.write_table(table, handle, compression="zstd")


def write_trace(
    frame: pd.DataFrame, path: str | os.PathLike[str], *, columns: Sequence[Column] = JOB_COLUMNS
) -> Path:
    """Check and conform ``frame`` and write it as parquet, atomically. Returns the path.

    A value its column cannot hold (:mod:`jobsize.validation`) is a BadRecordError: nothing
    impossible is written.
    """
    write = _parquet_writer(frame, columns)
    target = Path(path)
    with atomic_write(target) as handle:
        write(handle)
    return target


def write_trace_with_tasks(jobs: pd.DataFrame, tasks: pd.DataFrame,
                           path: str | os.PathLike[str]) -> Path:
    """Write a trace and its task table (:func:`tasks_path`) as one commit: a reader sees
    both old or both new, also after a run killed between the two writes."""
    target = Path(path)
    commit_together([(tasks_path(target), _parquet_writer(tasks, TASK_COLUMNS)),
                     (target, _parquet_writer(jobs, JOB_COLUMNS))])
    return target


def read_trace(
    path: str | os.PathLike[str],
    *,
    require: Iterable[str] = (),
    columns: Sequence[Column] = JOB_COLUMNS,
) -> pd.DataFrame:
    """Read a parquet trace and conform it; errors name the file and the column.

    ``path`` may name a bundled trace where no such file is here: ``"reference"``,
    ``"datasets/reference.parquet"`` (:func:`jobsize.bundled.resolve`), or a bundled history,
    read as its traces stacked (``"history"``, :data:`jobsize.bundled.HISTORIES`). A commit
    that a killed run left half done beside the file is finished first.
    """
    members = history_members(path)
    if members is not None:
        return conform(read_traces(members), require=require, source=path, columns=columns)
    path = resolve(path)
    recover(path)
    try:
        table = pq.read_table(path)
    except FileNotFoundError:
        raise ParseError("no such file", source=path) from None
    except IsADirectoryError:
        raise ParseError("is a directory, expected a parquet file", source=path) from None
    except (pa.ArrowException, OSError) as exc:
        raise ParseError(f"not a readable parquet file ({exc})", source=path) from None
    meta = (table.schema.metadata or {}).get(_META_KEY)
    if meta is not None:
        try:
            version = json.loads(meta).get("format")
        except (ValueError, AttributeError):
            version = None
        if version != TRACE_FORMAT:
            raise ParseError(f"trace format {version!r}, this jobsize reads format {TRACE_FORMAT}",
                             source=path)
    try:
        frame = table.to_pandas()
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise ParseError(f"cannot convert to a table ({exc})", source=path) from None
    return conform(frame, require=require, source=path, columns=columns)


def read_traces(paths: Iterable[str | os.PathLike[str]]) -> pd.DataFrame:
    """Several traces read as :func:`read_trace` does and stacked into one frame."""
    frames = [read_trace(p) for p in paths]
    if not frames:
        raise InputError("no trace given")
    return conform(pd.concat(frames, ignore_index=True))


def tasks_path(trace: str | os.PathLike[str]) -> Path:
    """Where the task-attempt table of a trace lives: ``X.parquet`` → ``X.tasks.parquet``."""
    p = Path(trace)
    stem = p.name[: -len(".parquet")] if p.name.endswith(".parquet") else p.name
    return p.with_name(f"{stem}.tasks.parquet")


# ---------------------------------------------------------------------------------------------
# Hadoop's uber-mode rule (kept here for the readers that import it from the schema)


def uber_eligible(
    n_maps: int, n_reduces: int, input_bytes: int, conf: Mapping[str, object] | None = None
) -> bool:
    """Whether MapReduce would run a job in uber mode: :func:`jobsize.ubermode.is_uber`."""
    from jobsize.ubermode import is_uber

    return is_uber(n_maps, n_reduces, input_bytes, conf)
