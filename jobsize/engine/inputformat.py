"""Hadoop's text input on local files: the job's splits and the records of one split.

Splits follow the ``mapred`` ``FileInputFormat`` that Hadoop Streaming uses: the requested number
of maps is a hint (goal size = total input / maps), each file is cut into pieces of
``max(min_size, min(goal, block))`` bytes, and a remainder of up to 10% (``SPLIT_SLOP``) joins the
last piece. An empty file still gets one empty split, as in Hadoop.

Records are read with ``LineRecordReader`` semantics: a split that does not start at 0 skips
through the first line terminator at or after its start, and every split reads the line that
crosses its end — so every line is read by exactly one split. A line ends with ``\\n``,
``\\r\\n`` or a lone ``\\r``; a last line without a terminator still is a record. The mapper
receives each record followed by ``\\n``, as Hadoop Streaming feeds it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from jobsize.errors import InputError

SPLIT_SLOP = 1.1
DEFAULT_BLOCK_BYTES = 64 * 1024 * 1024
CHUNK_BYTES = 1 << 20
_TERMINATOR = re.compile(rb"[\r\n]")
_CR = 13


@dataclass(frozen=True)
class FileSplit:
    """A byte range ``[start, start + length)`` of one input file, before line alignment."""

    path: str
    start: int
    length: int


def input_files(inputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Expand files and directories (non-recursively, skipping ``_`` and ``.`` names as Hadoop's
    hidden-file filter does) into a list of files. Missing inputs raise InputError."""
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir()
                                if p.is_file() and not p.name.startswith(("_", "."))))
        elif path.is_file():
            files.append(path)
        else:
            raise InputError("input path does not exist", source=path)
    if not files:
        raise InputError("no input files", source=", ".join(str(i) for i in inputs) or "(none)")
    return files


def split_bytes_for(inputs: Iterable[str | os.PathLike[str]], n_maps: int,
                    block_bytes: int = DEFAULT_BLOCK_BYTES, min_split_bytes: int = 1) -> int:
    """The split size a job of ``n_maps`` maps cuts its files into: ``max(min, min(goal,
    block))`` with goal = total input / ``n_maps``. Give it to the sampler
    (``ProbeSpec.split_bytes``) and the probe samples the same splits the job runs."""
    total = sum(f.stat().st_size for f in input_files(inputs))
    return max(min_split_bytes, min(total // max(1, n_maps), block_bytes), 1)


def compute_splits(
    files: Sequence[Path], n_maps: int | None, block_bytes: int = DEFAULT_BLOCK_BYTES,
    min_split_bytes: int = 1,
) -> list[FileSplit]:
    """Hadoop's ``FileInputFormat.getSplits(job, numSplits)`` over local files."""
    if block_bytes <= 0:
        raise InputError(f"split size must be positive, got {block_bytes}")
    sizes = [f.stat().st_size for f in files]
    goal = sum(sizes) // max(1, n_maps or 1)
    splits: list[FileSplit] = []
    for path, size in zip(files, sizes, strict=True):
        if size == 0:
            splits.append(FileSplit(str(path), 0, 0))
            continue
        split_size = max(min_split_bytes, min(goal, block_bytes), 1)
        remaining = size
        while remaining / split_size > SPLIT_SLOP:
            splits.append(FileSplit(str(path), size - remaining, split_size))
            remaining -= split_size
        if remaining:
            splits.append(FileSplit(str(path), size - remaining, remaining))
    return splits


def _find_newline(handle, pos: int) -> int:
    """Position just after the first line terminator (``\\n``, ``\\r\\n`` or ``\\r``) at or
    after ``pos``; the file length if there is none."""
    handle.seek(pos)
    while True:
        block = handle.read(65536)
        if not block:
            return handle.tell()
        found = _TERMINATOR.search(block)
        if found:
            i = found.start()
            if block[i] == _CR:
                after = block[i + 1:i + 2] or handle.read(1)
                return pos + i + (2 if after == b"\n" else 1)
            return pos + i + 1
        pos += len(block)


def aligned_range(path: str, start: int, length: int) -> tuple[int, int]:
    """Byte range ``[begin, end)`` of the whole lines a split reads (LineRecordReader rules)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        begin = 0 if start == 0 else _find_newline(handle, start)
        stop = start + length
        end = size if stop >= size else _find_newline(handle, stop)
    return min(begin, size), max(min(end, size), min(begin, size))


@dataclass
class ReadStats:
    """What reading a split cost: raw bytes consumed and records (lines) produced."""

    bytes_read: int = 0
    records: int = 0


def read_lines(path: str, begin: int, end: int, stats: ReadStats,
               chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """Yield chunks of whole ``\\n``-terminated lines of ``path[begin:end]``.

    ``\\r\\n`` and a lone ``\\r`` end a line like ``\\n`` and become ``\\n``; a last line
    without a terminator gets one. ``stats`` counts the raw bytes and the records.
    """
    with open(path, "rb") as handle:
        handle.seek(begin)
        remaining = end - begin
        carry = b""
        while remaining > 0:
            block = handle.read(min(chunk_bytes, remaining))
            if not block:
                break
            remaining -= len(block)
            stats.bytes_read += len(block)
            block = carry + block
            cut = _last_line_end(block, more=remaining > 0)
            carry, block = block[cut:], block[:cut]
            if block:
                yield _emit(block, stats)
        if carry:
            yield _emit(carry if carry.endswith((b"\n", b"\r")) else carry + b"\n", stats)


def _last_line_end(block: bytes, more: bool) -> int:
    """Where the whole lines of ``block`` end; a final ``\\r`` waits for the next block when
    more may follow, since a ``\\n`` there would belong to it."""
    limit = len(block) - 1 if more and block.endswith(b"\r") else len(block)
    return max(block.rfind(b"\n", 0, limit), block.rfind(b"\r", 0, limit)) + 1


def _emit(block: bytes, stats: ReadStats) -> bytes:
    if b"\r" in block:
        block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    stats.records += block.count(b"\n")
    return block
