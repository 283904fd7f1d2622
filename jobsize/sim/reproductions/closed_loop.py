"""Closed-loop submission: a job is submitted only when its predecessor has finished (and a think
time has passed), as a script that launches queries one after another does.

The event loop knows only trace submission times, so :class:`ClosedLoop` wraps a scheduler:
a chained job reaches the scheduler (``on_arrival``, ``on_demand``) only when it is released;
until then it asks for nothing. ``released[j]`` is the time job j was really submitted.
"""

from __future__ import annotations

from collections.abc import Mapping

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import Policy
from jobsize.sim.reproductions.wrapping import Wrapped


class ClosedLoop(Wrapped):
    """``inner`` with ``chains[j] = (predecessor, think_s)``: job j is submitted ``think_s``
    after its predecessor finished (or at its trace time, if that is later)."""

    def __init__(self, inner: Policy, chains: Mapping[int, tuple[int, float]]) -> None:
        super().__init__(inner)
        self.chains = dict(chains)
        self._next: dict[int, list[int]] = {}
        for j, (pred, _) in self.chains.items():
            self._next.setdefault(pred, []).append(j)

    def bind(self, sim: Simulation) -> None:
        self.released: dict[int, float] = {}
        self._due: set[int] = set()  # released before its trace time
        self._held: set[int] = set()
        super().bind(sim)

    def on_arrival(self, j: int) -> None:
        if j in self.chains and j not in self._due:
            self._held.add(j)
            return
        self.released[j] = self.sim.now
        self.inner.on_arrival(j)

    def on_demand(self, j: int) -> None:
        if j not in self._held:
            self.inner.on_demand(j)

    def on_job_finish(self, j: int) -> None:
        self.inner.on_job_finish(j)
        for k in self._next.get(j, ()):
            think = self.chains[k][1]
            if think > 0:
                self.sim.wake_at(self.sim.now + think, ("closed-loop", k))
            else:
                self._release(k)

    def _release(self, j: int) -> None:
        if j not in self._held:  # its trace time has not come: it arrives then
            self._due.add(j)
            return
        self._held.discard(j)
        self.released[j] = self.sim.now
        self.inner.on_arrival(j)
        self.inner.on_demand(j)
        self.sim.request_offers()

    def on_wake(self, tag: object) -> None:
        if isinstance(tag, tuple) and len(tag) == 2 and tag[0] == "closed-loop":
            self._release(tag[1])  # type: ignore[arg-type]
        else:
            self.inner.on_wake(tag)
