"""One reduce attempt: shuffle its partition of every map output, merge, run the reduce function.

The three phases are timed as Hadoop times them: shuffle (fetching the map outputs' segments)
ends at ``shuffleFinishTime``, the merge into one sorted stream at ``sortFinishTime``, and the
reduce phase runs to the attempt's finish. Segments that fit in the merge budget are fetched and
merged in memory; larger partitions are merged as streams straight from the map outputs while the
reduce function consumes them (the merge then overlaps the reduce phase). The reduce function time
(RFE) is reported in the counter group ``jobsize`` as ``REDUCE_FUNCTION_MILLIS``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from jobsize.engine import counters as C
from jobsize.engine.attempt import (
    AttemptResult,
    ReduceAttempt,
    checked,
    cpu_seconds,
    failure,
    now_ms,
    rss_bytes,
    run_function,
    task_env,
)
from jobsize.engine.merge import Segment, batches, fetch, sorted_lines, stream_merge
from jobsize.engine.output import OutputWriter, attempt_file
from jobsize.engine.records import count_groups, join_lines, scan
from jobsize.schema import REDUCE_FUNCTION_COUNTER


class _InputCount:
    """Counts reduce input records and groups (by key hash) as the sorted lines are fed."""

    def __init__(self) -> None:
        self.records = 0
        self.groups = 0
        self._last: int | None = None

    def feed(self, lines: Iterable[bytes]) -> Iterator[bytes]:
        for batch in batches(lines):
            data = join_lines(batch)
            hashes = scan(data).hashes
            self.records += len(batch)
            self.groups += count_groups(hashes, self._last)
            self._last = int(hashes[-1])
            yield data


def run_reduce(attempt: ReduceAttempt) -> AttemptResult:
    """Run one reduce attempt; never raises — a failure is reported in the result."""
    ctx = attempt.ctx
    result = AttemptResult(attempt.task_id, attempt.attempt_id, "REDUCE", True, now_ms())
    cpu0 = cpu_seconds()
    work = Path(ctx.work_dir) / attempt.attempt_id
    segments = [s for s in attempt.segments if s.length]
    shuffled = sum(s.length for s in segments)
    writer: OutputWriter | None = None
    try:
        work.mkdir(parents=True, exist_ok=True)
        lines = _shuffle_and_merge(segments, ctx.reduce_merge_bytes, result)
        writer = OutputWriter(attempt_file(Path(ctx.output_dir), attempt.attempt_id,
                                           attempt.index))
        count = _InputCount()
        env = task_env(ctx, attempt.task_id, attempt.attempt_id, attempt.index, False)
        outcome = checked(run_function(ctx.reducer, "reduce", count.feed(lines),  # type: ignore[arg-type]
                                       writer.write, env, work))
        writer.close()
        result.output = str(writer.path)
        result.function_ms = outcome.function_seconds * 1000
        result.counters = _counters(attempt, count, writer, shuffled, len(segments))
        task = result.counters[C.TASK]
        task["CPU_MILLISECONDS"] = round((cpu_seconds() - cpu0 + outcome.cpu_seconds) * 1000)
        task["PHYSICAL_MEMORY_BYTES"] = rss_bytes() + outcome.max_rss_bytes
        result.counters[C.FUNCTION_TIME] = {REDUCE_FUNCTION_COUNTER:
                                            round(outcome.function_seconds * 1000)}
        C.add_reported(result.counters, outcome.counters)
        result.finish_ms = now_ms()
        return result
    except Exception as exc:
        return failure(result, exc)
    finally:
        if writer is not None:
            writer.close()
        shutil.rmtree(work, ignore_errors=True)


def _shuffle_and_merge(segments: list[Segment], budget: int,
                       result: AttemptResult) -> Iterable[bytes]:
    """The reduce's sorted input; sets the shuffle and merge finish times."""
    if sum(s.length for s in segments) <= budget:
        data = fetch(segments)
        result.shuffle_finish_ms = now_ms()
        lines = sorted_lines(data, len(segments), all(s.safe for s in segments))
        result.sort_finish_ms = now_ms()
        return lines
    # too large to hold: merged as streams while the reduce function consumes them
    result.shuffle_finish_ms = result.sort_finish_ms = now_ms()
    return stream_merge(segments)


def _counters(attempt: ReduceAttempt, count: _InputCount, writer: OutputWriter,
              shuffled: int, fetched: int) -> dict[str, dict[str, int]]:
    return {
        C.FILESYSTEM: {"FILE_BYTES_READ": shuffled, "FILE_BYTES_WRITTEN": writer.bytes,
                       "FILE_READ_OPS": fetched, "FILE_LARGE_READ_OPS": 0, "FILE_WRITE_OPS": 1},
        C.TASK: {
            "COMBINE_INPUT_RECORDS": 0,
            "COMBINE_OUTPUT_RECORDS": 0,
            "REDUCE_INPUT_GROUPS": count.groups,
            "REDUCE_SHUFFLE_BYTES": shuffled,
            "REDUCE_INPUT_RECORDS": count.records,
            "REDUCE_OUTPUT_RECORDS": writer.records,
            "SPILLED_RECORDS": 0,
            "SHUFFLED_MAPS": len(attempt.segments),
            "FAILED_SHUFFLE": 0,
            "MERGED_MAP_OUTPUTS": len(attempt.segments),
        },
        C.SHUFFLE_ERRORS: dict.fromkeys(C.COUNTER_DISPLAY[C.SHUFFLE_ERRORS], 0),
        C.FILE_OUTPUT: {"BYTES_WRITTEN": writer.bytes},
    }
