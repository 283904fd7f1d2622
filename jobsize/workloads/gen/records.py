"""Fixed-length records with random keys, in the manner of Hadoop's TeraGen: input of the sort.

Each line is 100 bytes: a 10-letter key drawn uniformly, a tab, a 10-digit row number and 78
bytes of filler letters::

    QXKDNWIAPE\t0000000000ZHQWOJDNAIEB...
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Ragged

KEY_BYTES = 10
FILLER_BYTES = 78


def _letters(rng: np.random.Generator, n: int, width: int) -> ragged.Column:
    return ragged.fixed(rng.integers(ord("A"), ord("Z") + 1, (n, width), dtype=np.uint8))


def sort_records(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless chunks of 100-byte records."""
    first = 0
    for n in chunk_rows():
        yield ragged.lines(
            [
                _letters(rng, n, KEY_BYTES),
                [ragged.decimal(np.arange(first, first + n), width=10),
                 _letters(rng, n, FILLER_BYTES)],
            ],
            separator=b"\t",
        )
        first += n


def generate_records(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``records.tsv`` of about ``size_bytes`` (whole 100-byte records)."""
    folder = check_request(directory, size_bytes, seed)
    path = folder / "records.tsv"
    write_lines(path, size_bytes, sort_records(np.random.default_rng([seed, 0x7E5A])))
    return [path]
