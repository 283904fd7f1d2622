"""One k-means iteration (Lloyd's step) over points in CSV: a CPU-heavy map.

``map [K [SEED]]`` (default 16 and 1) assigns each point to the nearest of ``K`` centroids —
squared Euclidean distance, ties to the lower index — and emits
``centroid\\t1\\t<coordinates>``; ``combine`` sums the points of a centroid into
``centroid\\tcount\\t<coordinate sums>``; ``reduce`` writes the new centroids,
``centroid\\tcount\\t<mean coordinates>``. The initial centroids are drawn from ``SEED``
uniformly in [-100, 100] per coordinate, as many coordinates as the first point has. The map
computes K distances per point in pure Python: its cost per byte is far above the other jobs'.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.streaming import UsageError, count, grouped, int_arg, records, run


def initial_centroids(k: int, dimensions: int, seed: int) -> list[list[float]]:
    """The starting centroids of the iteration (the same in every map task)."""
    draw = random.Random(seed).uniform
    return [[draw(-100.0, 100.0) for _ in range(dimensions)] for _ in range(k)]


def nearest(point: Sequence[float], centroids: Sequence[Sequence[float]]) -> int:
    """Index of the centroid nearest to ``point``."""
    best, best_distance = 0, float("inf")
    for index, centroid in enumerate(centroids):
        distance = 0.0
        for x, c in zip(point, centroid, strict=True):
            distance += (x - c) * (x - c)
        if distance < best_distance:
            best, best_distance = index, distance
    return best


def mapper(args: Sequence[str]) -> None:
    k = int_arg(args, 0, "K", 16)
    seed = int_arg(args, 1, "SEED", 1)
    if k < 1:
        raise UsageError(f"K must be at least 1, got {k}")
    write = sys.stdout.write
    centroids: list[list[float]] | None = None
    malformed = 0
    for line in records():
        try:
            point = [float(x) for x in line.split(",")]
        except ValueError:
            malformed += 1
            continue
        if centroids is None:
            centroids = initial_centroids(k, len(point), seed)
        elif len(point) != len(centroids[0]):
            malformed += 1
            continue
        write(f"{nearest(point, centroids)}\t1\t{line}\n")
    count("MALFORMED_RECORDS", malformed)


def _sums(values: Iterable[str]) -> tuple[int, list[float]]:
    n, sums = 0, None
    for value in values:
        partial_count, _, coordinates = value.partition("\t")
        n += int(partial_count)
        vector = [float(x) for x in coordinates.split(",")]
        sums = vector if sums is None else [a + b for a, b in zip(sums, vector, strict=True)]
    return n, sums or []


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        n, sums = _sums(values)
        write(f"{key}\t{n}\t{','.join(map(repr, sums))}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        n, sums = _sums(values)
        write(f"{key}\t{n}\t{','.join(f'{s / n:.6f}' for s in sums)}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
