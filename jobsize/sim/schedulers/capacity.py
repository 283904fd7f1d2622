"""Hadoop's Capacity scheduler: queues with a guaranteed capacity and a maximum capacity.

Free resources go to the queue with the lowest used/guaranteed ratio that has demand and is
below its maximum capacity, so idle capacity of one queue is lent to the others (and returns as
their containers finish; this model does not preempt). Inside a queue jobs run FIFO or fair
(lowest memory usage/weight first).

The AM share (``maximum-am-resource-percent``, the simulation's ``max_am_share``) holds for each
queue of its guaranteed capacity, as in Hadoop's CapacityScheduler, and a queue with no AM
running may always start one: a small queue runs one job at a time rather than filling itself
with AMs that wait for tasks it has no room for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, EXTRA, Policy
from jobsize.sim.queues import KeyedQueue


@dataclass(frozen=True)
class CapacityQueue:
    """A queue: capacity and max capacity as fractions of the cluster, order inside."""

    name: str
    capacity: float
    max_capacity: float = 1.0
    order: str = "fifo"

    def __post_init__(self) -> None:
        if not 0 < self.capacity <= 1 or not self.capacity <= self.max_capacity <= 1:
            raise ConfigError(f"capacity queue {self.name!r}: need 0 < capacity ≤ "
                              f"max-capacity ≤ 1, found {self.capacity}, {self.max_capacity}")
        if self.order not in ("fifo", "fair"):
            raise ConfigError(f"capacity queue {self.name!r}: order {self.order!r} is not "
                              "'fifo' or 'fair'")


def parse_queues(spec: str) -> list[CapacityQueue]:
    """``name:capacity[:max[:order]],...`` → queues, e.g. ``prod:0.7:1.0:fair,dev:0.3``."""
    queues = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        fields = part.split(":")
        try:
            cap = float(fields[1])
            mx = float(fields[2]) if len(fields) > 2 and fields[2] else 1.0
        except (IndexError, ValueError):
            raise ConfigError(f"capacity queue {part!r}: expected name:capacity[:max[:order]]") \
                from None
        order = fields[3] if len(fields) > 3 else "fifo"
        queues.append(CapacityQueue(fields[0], cap, mx, order))
    return queues


class Capacity(Policy):
    """Capacity scheduling over ``queues`` (default: one queue ``default`` with everything)."""

    name = "capacity"

    def __init__(self, queues: Sequence[CapacityQueue] | None = None) -> None:
        self.specs = list(queues or [CapacityQueue("default", 1.0)])
        total = sum(q.capacity for q in self.specs)
        if total > 1 + 1e-9:
            raise ConfigError(f"capacity queues sum to {total:g} > 1")

    def describe(self) -> str:
        if len(self.specs) == 1:
            return f"capacity[{self.specs[0].order}]"
        return "capacity[" + ",".join(f"{q.name}:{q.capacity:g}:{q.max_capacity:g}:{q.order}"
                                      for q in self.specs) + "]"

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        index = {q.name: i for i, q in enumerate(self.specs)}
        names = sim.jobs["queue"].astype(str).tolist()
        fallback = index.get("default")
        self.qof = []
        for j, q in enumerate(names):
            if q in index:
                self.qof.append(index[q])
            elif fallback is not None:
                self.qof.append(fallback)
            else:
                raise ConfigError(f"job {sim.jobs['job_id'].iloc[j]}: queue {q!r} is not one of "
                                  f"{', '.join(index)} and there is no 'default' queue")
        dim1 = sim.cluster.slots  # in slot mode both slot kinds count
        self._amount = lambda kind, j: sim.req0[kind][j] + (sim.req1[kind][j] if dim1 else 0)
        total = sim.total0 + (sim.total1 if dim1 else 0)
        self.guaranteed = [q.capacity * total for q in self.specs]
        self.maximum = [q.max_capacity * total for q in self.specs]
        self.used = [0.0] * len(self.specs)
        self.am_share = sim.am_limit0 / sim.total0 if sim.total0 else 1.0
        self.am_used = [0.0] * len(self.specs)
        use0, use1, w = sim.use0, sim.use1, sim.jobs["weight"].to_numpy(float).tolist()
        self.queues = []
        for spec in self.specs:
            key = float if spec.order == "fifo" else (lambda j: (use0[j] + use1[j] * dim1) / w[j])
            self.queues.append(KeyedQueue(sim, key=key))
        self._fair = [spec.order == "fair" for spec in self.specs]

    def on_demand(self, j: int) -> None:
        self.queues[self.qof[j]].add(j)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        q = self.qof[j]
        if kind != EXTRA:
            self.used[q] += self._amount(kind, j)  # a fair job's key grew: re-filed lazily
        if kind == AM:
            self.am_used[q] += self.sim.req0[AM][j]

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        q = self.qof[j]
        if kind != EXTRA:
            self.used[q] -= self._amount(kind, j)
        if kind == AM:
            self.am_used[q] -= self.sim.req0[AM][j]
        if self._fair[q]:
            self.queues[q].touch(j)

    def choose(self, node: int) -> tuple[int, int] | None:
        order = sorted((q for q in range(len(self.queues)) if len(self.queues[q])),
                       key=lambda q: self.used[q] / self.guaranteed[q])
        for q in order:
            pick = self.queues[q].pick(node)
            if pick is not None and pick[1] == AM and not self._am_fits(q, pick[0]):
                pick = self.queues[q].pick(node, ams=False)
            if pick is not None and self.used[q] + self._amount(pick[1], pick[0]) \
                    <= self.maximum[q] + 1e-9:
                return pick
        return None

    def _am_fits(self, q: int, j: int) -> bool:
        """Whether queue ``q``'s AM share has room for ``j``'s AM (always, with none running).

        The share is of the queue's current limit, as the CapacityScheduler computes it: its
        guaranteed capacity, or more while the cluster has room (up to its maximum)."""
        used = self.am_used[q]
        if not used:
            return True
        free = self.sim.total0 - sum(self.used) if not self.sim.cluster.slots else 0.0
        limit = min(self.maximum[q], max(self.guaranteed[q], self.used[q] + free))
        return used + self.sim.req0[AM][j] <= self.am_share * limit + 1e-9
