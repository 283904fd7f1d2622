"""Points in 8 dimensions drawn around hidden cluster centres: the input of k-means.

One point per line, coordinates with three decimals, comma-separated::

    -41.027,13.550,88.104,-7.913,60.221,-19.004,3.718,-52.660

The seed chooses 12 centres uniformly in [-100, 100]^8; each point belongs to a centre chosen
with Zipf weights (clusters of unequal size) and scatters around it with a per-cluster spread.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Column, Ragged
from jobsize.workloads.gen.skew import zipf

DIMENSIONS = 8
CENTRES = 12


def point_rows(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless chunks of points."""
    centres = rng.uniform(-100.0, 100.0, (CENTRES, DIMENSIONS))
    spread = rng.uniform(4.0, 15.0, CENTRES)
    law = zipf(CENTRES, 0.8)
    for n in chunk_rows():
        label = law.draw(rng, n)
        points = centres[label] + rng.standard_normal((n, DIMENSIONS)) * spread[label, None]
        fields: list[list[Column]] = [ragged.fixed_point(points[:, d], 3)
                                      for d in range(DIMENSIONS)]
        yield ragged.lines(fields, separator=b",")


def generate_points(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``points.csv`` of about ``size_bytes``."""
    folder = check_request(directory, size_bytes, seed)
    path = folder / "points.csv"
    write_lines(path, size_bytes, point_rows(np.random.default_rng([seed, 0x9017])))
    return [path]
