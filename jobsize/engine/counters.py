"""Hadoop's counters: groups and names as Hadoop writes them, plus the jobsize function-time group.

A :class:`Counters` value is ``{group_name: {counter_name: value}}`` — the shape the collectors
return for a job history (``JobHistory.counters["total"]``) and that
``jobsize.sampler.probespec.probe_record`` reads. :func:`to_jh` turns it into Hadoop's
``JhCounters`` record (with Hadoop's display names) for the .jhist writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from jobsize.schema import (
    COMBINE_FUNCTION_COUNTER,
    COMBINE_RUNS_COUNTER,
    FUNCTION_TIME_GROUP,
    MAP_FUNCTION_COUNTER,
    MAP_OUTPUT_KEYS_COUNTER,
    REDUCE_FUNCTION_COUNTER,
)

TASK = "org.apache.hadoop.mapreduce.TaskCounter"
FILESYSTEM = "org.apache.hadoop.mapreduce.FileSystemCounter"
JOB = "org.apache.hadoop.mapreduce.JobCounter"
FILE_INPUT = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter"
FILE_OUTPUT = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"
SHUFFLE_ERRORS = "Shuffle Errors"
FUNCTION_TIME = FUNCTION_TIME_GROUP

#: Display names of groups, as Hadoop writes them (note the trailing blanks Hadoop has).
GROUP_DISPLAY: dict[str, str] = {
    FILESYSTEM: "File System Counters",
    JOB: "Job Counters ",
    TASK: "Map-Reduce Framework",
    SHUFFLE_ERRORS: "Shuffle Errors",
    FILE_INPUT: "File Input Format Counters ",
    FILE_OUTPUT: "File Output Format Counters ",
    FUNCTION_TIME: "jobsize function time",
}

#: Display names of counters, as Hadoop writes them.
COUNTER_DISPLAY: dict[str, dict[str, str]] = {
    FILESYSTEM: {
        "FILE_BYTES_READ": "FILE: Number of bytes read",
        "FILE_BYTES_WRITTEN": "FILE: Number of bytes written",
        "FILE_READ_OPS": "FILE: Number of read operations",
        "FILE_LARGE_READ_OPS": "FILE: Number of large read operations",
        "FILE_WRITE_OPS": "FILE: Number of write operations",
    },
    JOB: {
        "NUM_FAILED_MAPS": "Failed map tasks",
        "NUM_FAILED_REDUCES": "Failed reduce tasks",
        "TOTAL_LAUNCHED_MAPS": "Launched map tasks",
        "TOTAL_LAUNCHED_REDUCES": "Launched reduce tasks",
        "DATA_LOCAL_MAPS": "Data-local map tasks",
        "SLOTS_MILLIS_MAPS": "Total time spent by all maps in occupied slots (ms)",
        "SLOTS_MILLIS_REDUCES": "Total time spent by all reduces in occupied slots (ms)",
        "TOTAL_LAUNCHED_UBERTASKS": "Launched uber tasks",
        "NUM_UBER_SUBMAPS": "Number of uber sub-maps",
        "NUM_UBER_SUBREDUCES": "Number of uber sub-reduces",
        "MILLIS_MAPS": "Total time spent by all map tasks (ms)",
        "MILLIS_REDUCES": "Total time spent by all reduce tasks (ms)",
        "VCORES_MILLIS_MAPS": "Total vcore-seconds taken by all map tasks",
        "VCORES_MILLIS_REDUCES": "Total vcore-seconds taken by all reduce tasks",
        "MB_MILLIS_MAPS": "Total megabyte-seconds taken by all map tasks",
        "MB_MILLIS_REDUCES": "Total megabyte-seconds taken by all reduce tasks",
    },
    TASK: {
        "MAP_INPUT_RECORDS": "Map input records",
        "MAP_OUTPUT_RECORDS": "Map output records",
        "MAP_OUTPUT_BYTES": "Map output bytes",
        "MAP_OUTPUT_MATERIALIZED_BYTES": "Map output materialized bytes",
        "COMBINE_INPUT_RECORDS": "Combine input records",
        "COMBINE_OUTPUT_RECORDS": "Combine output records",
        "REDUCE_INPUT_GROUPS": "Reduce input groups",
        "REDUCE_SHUFFLE_BYTES": "Reduce shuffle bytes",
        "REDUCE_INPUT_RECORDS": "Reduce input records",
        "REDUCE_OUTPUT_RECORDS": "Reduce output records",
        "SPILLED_RECORDS": "Spilled Records",
        "SHUFFLED_MAPS": "Shuffled Maps ",
        "FAILED_SHUFFLE": "Failed Shuffles",
        "MERGED_MAP_OUTPUTS": "Merged Map outputs",
        "CPU_MILLISECONDS": "CPU time spent (ms)",
        "PHYSICAL_MEMORY_BYTES": "Physical memory (bytes) snapshot",
    },
    SHUFFLE_ERRORS: {name: name for name in ("BAD_ID", "CONNECTION", "IO_ERROR", "WRONG_LENGTH",
                                             "WRONG_MAP", "WRONG_REDUCE")},
    FILE_INPUT: {"BYTES_READ": "Bytes Read"},
    FILE_OUTPUT: {"BYTES_WRITTEN": "Bytes Written"},
    FUNCTION_TIME: {
        MAP_FUNCTION_COUNTER: "Time inside the map function (ms)",
        REDUCE_FUNCTION_COUNTER: "Time inside the reduce function (ms)",
        COMBINE_FUNCTION_COUNTER: "Time inside the combiner (ms)",
        COMBINE_RUNS_COUNTER: "Runs of the combiner",
        MAP_OUTPUT_KEYS_COUNTER: "Distinct keys of the map output",
    },
}

#: Group order in a JhCounters record (Hadoop writes file system counters first).
_GROUP_ORDER = (FILESYSTEM, JOB, TASK, SHUFFLE_ERRORS, FILE_INPUT, FILE_OUTPUT, FUNCTION_TIME)

Counters = dict[str, dict[str, int]]


def add(total: Counters, other: Mapping[str, Mapping[str, int]]) -> Counters:
    """Add ``other`` into ``total`` in place (counter by counter) and return ``total``."""
    for group, counts in other.items():
        into = total.setdefault(group, {})
        for name, value in counts.items():
            into[name] = into.get(name, 0) + int(value)
    return total


def add_reported(measured: Counters, reported: Mapping[str, Mapping[str, int]]) -> Counters:
    """Add counters a program reported (``reporter:counter:`` lines) to the engine's own; the
    engine's function times win over a program reporting the same names."""
    for group, counts in reported.items():
        for name, value in counts.items():
            if group == FUNCTION_TIME and group in measured and name in measured[group]:
                continue
            into = measured.setdefault(group, {})
            into[name] = into.get(name, 0) + int(value)
    return measured


def summed(parts: Iterable[Mapping[str, Mapping[str, int]]]) -> Counters:
    """The counter-by-counter sum of ``parts``."""
    total: Counters = {}
    for part in parts:
        add(total, part)
    return total


def _order(names: Iterable[str], known: Iterable[str]) -> list[str]:
    rank = {name: i for i, name in enumerate(known)}
    return sorted(names, key=lambda n: (rank.get(n, len(rank)), n))


def to_jh(counters: Mapping[str, Mapping[str, int]], name: str = "COUNTERS") -> dict:
    """Hadoop's ``JhCounters`` record for ``counters`` (groups in Hadoop's order)."""
    groups = []
    for group in _order(counters, _GROUP_ORDER):
        display = COUNTER_DISPLAY.get(group, {})
        counts = [
            {"name": c, "displayName": display.get(c, c), "value": int(counters[group][c])}
            for c in _order(counters[group], display)
        ]
        groups.append({"name": group, "displayName": GROUP_DISPLAY.get(group, group),
                       "counts": counts})
    return {"name": name, "groups": groups}
