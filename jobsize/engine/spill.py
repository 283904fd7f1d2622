"""The map side's output buffer: collect, partition, sort, combine, spill, merge.

As in Hadoop's ``MapOutputBuffer``, records collect in memory until the buffer reaches its spill
threshold (``mapreduce.task.io.sort.mb`` × ``mapreduce.map.sort.spill.percent``, counting 16 bytes
of metadata per record as Hadoop does); each spill is partitioned by key hash, sorted by key,
passed through the combiner if there is one, and written to disk as one sorted run per partition.
At the end the spills are merged into the map's output file, one segment per reduce — with the
combiner again when there were at least ``mapreduce.map.combine.minspills`` spills (three by
default; a single spill is the output as it is, never merged).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from jobsize.engine.merge import Segment, merge
from jobsize.engine.records import (
    Scan,
    join_lines,
    partition_lines,
    scan,
    sort_lines,
    sort_safe,
    split_lines,
)
from jobsize.schema import DEFAULT_SORT_BUFFER

RECORD_META_BYTES = 16
COMBINE_MIN_SPILLS = int(DEFAULT_SORT_BUFFER["combine_min_spills"])

#: Runs a combiner over sorted lines, handing its output chunks to the callback; returns its
#: function time and its process's CPU time, in seconds. Raises on failure.
Combine = Callable[[Iterable[bytes], Callable[[bytes], None]], tuple[float, float]]


@dataclass
class SpillStats:
    """What the buffer did, for Hadoop's counters."""

    output_records: int = 0
    output_bytes: int = 0  # MAP_OUTPUT_BYTES (Hadoop's serialized size)
    spilled_records: int = 0
    combine_input_records: int = 0
    combine_output_records: int = 0
    bytes_written: int = 0
    bytes_read: int = 0
    write_ops: int = 0
    read_ops: int = 0
    spills: int = 0
    combine_runs: int = 0
    combine_seconds: float = 0.0
    combine_cpu_seconds: float = 0.0


@dataclass
class _Run:
    path: Path
    segments: list[Segment] = field(default_factory=list)


class MapOutputBuffer:
    """Collects a map task's canonical output lines and leaves one partitioned sorted file."""

    def __init__(self, n_partitions: int, work_dir: Path, spill_bytes: int,
                 combine: Combine | None = None, merge_bytes: int | None = None,
                 combine_min_spills: int = COMBINE_MIN_SPILLS) -> None:
        self.n_partitions = n_partitions
        self.combine_min_spills = combine_min_spills
        self.work_dir = work_dir
        self.spill_bytes = max(1, spill_bytes)
        self.merge_bytes = merge_bytes if merge_bytes is not None else self.spill_bytes
        self.combine = combine
        self.stats = SpillStats()
        self._chunks: list[bytes] = []
        self._hashes: list[np.ndarray] = []
        self._buffered = 0
        self._runs: list[_Run] = []

    def collect(self, chunk: bytes) -> None:
        """Take whole ``\\n``-terminated output lines of the map function."""
        s = scan(chunk, with_hashes=self.n_partitions > 1)
        self.stats.output_records += s.records
        self.stats.output_bytes += s.serialized
        data, hashes, n = s.data, s.hashes, s.records
        while data:
            size = len(data) + RECORD_META_BYTES * n
            room = self.spill_bytes - self._buffered
            if size <= room:
                self._add(data, hashes, n)
                if self._buffered >= self.spill_bytes:
                    self._spill()
                return
            # the buffer fills inside this chunk: spill at the record where it is full
            at = data.find(b"\n", max(0, room * len(data) // size - 1)) + 1 or len(data)
            k = data.count(b"\n", 0, at)
            self._add(data[:at], hashes[:k], k)
            data, hashes, n = data[at:], hashes[k:], n - k
            self._spill()

    def _add(self, data: bytes, hashes: np.ndarray, n: int) -> None:
        self._chunks.append(data)
        self._hashes.append(hashes)
        self._buffered += len(data) + RECORD_META_BYTES * n

    def _spill(self) -> None:
        data = b"".join(self._chunks)
        hashes = np.concatenate(self._hashes) if self._hashes else np.empty(0, np.uint64)
        self._chunks.clear()
        self._hashes.clear()
        self._buffered = 0
        safe = sort_safe(data)
        parts = partition_lines(split_lines(data), hashes, self.n_partitions)
        del data
        for part in parts:
            sort_lines(part, safe)
        if self.combine is not None:
            parts, safe = self._combined((join_lines(p) for p in parts),
                                         sum(len(p) for p in parts))
        run = _Run(self.work_dir / f"spill{len(self._runs)}.out")
        self._write(run, ([join_lines(p)] for p in parts), [len(p) for p in parts], safe)
        self._runs.append(run)
        self.stats.spills += 1

    def _combined(self, blocks: Iterable[bytes], n_in: int) -> tuple[list[list[bytes]], bool]:
        """Run the combiner over sorted blocks of all partitions at once (a key never leaves its
        partition, so the output is split back by the same hash); the new partitions."""
        self.stats.combine_input_records += n_in
        self.stats.combine_runs += 1
        out: list[Scan] = []
        wanted = self.n_partitions > 1
        seconds, cpu = self.combine(blocks, lambda c: out.append(scan(c, wanted)))  # type: ignore[misc]
        self.stats.combine_seconds += seconds
        self.stats.combine_cpu_seconds += cpu
        data = b"".join(s.data for s in out)
        hashes = np.concatenate([s.hashes for s in out]) if out else np.empty(0, np.uint64)
        lines = split_lines(data)
        self.stats.combine_output_records += len(lines)
        return partition_lines(lines, hashes, self.n_partitions), sort_safe(data)

    def _write(self, run: _Run, parts: Iterable[Iterable[bytes]], records: list[int],
               safe: bool) -> None:
        with open(run.path, "wb") as out:
            for part, n in zip(parts, records, strict=True):
                start = out.tell()
                for block in part:
                    out.write(block)
                run.segments.append(Segment(str(run.path), start, out.tell() - start, n, safe))
            self.stats.bytes_written += out.tell()
        self.stats.write_ops += 1
        self.stats.spilled_records += sum(records)

    def close(self, final_path: Path) -> list[Segment]:
        """Spill what is left, merge the spills into ``final_path``; its segments, by partition."""
        if self._chunks or not self._runs:
            self._spill()
        if len(self._runs) == 1:
            os.replace(self._runs[0].path, final_path)
            return [Segment(str(final_path), s.offset, s.length, s.records, s.safe)
                    for s in self._runs[0].segments]
        final = self._merge_runs(final_path)
        for run in self._runs:
            run.path.unlink()
        return final.segments

    def _merge_runs(self, final_path: Path) -> _Run:
        final = _Run(final_path)
        merged = [self._merged([run.segments[p] for run in self._runs])
                  for p in range(self.n_partitions)]
        if self.combine is not None and len(self._runs) >= self.combine_min_spills:
            n_in = sum(s.records for run in self._runs for s in run.segments)
            parts, safe = self._combined(itertools.chain.from_iterable(merged), n_in)
            self._write(final, ([join_lines(p)] for p in parts), [len(p) for p in parts], safe)
        else:
            records = [sum(run.segments[p].records for run in self._runs)
                       for p in range(self.n_partitions)]
            safe = all(s.safe for run in self._runs for s in run.segments)
            self._write(final, merged, records, safe)
        return final

    def _merged(self, segments: list[Segment]) -> Iterator[bytes]:
        self.stats.bytes_read += sum(s.length for s in segments)
        self.stats.read_ops += len(segments)
        for batch in merge(segments, self.merge_bytes):
            yield join_lines(batch)
