"""FSPY's virtual Fair cluster: Virtual Resource Allocation (Alg 2) and Virtual Size Calculation
(Alg 3) of the paper's §III-B.

Every job submitted to the real cluster is also submitted to a virtual cluster with the same
resources that runs Fair scheduling. A job's *virtual size* is what remains of it there; FSPY
runs real jobs in the order of their virtual sizes, so that (as in FSP) no job finishes much
later than it would under Fair.

The virtual queue holds the pending virtual jobs ordered by the memory of their average
parallelism bound (APB, eq 3), the paper's choice. Quantities are (memory, vcores) pairs:

- **VRA** (Alg 2): going through the queue in order, each job's fair share is the resource not
  yet given away divided by the jobs still to serve; a job whose APB fits in its fair share gets
  its APB, a larger job gets its APB scaled down to the fair share. With two resources the
  scaling factor is the smallest ``fairShare_d / APB_d`` over the dimensions (the dominant one
  binds, as in DRF): ``virtualResource = APB × min(1, min_d fairShare_d / APB_d)``. What a
  small job leaves unused flows to the jobs after it.
- **VSC** (Alg 3): over the interval since the last update, a job's virtual size shrinks by
  its virtual resource times the interval; for jobs not in uber mode the AM container's
  resources are excluded first (the AM manages, it does no work): ``VS −= (virtualResource −
  AM) × interval``. A job whose share does not exceed its AM makes no virtual progress (the
  difference is clipped at 0 rather than growing the size). A job whose memory virtual size
  reaches 0 has finished virtually and leaves the queue.

Alg 2 gives every pending job a share, as if each held its AM. The Fair scheduler it stands for
admits ApplicationMasters only up to ``maxAMShare`` of the cluster (jobs beyond wait, holding
nothing); with ``am_share`` set, the virtual cluster does the same — jobs are admitted in
submission order while their AMs fit in ``am_share`` of the cluster (the first always fits),
stay admitted until they leave, and VRA shares the cluster among admitted jobs only. Without
it, once the jobs' AMs fill the cluster every job's ``virtualResource − AM`` is 0 and the
virtual cluster stops for good.

VSC must run before anything changes the queue (it applies the allocation of the last VRA up
to now), and VRA after. The virtual cluster knows nothing of the event loop: the scheduler asks
:meth:`VirtualCluster.next_completion` for the time of the next virtual completion and turns it
into an event.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

INF = math.inf
#: A virtual size within this many seconds of work of zero counts as finished (float slack).
FINISH_SLACK_S = 1e-9


@dataclass(slots=True)
class VirtualJob:
    """One virtual job: sizes in (MB·s, vcore·s), resources in (MB, vcores)."""

    size_mem: float
    size_vc: float
    apb_mem: float
    apb_vc: float
    am_mem: float
    am_vc: float
    uber: bool
    res_mem: float = 0.0
    res_vc: float = 0.0

    def effective(self) -> tuple[float, float]:
        """Resources that make virtual progress: the virtual resource minus the AM (Alg 3)."""
        if self.uber:
            return self.res_mem, self.res_vc
        return max(self.res_mem - self.am_mem, 0.0), max(self.res_vc - self.am_vc, 0.0)


class VirtualCluster:
    """The virtual Fair cluster of capacity ``(memory MB, vcores)`` (see the module docstring)."""

    def __init__(self, capacity: tuple[float, float], now: float = 0.0,
                 am_share: float | None = None) -> None:
        self.capacity = (float(capacity[0]), float(capacity[1]))
        self.jobs: dict[int, VirtualJob] = {}  # in submission order
        self.last_update = now
        self.am_share = am_share
        # the jobs VRA shares the cluster among (all, or the admitted ones), in APB order;
        # only they can hold a virtual resource, so VSC looks at no other job
        self._live: list[tuple[float, int]] = []
        self._waiting: dict[int, None] = {}  # not admitted yet, in submission order
        self._am_used = [0.0, 0.0]

    def __contains__(self, j: int) -> bool:
        return j in self.jobs

    def __len__(self) -> int:
        return len(self.jobs)

    def queue(self) -> list[int]:
        """Jobs in virtual-queue order (APB memory, then job index)."""
        return [j for _, j in sorted((job.apb_mem, j) for j, job in self.jobs.items())]

    @property
    def admitted(self) -> set[int]:
        """Jobs holding an AM in the virtual cluster (every job without an AM share)."""
        return {j for _, j in self._live}

    # -- membership ---------------------------------------------------------------------------

    def add(self, j: int, size: tuple[float, float], apb: tuple[float, float],
            am: tuple[float, float], uber: bool = False) -> None:
        """Submit job ``j`` with virtual size ``size`` and parallelism bound ``apb``."""
        self.jobs[j] = VirtualJob(float(size[0]), float(size[1]), float(apb[0]), float(apb[1]),
                                  float(am[0]), float(am[1]), uber)
        if self.am_share is None:
            bisect.insort(self._live, (float(apb[0]), j))
        else:
            self._waiting[j] = None

    def remove(self, j: int) -> None:
        job = self.jobs.pop(j, None)
        if job is None:
            return
        if j in self._waiting:
            del self._waiting[j]
            return
        self._live.pop(bisect.bisect_left(self._live, (job.apb_mem, j)))
        if self.am_share is not None:
            self._am_used[0] -= job.am_mem
            self._am_used[1] -= job.am_vc

    def update(self, j: int, size: tuple[float, float], apb: tuple[float, float]) -> None:
        """Set job ``j``'s virtual size and APB (once its size is predicted, eq 10)."""
        job = self.jobs[j]
        live = j not in self._waiting
        if live:
            self._live.pop(bisect.bisect_left(self._live, (job.apb_mem, j)))
        job.size_mem, job.size_vc = float(size[0]), float(size[1])
        job.apb_mem, job.apb_vc = float(apb[0]), float(apb[1])
        if live:
            bisect.insort(self._live, (job.apb_mem, j))

    def size(self, j: int) -> tuple[float, float]:
        """Virtual size of ``j`` as of the last VSC."""
        job = self.jobs[j]
        return job.size_mem, job.size_vc

    def resource(self, j: int) -> tuple[float, float]:
        """Virtual resource of ``j`` from the last VRA."""
        job = self.jobs[j]
        return job.res_mem, job.res_vc

    def progressing(self) -> list[int]:
        """Jobs whose virtual size may shrink (those VRA shares the cluster among)."""
        return [j for _, j in self._live]

    # -- Algorithm 2 --------------------------------------------------------------------------

    def vra(self) -> None:
        """Virtual Resource Allocation (Alg 2) over the virtual queue in APB order."""
        if self.am_share is not None:
            self._admit()
        rem_mem, rem_vc = self.capacity
        jobs = self.jobs
        left = len(self._live)
        for apb_mem, j in self._live:
            job = jobs[j]
            share_mem, share_vc = rem_mem / left, rem_vc / left
            feed = 1.0
            if apb_mem > share_mem:
                feed = share_mem / apb_mem
            if job.apb_vc > share_vc:
                feed = min(feed, share_vc / job.apb_vc)
            job.res_mem, job.res_vc = apb_mem * feed, job.apb_vc * feed
            rem_mem -= job.res_mem
            rem_vc -= job.res_vc
            left -= 1

    def _admit(self) -> None:
        """Admit waiting jobs in submission order while their AMs fit in the AM share."""
        limit_mem = self.am_share * self.capacity[0]  # type: ignore[operator]
        limit_vc = self.am_share * self.capacity[1]  # type: ignore[operator]
        used = self._am_used
        while self._waiting:
            j = next(iter(self._waiting))
            job = self.jobs[j]
            if self._live and (used[0] + job.am_mem > limit_mem + 1e-9
                               or used[1] + job.am_vc > limit_vc + 1e-9):
                break  # Fair admits AMs in order: a later job does not jump the queue
            del self._waiting[j]
            bisect.insort(self._live, (job.apb_mem, j))
            used[0] += job.am_mem
            used[1] += job.am_vc

    # -- Algorithm 3 --------------------------------------------------------------------------

    def vsc(self, now: float) -> list[int]:
        """Virtual Size Calculation (Alg 3) up to ``now``.

        Returns the jobs that finished virtually in the interval, in the order they reached 0,
        and removes them from the virtual queue.
        """
        interval = now - self.last_update
        self.last_update = now
        done: list[tuple[float, int]] = []
        if interval <= 0:
            interval = 0.0
        jobs = self.jobs
        for _, j in self._live:
            job = jobs[j]
            eff_mem, eff_vc = job.effective()
            if eff_mem <= 0 and eff_vc <= 0:
                continue
            before = job.size_mem
            job.size_mem -= eff_mem * interval
            job.size_vc -= eff_vc * interval
            if eff_mem > 0 and job.size_mem <= eff_mem * FINISH_SLACK_S:
                done.append((before / eff_mem, j))
        done.sort()
        for _, j in done:
            self.remove(j)
        return [j for _, j in done]

    def next_completion(self) -> float:
        """Absolute time at which the next job finishes virtually under the current allocation
        (``inf`` if none progresses)."""
        best = INF
        jobs = self.jobs
        for _, j in self._live:
            eff_mem, _ = jobs[j].effective()
            if eff_mem > 0:
                job = jobs[j]
                t = job.size_mem / eff_mem
                if t < best:
                    best = t
        return self.last_update + max(best, 0.0)
