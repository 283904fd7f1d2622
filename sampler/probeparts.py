"""The split probe: what two uneven probe tasks tell apart that one task cannot.

Eq 8 scales every probe counter by ``1 / f_p``, as if all of a task's work grew with its input.
Some of it does not. A task pays its start-up (a process, a framework, a model loaded) once,
whatever its input; a map that keeps a top-k, a histogram or a partial aggregate in memory emits
a fixed-size output; a combiner's output saturates at the number of distinct keys. Scaling such
costs by ``1 / f_p = max(N_m, N_r)`` counts a per-task cost ``max(N_m, N_r)`` times where the
job pays it N_m (or N_r) times.

So the probe runs its sample as **two map tasks** over parts of about 1/3 and 2/3 of the sampled
bytes, and the maps' output goes to **two reduce tasks** over about 1/3 and 2/3 of the keys.
Two tasks of different sizes give each quantity two points, enough for a shape with two
parameters. Beside them runs one **empty** map and one empty reduce: the function's start-up,
measured directly.

- function times are affine in a task's input, ``t = a + b·x``: ``a`` is paid per task. The
  empty task measures the start-up ``s``; a task with input may pay a little more once (its
  first record, an output written at its end), so ``a`` is the two tasks' intercept, at
  least ``s`` (:func:`fixed_cost`) — two noisy points alone (:func:`fixed_part`) fix it
  poorly when start-up is most of a small task, and an error in ``a`` is multiplied by the
  job's input over the probe's;
- output counts follow a power of a task's input, ``y = c·x^β`` with 0 ≤ β ≤ 1: β = 1 grows
  with the input, β = 0 is a fixed-size output, between is a saturating combiner
  (:func:`growth_exponent`);
- so do the distinct keys a map emits (Heaps' law, exponent δ): what the reduces write grows
  with the job's distinct keys — a vocabulary, 64 centroids, one top-k list — not with its
  records.

The models (eq 8 in its per-task form) then scale a fixed part by the job's N_m or N_r and the
rest by the job's input per task. Both fits are clamped to what the two points can support, and
a probe whose two tasks are too alike to tell apart reports nothing (None): the models then fall
back to eq 8's plain scaling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Share of the sample (bytes) given to the smaller probe map task, and of the map-output
#: partitions (keys) given to the smaller probe reduce task: 1 of 3 hash partitions.
SMALLER_SHARE = 1 / 3
REDUCE_PARTITIONS: tuple[tuple[int, ...], ...] = ((0,), (1, 2))
#: ... and with the empty reduce that measures start-up: it reads no partition.
REDUCE_PARTITIONS_WITH_EMPTY: tuple[tuple[int, ...], ...] = (*REDUCE_PARTITIONS, ())

#: Two tasks whose inputs differ by less than this ratio cannot separate a fixed part.
_MIN_RATIO = 1.2


@dataclass(frozen=True)
class Point:
    """One probe task: its input (bytes for a map, records for a reduce) and a measurement."""

    x: float
    y: float


def fixed_part(a: Point, b: Point) -> float | None:
    """``a`` of ``y = a + b·x`` through two tasks, clamped to [0, the smaller y]; None when the
    tasks' inputs are too alike to tell a fixed part from a proportional one."""
    small, large = sorted((a, b), key=lambda p: p.x)
    if small.x < 0 or large.x <= 0 or (small.x > 0 and large.x / small.x < _MIN_RATIO):
        return None
    slope = max((large.y - small.y) / (large.x - small.x), 0.0)
    return min(max(small.y - slope * small.x, 0.0), small.y, large.y)


def fixed_per_process(a: Point, b: Point, pa: int, pb: int) -> float | None:
    """``a`` of ``y = a·p + b·x`` through two tasks that ran ``pa`` and ``pb`` processes
    (a map reading two files runs the mapper twice, each paying its start-up); clamped like
    :func:`fixed_part`."""
    if pa == pb:
        fixed = fixed_part(a, b)
        return None if fixed is None else fixed / max(pa, 1)
    det = pa * b.x - pb * a.x
    if det == 0:
        return None
    per = (a.y * b.x - b.y * a.x) / det
    return min(max(per, 0.0), a.y / max(pa, 1), b.y / max(pb, 1))


def growth_exponent(a: Point, b: Point) -> float | None:
    """β of ``y = c·x^β`` through two tasks, clamped to [0, 1]; None when it cannot be told
    (inputs too alike, or an output of zero)."""
    small, large = sorted((a, b), key=lambda p: p.x)
    if small.x <= 0 or large.x / small.x < _MIN_RATIO or small.y <= 0 or large.y <= 0:
        return None
    beta = math.log(large.y / small.y) / math.log(large.x / small.x)
    return min(max(beta, 0.0), 1.0)


def share(a: Point, b: Point) -> float | None:
    """The smaller task's share of the two tasks' input."""
    total = a.x + b.x
    return min(a.x, b.x) / total if total > 0 else None


@dataclass(frozen=True)
class TaskCounts:
    """What one probe task measured, read from its counters."""

    kind: str  # MAP or REDUCE
    input: float  # bytes read (map) or input records (reduce)
    function_ms: float | None
    output_records: float  # map: MAP_OUTPUT_RECORDS; reduce: REDUCE_OUTPUT_RECORDS
    to_reduce_records: float  # map: records sent to the reduces (after the combiner)
    output_bytes: float  # reduce: bytes written
    keys: float | None = None  # map: distinct keys of its output, where measured
    processes: int = 1  # map: mapper processes it ran (one per input file)


def split_columns(tasks: Sequence[TaskCounts], empty: Sequence[TaskCounts] = ()
                  ) -> dict[str, float | int | None]:
    """The record's split-probe columns from the probe's tasks (two maps, two reduces) and its
    ``empty`` tasks (start-up alone); the shape columns are None where the probe did not run
    two tasks of a kind, the fixed costs where it ran neither two tasks nor an empty one."""
    maps = [t for t in tasks if t.kind == "MAP"]
    reduces = [t for t in tasks if t.kind == "REDUCE"]
    startup = {t.kind: t.function_ms for t in empty if t.function_ms is not None}
    out: dict[str, float | int | None] = {
        "probe_map_tasks": len(maps), "probe_reduce_tasks": len(reduces),
        "probe_map_processes": sum(t.processes for t in maps) if maps else None,
        "probe_map_split": None, "probe_reduce_split": None,
        "probe_map_function_fixed_ms": None, "probe_reduce_function_fixed_ms": None,
        "probe_map_function_startup_ms": startup.get("MAP") if maps else None,
        "probe_reduce_function_startup_ms": startup.get("REDUCE") if reduces else None,
        "probe_map_output_exponent": None, "probe_reduce_input_exponent": None,
        "probe_key_exponent": None,
    }
    timed_maps = [m for m in maps if m.function_ms is not None]
    if timed_maps:
        line = None
        if len(maps) == 2 and len(timed_maps) == 2:
            m1, m2 = maps
            line = fixed_per_process(Point(m1.input, m1.function_ms),
                                     Point(m2.input, m2.function_ms), m1.processes, m2.processes)
        out["probe_map_function_fixed_ms"] = fixed_cost(
            startup.get("MAP"), line, min(m.function_ms / m.processes for m in timed_maps))
    if len(maps) == 2:
        m1, m2 = maps
        out["probe_map_split"] = share(Point(m1.input, 0), Point(m2.input, 0))
        out["probe_map_output_exponent"] = growth_exponent(
            Point(m1.input, m1.output_records), Point(m2.input, m2.output_records))
        out["probe_reduce_input_exponent"] = growth_exponent(
            Point(m1.input, m1.to_reduce_records), Point(m2.input, m2.to_reduce_records))
        if m1.keys is not None and m2.keys is not None:
            out["probe_key_exponent"] = growth_exponent(Point(m1.input, m1.keys),
                                                        Point(m2.input, m2.keys))
    fed = [r for r in reduces if r.function_ms is not None and r.input > 0]
    if fed:
        line = None
        if len(reduces) == 2:
            r1, r2 = reduces
            line = _fixed(r1.input, r1.function_ms, r2.input, r2.function_ms)
        out["probe_reduce_function_fixed_ms"] = fixed_cost(
            startup.get("REDUCE"), line, min(r.function_ms for r in fed))
    if len(reduces) == 2:
        r1, r2 = reduces
        out["probe_reduce_split"] = share(Point(r1.input, 0), Point(r2.input, 0))
    return out


def fixed_cost(startup: float | None, line: float | None, ceiling: float) -> float | None:
    """``a``, what a task that reads input pays whatever its size.

    The empty task measures the function's start-up alone; a task with input can pay more
    once (its first record, the output it writes at its end whatever it read), which only
    the intercept of its two tasks' ``line`` shows. So ``a`` is that intercept, not below the
    start-up, nor above the smaller task's time (``ceiling``); the start-up alone where there
    is no line (one task of the kind), the line alone where there is no empty task. Left at
    the start-up, such a step would be scaled by ``1 / f_p`` as if it were work per record —
    thousands of times over for a job of a thousand maps."""
    if startup is None:
        return line
    return min(startup if line is None else max(line, startup), ceiling)


def _fixed(x1: float, t1: float | None, x2: float, t2: float | None) -> float | None:
    if t1 is None or t2 is None:
        return None
    return fixed_part(Point(x1, t1), Point(x2, t2))


def task_counts(kind: str, counters: Mapping[str, Mapping[str, object]],
                lookup, keys: int | None = None, processes: int = 1) -> TaskCounts:
    """A probe task's :class:`TaskCounts` from its counters; ``lookup(counters, column)`` reads
    the counter a job-record column names; ``keys`` the map's distinct output keys;
    ``processes`` the mapper processes it ran."""
    def get(column: str) -> float:
        value = lookup(counters, column)
        return float(value) if value is not None else 0.0

    function = lookup(counters, "map_function_ms" if kind == "MAP" else "reduce_function_ms")
    if kind == "MAP":
        combined = get("combine_input_records") > 0
        to_reduce = get("combine_output_records") if combined else get("map_output_records")
        return TaskCounts(kind, get("map_input_bytes"),
                          None if function is None else float(function),
                          get("map_output_records"), to_reduce, get("map_output_bytes"),
                          None if keys is None else float(keys), processes)
    return TaskCounts(kind, get("reduce_input_records"),
                      None if function is None else float(function),
                      get("reduce_output_records"), 0.0, get("reduce_output_bytes"))
