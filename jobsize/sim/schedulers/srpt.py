"""SRPT on a size source: the job with the smallest estimated remaining size goes first."""

from __future__ import annotations

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, EXTRA, Policy
from jobsize.sim.queues import KeyedQueue
from jobsize.sim.size_sources import ExactSizes, SizeSource


class SRPT(Policy):
    """Shortest remaining (estimated) processing time first.

    The remaining size of a job is its estimated size S (eq 5, memory MB·s; in the slot mode
    slot·s) minus the work of its completed tasks as observed when they finish. A job whose
    estimate was too small reaches a negative remainder and keeps the head of the queue.
    """

    name = "srpt"

    def __init__(self, size_source: SizeSource | None = None) -> None:
        self.size_source = size_source or ExactSizes()

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        est = sim.estimates(self.size_source)
        slots = sim.cluster.slots
        self.est = (est.map_time_s + est.reduce_time_s if slots else est.size_mb_s).tolist()
        self.done = [0.0] * sim.n
        self._weight0 = ([[1] * sim.n] * 3) if slots else sim.req0
        self.queue = KeyedQueue(sim, key=lambda j: self.est[j] - self.done[j])

    def on_demand(self, j: int) -> None:
        self.queue.add(j)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        if completed and kind not in (AM, EXTRA):
            self.done[j] += self._weight0[kind][j] * elapsed_s
            if j in self.queue:
                self.queue.touch(j)

    def choose(self, node: int) -> tuple[int, int] | None:
        return self.queue.pick(node)

    def describe(self) -> str:
        return f"srpt[{self.size_source.name}]"
