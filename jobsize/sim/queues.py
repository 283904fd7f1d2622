"""Ordered job queues: the building block of YARN-model policies.

A :class:`KeyedQueue` keeps the jobs that wait for containers ordered by a key the policy
defines (arrival for FIFO, usage/weight for Fair, estimated remaining size for SRPT, virtual
size for FSPY's size-based queue). Keys live in heaps with lazy invalidation: ``touch(j)``
pushes a fresh entry and makes the old one stale, so a decision never scans all jobs. A job
without demand leaves the queue when met at the top; ``on_demand`` brings it back.

A key that *grows* (a Fair job gets a container) need not be touched: the head's key is
recomputed when it reaches the top, and re-filed if it grew, so every entry is a lower bound of
its job's key and the head is exact. A key that *shrinks* (a container is released, a task of an
SRPT job completes) must be touched. A touched job whose live entry is still a lower bound keeps
it: a Fair job that releases a container taken since its entry was filed is back at that key,
and pushing a second entry would only leave a stale one to pop.

Jobs waiting for their AM and jobs running tasks sit in two heaps. When the head of a heap
cannot use a node and every job in that heap asks for the same container shape (the usual
case: one AM size, one task size), no other job of that heap can either, so ``pick`` stops
looking there instead of walking past hundreds of jobs waiting for an AM slot. A node that no
AM can start on (too little room for the smallest, or the max AM share reached) is offered to
the running jobs alone.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobsize.sim.eventloop import Simulation

Entry = tuple[float, int, int]  # key, job, version (negative in the AM heap)


class KeyedQueue:
    """Jobs with pending demand, smallest key first (ties: earlier job)."""

    def __init__(self, sim: Simulation, key: Callable[[int], float]) -> None:
        self.sim = sim
        self.key = key
        self._heaps: tuple[list[Entry], list[Entry]] = ([], [])  # waiting for AM, running
        self._ver: dict[int, Entry] = {}  # job -> its live entry (absent: not queued)
        self._n = 0
        self._uniform = (sim.uniform_am, sim.uniform_task)
        # the loop's lists (never replaced), read at every decision
        self._state = (sim.phase, sim.maps_todo, sim.reduces_todo, sim.reduce_ready)

    def __contains__(self, j: int) -> bool:
        return j in self._ver

    def __len__(self) -> int:
        return len(self._ver)

    def jobs(self) -> list[int]:
        """Queued jobs (in no particular order)."""
        return list(self._ver)

    def touch(self, j: int) -> None:
        """(Re)insert ``j`` with its current key (or keep its entry while that is a lower bound
        of it), if it has demand; drop it otherwise."""
        sim = self.sim
        ph = sim.phase[j]  # sim.has_demand(j), inlined: this runs for every container
        if ph == 1 or (ph == 3 and (sim.maps_todo[j] > 0
                                    or (sim.reduce_ready[j] and sim.reduces_todo[j] > 0))):
            key = self.key(j)
            live = self._ver.get(j)
            # a lower bound in the right heap serves as well: the head is re-filed when met
            if live is None or live[0] > key or (live[2] < 0) != (ph == 1):
                self._push(j, key, ph == 1)
        else:
            self._ver.pop(j, None)

    def _push(self, j: int, key: float, am: bool) -> None:
        self._n += 1
        entry = (key, j, -self._n if am else self._n)
        self._ver[j] = entry
        heap = self._heaps[0 if am else 1]
        heapq.heappush(heap, entry)
        if len(heap) > 64 and len(heap) > 4 * len(self._ver):
            self._compact(heap)

    def add(self, j: int) -> None:
        """Insert ``j`` unless already queued in the right heap (its key has not changed)."""
        if j not in self._ver or self.sim.phase[j] == 3:  # an AM start moves it between heaps
            self.touch(j)

    def remove(self, j: int) -> None:
        self._ver.pop(j, None)

    def _compact(self, heap: list[Entry]) -> None:
        ver = self._ver
        heap[:] = [e for e in heap if ver.get(e[1]) is e]
        heapq.heapify(heap)

    def _top(self, heap: list[Entry]) -> Entry | None:
        """The live head of ``heap`` (stale entries and jobs without demand are dropped, grown
        keys re-filed)."""
        ver, key = self._ver, self.key
        phase, maps_todo, reduces_todo, ready = self._state
        while heap:
            entry = heap[0]
            j = entry[1]
            if ver.get(j) is not entry:
                heapq.heappop(heap)
                continue
            ph = phase[j]  # sim.has_demand(j), inlined: this runs for every container
            if ph != 1 and (ph != 3 or not (maps_todo[j] > 0
                                            or (ready[j] and reduces_todo[j] > 0))):
                heapq.heappop(heap)
                del ver[j]
            else:
                k = key(j)
                if k <= entry[0]:
                    return entry
                self._n += 1
                entry = ver[j] = (k, j, self._n if entry[2] > 0 else -self._n)
                heapq.heapreplace(heap, entry)
        return None

    def head(self) -> int:
        """The first job with demand, or -1."""
        tops = [e for e in (self._top(h) for h in self._heaps) if e is not None]
        return min(tops)[1] if tops else -1

    def pick(self, node: int, *, ams: bool = True) -> tuple[int, int] | None:
        """The first job whose next container fits ``node``, and that container's kind;
        with ``ams`` False, no job waiting for its AM (the policy's own AM limit is reached)."""
        sim = self.sim
        heaps = self._heaps
        if not heaps[0] or not ams or not sim.am_may_start(node):
            # fast path: nobody waits for an AM, or none may start here: the running jobs
            # decide, and their head usually fits
            top = self._top(heaps[1])
            if top is None:
                return None
            kind = sim.next_kind(top[1], node)
            if kind >= 0:
                return top[1], kind
        blocked = [not ams or not sim.am_admissible(), False]
        skipped: tuple[list[Entry], list[Entry]] = ([], [])
        found = None
        while True:
            best, h = None, -1
            for i in (0, 1):
                if not blocked[i]:
                    top = self._top(heaps[i])
                    if top is not None and (best is None or top < best):
                        best, h = top, i
            if best is None:
                break
            kind = sim.next_kind(best[1], node)
            if kind >= 0:
                found = (best[1], kind)
                break
            skipped[h].append(heapq.heappop(heaps[h]))
            if self._uniform[h]:
                blocked[h] = True  # same shape everywhere in this heap: nothing else fits
        for i in (0, 1):
            for entry in skipped[i]:
                heapq.heappush(heaps[i], entry)
        return found
