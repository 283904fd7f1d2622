"""MROrder: FIFO over a job order chosen for makespan or total completion time (Tang's thesis,
chapter 3).

The cluster runs Hadoop's FIFO; what MROrder decides is the order in which jobs reach it. Jobs
wait in a *JobDispatchingQueue*; at each ordering round the jobs that arrived since the last
one (J_A) are ordered and dispatched behind those already dispatched (§3.4.2):

- **ordering engine** (§3.4.2.3): SIM — every order of J_A simulated on an empty cluster with
  HSim (:mod:`jobsize.sim.hsim`), the best kept — when ``|J_A| ≤ sim_jobs`` (7 in the thesis,
  from Table 3.5's overheads); otherwise ALG: MK_JR (Algorithm 1) for the makespan, TCT
  (Algorithm 5) for the total completion time, or MK_TCT_JR (Algorithm 2) when asked for;
- **policy module**: when rounds happen —

  - ``"batch"``: the offline setting of §3.3 — jobs submitted at the same instant form one
    batch, ordered at once when every one's estimate is known (MK_JR, MK_TCT_JR and TCT of
    Figs 3.4-3.5; an order of the first jobs probed alone is not the batch's order);
  - ``"fti"``, TP-FTI (Algorithm 3): every ``interval_s`` (Δt; the thesis finds 230-350 s
    suitable);
  - ``"ati"``, TP-ATI (Algorithm 4, the default): wait ``t_wait = max(Δt, T_A)`` after a round,
    where ``T_A`` is eq 3.3 over the jobs just dispatched (Δt = 10 s in §3.4.3.4);
  - ``"pnj"``, the PNJ-dominated solution (§3.4.2.4): a round as soon as ``n0`` jobs wait
    (whose estimates are known). The thesis gives no default (8 here) and does not say what
    becomes of fewer than ``n0`` jobs when no more arrive; here they are ordered once the
    cluster has no dispatched job left, so that every job is run.

What it needs to know: each job's number of maps and reduces and its mean map and reduce task
time (from the size source: summed task time SE_m, SE_r over the task counts), known when the
source says (``known_after_s``). Phase loads (Algorithm 1, step 1) use the cluster's map and
reduce slots; in the YARN model, where containers serve both phases, both are the number of task
containers that fit (an approximation the thesis does not make: it orders for MRv1 only).
"""

from __future__ import annotations

import math
from collections import Counter

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.hsim import PhaseJob, best_order
from jobsize.sim.policy import MAP, REDUCE, Policy
from jobsize.sim.queues import KeyedQueue
from jobsize.sim.schedulers.job_order import mk_jr, mk_tct_jr, tct, two_stage_makespan
from jobsize.sim.size_sources import ExactSizes, SizeSource

ALGORITHMS = {"mk_jr": mk_jr, "mk_tct_jr": mk_tct_jr, "tct": tct}
TRIGGERS = ("batch", "fti", "ati", "pnj")


class MROrder(Policy):
    """FIFO behind MROrder's JobDispatchingQueue (see the module docstring).

    ``objective``: ``"makespan"`` or ``"tct"`` (what SIM minimises and which ALG runs);
    ``algorithm``: ALG by name instead (``mk_jr``, ``mk_tct_jr``, ``tct``); ``trigger``:
    ``batch``, ``fti``, ``ati`` or ``pnj``; ``interval_s``: Δt; ``n0``: the jobs a ``pnj``
    round waits for; ``sim_jobs``: largest J_A ordered by SIM (0: never).
    """

    def __init__(self, size_source: SizeSource | None = None, *, objective: str = "makespan",
                 algorithm: str | None = None, trigger: str = "ati", interval_s: float = 10.0,
                 sim_jobs: int = 7, n0: int = 8, name: str = "mrorder") -> None:
        if objective not in ("makespan", "tct"):
            raise ConfigError(f"MROrder objective {objective!r}: expected makespan or tct")
        if algorithm is not None and algorithm not in ALGORITHMS:
            raise ConfigError(f"MROrder algorithm {algorithm!r}: expected one of "
                              f"{', '.join(ALGORITHMS)}")
        if trigger not in TRIGGERS:
            raise ConfigError(f"MROrder trigger {trigger!r}: expected one of {', '.join(TRIGGERS)}")
        if not interval_s > 0 or sim_jobs < 0 or n0 < 1:
            raise ConfigError("MROrder needs Δt > 0 s, sim_jobs ≥ 0 and n0 ≥ 1")
        self.n0 = n0
        self.size_source = size_source or ExactSizes()
        self.objective = objective
        self.algorithm = algorithm or ("mk_jr" if objective == "makespan" else "tct")
        self.trigger, self.interval_s, self.sim_jobs = trigger, interval_s, sim_jobs
        self.name = name
        self.rounds: list[tuple[float, int, str]] = []  # (time, |J_A|, engine)

    def describe(self) -> str:
        return f"{self.name}[{self.size_source.name}]"

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        est = sim.estimates(self.size_source)
        map_slots, reduce_slots = self._slots(sim)
        self.slots = (map_slots, reduce_slots)
        self.tm = (est.map_time_s / map_slots).tolist()  # Algorithm 1, step 1
        self.tr = (est.reduce_time_s / reduce_slots).tolist()
        self.phase_jobs = [
            PhaseJob(m, se_m / m if m else 0.0, r, se_r / r if r else 0.0)
            for m, r, se_m, se_r in zip(sim.n_maps, sim.n_reduces, est.map_time_s.tolist(),
                                        est.reduce_time_s.tolist(), strict=True)]
        self.known_at = [s + d for s, d in zip(sim.submit, est.known_after_s.tolist(),
                                                strict=True)]
        self.rank = [math.inf] * sim.n
        self.waiting: dict[int, None] = {}  # arrived, not yet dispatched
        self.dispatched = 0
        self.running: set[int] = set()  # dispatched, not finished
        self.finished: set[int] = set()  # a job without tasks may finish before its round
        self.queue = KeyedQueue(sim, key=self.rank.__getitem__)
        self.next_round = 0.0 if self.trigger == "batch" else self.interval_s
        self._wake, self._wake_at = -1, math.inf

    @staticmethod
    def _slots(sim: Simulation) -> tuple[int, int]:
        """|S^M|, |S^R|: the slot counts, or in the YARN model the task containers that fit."""
        cap = sim.cluster.capacity
        if sim.cluster.slots:
            return max(int(cap[:, 0].sum()), 1), max(int(cap[:, 1].sum()), 1)
        shapes = Counter(zip(sim.req0[MAP] + sim.req0[REDUCE], sim.req1[MAP] + sim.req1[REDUCE],
                             strict=True))
        r0, r1 = shapes.most_common(1)[0][0] if shapes else (1, 1)
        fit = int(sum(min(a // max(r0, 1), b // max(r1, 1)) for a, b in cap.tolist()))
        return max(fit, 1), max(fit, 1)

    # -----------------------------------------------------------------------------------------
    # the JobDispatchingQueue

    def on_arrival(self, j: int) -> None:
        self.waiting[j] = None
        self._plan_round()

    def _plan_round(self) -> None:
        """Make sure a round comes: at the nominal next round (empty rounds in between would
        each have waited Δt), or — for batches — when all the waiting jobs' estimates are
        known."""
        now = self.sim.now
        if self.trigger == "batch":
            when = max(now, max(self.known_at[j] for j in self.waiting))
        elif self.trigger == "pnj":
            known = sorted(self.known_at[j] for j in self.waiting)
            if len(known) >= self.n0:  # when the n0-th waiting job's estimate is known
                when = max(now, known[self.n0 - 1])
            elif not self.running:  # nothing dispatched is left to run: order what waits
                when = max(now, known[0])
            else:
                return  # the next arrival or the next finish plans again
        else:
            when = self.next_round
            if when < now:
                when += math.ceil((now - when) / self.interval_s) * self.interval_s
        if self._wake >= 0:
            # a batch waits for its last estimate; other rounds come at the earliest planned
            if self._wake_at == when or (self._wake_at < when and self.trigger != "batch"):
                return
            self.sim.cancel(self._wake)
        self._wake, self._wake_at = self.sim.wake_at(when, "round"), when

    def on_wake(self, tag: object) -> None:
        if tag != "round":
            return
        self._wake = -1
        now = self.sim.now
        batch = [j for j in self.waiting if self.known_at[j] <= now]  # J_A, in arrival order
        order = self._order(batch)
        for j in order:
            del self.waiting[j]
            self.rank[j] = self.dispatched
            self.dispatched += 1
            if j not in self.finished:
                self.running.add(j)
            self.queue.add(j)
        t_wait = self.interval_s
        if self.trigger == "ati":  # Algorithm 4, step 5
            t_a = two_stage_makespan([self.tm[j] for j in order], [self.tr[j] for j in order],
                                     range(len(order)))
            t_wait = max(self.interval_s, t_a)
        self.next_round = now + t_wait
        if self.waiting:
            self._plan_round()

    def _order(self, batch: list[int]) -> list[int]:
        """The ordering engine: SIM for small J_A, ALG otherwise."""
        if not batch:
            return []
        if len(batch) <= self.sim_jobs:
            engine = "SIM"
            order = best_order([self.phase_jobs[j] for j in batch], *self.slots,
                               objective=self.objective)
        else:
            engine = self.algorithm.upper()
            order = ALGORITHMS[self.algorithm]([self.tm[j] for j in batch],
                                               [self.tr[j] for j in batch])
        self.rounds.append((self.sim.now, len(batch), engine))
        return [batch[k] for k in order]

    # -----------------------------------------------------------------------------------------
    # the cluster: FIFO over dispatched jobs

    def on_demand(self, j: int) -> None:
        if self.rank[j] < math.inf:
            self.queue.add(j)

    def on_job_finish(self, j: int) -> None:
        self.finished.add(j)
        self.running.discard(j)
        if self.trigger == "pnj" and not self.running and self.waiting:
            self._plan_round()

    def choose(self, node: int) -> tuple[int, int] | None:
        return self.queue.pick(node)


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    for alg in ALGORITHMS:
        register_scheduler(alg, lambda size_source=None, _a=alg, **_: MROrder(
            size_source, algorithm=_a, trigger="batch", sim_jobs=0, name=_a))
    register_scheduler("mrorder", lambda size_source=None, **_: MROrder(size_source))
    register_scheduler("mrorder+tct", lambda size_source=None, **_: MROrder(
        size_source, objective="tct", name="mrorder+tct"))
    register_scheduler("mrorder+fti", lambda size_source=None, **_: MROrder(
        size_source, trigger="fti", interval_s=230.0, name="mrorder+fti"))
    register_scheduler("mrorder+pnj", lambda size_source=None, **_: MROrder(
        size_source, trigger="pnj", name="mrorder+pnj"))


_register()
