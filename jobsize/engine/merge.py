"""Sorted runs on disk and their merge — the map side's final merge and the reduce side's merge.

A :class:`Segment` is one partition of one sorted file (a spill, or a map task's output). Segments
that fit in the memory budget are read and merged in memory (a stable sort of concatenated sorted
runs, which the sort does as a run merge); larger ones are merged as streams, a block at a time,
so memory stays bounded by the budget whatever the partition size.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from jobsize.engine.records import sort_key, sort_lines, split_lines

_BLOCK_BYTES = 1 << 20
BATCH_LINES = 65536


@dataclass(frozen=True)
class Segment:
    """One sorted partition of a file: bytes ``[offset, offset + length)`` holding ``records``
    canonical lines. ``safe``: no byte below tab occurs, so whole lines sort by key."""

    path: str
    offset: int
    length: int
    records: int
    safe: bool = True


def read_segment(segment: Segment) -> bytes:
    if segment.length == 0:
        return b""
    with open(segment.path, "rb") as handle:
        handle.seek(segment.offset)
        return handle.read(segment.length)


def _stream(segment: Segment) -> Iterator[bytes]:
    with open(segment.path, "rb") as handle:
        handle.seek(segment.offset)
        remaining = segment.length
        carry = b""
        while remaining > 0:
            block = handle.read(min(_BLOCK_BYTES, remaining))
            if not block:
                break
            remaining -= len(block)
            block = carry + block
            cut = block.rfind(b"\n") + 1
            carry = block[cut:]
            yield from split_lines(block[:cut])


def fetch(segments: Sequence[Segment]) -> bytes:
    """The bytes of ``segments``, concatenated (the shuffle of an in-memory merge)."""
    return b"".join(read_segment(s) for s in segments if s.length)


def sorted_lines(data: bytes, runs: int, safe: bool) -> list[bytes]:
    """Lines of ``runs`` concatenated sorted runs, merged into one sorted list."""
    lines = split_lines(data)
    if runs > 1:
        sort_lines(lines, safe)
    return lines


def stream_merge(segments: Sequence[Segment]) -> Iterator[bytes]:
    """The lines of ``segments`` merged in key order, reading each a block at a time."""
    streams = [_stream(s) for s in segments if s.length]
    if all(s.safe for s in segments):
        return heapq.merge(*streams)
    return heapq.merge(*streams, key=sort_key)


def batches(lines: Iterable[bytes]) -> Iterator[list[bytes]]:
    """``lines`` in lists of at most ``BATCH_LINES``."""
    if isinstance(lines, list):
        for i in range(0, len(lines), BATCH_LINES):
            yield lines[i:i + BATCH_LINES]
        return
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= BATCH_LINES:
            yield batch
            batch = []
    if batch:
        yield batch


def merge(segments: Sequence[Segment], memory_bytes: int) -> Iterator[list[bytes]]:
    """The lines of ``segments`` in key order, in batches; in memory when they fit in
    ``memory_bytes``, else streamed."""
    live = [s for s in segments if s.length]
    if sum(s.length for s in live) <= memory_bytes:
        lines = sorted_lines(fetch(live), len(live), all(s.safe for s in segments))
        return batches(lines)
    return batches(stream_merge(live))
