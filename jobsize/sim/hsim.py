"""HSim: FIFO on MRv1 slots for jobs whose tasks of a phase all take the same time.

MROrder's simulation-based ordering (Tang's thesis, §3.4.2.3, "SIM") evaluates every order of a
few jobs described only by (number of maps, number of reduces, mean map time, mean reduce time)
on an empty cluster of ``|S^M|`` map and ``|S^R|`` reduce slots, under Hadoop's FIFO:

- map slots go to the jobs' maps in the given order;
- a job's reduces start once all its maps have finished (Fig 3.3), and a free reduce slot goes
  to the first job in the order whose maps are done and whose reduces are not all started — so
  a later job's reduces may overtake an earlier job's;
- at one instant, completions come before assignments.

Equal task times make the slots collapse into groups free at the same time, so a phase costs
one step per wave instead of one per task; the result equals the event loop's
(:class:`jobsize.sim.eventloop.Simulation` with FIFO and slow-start 1.0) on the same jobs.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

INF = math.inf


@dataclass(frozen=True)
class PhaseJob:
    """A job as HSim sees it: task counts and per-task times of both phases."""

    maps: int
    map_s: float
    reduces: int
    reduce_s: float


class _Slots:
    """Slots as groups ``(free at, count)``; the earliest group first."""

    def __init__(self, count: int) -> None:
        self.heap: list[tuple[float, int]] = [(0.0, count)] if count > 0 else []

    def earliest(self) -> float:
        return self.heap[0][0] if self.heap else INF

    def _add(self, t: float, c: int) -> None:
        heapq.heappush(self.heap, (t, c))

    def fill(self, n: int, d: float, until: float = INF) -> tuple[int, float]:
        """Start up to ``n`` tasks of ``d`` seconds on the earliest free slots, none at or after
        ``until``. Returns (tasks started, latest start)."""
        started, last = 0, -INF
        heap = self.heap
        while started < n and heap and heap[0][0] < until:
            t, c = heapq.heappop(heap)
            while heap and heap[0][0] == t:  # merge groups free at the same instant
                c += heapq.heappop(heap)[1]
            k = min(c, n - started)
            started += k
            last = t
            self._add(t + d, k)  # one wave: times add up as the event loop's do
            if c > k:
                self._add(t, c - k)
        return started, last

    def wait_until(self, t: float) -> None:
        """Slots free before ``t`` idle until ``t``."""
        moved = 0
        while self.heap and self.heap[0][0] < t:
            moved += heapq.heappop(self.heap)[1]
        if moved:
            self._add(t, moved)


def hsim(jobs: Sequence[PhaseJob], map_slots: int, reduce_slots: int) -> list[float]:
    """Completion times of ``jobs`` run in this order from an empty cluster at time 0."""
    n = len(jobs)
    maps = _Slots(map_slots)
    ready = [0.0] * n  # when each job's maps have all finished
    for i, job in enumerate(jobs):
        if job.maps:
            started, last = maps.fill(job.maps, job.map_s)
            ready[i] = last + job.map_s
    done = list(ready)
    left = [job.reduces for job in jobs]
    reduces = _Slots(reduce_slots)
    while any(left):
        t = reduces.earliest()
        waiting = [i for i in range(n) if left[i] and ready[i] <= t]
        if not waiting:
            reduces.wait_until(min(ready[i] for i in range(n) if left[i]))
            continue
        i = waiting[0]
        # slots free from the moment an earlier job becomes ready go to that job
        until = min((ready[k] for k in range(i) if left[k] and ready[k] > t), default=INF)
        started, last = reduces.fill(left[i], jobs[i].reduce_s, until)
        if started:
            left[i] -= started
            done[i] = max(done[i], last + jobs[i].reduce_s)
    return done


def best_order(jobs: Sequence[PhaseJob], map_slots: int, reduce_slots: int,
               objective: str = "makespan") -> list[int]:
    """SIM: the order of ``jobs`` with the least makespan (or total completion time, ``"tct"``)
    over all ``len(jobs)!`` orders; ties go to the earliest order in lexicographic order."""
    if objective not in ("makespan", "tct"):
        raise ValueError(f"objective {objective!r}")
    best, best_val = list(range(len(jobs))), INF
    for perm in itertools.permutations(range(len(jobs))):
        done = hsim([jobs[i] for i in perm], map_slots, reduce_slots)
        val = max(done, default=0.0) if objective == "makespan" else sum(done)
        if val < best_val:
            best, best_val = list(perm), val
    return best
