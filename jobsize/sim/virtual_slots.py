"""HFSP's virtual cluster: one phase (map or reduce) of a slot cluster shared max-min fairly.

HFSP (Pastorelli, Carra, Dell'Amico, Michiardi) simulates, for each phase, a cluster with as
many slots as the real one running max-min fair sharing over the jobs' *estimated* tasks. The
time a job needs there — its *virtual time* — shrinks as the simulated cluster serves it, which
ages the job: a large job that has waited long enough in the real cluster eventually has the
smallest virtual time and goes first. Real jobs are scheduled by smallest remaining virtual
time; a job whose virtual tasks are all done but whose real ones are not (a *late* job) has
virtual time 0 and keeps its virtual-finish order.

A job's phase is ``n`` tasks of an estimated duration ``d`` each (its remaining virtual time is
the sum of its tasks' remaining durations). Slots are dealt max-min: the fair level is the
largest ``L`` with ``Σ min(waiting_j, L) ≤ slots``, and the slots left over go one each to the
earliest-submitted jobs that want more, as the reference implementation's round robin over
jobs does. A job's slots run its lowest-numbered unfinished tasks, so a task interrupted when
the shares change resumes first. When a job's estimate changes (its training tasks finished),
every task keeps its progress fraction under the new duration.

Everything here is event-exact: :meth:`MaxMinCluster.next_event` is the next virtual task
completion, when the shares change; :meth:`MaxMinCluster.advance` moves time forward through
the completions in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

INF = math.inf
_EPS = 1e-9


@dataclass(slots=True)
class PhaseJob:
    """One job's virtual tasks in a phase: started tasks' remaining durations (in task order)
    and the number of untouched tasks of duration ``d``."""

    d: float
    fresh: int
    started: list[float] = field(default_factory=list)
    slots: int = 0
    finish_position: int = 0  # 1, 2, ... once all virtual tasks are done

    @property
    def waiting(self) -> int:
        return len(self.started) + self.fresh

    def remaining(self) -> float:
        return sum(self.started) + self.fresh * self.d


class MaxMinCluster:
    """A virtual phase cluster of ``slots`` slots (see the module docstring)."""

    def __init__(self, slots: int, now: float = 0.0) -> None:
        self.n_slots = int(slots)
        self.jobs: dict[int, PhaseJob] = {}  # in submission order
        self.now = now
        self._finished = 0
        self._running: list[tuple[int, PhaseJob]] = []  # jobs holding virtual slots
        self._next = INF  # time to the next virtual task completion

    def __contains__(self, j: int) -> bool:
        return j in self.jobs

    def add(self, j: int, n_tasks: int, duration: float) -> None:
        """Add job ``j`` with ``n_tasks`` virtual tasks of ``duration`` seconds each."""
        self.jobs[j] = PhaseJob(float(duration), int(n_tasks))
        if n_tasks <= 0:
            self._done(self.jobs[j])
        self._share()

    def remove(self, j: int) -> None:
        if self.jobs.pop(j, None) is not None:
            self._share()

    def resize(self, slots: int) -> None:
        """Change the number of slots from now on (advance to now first)."""
        if int(slots) != self.n_slots:
            self.n_slots = int(slots)
            self._share()

    def estimate(self, j: int, duration: float) -> None:
        """Set job ``j``'s per-task duration; started tasks keep their progress fraction."""
        job = self.jobs[j]
        if job.d > 0:
            scale = duration / job.d
            job.started = [r * scale for r in job.started]
        job.d = float(duration)
        self._share()

    def remaining(self, j: int) -> float:
        """Remaining virtual time of ``j`` (0 once its virtual tasks are done)."""
        return self.jobs[j].remaining()

    def finish_position(self, j: int) -> int:
        """1, 2, ... in virtual-finish order; 0 while ``j`` still has virtual tasks."""
        return self.jobs[j].finish_position

    def per_task(self, j: int) -> float:
        return self.jobs[j].d

    # -- max-min shares -----------------------------------------------------------------------

    def _share(self) -> None:
        """Deal the slots max-min over the jobs with waiting virtual tasks."""
        active = [job for job in self.jobs.values() if job.waiting > 0]
        for job in self.jobs.values():
            job.slots = 0
        self._running = []
        self._next = INF
        if not active:
            return
        demands = sorted(job.waiting for job in active)
        free, level, left = self.n_slots, 0, len(demands)
        for w in demands:  # raise the level until the slots run out
            if (w - level) * left <= free:
                free -= (w - level) * left
                level = w
                left -= 1
            else:
                level += free // left
                free -= (free // left) * left
                break
        for job in active:
            job.slots = min(job.waiting, level)
        for job in active:  # the rest, one each, to the earliest jobs that want more
            if free <= 0:
                break
            if job.slots < job.waiting:
                job.slots += 1
                free -= 1
        for job in active:  # running tasks are the first ``slots`` ones
            start = job.slots - len(job.started)
            if start > 0:
                job.started.extend([job.d] * start)
                job.fresh -= start
        self._running = [(j, job) for j, job in self.jobs.items() if job.slots]
        self._next = min((min(job.started[:job.slots]) for _, job in self._running),
                         default=INF)

    # -- time ---------------------------------------------------------------------------------

    def next_event(self) -> float:
        """Absolute time of the next virtual task completion (``inf`` if nothing runs)."""
        return self.now + self._next

    def advance(self, to: float) -> list[int]:
        """Move virtual time to ``to``; returns the jobs whose virtual tasks all finished."""
        done: list[int] = []
        # every completion due by ``to``, even one that moves no time on (a task of 0 s, or a
        # step too small to change ``now``): each round ends at least one virtual task
        while self.now + self._next <= to:
            step = self._next
            self._run(step, done)
            self.now += step
        if self.now < to:
            if self._next != INF:
                self._run(to - self.now, done)
            self.now = to
        return done

    def _run(self, step: float, done: list[int]) -> None:
        changed = False
        nxt = INF
        for j, job in self._running:
            run = job.started
            k = job.slots
            for i in range(k):
                run[i] -= step
            m = min(run[:k])
            slack = _EPS * max(1.0, job.d)
            if m <= slack:
                job.started = [r for i, r in enumerate(run) if i >= k or r > slack]
                changed = True
                if not job.waiting:
                    self._done(job)
                    done.append(j)
            elif m < nxt:
                nxt = m
        if changed:
            self._share()
        else:
            self._next = nxt

    def _done(self, job: PhaseJob) -> None:
        self._finished += 1
        job.finish_position = self._finished
