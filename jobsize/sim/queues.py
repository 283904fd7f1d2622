"""Ordered job queues: the building block of YARN-model policies.

A :class:`KeyedQueue` keeps the jobs that wait for containers ordered by a key the policy
defines (arrival for FIFO, usage/weight for Fair, estimated remaining size for SRPT, virtual
size for FSPY's size-based queue). Keys live in a heap with lazy invalidation: ``touch(j)``
pushes a fresh entry and makes the old one stale, so a decision never scans all jobs. A job
without demand leaves the queue when met at the top; ``on_demand`` brings it back.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobsize.sim.engine import Simulation


class KeyedQueue:
    """Jobs with pending demand, smallest key first (ties: earlier job)."""

    def __init__(self, sim: Simulation, key: Callable[[int], float]) -> None:
        self.sim = sim
        self.key = key
        self._heap: list[tuple[float, int, int]] = []
        self._ver: dict[int, int] = {}  # job -> version of its live entry (absent: not queued)
        self._n = 0

    def __contains__(self, j: int) -> bool:
        return j in self._ver

    def __len__(self) -> int:
        return len(self._ver)

    def jobs(self) -> list[int]:
        """Queued jobs (in no particular order)."""
        return list(self._ver)

    def touch(self, j: int) -> None:
        """(Re)insert ``j`` with its current key, if it has demand; drop it otherwise."""
        if self.sim.has_demand(j):
            self._n += 1
            self._ver[j] = self._n
            heapq.heappush(self._heap, (self.key(j), j, self._n))
            if len(self._heap) > 64 and len(self._heap) > 4 * len(self._ver):
                self._compact()
        else:
            self._ver.pop(j, None)

    def add(self, j: int) -> None:
        """Insert ``j`` unless already queued (its key has not changed)."""
        if j not in self._ver:
            self.touch(j)

    def remove(self, j: int) -> None:
        self._ver.pop(j, None)

    def _compact(self) -> None:
        ver = self._ver
        self._heap = [e for e in self._heap if ver.get(e[1]) == e[2]]
        heapq.heapify(self._heap)

    def head(self) -> int:
        """The first job with demand, or -1."""
        heap, ver, has_demand = self._heap, self._ver, self.sim.has_demand
        while heap:
            _, j, v = heap[0]
            if ver.get(j) != v:
                heapq.heappop(heap)
            elif not has_demand(j):
                heapq.heappop(heap)
                del ver[j]
            else:
                return j
        return -1

    def pick(self, node: int) -> tuple[int, int] | None:
        """The first job whose next container fits ``node``, and that container's kind."""
        heap, ver, sim = self._heap, self._ver, self.sim
        skipped: list[tuple[float, int, int]] = []
        found = None
        while heap:
            entry = heap[0]
            j = entry[1]
            if ver.get(j) != entry[2]:
                heapq.heappop(heap)
                continue
            kind = sim.next_kind(j, node)
            if kind >= 0:
                found = (j, kind)
                break
            heapq.heappop(heap)
            if sim.has_demand(j):
                skipped.append(entry)  # demand that does not fit this node
            else:
                del ver[j]
        for entry in skipped:
            heapq.heappush(heap, entry)
        return found
