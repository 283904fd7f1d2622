"""Task attempts: what a worker is given, and what it reports back to the application master.

These values travel between the application master and the worker processes, so they hold only
plain data (paths, ids, counters) and the user's functions (argv tuples or importable callables).
"""

from __future__ import annotations

import os
import resource
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jobsize.engine.merge import Segment
from jobsize.engine.spill import COMBINE_MIN_SPILLS
from jobsize.engine.streaming import (
    STDERR_TAIL_BYTES,
    Function,
    Outcome,
    run_command,
    run_map_callable,
    run_reduce_callable,
)


class TaskError(Exception):
    """An attempt failed; ``stderr`` holds what the failing program said."""

    def __init__(self, reason: str, stderr: str = "") -> None:
        super().__init__(reason)
        self.stderr = stderr


@dataclass(frozen=True)
class TaskContext:
    """Everything about the job that every attempt needs."""

    job_id: str
    work_dir: str  # intermediate data (map outputs, spills)
    output_dir: str
    cwd: str  # where the user's programs run: the directory the job was submitted from
    mapper: Function
    reducer: Function | None
    combiner: Function | None
    n_reduces: int
    spill_bytes: int
    map_merge_bytes: int
    reduce_merge_bytes: int
    env: Mapping[str, str] = field(default_factory=dict)
    count_map_keys: bool = False  # report each map's distinct output keys (the probe's maps)
    combine_min_spills: int = COMBINE_MIN_SPILLS  # mapreduce.map.combine.minspills


@dataclass(frozen=True)
class MapInput:
    """A byte range of one file for a map task; ``name`` is the input file the mapper is told
    (``mapreduce_map_input_file``) — the original file, even when the bytes are a sample.
    ``whole``: the range holds whole records already (a sample), so it is read as is instead
    of being aligned to lines like a split."""

    path: str
    start: int
    length: int
    name: str
    whole: bool = False


@dataclass(frozen=True)
class MapAttempt:
    ctx: TaskContext
    task_id: str
    attempt_id: str
    index: int
    inputs: tuple[MapInput, ...]


@dataclass(frozen=True)
class ReduceAttempt:
    ctx: TaskContext
    task_id: str
    attempt_id: str
    index: int
    segments: tuple[Segment, ...]


@dataclass
class AttemptResult:
    """How an attempt ended: times (epoch ms), counters, and where its output is."""

    task_id: str
    attempt_id: str
    task_type: str  # MAP or REDUCE
    ok: bool
    start_ms: int
    finish_ms: int = 0
    error: str = ""
    stderr: str = ""
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    map_finish_ms: int = 0
    shuffle_finish_ms: int = 0
    sort_finish_ms: int = 0
    segments: list[Segment] = field(default_factory=list)
    output: str | None = None  # the attempt's output file (map-only maps, reduces)
    function_ms: float = 0.0

    @property
    def elapsed_ms(self) -> int:
        return self.finish_ms - self.start_ms


def now_ms() -> int:
    return int(time.time() * 1000)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rss_bytes() -> int:
    """Resident memory of this process now (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def exported(conf: Mapping[str, object]) -> dict[str, str]:
    """A job configuration as Hadoop Streaming exports it to its processes: each key with
    ``.`` replaced by ``_``."""
    return {k.replace(".", "_"): str(v) for k, v in conf.items()}


def task_env(ctx: TaskContext, task_id: str, attempt_id: str, index: int,
             is_map: bool) -> dict[str, str]:
    """The environment of a streaming process: ours, the job's conf (:func:`exported`, in
    ``ctx.env``), and the task's ids."""
    env = dict(os.environ)
    env.update(ctx.env)
    env["PWD"] = ctx.cwd
    env.update({
        "mapreduce_job_id": ctx.job_id,
        "mapreduce_task_id": task_id,
        "mapreduce_task_attempt_id": attempt_id,
        "mapreduce_task_partition": str(index),
        "mapreduce_task_ismap": "true" if is_map else "false",
    })
    return env


def run_function(fn: Function | None, kind: str, chunks: Iterable[bytes],
                 on_output: Callable[[bytes], None], env: Mapping[str, str],
                 work: Path) -> Outcome:
    """Run a map, reduce or combine function (command or callable) and return its outcome.
    No function is Hadoop's identity: records pass through unchanged."""
    if fn is None:
        for chunk in chunks:
            on_output(chunk)
        return Outcome(True)
    if isinstance(fn, tuple):
        return run_command(fn, chunks, on_output, env=env, cwd=Path(env["PWD"]),
                           stderr_path=work / f"{kind}.stderr")
    if kind == "map":
        return run_map_callable(fn, chunks, on_output)  # type: ignore[arg-type]
    return run_reduce_callable(fn, chunks, on_output)  # type: ignore[arg-type]


def checked(outcome: Outcome) -> Outcome:
    if not outcome.ok:
        raise TaskError(outcome.error, outcome.stderr)
    return outcome


def failure(result: AttemptResult, exc: BaseException) -> AttemptResult:
    """Mark ``result`` failed by ``exc``: its reason and the program's stderr (or traceback)."""
    result.ok = False
    result.finish_ms = now_ms()
    if isinstance(exc, TaskError):
        result.error, result.stderr = str(exc), exc.stderr
    else:
        result.error = f"{type(exc).__name__}: {exc}"
        result.stderr = "".join(traceback.format_exception(exc))[-STDERR_TAIL_BYTES:]
    return result
