"""An independent model of Hadoop's text records and LineRecordReader, for checking the sampler.

Records are found by one regular expression over the whole input (a line ended by CR LF, CR or
LF; the last may be unterminated), not by the sampler's incremental scan.
"""

from __future__ import annotations

import re

_RECORD = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def records(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every record, in order; they tile ``data`` exactly."""
    return [m.span() for m in _RECORD.finditer(data)]


def reader_records(data: bytes, start: int, end: int) -> bytes:
    """What LineRecordReader returns for the split ``[start, end)``, records concatenated.

    It skips the first (partial) line unless the split starts the file, then reads every record
    beginning at a position ≤ ``end``, to its end.
    """
    out = [data[a:b] for a, b in records(data)
           if (a > start or (start == 0 and a == 0)) and a <= end]
    return b"".join(out)


def longest(data: bytes) -> int:
    return max((b - a for a, b in records(data)), default=0)
