"""The simulated cluster: nodes with two resource dimensions.

In the YARN model a node offers (memory MB, vcores) and every container asks for both. In the
MRv1 slot mode (``slots=True``) a node offers (map slots, reduce slots): a map task takes one
map slot, a reduce task one reduce slot, and there is no ApplicationMaster container (the
JobTracker schedules). Nodes may differ (heterogeneous clusters).

Specs are written ``NODES×MEM×VCORES`` (``x`` works too; memory in MB or with a ``g`` suffix),
several groups joined by ``+``: ``8x8g×8`` or ``4x8192x8+2x16g×16``. Slot clusters are written
``NODES×MAPS×REDUCES`` and parsed with ``slots=True``.

Nodes may also differ in speed (node speed classes): a group written ``NODES×A×B@S`` runs every
task ``S`` times as fast as a node of speed 1, and ``@SM/SR`` gives map and reduce tasks
different speeds (a node with fast disks but a slow CPU, say): ``3x2x2@2/1+3x4x4``. A task of
duration ``d`` (at speed 1) takes ``d / speed`` on the node.

In the slot mode slots may carry weights (``slot_weights=(w_M, w_R)``): a node's map side then
holds ``map slots × w_M`` units and its reduce side ``reduce slots × w_R``; a map task takes
``w_M`` units, a reduce task ``w_R``. Only a scheduler that lets tasks use the other side's slots
(DynamicMR's slot borrowing) sees a difference: on 8 map / 4 reduce slots with weights 1 / 2,
16 maps or 8 reduces fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError

_GROUP = re.compile(r"^\s*(\d+)\s*[x×*]\s*(\d+(?:\.\d+)?)\s*([gGmM]?)[bB]?\s*[x×*]\s*(\d+)\s*"
                    r"(?:@\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?))?)?\s*$")


@dataclass(frozen=True)
class Cluster:
    """Node capacities, shape (n_nodes, 2): (memory MB, vcores), or (map, reduce) slots."""

    capacity: np.ndarray
    slots: bool = False
    #: per node (map speed, reduce speed); None: every node runs at speed 1
    speed: np.ndarray | None = None
    #: slot mode: units a map slot and a reduce slot are worth (see the module docstring)
    slot_weights: tuple[int, int] = (1, 1)

    def __post_init__(self) -> None:
        cap = np.asarray(self.capacity, dtype=np.int64).reshape(-1, 2)
        if len(cap) == 0:
            raise ConfigError("a cluster needs at least one node")
        if (cap < 0).any() or (cap.sum(axis=1) == 0).any():
            raise ConfigError("node capacities must be non-negative and not all zero")
        object.__setattr__(self, "capacity", cap)
        speed = np.ones((len(cap), 2)) if self.speed is None else np.asarray(
            self.speed, dtype=np.float64)
        if speed.ndim == 1:
            speed = np.repeat(speed[:, None], 2, axis=1)
        if speed.shape != (len(cap), 2) or not (np.isfinite(speed) & (speed > 0)).all():
            raise ConfigError("node speeds must be positive numbers, one (or a map and a reduce "
                              "speed) per node")
        object.__setattr__(self, "speed", speed)
        w = tuple(int(x) for x in self.slot_weights)
        if len(w) != 2 or min(w) < 1 or (w != (1, 1) and not self.slots):
            raise ConfigError(f"slot weights {self.slot_weights!r}: two integers ≥ 1, "
                              "for a slot cluster only")
        object.__setattr__(self, "slot_weights", w)

    @classmethod
    def homogeneous(cls, nodes: int, memory_mb: int, vcores: int) -> Cluster:
        """``nodes`` identical YARN NodeManagers."""
        return cls(np.tile([memory_mb, vcores], (nodes, 1)))

    @classmethod
    def mrv1(cls, nodes: int, map_slots: int, reduce_slots: int,
             slot_weights: tuple[int, int] = (1, 1)) -> Cluster:
        """An MRv1 cluster of ``nodes`` TaskTrackers with fixed map and reduce slots."""
        return cls(np.tile([map_slots, reduce_slots], (nodes, 1)), slots=True,
                   slot_weights=slot_weights)

    @classmethod
    def parse(cls, spec: str, *, slots: bool = False) -> Cluster:
        """Parse ``NODES×MEM×VCORES[+...]`` (or ``NODES×MAPS×REDUCES`` with ``slots``)."""
        rows: list[tuple[int, int]] = []
        speeds: list[tuple[float, float]] = []
        for group in spec.split("+"):
            m = _GROUP.match(group)
            if not m:
                raise ConfigError(f"cluster spec {spec!r}: expected NODES×MEM×VCORES[@SPEED], "
                                  f"e.g. 8x8g×8, found {group!r}")
            nodes, amount, unit, third = int(m[1]), float(m[2]), m[3].lower(), int(m[4])
            if slots and unit:
                raise ConfigError(f"cluster spec {spec!r}: slot counts take no unit")
            second = round(amount * (1024 if unit == "g" else 1))
            rows.extend([(second, third)] * nodes)
            fast = float(m[5]) if m[5] else 1.0
            speeds.extend([(fast, float(m[6]) if m[6] else fast)] * nodes)
        return cls(np.array(rows, dtype=np.int64), slots=slots, speed=np.array(speeds))

    @property
    def n_nodes(self) -> int:
        return len(self.capacity)

    @property
    def total(self) -> tuple[int, int]:
        """Summed capacity of both dimensions."""
        t = self.capacity.sum(axis=0)
        return int(t[0]), int(t[1])

    @property
    def units(self) -> np.ndarray:
        """What the simulator allocates: the capacity, slots times their weights."""
        return self.capacity * np.asarray(self.slot_weights, dtype=np.int64)

    @property
    def uniform_speed(self) -> bool:
        return bool((self.speed == 1.0).all())  # type: ignore[union-attr]

    def describe(self) -> str:
        kind = "map/reduce slots" if self.slots else "MB/vcores"
        rows = np.concatenate([self.capacity, self.speed], axis=1)  # type: ignore[list-item]
        uniq, counts = np.unique(rows, axis=0, return_counts=True)
        groups = []
        for (a, b, sm, sr), c in zip(uniq, counts, strict=True):
            speed = "" if sm == sr == 1 else f"@{sm:g}" if sm == sr else f"@{sm:g}/{sr:g}"
            groups.append(f"{c}×{int(a)}×{int(b)}{speed}")
        weights = "" if self.slot_weights == (1, 1) else (
            f", slot weights {self.slot_weights[0]}/{self.slot_weights[1]}")
        return f"{'+'.join(groups)} ({kind}{weights})"
