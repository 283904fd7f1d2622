"""Skewed key draws: a finite Zipf law over ``n`` keys, and hot keys scattered over the key space.

Real MapReduce keys are skewed — a few words, users or products carry much of the data — and
the skew is what makes shuffle volume and reduce time differ between jobs of equal input size.
"""

from __future__ import annotations

import functools

import numpy as np

#: Resolution of the guide table: 2^18 int32 entries (1 MiB) stay in cache while drawing.
GUIDE_BITS = 18


class Zipf:
    """P(rank k) ∝ 1 / k^exponent for k = 1..n, drawn exactly by inversion of the CDF.

    A guide table (Chen and Asau) resolves in one lookup every uniform whose cell of width
    2^-18 lies inside one rank — the bulk of the mass, in the head — and a binary search over
    the CDF resolves the rest; the law is exactly that of a plain binary search, only faster.
    """

    def __init__(self, n: int, exponent: float) -> None:
        if n < 1:
            raise ValueError("a Zipf law needs at least one key")
        self.n = int(n)
        self.exponent = float(exponent)
        weights = np.arange(1, self.n + 1, dtype=np.float64) ** -self.exponent
        cdf = np.cumsum(weights)
        self.cdf = cdf / cdf[-1]
        cells = 1 << GUIDE_BITS
        bounds = np.searchsorted(self.cdf, np.arange(cells + 1) / cells, side="right")
        bounds = np.minimum(bounds, self.n - 1).astype(np.int32)
        # -1 marks a cell that straddles a rank boundary: binary search decides there.
        self.guide = np.where(bounds[:-1] == bounds[1:], bounds[:-1], -1).astype(np.int32)

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` 0-based ranks (int64)."""
        # A uniform in [0, 1) is its guide cell (uniform over the cells) plus a uniform offset
        # inside the cell; the offset is drawn only where the cell does not decide the rank.
        cells = rng.integers(0, len(self.guide), size, dtype=np.int64)
        ranks = np.take(self.guide, cells).astype(np.int64)
        open_cells = np.flatnonzero(ranks < 0)
        uniform = (cells[open_cells] + rng.random(len(open_cells))) / len(self.guide)
        ranks[open_cells] = np.searchsorted(self.cdf, uniform, side="right")
        return np.minimum(ranks, self.n - 1)


@functools.lru_cache(maxsize=16)
def zipf(n: int, exponent: float) -> Zipf:
    """A shared :class:`Zipf` (building the tables costs milliseconds per million keys)."""
    return Zipf(n, exponent)


def scattered(n: int, rng: np.random.Generator) -> np.ndarray:
    """A permutation mapping rank to key id, so the hottest keys are not simply ids 0, 1, 2."""
    return rng.permutation(n)
