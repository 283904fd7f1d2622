"""Streaming records as the framework sees them: ``key\\tvalue`` lines.

Hadoop Streaming splits each output line at its first tab into a key and a value; a line without
a tab is a key with an empty value, and Hadoop writes it back as ``key\\t`` (TextOutputFormat
writes the separator before an empty value, and the reducer is fed ``key\\tvalue``). The engine
keeps every record in that canonical form, so a line always has a tab.

Map output bytes are counted as Hadoop counts ``MAP_OUTPUT_BYTES`` for ``Text`` keys and values:
each of key and value is its length as a variable-length integer followed by its bytes.
Partitions come from :mod:`jobsize.engine.keyhash`; :func:`scan` computes, for a chunk of lines
at once, their canonical form, count, serialized size and key hashes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from jobsize.engine.keyhash import key_hashes

_NEWLINE, _TAB = 10, 9
# WritableUtils.writeVInt: 1 byte up to 127, else 1 + the bytes of the value
_VINT_LIMITS = np.array([128, 1 << 8, 1 << 16, 1 << 24], dtype=np.int64)
_TABLESS_FIRST = re.compile(rb"[^\t\n]*\n")  # the first line has no tab
_TABLESS = re.compile(rb"\n[^\t\n]*\n")  # some later line has no tab


def _line_layout(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start, first-tab and newline offsets of each line (first tab = -1 where none)."""
    nl = np.flatnonzero(arr == _NEWLINE)
    starts = np.empty_like(nl)
    if len(nl):
        starts[0] = 0
        starts[1:] = nl[:-1] + 1
    tabs = np.flatnonzero(arr == _TAB)
    if len(tabs) == 0:
        return starts, np.full(len(nl), -1, dtype=nl.dtype), nl
    idx = np.searchsorted(tabs, starts)
    first = tabs[np.minimum(idx, len(tabs) - 1)]
    first = np.where((idx < len(tabs)) & (first < nl), first, -1)
    return starts, first, nl


def _add_missing_tabs(chunk: bytes) -> bytes:
    lines = chunk.split(b"\n")
    lines.pop()
    return b"".join(line + b"\n" if b"\t" in line else line + b"\t\n" for line in lines)


def canonical(chunk: bytes) -> tuple[bytes, int]:
    """``chunk`` (whole ``\\n``-terminated lines) with a tab on every line, and its line count."""
    n = chunk.count(b"\n")
    if _TABLESS_FIRST.match(chunk) or _TABLESS.search(chunk):
        chunk = _add_missing_tabs(chunk)
    return chunk, n


@dataclass
class Scan:
    """A chunk of output lines as the framework needs it."""

    data: bytes  # canonical lines
    records: int
    serialized: int  # Hadoop's MAP_OUTPUT_BYTES of the lines
    hashes: np.ndarray  # key hash per line (uint64)


def scan(chunk: bytes, with_hashes: bool = True) -> Scan:
    """Canonical form, record count, serialized size and (unless not wanted) key hashes of
    whole lines."""
    if not chunk:
        return Scan(b"", 0, 0, np.empty(0, dtype=np.uint64))
    arr = np.frombuffer(chunk, dtype=np.uint8)
    starts, first, nl = _line_layout(arr)
    if len(first) and int(first.min()) < 0:
        chunk = _add_missing_tabs(chunk)
        arr = np.frombuffer(chunk, dtype=np.uint8)
        starts, first, nl = _line_layout(arr)
    hashes = key_hashes(arr, starts, first) if with_hashes else np.empty(0, dtype=np.uint64)
    return Scan(chunk, len(nl), _serialized(chunk, starts, first, nl), hashes)


def _serialized(chunk: bytes, starts: np.ndarray, first: np.ndarray, nl: np.ndarray) -> int:
    """Each key and value: a vint length, then its bytes (WritableUtils / Text)."""
    if int((nl - starts).max()) < 128:
        # key and value both under 128 bytes: one length byte each, standing in for the
        # tab and the newline
        return len(chunk)
    klen = (first - starts).astype(np.int64)
    vlen = (nl - first - 1).astype(np.int64)
    vints = 2 * len(klen) + int(np.searchsorted(_VINT_LIMITS, klen, side="right").sum()
                                + np.searchsorted(_VINT_LIMITS, vlen, side="right").sum())
    return int(klen.sum() + vlen.sum()) + vints


def split_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` (whole ``\\n``-terminated lines), without their newlines."""
    lines = data.split(b"\n")
    lines.pop()
    return lines


def sort_key(line: bytes) -> bytes:
    return line[: line.find(b"\t")]


def sort_lines(lines: list[bytes], safe: bool) -> None:
    """Sort canonical lines by key (bytewise, as Hadoop compares Text keys), in place.

    ``safe`` says no byte below ``\\t`` occurs in the lines; then comparing whole lines orders
    them by key (the tab sorts below every other key byte) and needs no key function.
    """
    if safe:
        lines.sort()
    else:
        lines.sort(key=sort_key)


def sort_safe(data: bytes) -> bool:
    """No byte in 0x00-0x08 occurs in ``data`` (so whole-line order is key order)."""
    return not bool(np.any(np.frombuffer(data, dtype=np.uint8) < _TAB))


def partition_lines(lines: list[bytes], hashes: np.ndarray,
                    n_partitions: int) -> list[list[bytes]]:
    """Distribute lines over partitions by their key hashes, keeping their order."""
    if n_partitions == 1:
        return [lines]
    pids = (hashes % np.uint64(n_partitions)).astype(np.intp)
    order = np.argsort(pids, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(pids, minlength=n_partitions))))
    objects = np.empty(len(lines), dtype=object)
    objects[:] = lines
    return [objects[order[bounds[p]:bounds[p + 1]]].tolist() for p in range(n_partitions)]


def count_groups(hashes: np.ndarray, previous: int | None) -> int:
    """Key groups among sorted lines given their key hashes, not counting a first group that
    continues the ``previous`` hash."""
    if len(hashes) == 0:
        return 0
    changes = int(np.count_nonzero(hashes[1:] != hashes[:-1]))
    return changes + int(previous is None or int(hashes[0]) != previous)


def join_lines(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""
