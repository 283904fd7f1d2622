"""Hadoop's Fair scheduler: queues and jobs ordered by usage over weight, min shares first,
instantaneous fair shares and optional preemption.

A policy is a comparator plus a share computation, as in Hadoop's FairScheduler. The comparator,
used at every free container, is the FairSharePolicy's: a queue below its min share comes first
(lowest usage/min-share), then the lowest usage/weight; inside a queue, jobs by usage/weight. Usage
is memory (``resource="memory"``) or the dominant share (``resource="drf"``, Dominant Resource
Fairness). The instantaneous fair share — water-filling of the cluster over queues by weight,
raised to min shares, capped at demand, then over each queue's jobs — is computed only for
preemption: every ``preemption_interval_s`` a job below ``preemption_threshold`` × its fair share
takes back containers from the jobs most above theirs (newest containers first, never an AM), which
are killed and rerun. """

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, MAP, REDUCE, Policy
from jobsize.sim.queues import KeyedQueue


@dataclass(frozen=True)
class FairQueueSpec:
    """A Fair-scheduler queue: weight and min share (memory MB, or slots in slot mode)."""

    weight: float = 1.0
    min_share: float = 0.0


def water_fill(demand: np.ndarray, weight: np.ndarray, capacity: float,
               min_share: np.ndarray | None = None) -> np.ndarray:
    """Fair shares: min(demand, max(min_share, r·weight)) with r chosen to fill ``capacity``."""
    demand = np.asarray(demand, float)
    if len(demand) == 0:
        return demand
    lo_share = np.zeros_like(demand) if min_share is None else np.minimum(min_share, demand)
    if demand.sum() <= capacity:
        return demand.copy()

    def total(r: float) -> float:
        return float(np.minimum(demand, np.maximum(lo_share, r * weight)).sum())

    lo, hi = 0.0, 1.0
    while total(hi) < capacity and hi < 1e18:
        hi *= 2
    for _ in range(64):
        mid = (lo + hi) / 2
        if total(mid) < capacity:
            lo = mid
        else:
            hi = mid
    return np.minimum(demand, np.maximum(lo_share, hi * weight))


class Fair(Policy):
    """Fair sharing over queues and jobs (see the module docstring)."""

    def __init__(self, resource: str = "memory", queues: dict[str, FairQueueSpec] | None = None,
                 preemption: bool = False, preemption_interval_s: float = 15.0,
                 preemption_threshold: float = 0.5) -> None:
        if resource not in ("memory", "drf"):
            raise ConfigError(f"fair resource {resource!r}: expected 'memory' or 'drf'")
        if preemption_interval_s <= 0 or not 0 < preemption_threshold <= 1:
            raise ConfigError("preemption needs an interval > 0 and a threshold in (0, 1]")
        self.resource = resource
        self.specs = dict(queues or {})
        self.preemption = preemption
        self.interval = preemption_interval_s
        self.threshold = preemption_threshold
        self.name = "drf" if resource == "drf" else "fair"
        self.preempted = 0

    def describe(self) -> str:
        return self.name + ("+preemption" if self.preemption else "")

    # -----------------------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        names = sim.jobs["queue"].astype(str).tolist()
        self.qnames = list(dict.fromkeys([*self.specs, *names]))
        index = {q: i for i, q in enumerate(self.qnames)}
        self.qof = [index[q] for q in names]
        self.qweight = [self.specs.get(q, FairQueueSpec()).weight for q in self.qnames]
        self.qmin = [self.specs.get(q, FairQueueSpec()).min_share for q in self.qnames]
        if any(w <= 0 for w in self.qweight):
            raise ConfigError("fair queue weights must be positive")
        self.jweight = sim.jobs["weight"].to_numpy(float).tolist()
        self.qused = [0.0] * len(self.qnames)
        t0, t1 = float(sim.total0), float(sim.total1)
        use0, use1 = sim.use0, sim.use1
        if self.resource == "drf" and not sim.cluster.slots:
            self.usage = lambda j: max(use0[j] / t0, use1[j] / t1)
            self._qunit = 1.0 / t0  # min shares are memory MB: compare on the memory share
        else:
            self.usage = lambda j: float(use0[j] + (use1[j] if sim.cluster.slots else 0))
            self._qunit = 1.0
        self.queues = [KeyedQueue(sim, key=self._job_key()) for _ in self.qnames]
        self._multi = len(self.qnames) > 1  # queue usage matters only with several queues
        if not self._multi and type(self).choose is Fair.choose:
            # one queue: its order is the whole decision, asked once per container
            self.choose = self.queues[0].pick  # type: ignore[method-assign]
        self._wake_seq = -1

    def native_order(self) -> str | None:
        # one queue, memory usage, every weight 1, nothing preempted: the order of use0
        plain = (type(self) is Fair and not self._multi and not self.preemption
                 and self.queues[0].key == self.sim.use0.__getitem__)
        return "memory" if plain else None

    def _job_key(self) -> Callable[[int], float]:
        """Usage over weight; the common case (memory, equal weights) is a plain list lookup,
        as it runs several times per container."""
        sim, usage, w = self.sim, self.usage, self.jweight
        if self.resource != "drf" and not sim.cluster.slots and all(x == 1.0 for x in w):
            return sim.use0.__getitem__
        return lambda j: usage(j) / w[j]

    def _queue_key(self, q: int, used: float | None = None) -> float:
        used = self.qused[q] if used is None else used
        floor = self.qmin[q] * self._qunit
        if floor > 0 and used < floor:
            return used / floor - 2.0  # needy queues first, least served relative to min share
        return used / self.qweight[q]

    def on_arrival(self, j: int) -> None:
        if self.preemption and self._wake_seq < 0:
            self._wake_seq = self.sim.wake_at(self.sim.now + self.interval, "preempt")

    def on_demand(self, j: int) -> None:
        self.queues[self.qof[j]].add(j)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        # the job's key grew: its queue re-files it lazily when it reaches the head
        if self._multi:
            self._account(j, kind, +1)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        if self._multi:
            self._account(j, kind, -1)
            self.queues[self.qof[j]].touch(j)
        else:
            self.queues[0].touch(j)

    def _amount(self, j: int, kind: int) -> float:
        """What one container of ``kind`` adds to job ``j``'s usage (probes count nothing)."""
        sim = self.sim
        if kind > REDUCE:
            return 0.0
        if self.resource == "drf" and not sim.cluster.slots:
            return max(sim.req0[kind][j] / sim.total0, sim.req1[kind][j] / sim.total1)
        return float(sim.req0[kind][j] + (sim.req1[kind][j] if sim.cluster.slots else 0))

    def _account(self, j: int, kind: int, sign: int) -> None:
        self.qused[self.qof[j]] += sign * self._amount(j, kind)

    def choose(self, node: int) -> tuple[int, int] | None:
        if len(self.queues) == 1:
            return self.queues[0].pick(node)
        for q in sorted((q for q in range(len(self.queues)) if len(self.queues[q])),
                        key=self._queue_key):
            pick = self.queues[q].pick(node)
            if pick is not None:
                return pick
        return None

    # -----------------------------------------------------------------------------------------
    # instantaneous fair shares and preemption

    def fair_shares(self) -> dict[int, float]:
        """Instantaneous fair share of every active job, in the usage unit."""
        sim = self.sim
        active = [j for j in range(sim.n) if 1 <= sim.phase[j] <= 3]
        if not active:
            return {}
        usage = np.array([self.usage(j) for j in active])
        demand = usage + np.array([self._pending_amount(j) for j in active])
        q_of = np.array([self.qof[j] for j in active])
        nq = len(self.qnames)
        qdemand = np.bincount(q_of, weights=demand, minlength=nq)
        capacity = 1.0 if self.resource == "drf" and not sim.cluster.slots else float(
            sim.total0 + (sim.total1 if sim.cluster.slots else 0))
        qshare = water_fill(qdemand, np.array(self.qweight),
                            capacity, np.array(self.qmin) * self._qunit)
        shares: dict[int, float] = {}
        for q in range(nq):
            members = np.flatnonzero(q_of == q)
            if len(members) == 0:
                continue
            jw = np.array([self.jweight[active[m]] for m in members])
            s = water_fill(demand[members], jw, qshare[q])
            shares.update({active[m]: float(v) for m, v in zip(members, s, strict=True)})
        return shares

    def _pending_amount(self, j: int) -> float:
        sim = self.sim
        total = 0.0
        # an AM held back by the max AM share is not demand preemption could serve
        am = 1 if sim.phase[j] == 1 and self._am_fits_share(j) else 0
        counts = ((AM, am), (MAP, sim.maps_todo[j]),
                  (REDUCE, sim.reduces_todo[j] if sim.reduce_ready[j] else 0))
        for kind, count in counts:
            if count:
                total += count * self._amount(j, kind)
        return total

    def on_wake(self, tag: object) -> None:
        if tag != "preempt":
            return
        sim = self.sim
        self._wake_seq = -1
        if any(1 <= p <= 3 for p in sim.phase):
            self._preempt()
            self._wake_seq = sim.wake_at(sim.now + self.interval, "preempt")

    def _preempt(self) -> None:
        sim = self.sim
        shares = self.fair_shares()
        starved = [j for j, s in shares.items()
                   if self._pending_amount(j) > 0 and self.usage(j) < self.threshold * s]
        need = sum(min(shares[j], self.usage(j) + self._pending_amount(j)) - self.usage(j)
                   for j in starved)
        if need <= 1e-12:
            return
        over = sorted((self.usage(j) - s, j) for j, s in shares.items()
                      if self.usage(j) > s + 1e-12)
        # Like Hadoop's FSPreemptionThread, never take a job below its own fair share: that
        # would only make it the next one starved (and containers would change hands forever).
        for _, j in reversed(over):
            for cid in reversed(self.sim.containers(j)):
                kind, _, node = sim.container(cid)[:3]  # type: ignore[index]
                amount = self._amount(j, kind)
                if need <= 1e-12:
                    break
                if kind > REDUCE or self.usage(j) - amount < shares[j] - 1e-12:
                    continue
                if not self._frees_room(starved, j, kind, node, amount):
                    continue
                sim.kill(cid)
                self.preempted += 1
                need -= amount
            if need <= 1e-12:
                break

    def _frees_room(self, starved: list[int], j: int, kind: int, node: int,
                    amount: float) -> bool:
        """Whether killing ``j``'s ``kind`` container (``amount`` of usage) on ``node`` leaves
        room there for the next container of a starved job that Fair's order then serves
        before ``j``. Killing one the starved job cannot use (a map slot for a job waiting for
        reduce slots, memory on a node its container does not fit) or would not get (its
        queue no less used than ``j``'s after the kill) only hands the room back to ``j``,
        and the next check would kill again, forever."""
        sim = self.sim
        free0, free1 = sim.free0[node], sim.free1[node]
        room0, room1 = free0 + sim.req0[kind][j], free1 + sim.req1[kind][j]
        for s in starved:
            if sim.phase[s] == 1:
                wanted = (AM,) if self._am_fits_share(s) else ()
            else:
                wanted = ((MAP,) if sim.maps_todo[s] else ()) + (
                    (REDUCE,) if sim.reduce_ready[s] and sim.reduces_todo[s] else ())
            for k in wanted:
                r0, r1 = sim.req0[k][s], sim.req1[k][s]
                # one that fits already waits for something else than room (nothing to kill)
                if r0 <= room0 and r1 <= room1 and not (r0 <= free0 and r1 <= free1) \
                        and self._served_before(s, j, amount):
                    return True
        return False

    def _served_before(self, s: int, j: int, amount: float) -> bool:
        """Whether Fair's order puts ``s`` strictly before ``j`` once ``j`` gave up
        ``amount`` of its usage (ties would go back to ``j``)."""
        qs, qj = self.qof[s], self.qof[j]
        if qs != qj:
            return self._queue_key(qs) < self._queue_key(qj, self.qused[qj] - amount)
        return self.usage(s) / self.jweight[s] < (self.usage(j) - amount) / self.jweight[j]

    def _am_fits_share(self, j: int) -> bool:
        """Whether job ``j``'s AM would pass the max AM share now."""
        sim = self.sim
        return not sim.am_used0 or (sim.am_used0 + sim.req0[AM][j] <= sim.am_limit0
                                    and sim.am_used1 + sim.req1[AM][j] <= sim.am_limit1)
