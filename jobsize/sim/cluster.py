"""The simulated cluster: nodes with two resource dimensions.

In the YARN model a node offers (memory MB, vcores) and every container asks for both. In the
MRv1 slot mode (``slots=True``) a node offers (map slots, reduce slots): a map task takes one
map slot, a reduce task one reduce slot, and there is no ApplicationMaster container (the
JobTracker schedules). Nodes may differ (heterogeneous clusters).

Specs are written ``NODES×MEM×VCORES`` (``x`` works too; memory in MB or with a ``g`` suffix),
several groups joined by ``+``: ``8x8g×8`` or ``4x8192x8+2x16g×16``. Slot clusters are written
``NODES×MAPS×REDUCES`` and parsed with ``slots=True``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError

_GROUP = re.compile(r"^\s*(\d+)\s*[x×*]\s*(\d+(?:\.\d+)?)\s*([gGmM]?)[bB]?\s*[x×*]\s*(\d+)\s*$")


@dataclass(frozen=True)
class Cluster:
    """Node capacities, shape (n_nodes, 2): (memory MB, vcores), or (map, reduce) slots."""

    capacity: np.ndarray
    slots: bool = False

    def __post_init__(self) -> None:
        cap = np.asarray(self.capacity, dtype=np.int64).reshape(-1, 2)
        if len(cap) == 0:
            raise ConfigError("a cluster needs at least one node")
        if (cap < 0).any() or (cap.sum(axis=1) == 0).any():
            raise ConfigError("node capacities must be non-negative and not all zero")
        object.__setattr__(self, "capacity", cap)

    @classmethod
    def homogeneous(cls, nodes: int, memory_mb: int, vcores: int) -> Cluster:
        """``nodes`` identical YARN NodeManagers."""
        return cls(np.tile([memory_mb, vcores], (nodes, 1)))

    @classmethod
    def mrv1(cls, nodes: int, map_slots: int, reduce_slots: int) -> Cluster:
        """An MRv1 cluster of ``nodes`` TaskTrackers with fixed map and reduce slots."""
        return cls(np.tile([map_slots, reduce_slots], (nodes, 1)), slots=True)

    @classmethod
    def parse(cls, spec: str, *, slots: bool = False) -> Cluster:
        """Parse ``NODES×MEM×VCORES[+...]`` (or ``NODES×MAPS×REDUCES`` with ``slots``)."""
        rows: list[tuple[int, int]] = []
        for group in spec.split("+"):
            m = _GROUP.match(group)
            if not m:
                raise ConfigError(f"cluster spec {spec!r}: expected NODES×MEM×VCORES, "
                                  f"e.g. 8x8g×8, found {group!r}")
            nodes, amount, unit, third = int(m[1]), float(m[2]), m[3].lower(), int(m[4])
            if slots and unit:
                raise ConfigError(f"cluster spec {spec!r}: slot counts take no unit")
            second = round(amount * (1024 if unit == "g" else 1))
            rows.extend([(second, third)] * nodes)
        return cls(np.array(rows, dtype=np.int64), slots=slots)

    @property
    def n_nodes(self) -> int:
        return len(self.capacity)

    @property
    def total(self) -> tuple[int, int]:
        """Summed capacity of both dimensions."""
        t = self.capacity.sum(axis=0)
        return int(t[0]), int(t[1])

    def describe(self) -> str:
        kind = "map/reduce slots" if self.slots else "MB/vcores"
        uniq, counts = np.unique(self.capacity, axis=0, return_counts=True)
        groups = "+".join(f"{c}×{a}×{b}" for (a, b), c in zip(uniq, counts, strict=True))
        return f"{groups} ({kind})"
