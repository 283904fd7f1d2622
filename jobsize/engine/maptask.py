"""One map attempt: read the split's records, run the map function, collect, sort and spill.

With reduces the output goes through :class:`~jobsize.engine.spill.MapOutputBuffer` into one
partitioned, sorted file that the reduces fetch from; a map-only job's output is the job's output.
The map function time (MFE) is the time inside the user's function, reported in the counter group
``jobsize`` as ``MAP_FUNCTION_MILLIS``.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from jobsize.engine import counters as C
from jobsize.engine.attempt import (
    AttemptResult,
    MapAttempt,
    MapInput,
    checked,
    cpu_seconds,
    failure,
    now_ms,
    rss_bytes,
    run_function,
    task_env,
)
from jobsize.engine.inputformat import ReadStats, aligned_range, read_lines
from jobsize.engine.merge import Segment, read_segment
from jobsize.engine.output import OutputWriter, attempt_file
from jobsize.engine.records import count_groups, scan
from jobsize.engine.spill import Combine, MapOutputBuffer
from jobsize.engine.streaming import Outcome
from jobsize.schema import (
    COMBINE_FUNCTION_COUNTER,
    COMBINE_RUNS_COUNTER,
    MAP_FUNCTION_COUNTER,
    MAP_OUTPUT_KEYS_COUNTER,
)


def _records(pieces: Iterable[MapInput], stats: ReadStats) -> Iterator[bytes]:
    for piece in pieces:
        if piece.whole:
            begin, end = piece.start, piece.start + piece.length
        else:
            begin, end = aligned_range(piece.path, piece.start, piece.length)
        yield from read_lines(piece.path, begin, end, stats)


def _by_file(inputs: tuple[MapInput, ...]) -> list[list[MapInput]]:
    """Consecutive inputs grouped by the file name the mapper is told (one process each)."""
    return [list(g) for _, g in itertools.groupby(inputs, key=lambda p: p.name)]


def run_map(attempt: MapAttempt) -> AttemptResult:
    """Run one map attempt; never raises — a failure is reported in the result."""
    ctx = attempt.ctx
    result = AttemptResult(attempt.task_id, attempt.attempt_id, "MAP", True, now_ms())
    cpu0 = cpu_seconds()
    work = Path(ctx.work_dir) / attempt.attempt_id
    writer: OutputWriter | None = None
    try:
        work.mkdir(parents=True, exist_ok=True)
        if ctx.n_reduces:
            sink = MapOutputBuffer(ctx.n_reduces, work, ctx.spill_bytes,
                                   _combiner(attempt, work), ctx.map_merge_bytes,
                                   ctx.combine_min_spills)
            collect = sink.collect
        else:
            writer = OutputWriter(attempt_file(Path(ctx.output_dir), attempt.attempt_id,
                                               attempt.index))
            collect = writer.write
        read = ReadStats()
        ran = _map_function(attempt, work, collect, read)
        result.map_finish_ms = now_ms()
        counters = _io_counters(read, len(attempt.inputs))
        child_cpu = ran.cpu_seconds
        if writer is None:
            result.segments = sink.close(work / "file.out")
            _buffer_counters(counters, sink, result)
            child_cpu += sink.stats.combine_cpu_seconds
        else:
            writer.close()
            result.output = str(writer.path)
            _writer_counters(counters, writer)
        counters[C.TASK]["CPU_MILLISECONDS"] = round((cpu_seconds() - cpu0 + child_cpu) * 1000)
        counters[C.TASK]["PHYSICAL_MEMORY_BYTES"] = rss_bytes() + ran.max_rss_bytes
        counters[C.FUNCTION_TIME] = {MAP_FUNCTION_COUNTER: round(ran.function_seconds * 1000)}
        if writer is None and ctx.combiner is not None:
            counters[C.FUNCTION_TIME][COMBINE_FUNCTION_COUNTER] = round(
                sink.stats.combine_seconds * 1000)
            counters[C.FUNCTION_TIME][COMBINE_RUNS_COUNTER] = sink.stats.combine_runs
        if writer is None and ctx.count_map_keys:
            counters[C.FUNCTION_TIME][MAP_OUTPUT_KEYS_COUNTER] = distinct_keys(result.segments)
        result.function_ms = ran.function_seconds * 1000
        C.add_reported(counters, ran.counters)
        result.counters = counters
        result.finish_ms = now_ms()
        return result
    except Exception as exc:
        return failure(result, exc)
    finally:
        if writer is not None:
            writer.close()
        if not (ctx.n_reduces and result.ok):  # a map output stays for the reduces
            shutil.rmtree(work, ignore_errors=True)


def _map_function(attempt: MapAttempt, work: Path, collect: Callable[[bytes], None],
                  read: ReadStats) -> Outcome:
    """Run the mapper over the attempt's input, one process per input file; the outcomes
    summed (function and CPU time, counters; the largest memory)."""
    ctx = attempt.ctx
    total = Outcome(True)
    for pieces in _by_file(attempt.inputs):
        env = task_env(ctx, attempt.task_id, attempt.attempt_id, attempt.index, True)
        env.update(mapreduce_map_input_file=pieces[0].name, map_input_file=pieces[0].name,
                   mapreduce_map_input_start=str(pieces[0].start),
                   mapreduce_map_input_length=str(sum(p.length for p in pieces)))
        outcome = checked(run_function(ctx.mapper, "map", _records(pieces, read), collect,
                                       env, work))
        total.function_seconds += outcome.function_seconds
        total.cpu_seconds += outcome.cpu_seconds
        total.max_rss_bytes = max(total.max_rss_bytes, outcome.max_rss_bytes)
        C.add(total.counters, outcome.counters)
    return total


def distinct_keys(segments: Iterable[Segment]) -> int:
    """Distinct keys of a map output: its partitions are sorted by key and share no key."""
    return sum(count_groups(scan(read_segment(seg)).hashes, None)
               for seg in segments if seg.length)


def _writer_counters(counters: dict[str, dict[str, int]], writer: OutputWriter) -> None:
    """A map-only task: its output is the job's output."""
    counters[C.TASK]["MAP_OUTPUT_RECORDS"] = writer.records
    counters[C.FILE_OUTPUT] = {"BYTES_WRITTEN": writer.bytes}
    counters[C.FILESYSTEM]["FILE_BYTES_WRITTEN"] += writer.bytes
    counters[C.FILESYSTEM]["FILE_WRITE_OPS"] += 1


def _io_counters(read: ReadStats, files: int) -> dict[str, dict[str, int]]:
    return {
        C.FILESYSTEM: {"FILE_BYTES_READ": read.bytes_read, "FILE_BYTES_WRITTEN": 0,
                       "FILE_READ_OPS": files, "FILE_LARGE_READ_OPS": 0, "FILE_WRITE_OPS": 0},
        C.TASK: {"MAP_INPUT_RECORDS": read.records},
        C.FILE_INPUT: {"BYTES_READ": read.bytes_read},
    }


def _buffer_counters(counters: dict[str, dict[str, int]], sink: MapOutputBuffer,
                     result: AttemptResult) -> None:
    s = sink.stats
    counters[C.TASK].update({
        "MAP_OUTPUT_RECORDS": s.output_records,
        "MAP_OUTPUT_BYTES": s.output_bytes,
        "MAP_OUTPUT_MATERIALIZED_BYTES": sum(seg.length for seg in result.segments),
        "COMBINE_INPUT_RECORDS": s.combine_input_records,
        "COMBINE_OUTPUT_RECORDS": s.combine_output_records,
        "SPILLED_RECORDS": s.spilled_records,
        "FAILED_SHUFFLE": 0,
        "MERGED_MAP_OUTPUTS": 0,
    })
    fs = counters[C.FILESYSTEM]
    fs["FILE_BYTES_READ"] += s.bytes_read
    fs["FILE_BYTES_WRITTEN"] += s.bytes_written
    fs["FILE_READ_OPS"] += s.read_ops
    fs["FILE_WRITE_OPS"] += s.write_ops


def _combiner(attempt: MapAttempt, work: Path) -> Combine | None:
    """The combine step for the output buffer, or None when the job has no combiner."""
    ctx = attempt.ctx
    if ctx.combiner is None:
        return None
    env = task_env(ctx, attempt.task_id, attempt.attempt_id, attempt.index, True)

    def combine(blocks: Iterable[bytes], on_output: Callable[[bytes], None]) -> tuple[float, float]:
        outcome = checked(run_function(ctx.combiner, "combine", blocks, on_output, env, work))
        return outcome.function_seconds, outcome.cpu_seconds

    return combine
