"""Streaming records as the framework sees them: ``key\\tvalue`` lines.

Hadoop Streaming splits each output line at its first tab into a key and a value; a line without
a tab is a key with an empty value, and Hadoop writes it back as ``key\\t`` (TextOutputFormat
writes the separator before an empty value, and the reducer is fed ``key\\tvalue``). The engine
keeps every record in that canonical form, so a line always has a tab.

Map output bytes are counted as Hadoop counts ``MAP_OUTPUT_BYTES`` for ``Text`` keys and values:
each of key and value is its length as a variable-length integer followed by its bytes.
Partitions come from a CRC-32 of the key, so they are the same in every process and every run.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable

import numpy as np

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


def serialized_bytes(chunk: bytes) -> int:
    """Hadoop's ``MAP_OUTPUT_BYTES`` of canonical lines: vint + bytes of key and of value."""
    if not chunk:
        return 0
    arr = np.frombuffer(chunk, dtype=np.uint8)
    if int(np.diff(np.flatnonzero(arr == _NEWLINE), prepend=-1).max()) <= 128:
        # key and value both under 128 bytes: one length byte each, standing in for the
        # tab and the newline
        return len(chunk)
    starts, first, nl = _line_layout(arr)
    klen = (first - starts).astype(np.int64)
    vlen = (nl - first - 1).astype(np.int64)
    vints = 2 * len(klen) + int(np.searchsorted(_VINT_LIMITS, klen, side="right").sum()
                                + np.searchsorted(_VINT_LIMITS, vlen, side="right").sum())
    return int(klen.sum() + vlen.sum()) + vints


def vint_size(n: int) -> int:
    """Bytes Hadoop's ``WritableUtils.writeVInt`` takes for a non-negative ``n``."""
    if n <= 127:
        return 1
    return 1 + (n.bit_length() + 7) // 8


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


def partitioner(n_partitions: int) -> Callable[[bytes], int]:
    """Hash partitioner: CRC-32 of the key modulo the number of partitions."""
    crc = zlib.crc32
    return lambda key: crc(key) % n_partitions


def partition_lines(lines: list[bytes], n_partitions: int) -> list[list[bytes]]:
    """Distribute canonical lines over partitions by key hash, keeping their order."""
    if n_partitions == 1:
        return [lines]
    parts: list[list[bytes]] = [[] for _ in range(n_partitions)]
    appends = [p.append for p in parts]
    cache: dict[bytes, int] = {}
    crc = zlib.crc32
    for line in lines:
        key = line[: line.find(b"\t")]
        p = cache.get(key)
        if p is None:
            p = cache[key] = crc(key) % n_partitions
        appends[p](line)
    return parts


def count_groups(lines: list[bytes]) -> int:
    """Distinct keys among sorted canonical lines."""
    return len({line[: line.find(b"\t")] for line in lines})


def join_lines(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""
