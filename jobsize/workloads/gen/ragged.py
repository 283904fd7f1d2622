"""Vectorised assembly of text records from columns of variable-length byte strings.

A :class:`Column` holds one field of ``n`` records as an ``(n, width)`` byte matrix plus a mask
of the bytes that belong to the field (a number is right-aligned in its cells, a word
left-aligned). :func:`lines` lays the columns side by side and keeps the masked bytes in row-major
order, which is exactly the concatenated records — one sequential numpy pass, no Python loop per
record. :class:`Table` is a dictionary lookup (words, names, URLs) that yields such columns. The
result is a :class:`Ragged`: the records back to back with their lengths.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Ragged:
    """Records back to back in ``data`` (uint8); ``lengths[i]`` bytes belong to record ``i``."""

    data: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    def rows(self) -> list[bytes]:
        """The records as bytes objects (for tests and small tables)."""
        raw = self.data.tobytes()
        ends = np.cumsum(self.lengths).tolist()
        return [raw[e - n : e] for e, n in zip(ends, self.lengths.tolist(), strict=True)]


@dataclass(frozen=True)
class Column:
    """Field ``i`` is ``cells[i][valid[i]]``: the valid bytes of row ``i``, in order."""

    cells: np.ndarray  # (n, width) uint8
    valid: np.ndarray  # (n, width) bool

    def __len__(self) -> int:
        return len(self.cells)


def _row_mask(lengths: np.ndarray, width: int, *, right: bool = False) -> np.ndarray:
    positions = np.arange(width)
    if right:
        return positions >= (width - lengths)[:, None]
    return positions < lengths[:, None]


@dataclass(frozen=True)
class Table:
    """A lookup table of byte strings, padded to one width so that a lookup is one gather."""

    cells: np.ndarray  # (size, width) uint8, left-aligned
    lengths: np.ndarray  # (size,) int64

    @classmethod
    def of(cls, values: Sequence[str | bytes]) -> Table:
        encoded = [v.encode() if isinstance(v, str) else v for v in values]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        width = -(-max(int(lengths.max()), 1) // 8) * 8  # whole 8-byte words gather fastest
        flat = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        cells = np.zeros((len(encoded), width), dtype=np.uint8)
        cells[_row_mask(lengths, width)] = flat
        return cls(cells, lengths)

    def __len__(self) -> int:
        return len(self.lengths)

    def take(self, index: np.ndarray) -> Column:
        """The entries at ``index``, as a column."""
        index = np.asarray(index, dtype=np.int64)
        words = self.cells.view(np.uint64)
        # np.take on whole rows is far faster than fancy indexing of a 2-D array.
        cells = np.take(words, index, axis=0).view(np.uint8).reshape(len(index), -1)
        lengths = np.take(self.lengths, index)
        return Column(cells, _row_mask(lengths, cells.shape[1]))


def constant(text: bytes, n: int) -> Column:
    """The same bytes (a separator, a prefix) in each of ``n`` rows."""
    pattern = np.frombuffer(text, dtype=np.uint8)
    cells = np.broadcast_to(pattern, (n, len(pattern)))
    return Column(cells, np.ones((n, len(pattern)), dtype=bool))


def fixed(matrix: np.ndarray) -> Column:
    """Equal-width fields from an ``(n, width)`` uint8 array or an ``S<width>`` array."""
    cells = np.ascontiguousarray(matrix).view(np.uint8).reshape(len(matrix), -1)
    return Column(cells, np.ones(cells.shape, dtype=bool))


def digit_counts(values: np.ndarray) -> np.ndarray:
    """Number of decimal digits of each non-negative integer (1 for zero)."""
    counts = np.ones(len(values), dtype=np.int64)
    power = 10
    top = int(values.max()) if len(values) else 0
    while power <= top:
        counts += values >= power
        power *= 10
    return counts


def decimal(values: np.ndarray, width: int = 0) -> Column:
    """Non-negative integers in decimal, zero-padded to ``width`` digits when given."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and values.min() < 0:
        raise ValueError("decimal() formats non-negative integers only")
    counts = np.maximum(digit_counts(values), width)
    columns = int(counts.max()) if len(values) else max(width, 1)
    cells = np.empty((len(values), columns), dtype=np.uint8)
    rest = values.copy()
    for j in range(columns - 1, -1, -1):
        cells[:, j] = rest % 10 + ord("0")
        rest //= 10
    return Column(cells, _row_mask(counts, columns, right=True))


def fixed_point(values: np.ndarray, decimals: int) -> list[Column]:
    """Reals rounded to ``decimals`` places (``-12.340``), as the columns of one field."""
    scaled = np.rint(np.asarray(values, dtype=np.float64) * 10**decimals).astype(np.int64)
    n = len(scaled)
    sign = Column(np.full((n, 1), ord("-"), dtype=np.uint8), (scaled < 0)[:, None])
    magnitude = np.abs(scaled)
    whole = decimal(magnitude // 10**decimals)
    if decimals == 0:
        return [sign, whole]
    fraction = decimal(magnitude % 10**decimals, width=decimals)
    return [sign, whole, constant(b".", n), fraction]


def lines(fields: Sequence[Column | Sequence[Column]], separator: bytes = b"",
          end: bytes = b"\n") -> Ragged:
    """Records of ``fields`` joined by ``separator`` and terminated by ``end``.

    A field is a column or a list of columns written without a separator between them.
    """
    parts: list[Column] = []
    n = -1
    for i, field in enumerate(fields):
        group = [field] if isinstance(field, Column) else list(field)
        n = len(group[0])
        if i and separator:
            parts.append(constant(separator, n))
        parts.extend(group)
    if end:
        parts.append(constant(end, n))
    joined = concat_columns(parts)
    return Ragged(joined.cells[joined.valid], joined.valid.sum(axis=1, dtype=np.int64))


def concat_columns(columns: Sequence[Column]) -> Column:
    """One column whose field ``i`` is the fields ``i`` of ``columns``, one after the other."""
    n = len(columns[0])
    if any(len(column) != n for column in columns):
        raise ValueError("columns differ in their number of rows")
    widths = [column.cells.shape[1] for column in columns]
    cells = np.empty((n, sum(widths)), dtype=np.uint8)
    valid = np.empty((n, sum(widths)), dtype=bool)
    left = 0
    for column, width in zip(columns, widths, strict=True):
        cells[:, left : left + width] = column.cells
        valid[:, left : left + width] = column.valid
        left += width
    return Column(cells, valid)
