"""The fluid job-level model: one server of rate 1 shared by jobs, event-driven and exact.

Between two events every job's service rate is constant, so the simulator jumps from event to
event — arrivals, real completions and the policy's internal events (a virtual completion in
FSP, the moment a job turns late in SRPT+PS, the moment the least-served group catches up with
the next in LAS) — without time steps.

A policy is one small class in the style of Dell'Amico's schedsim:

- ``enqueue(t, j, estimate)`` — job ``j`` arrives with an estimated size (size-based policies
  see only the estimate);
- ``dequeue(t, j)`` — job ``j`` completed;
- ``schedule(t) -> dict[int, float]`` — service rates of the real jobs (summing to at most 1);
- ``advance(dt, rates)`` — time moved on by ``dt`` under ``rates`` (the policy's account of
  the service its jobs got: remainders, virtual systems, attained service);
- ``next_internal_event(t) -> float`` — absolute time of the policy's next internal event, or
  ``inf`` (a policy without any does not define it);
- ``follows_service`` — False for a policy that never looks at the service its jobs get
  (FIFO, PS): ``advance`` is then not called.

A worked case (arrival, size, estimate): (0, 10, 15), (1, 12, 4), (2, 5, 7),
(10, 2, 3) completes at FIFO 10/22/27/29, PS 26/29/19/18, SRPT 29/13/20/15, FSP 29/13/20/15,
FSP+PS 29/13/20/15, SRPT+PS 29/21/19/14, LAS 27/29/17/12.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from jobsize.errors import ConfigError, SimulationError

INF = math.inf
EPS = 1e-9


class Ordered:
    """Jobs by a key, smallest first: keys within float noise of the smallest (``EPS``,
    relative above 1) tie, and a tie goes to the earliest arrival — as it would in exact
    arithmetic, where two jobs' keys can be equal. O(log n) a change, not a scan of every job.
    Keys are stored as pushed; ``offset`` shifts them all alike (FSP's virtual time), so the
    noise is judged on ``key - offset``. A job pushed again takes its new key;
    old entries are skipped when met (lazy deletion)."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, int]] = []
        self.key: dict[int, float] = {}

    def push(self, j: int, key: float, order: int) -> None:
        self.key[j] = key
        heapq.heappush(self.heap, (key, order, j))
        if len(self.heap) > 4 * len(self.key) + 64:  # too many stale entries: rebuild
            self.heap = [e for e in self.heap if self.key.get(e[2]) == e[0]]
            heapq.heapify(self.heap)

    def lower(self, j: int, key: float, order: int) -> None:
        """``j``'s key, lowered: in place when ``j``'s live entry is at the top (a served job,
        the usual case; the heap stays a heap), else pushed again."""
        heap = self.heap
        if heap and heap[0][2] == j and self.key.get(j) == heap[0][0] and key <= heap[0][0]:
            self.key[j] = key
            heap[0] = (key, order, j)
        else:
            self.push(j, key, order)

    def discard(self, j: int) -> None:
        self.key.pop(j, None)

    def smallest(self) -> float:
        """The smallest key (``inf`` when empty)."""
        heap, key = self.heap, self.key
        while heap and key.get(heap[0][2]) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else INF

    def first(self, offset: float = 0.0, noise: float | None = None) -> int | None:
        """The job of smallest key, ties to the earliest arrival, or None; ``noise``: the tie
        tolerance on the keys instead of ``EPS`` relative to ``key - offset``."""
        heap, key = self.heap, self.key
        while heap and key.get(heap[0][2]) != heap[0][0]:  # smallest(), inline: once an event
            heapq.heappop(heap)
        if not heap:
            return None
        low = heap[0][0]
        if noise is None:
            spread = low - offset if low >= offset else offset - low
            noise = EPS * spread if spread > 1.0 else EPS
        bound = low + noise
        size = len(heap)
        if (size < 2 or heap[1][0] > bound) and (size < 3 or heap[2][0] > bound):
            return heap[0][2]  # no other key within the noise: the usual case
        best: tuple[int, int] | None = None
        stack = [0]
        while stack:  # the entries within the bound form a subtree at the heap's root
            k = stack.pop()
            if k < len(heap) and heap[k][0] <= bound:
                entry_key, order, j = heap[k]
                if key.get(j) == entry_key and (best is None or order < best[0]):
                    best = (order, j)
                stack += (2 * k + 1, 2 * k + 2)
        return best[1] if best is not None else None


class FluidPolicy:
    """Base class: see the module docstring for the interface."""

    name = "policy"
    #: every job is served whenever one is present (all built-in policies are)
    work_conserving = True
    #: whether the policy looks at the service its jobs get (:meth:`advance`); one that does
    #: not is not told, which saves a call an event
    follows_service = True

    def __init__(self) -> None:
        self.est: dict[int, float] = {}  # the jobs present, in arrival order
        self.arrival_order: dict[int, int] = {}

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        self.est[j] = estimate
        self.arrival_order[j] = len(self.arrival_order)

    def dequeue(self, t: float, j: int) -> None:
        del self.est[j]

    def schedule(self, t: float) -> dict[int, float]:
        raise NotImplementedError

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        """Time moved on by ``dt`` under ``rates``: a policy that follows the service its jobs
        get keeps its own account of it here."""

    def next_internal_event(self, t: float) -> float:
        return INF


class FIFO(FluidPolicy):
    """First come, first served."""

    name = "fifo"
    follows_service = False

    def __init__(self) -> None:
        super().__init__()
        # a queue, not the first key of a dict: a dict emptied from the front is scanned over
        # its deleted entries to find its first one, which made a long queue O(n) an event
        self.queue: deque[int] = deque()

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        super().enqueue(t, j, estimate)
        self.queue.append(j)

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        if self.queue[0] == j:  # only the served job, the first, completes
            self.queue.popleft()
        else:
            self.queue.remove(j)

    def schedule(self, t: float) -> dict[int, float]:
        return {self.queue[0]: 1.0}


class PS(FluidPolicy):
    """Processor sharing: every job gets an equal share."""

    name = "ps"
    follows_service = False

    def schedule(self, t: float) -> dict[int, float]:
        share = 1.0 / len(self.est)
        return dict.fromkeys(self.est, share)


class SRPT(FluidPolicy):
    """Shortest (estimated) remaining processing time; a late job's negative remainder keeps it
    first."""

    name = "srpt"

    def __init__(self) -> None:
        super().__init__()
        # estimated remainders; only a served job's changes, so only it is pushed again
        self.queue = Ordered()

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        super().enqueue(t, j, estimate)
        self.queue.push(j, estimate, self.arrival_order[j])

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        self.queue.discard(j)

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        # the queue's keys are the estimated remainders (negative once a job outlived its
        # estimate): only the served jobs' fall
        queue = self.queue
        left = queue.key
        for j, r in rates.items():
            if j in left:
                queue.lower(j, left[j] - r * dt, self.arrival_order[j])

    def schedule(self, t: float) -> dict[int, float]:
        return {self.queue.first(): 1.0}


class SRPTPS(SRPT):
    """SRPT+PS: jobs whose estimated remainder reached 0 (late jobs) share the server equally
    with the job SRPT would pick among the others."""

    name = "srpt+ps"

    def __init__(self) -> None:
        super().__init__()
        self.late: dict[int, None] = {}  # a job once late stays late: its remainder only falls

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        self.late.pop(j, None)

    def _groups(self) -> tuple[list[int], int | None]:
        queue = self.queue
        while queue.smallest() <= EPS:  # the fresh jobs whose remainder reached 0 turn late
            j = queue.heap[0][2]
            queue.discard(j)
            self.late[j] = None
        late = sorted(self.late, key=self.arrival_order.__getitem__)  # in arrival order
        return late, queue.first()

    def schedule(self, t: float) -> dict[int, float]:
        late, head = self._groups()
        served = late + ([head] if head is not None else [])
        return dict.fromkeys(served, 1.0 / len(served))

    def next_internal_event(self, t: float) -> float:
        late, head = self._groups()
        if head is None:
            return INF
        return t + self.queue.key[head] * (len(late) + 1)


class LAS(FluidPolicy):
    """Least attained service: the least-served jobs share the server.

    The jobs served together all have the same attained service, so they are kept as one group
    with one value; a job that arrives below it starts a new group and the old one waits, whole,
    in a heap by its value until the served group catches up with it and they merge. An event
    costs O(log n) and the size of the served group, not a scan of every job."""

    name = "las"

    def __init__(self) -> None:
        super().__init__()
        self.group: dict[int, None] = {}  # the least-served jobs, in arrival order
        self.low = 0.0  # their attained service
        self.waiting: list[tuple[float, int, list[int]]] = []  # (value, first arrival, jobs)

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        super().enqueue(t, j, estimate)
        if self.group and self.low > EPS:
            self._set_aside()
        self.group[j] = None

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        self.group.pop(j, None)
        if not self.group:  # the next least-served group is served, or the next job starts at 0
            value, jobs = heapq.heappop(self.waiting)[::2] if self.waiting else (0.0, [])
            self.group, self.low = dict.fromkeys(jobs), value
        self._merge()

    def _set_aside(self) -> None:
        jobs = list(self.group)
        heapq.heappush(self.waiting, (self.low, self.arrival_order[jobs[0]], jobs))
        self.group, self.low = {}, 0.0

    def _merge(self) -> None:
        """Groups the served one has caught up with join it, keeping arrival order."""
        waiting, merged = self.waiting, False
        while waiting and waiting[0][0] <= self.low + EPS:
            self.group.update(dict.fromkeys(heapq.heappop(waiting)[2]))
            merged = True
        if merged:
            self.group = dict.fromkeys(sorted(self.group, key=self.arrival_order.__getitem__))

    def schedule(self, t: float) -> dict[int, float]:
        return dict.fromkeys(self.group, 1.0 / len(self.group))

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        if self.group:
            self.low += dt / len(self.group)
            self._merge()

    def next_internal_event(self, t: float) -> float:
        if not self.group or not self.waiting:
            return INF
        return t + (self.waiting[0][0] - self.low) * len(self.group)


class FSP(FluidPolicy):
    """Fair Sojourn Protocol on estimates: jobs run one at a time in the order they finish in a
    virtual processor-sharing system. Late jobs (finished virtually, not really) go first; FSPE
    serves them FIFO in virtual-finish order, ``late="ps"`` (PSBS) lets them share.

    The virtual system keeps a virtual time V, the service each of its jobs has had since V
    started: a job that joins at V with estimate e finishes virtually when V reaches its tag
    V + e. Its virtual remainder is tag − V, and the order of the remainders never changes
    between arrivals, so the next virtual finish is the smallest tag (a heap)."""

    name = "fsp"

    def __init__(self, late: str = "fifo") -> None:
        super().__init__()
        if late not in ("fifo", "ps"):
            raise ConfigError(f"FSP late-job policy {late!r}: expected 'fifo' or 'ps'")
        self.late_policy = late
        self.name = "fsp" if late == "fifo" else "fsp+ps"
        self.vtime = 0.0
        self.virtual = Ordered()  # every job in the virtual system, by tag
        self.waiting = Ordered()  # the real jobs among them (not finished really), by tag
        self.late: dict[int, int] = {}  # job -> virtual finish rank
        self._rank = 0

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        super().enqueue(t, j, estimate)
        if estimate > EPS:
            tag, order = self.vtime + estimate, self.arrival_order[j]
            self.virtual.push(j, tag, order)
            self.waiting.push(j, tag, order)
        else:
            self._virtual_done(j)

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        self.late.pop(j, None)
        self.waiting.discard(j)

    def _virtual_done(self, j: int) -> None:
        self.virtual.discard(j)
        self.waiting.discard(j)
        if j in self.est:
            self.late[j] = self._rank
        self._rank += 1

    def schedule(self, t: float) -> dict[int, float]:
        if self.late:
            if self.late_policy == "ps":
                return dict.fromkeys(self.late, 1.0 / len(self.late))
            return {min(self.late, key=self.late.__getitem__): 1.0}
        # ties are judged on virtual finish times (t + remainder × jobs in the virtual system),
        # which do not move as time passes: on remainders, which shrink, a near-tie broken by
        # arrival order at one event could turn the other way at the next
        n = len(self.virtual.key)
        finish = t + (self.waiting.smallest() - self.vtime) * n
        return {self.waiting.first(noise=EPS * max(1.0, abs(finish)) / n): 1.0}

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        # attained service plays no part in FSP: only the virtual system moves
        virtual = self.virtual
        if not virtual.key:
            return
        self.vtime += dt / len(virtual.key)
        done = []
        while virtual.smallest() - self.vtime <= EPS:
            j = virtual.heap[0][2]
            virtual.discard(j)
            done.append(j)
        for j in sorted(done, key=self.arrival_order.__getitem__):  # ranks in arrival order
            self._virtual_done(j)

    def next_internal_event(self, t: float) -> float:
        virtual = self.virtual
        if not virtual.key:
            return INF
        return t + (virtual.smallest() - self.vtime) * len(virtual.key)


POLICIES: dict[str, type[FluidPolicy] | tuple[type[FluidPolicy], dict[str, str]]] = {
    "fifo": FIFO, "ps": PS, "srpt": SRPT, "srpt+ps": SRPTPS, "las": LAS,
    "fsp": (FSP, {"late": "fifo"}), "fspe": (FSP, {"late": "fifo"}),
    "fsp+ps": (FSP, {"late": "ps"}), "psbs": (FSP, {"late": "ps"}),
}


def make_policy(name: str) -> FluidPolicy:
    """A fresh fluid policy by name (fifo, ps, srpt, srpt+ps, fsp, fsp+ps, las)."""
    entry = POLICIES.get(name.lower())
    if entry is None:
        raise ConfigError(f"unknown fluid policy {name!r}; known: {', '.join(POLICIES)}")
    if isinstance(entry, tuple):
        cls, kwargs = entry
        return cls(**kwargs)  # type: ignore[call-arg]
    return entry()


@dataclass
class FluidResult:
    completion: np.ndarray
    #: (start, end, total rate, jobs present, unfinished work at start), when traced
    trace: list[tuple[float, float, float, int, float]] = field(default_factory=list)


def simulate_fluid(
    arrival: Sequence[float] | np.ndarray,
    size: Sequence[float] | np.ndarray,
    policy: FluidPolicy | str,
    estimate: Sequence[float] | np.ndarray | None = None,
    *,
    trace: bool = False,
) -> FluidResult:
    """Completion time of every job on a rate-1 server under ``policy``.

    ``estimate`` defaults to the true sizes; size-based policies see only the estimates.
    """
    pol = make_policy(policy) if isinstance(policy, str) else policy
    arr = np.asarray(arrival, dtype=np.float64)
    sz = np.asarray(size, dtype=np.float64)
    est = sz if estimate is None else np.asarray(estimate, dtype=np.float64)
    if not (len(arr) == len(sz) == len(est)):
        raise SimulationError("arrival, size and estimate differ in length")
    if len(sz) and (not np.isfinite(sz).all() or (sz < 0).any() or not np.isfinite(arr).all()):
        raise SimulationError("sizes must be finite and non-negative, arrivals finite")
    order = np.argsort(arr, kind="stable")
    done = np.full(len(sz), np.nan)
    out = FluidResult(done)
    # Python lists and floats in the loop: indexing numpy arrays element by element costs
    # several times as much, and the loop runs once per event
    jobs, arrivals = order.tolist(), arr[order].tolist()
    sizes, estimates = sz.tolist(), est.tolist()
    # what is left of a job when it is done: float noise, relative above 1
    done_below = [EPS * s if s > 1.0 else EPS for s in sizes]
    remaining: dict[int, float] = {}
    t, i, n = (arrivals[0] if arrivals else 0.0), 0, len(jobs)
    stalled, stall_limit = 0, 4 * n + 100
    # hooks the policy does not have are not called: a call an event each
    follows = pol.follows_service
    internal = type(pol).next_internal_event is not FluidPolicy.next_internal_event
    while i < n or remaining:
        while i < n and arrivals[i] <= t:
            j = jobs[i]
            i += 1
            # a job of size 0 joins the queue too: it completes when the policy first serves it
            remaining[j] = sizes[j]
            pol.enqueue(t, j, estimates[j])
        # with nothing to serve the policy still sees time pass (FSP's virtual server runs on)
        rates = pol.schedule(t) if remaining else {}
        t_next, first = INF, -1
        for j, r in rates.items():
            if r > 0:
                tc = t + remaining[j] / r
                if tc < t_next:
                    t_next, first = tc, j
        # an arrival or an internal event at or before the first completion comes first: then
        # no job completes by its rate
        if i < n and arrivals[i] <= t_next:
            t_next, first = arrivals[i], -1
        if internal:
            t_int = pol.next_internal_event(t)
            if t_int <= t_next:
                t_next, first = t_int, -1
        stalled = stalled + 1 if t_next <= t else 0
        if t_next == INF or stalled > stall_limit:
            raise SimulationError(f"fluid policy {pol.name}: simulated time stopped at t={t!r} "
                                  f"with {len(remaining)} jobs unfinished")
        dt = t_next - t
        if trace:
            out.trace.append((t, t_next, sum(rates.values()), len(remaining),
                              sum(remaining.values())))
        # only a served job can complete: the rates are scanned, not every waiting job
        finished = []
        for j, r in rates.items():
            left = 0.0 if j == first else remaining[j] - r * dt
            remaining[j] = left
            if r > 0 and left <= done_below[j]:
                finished.append(j)
        if follows:
            pol.advance(dt, rates)
        t = t_next
        for j in finished:
            del remaining[j]
            done[j] = t
            pol.dequeue(t, j)
    return out


def completion_times(arrival: Sequence[float], size: Sequence[float], policy: str,
                     estimate: Sequence[float] | None = None) -> list[float]:
    """Convenience: completion times as a list, in job order."""
    return simulate_fluid(arrival, size, policy, estimate).completion.tolist()

