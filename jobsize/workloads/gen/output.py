"""Writing generated lines to a file of a requested size, and the rules every generator keeps.

Generators produce an endless stream of chunks of whole lines; :func:`write_lines` keeps the
lines that fit in ``size_bytes`` and stops. Chunks grow geometrically from a small first chunk,
by a schedule that does not depend on the requested size, so a tiny input costs little and an
input of size A is a prefix of the input of size B > A drawn with the same seed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.atomic import atomic_write
from jobsize.errors import ConfigError
from jobsize.workloads.gen.ragged import Ragged

FIRST_CHUNK_ROWS = 512
MAX_CHUNK_ROWS = 1 << 16


def chunk_rows() -> Iterator[int]:
    """Rows per chunk: 512, 1024, ... doubling up to 65536, then 65536 for ever."""
    rows = FIRST_CHUNK_ROWS
    while True:
        yield rows
        rows = min(2 * rows, MAX_CHUNK_ROWS)


def check_request(directory: str | os.PathLike[str], size_bytes: int, seed: int) -> Path:
    """Validate a generator's arguments; returns the directory, created if missing."""
    if isinstance(size_bytes, bool) or not isinstance(size_bytes, int | np.integer):
        raise ConfigError(f"size_bytes must be an integer, got {size_bytes!r}")
    if size_bytes <= 0:
        raise ConfigError(f"size_bytes must be positive, got {size_bytes}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise ConfigError("not a directory", source=path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_lines(path: Path, size_bytes: int, chunks: Iterator[Ragged]) -> int:
    """Write whole lines from ``chunks`` until the next would pass ``size_bytes``; returns the
    number of lines written.

    The file holds at least one line, so it is never empty; otherwise it never exceeds
    ``size_bytes`` and falls short of it by less than one line. Written atomically.
    """
    remaining = int(size_bytes)
    written = 0
    with atomic_write(path) as handle:
        for count, chunk in enumerate(chunks):
            ends = np.cumsum(chunk.lengths)
            fit = int(np.searchsorted(ends, remaining, side="right"))
            if count == 0:
                fit = max(fit, 1)
            if fit:
                used = int(ends[fit - 1])
                handle.write(memoryview(chunk.data[:used]))
                remaining -= used
                written += fit
            if fit < len(chunk) or remaining <= 0:
                break
    return written
