"""FIFO: containers go to the earliest-submitted job whose next container fits."""

from __future__ import annotations

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import Policy
from jobsize.sim.queues import KeyedQueue


class FIFO(Policy):
    """YARN's FifoScheduler: strict submission order, skipping requests that do not fit."""

    name = "fifo"

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.queue = KeyedQueue(sim, key=float)  # job index = submission order

    def on_demand(self, j: int) -> None:
        self.queue.add(j)

    def choose(self, node: int) -> tuple[int, int] | None:
        return self.queue.pick(node)

    def native_order(self) -> str | None:
        return "arrival" if type(self) is FIFO else None  # a subclass may decide otherwise
