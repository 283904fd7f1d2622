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
- ``advance(dt, rates)`` — time moved on by ``dt`` under ``rates`` (update attained service,
  virtual systems);
- ``next_internal_event(t) -> float`` — absolute time of the policy's next internal event, or
  ``inf``.

A worked case (arrival, size, estimate): (0, 10, 15), (1, 12, 4), (2, 5, 7),
(10, 2, 3) completes at FIFO 10/22/27/29, PS 26/29/19/18, SRPT 29/13/20/15, FSP 29/13/20/15,
FSP+PS 29/13/20/15, SRPT+PS 29/21/19/14, LAS 27/29/17/12.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from jobsize.errors import ConfigError, SimulationError

INF = math.inf
EPS = 1e-9


class FluidPolicy:
    """Base class: see the module docstring for the interface."""

    name = "policy"
    #: every job is served whenever one is present (all built-in policies are)
    work_conserving = True

    def __init__(self) -> None:
        self.est: dict[int, float] = {}
        self.attained: dict[int, float] = {}
        self.arrival_order: dict[int, int] = {}

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        self.est[j] = estimate
        self.attained[j] = 0.0
        self.arrival_order[j] = len(self.arrival_order)

    def dequeue(self, t: float, j: int) -> None:
        del self.est[j], self.attained[j]

    def schedule(self, t: float) -> dict[int, float]:
        raise NotImplementedError

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        att = self.attained
        for j, r in rates.items():
            att[j] += r * dt

    def next_internal_event(self, t: float) -> float:
        return INF


class FIFO(FluidPolicy):
    """First come, first served."""

    name = "fifo"

    def schedule(self, t: float) -> dict[int, float]:
        return {next(iter(self.est)): 1.0}  # dicts keep arrival (enqueue) order


class PS(FluidPolicy):
    """Processor sharing: every job gets an equal share."""

    name = "ps"

    def schedule(self, t: float) -> dict[int, float]:
        share = 1.0 / len(self.est)
        return dict.fromkeys(self.est, share)


class SRPT(FluidPolicy):
    """Shortest (estimated) remaining processing time; a late job's negative remainder keeps it
    first."""

    name = "srpt"

    def _remaining(self, j: int) -> tuple[float, int]:
        return (self.est[j] - self.attained[j], self.arrival_order[j])

    def schedule(self, t: float) -> dict[int, float]:
        return {min(self.est, key=self._remaining): 1.0}


class SRPTPS(SRPT):
    """SRPT+PS: jobs whose estimated remainder reached 0 (late jobs) share the server equally
    with the job SRPT would pick among the others."""

    name = "srpt+ps"

    def _groups(self) -> tuple[list[int], int | None]:
        late = [j for j in self.est if self.est[j] - self.attained[j] <= EPS]
        fresh = [j for j in self.est if self.est[j] - self.attained[j] > EPS]
        return late, (min(fresh, key=self._remaining) if fresh else None)

    def schedule(self, t: float) -> dict[int, float]:
        late, head = self._groups()
        served = late + ([head] if head is not None else [])
        return dict.fromkeys(served, 1.0 / len(served))

    def next_internal_event(self, t: float) -> float:
        late, head = self._groups()
        if head is None:
            return INF
        return t + (self.est[head] - self.attained[head]) * (len(late) + 1)


class LAS(FluidPolicy):
    """Least attained service: the least-served jobs share the server."""

    name = "las"

    def _least(self) -> tuple[list[int], float]:
        low = min(self.attained.values())
        group = [j for j, a in self.attained.items() if a <= low + EPS]
        nxt = min((a for a in self.attained.values() if a > low + EPS), default=INF)
        return group, nxt - low

    def schedule(self, t: float) -> dict[int, float]:
        group, _ = self._least()
        return dict.fromkeys(group, 1.0 / len(group))

    def next_internal_event(self, t: float) -> float:
        group, gap = self._least()
        return t + gap * len(group)


class FSP(FluidPolicy):
    """Fair Sojourn Protocol on estimates: jobs run one at a time in the order they finish in a
    virtual processor-sharing system. Late jobs (finished virtually, not really) go first; FSPE
    serves them FIFO in virtual-finish order, ``late="ps"`` (PSBS) lets them share."""

    name = "fsp"

    def __init__(self, late: str = "fifo") -> None:
        super().__init__()
        if late not in ("fifo", "ps"):
            raise ConfigError(f"FSP late-job policy {late!r}: expected 'fifo' or 'ps'")
        self.late_policy = late
        self.name = "fsp" if late == "fifo" else "fsp+ps"
        self.virtual: dict[int, float] = {}  # virtual remaining size, under virtual PS
        self.late: dict[int, int] = {}  # job -> virtual finish rank
        self._rank = 0

    def enqueue(self, t: float, j: int, estimate: float) -> None:
        super().enqueue(t, j, estimate)
        if estimate > EPS:
            self.virtual[j] = estimate
        else:
            self._virtual_done(j)

    def dequeue(self, t: float, j: int) -> None:
        super().dequeue(t, j)
        self.late.pop(j, None)

    def _virtual_done(self, j: int) -> None:
        self.virtual.pop(j, None)
        if j in self.est:
            self.late[j] = self._rank
        self._rank += 1

    def schedule(self, t: float) -> dict[int, float]:
        if self.late:
            if self.late_policy == "ps":
                return dict.fromkeys(self.late, 1.0 / len(self.late))
            return {min(self.late, key=self.late.__getitem__): 1.0}
        head = min(self.est, key=lambda j: (self.virtual[j], self.arrival_order[j]))
        return {head: 1.0}

    def advance(self, dt: float, rates: dict[int, float]) -> None:
        super().advance(dt, rates)
        if self.virtual:
            share = dt / len(self.virtual)
            for j in self.virtual:
                self.virtual[j] -= share
            for j in [j for j, v in self.virtual.items() if v <= EPS]:
                self._virtual_done(j)

    def next_internal_event(self, t: float) -> float:
        if not self.virtual:
            return INF
        return t + min(self.virtual.values()) * len(self.virtual)


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
    remaining: dict[int, float] = {}
    out = FluidResult(done)
    t, i, n = 0.0, 0, len(order)
    if n:
        t = float(arr[order[0]])
    while i < n or remaining:
        while i < n and arr[order[i]] <= t:
            j = int(order[i])
            i += 1
            if sz[j] <= 0:
                done[j] = t
                continue
            remaining[j] = float(sz[j])
            pol.enqueue(t, j, float(est[j]))
        if not remaining:
            if i < n:
                t = float(arr[order[i]])
            continue
        rates = pol.schedule(t)
        t_next, first = INF, -1
        for j, r in rates.items():
            if r > 0:
                tc = t + remaining[j] / r
                if tc < t_next:
                    t_next, first = tc, j
        t_arr = float(arr[order[i]]) if i < n else INF
        t_int = pol.next_internal_event(t)
        t_next = min(t_next, t_arr, t_int)
        dt = t_next - t
        if trace:
            out.trace.append((t, t_next, sum(rates.values()), len(remaining),
                              sum(remaining.values())))
        for j, r in rates.items():
            remaining[j] -= r * dt
        pol.advance(dt, rates)
        t = t_next
        if first >= 0 and t_next < t_arr and t_next < t_int:
            remaining[first] = 0.0
        # only a served job can complete: scanning the rates, not every waiting job
        for j in [j for j in rates if remaining[j] <= EPS * max(1.0, sz[j])]:
            del remaining[j]
            done[j] = t
            pol.dequeue(t, j)
    return out


def completion_times(arrival: Sequence[float], size: Sequence[float], policy: str,
                     estimate: Sequence[float] | None = None) -> list[float]:
    """Convenience: completion times as a list, in job order."""
    return simulate_fluid(arrival, size, policy, estimate).completion.tolist()

