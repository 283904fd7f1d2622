"""Hadoop counters → the job record's counter columns.

Counters are kept as Hadoop groups them, ``{group_name: {counter_name: value}}`` with the group
names as written (``org.apache.hadoop.mapreduce.TaskCounter``, ``Shuffle Errors``, …). The
record's counter columns name their Hadoop counter in :attr:`jobsize.schema.Column.hadoop`;
older Hadoop releases used other group names for the same counters, accepted as aliases.
MFE and RFE are the ``jobsize`` group's function-time counters (paper eq 6 and 7 inputs); the
same group holds the functions' start-ups and the combiner's runs, where measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from jobsize.schema import (
    COMBINE_FUNCTION_COUNTER,
    COMBINE_FUNCTION_STARTUP_COUNTER,
    COMBINE_RUNS_COUNTER,
    COMBINE_WRAPPER_COUNTER,
    FUNCTION_TIME_GROUP,
    JOB_COLUMNS,
    JOB_SCHEMA,
    MAP_FUNCTION_COUNTER,
    MAP_FUNCTION_STARTUP_COUNTER,
    MAP_WRAPPER_COUNTER,
    REDUCE_FUNCTION_COUNTER,
    REDUCE_FUNCTION_STARTUP_COUNTER,
    REDUCE_WRAPPER_COUNTER,
)

Counters = dict[str, dict[str, int]]

#: Group names of Hadoop 1 / 0.20 for the groups the record reads.
GROUP_ALIASES: dict[str, tuple[str, ...]] = {
    "org.apache.hadoop.mapreduce.TaskCounter": ("org.apache.hadoop.mapred.Task$Counter",),
    "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter": (
        "org.apache.hadoop.mapreduce.lib.input.FileInputFormat$Counter",
        "org.apache.hadoop.mapred.FileInputFormat$Counter"),
    "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter": (
        "org.apache.hadoop.mapreduce.lib.output.FileOutputFormat$Counter",
        "org.apache.hadoop.mapred.FileOutputFormat$Counter"),
}

_FUNCTION_COLUMNS = {"map_function_ms": ("map", MAP_FUNCTION_COUNTER),
                     "reduce_function_ms": ("reduce", REDUCE_FUNCTION_COUNTER),
                     "combine_function_ms": ("map", COMBINE_FUNCTION_COUNTER),
                     "map_function_startup_ms": ("map", MAP_FUNCTION_STARTUP_COUNTER),
                     "reduce_function_startup_ms": ("reduce", REDUCE_FUNCTION_STARTUP_COUNTER),
                     "combine_function_startup_ms": ("map", COMBINE_FUNCTION_STARTUP_COUNTER),
                     "combine_runs": ("map", COMBINE_RUNS_COUNTER),
                     "map_wrapper_ms": ("map", MAP_WRAPPER_COUNTER),
                     "reduce_wrapper_ms": ("reduce", REDUCE_WRAPPER_COUNTER),
                     "combine_wrapper_ms": ("map", COMBINE_WRAPPER_COUNTER)}

#: Record columns read from one side's counters (``map:`` / ``reduce:`` in Column.hadoop).
PHASE_COLUMNS: dict[str, tuple[str, str, str]] = {
    col.name: (col.hadoop.split(":", 1)[0], *col.hadoop.split(":", 1)[1].rsplit(".", 1))
    for col in JOB_COLUMNS if col.hadoop and col.hadoop.startswith(("map:", "reduce:"))
}

#: Record column → (group, counter) for the job-total counter columns.
COUNTER_COLUMNS: dict[str, tuple[str, str]] = {
    col.name: tuple(col.hadoop.rsplit(".", 1))  # type: ignore[misc]
    for col in JOB_COLUMNS
    if col.hadoop and col.name not in _FUNCTION_COLUMNS and col.name not in PHASE_COLUMNS
    and col.hadoop.count(".") > 1
    and col.hadoop.rsplit(".", 1)[1].isupper()
}


def lookup(counters: Mapping[str, Mapping[str, int]], group: str, name: str) -> int | None:
    """A counter's value under ``group`` or one of its aliases; None when not recorded."""
    for candidate in (group, *GROUP_ALIASES.get(group, ())):
        values = counters.get(candidate)
        if values is not None and name in values:
            return values[name]
    return None


def merge(parts: Iterable[Mapping[str, Mapping[str, int]]]) -> Counters:
    """Sum counters group by group."""
    total: Counters = {}
    for part in parts:
        for group, values in part.items():
            into = total.setdefault(group, {})
            for name, value in values.items():
                into[name] = into.get(name, 0) + value
    return total


def record_columns(counters: Mapping[str, Counters]) -> dict[str, Any]:
    """Counter columns of the job record from ``{"total"|"map"|"reduce": Counters}``.

    Totals come from ``counters["total"]``; MFE and RFE from the total, else from the map
    (MFE) or reduce (RFE) counters; the map- and reduce-side columns from that side, 0 where
    the side lacks a counter the total holds; a counter not recorded is None.
    """
    total = counters.get("total", {})
    row: dict[str, Any] = {column: lookup(total, group, name)
                           for column, (group, name) in COUNTER_COLUMNS.items()}
    for column, (phase, name) in _FUNCTION_COLUMNS.items():
        value = lookup(total, FUNCTION_TIME_GROUP, name)
        if value is None:
            value = lookup(counters.get(phase, {}), FUNCTION_TIME_GROUP, name)
        kind = int if JOB_SCHEMA[column].dtype == "Int64" else float
        row[column] = None if value is None else kind(value)
    for column, (phase, group, name) in PHASE_COLUMNS.items():
        value = lookup(counters.get(phase, {}), group, name)
        if value is None and lookup(total, group, name) is not None:
            # The total is the sum of the two sides: a side that does not hold a counter the
            # total holds (the reduce side of a map-only job) counted 0, as the history
            # server's REST API reports it.
            value = 0
        row[column] = value
    return row
