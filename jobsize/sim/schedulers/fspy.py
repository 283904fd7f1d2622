"""FSPY, the Fair Sojourn Protocol in YARN (paper §III-C), in the YARN container model.

The cluster is split, capacity-style, into a **probing queue** (fraction ``probe_share``) that
runs probes FIFO, and a **production queue** with the rest; idle resources of one are lent to
the other (free resources go to the queue with the lower used/guaranteed ratio first, the other
takes what it leaves; the probing queue never exceeds ``probe_max_share``). A probe is one uber
container of the job's AM size held for the probe's duration.

The production queue has two sub-queues:

- the **fair queue**: jobs whose size is not known yet, ordered by allocated memory (least
  first), as the Fair scheduler would;
- the **size-based queue**: jobs with a size, ordered by virtual size (memory·s, as of the last
  VSC). Jobs that finished in the virtual cluster but not really — *late* jobs — come first:
  one at a time in virtual-finish order (FSPE, the paper's FSP), or sharing by allocated memory
  with ``late="ps"`` (PSBS-style).

Resources are steered so that fair-queue jobs hold what the virtual Fair cluster gives them:
while the fair queue holds less memory than the virtual resources of its jobs, free resources
are offered to it first, otherwise to the size-based queue; whichever declines, the other gets.

The virtual cluster (:mod:`jobsize.sim.virtual`: VRA, Alg 2, and VSC, Alg 3) runs VSC then VRA
whenever a job arrives, is sized, finishes in the fair queue, or finishes virtually; the next
virtual completion is a wake-up event. The new-job procedure of Fig 1:

- an **uber** job is sized from history (the size source; ``S = R_am·(SE_m + SE_r)``) and goes
  straight into the size-based queue, with APB = its AM container;
- a **normal** job gets an initial size (large enough never to finish virtually before it is
  sized) and APB_init (eq 9), joins the fair queue and launches a probe. When the probe ends,
  its size is known (the size source's ``known_after_s`` is the probe's duration; a zero
  delay sizes it at submission): VSC, ``VS_new = S_pred − (S_init − VS_cur)`` (eq 10), APB from
  eq 3-4, a move to the size-based queue, VRA.

The virtual job's APB is eq 3's ``S / minE`` plus the AM container (capped at the cluster), the
resources a job holds under Fair: S excludes the AM (eq 5) while eq 9's APB_init and VSC's
``virtualResource − AM`` count it.

The two finish cases: a job still in the fair queue has run under Fair all its life, so its
virtual job ends with it (removed from both queues, then VSC and VRA); a sized job leaves only
the size-based queue — its virtual job runs on until its virtual completion. A job that finishes
before its probe has its probe killed. Sources that learn (:class:`~jobsize.sim.predicted.
ModelSizes`) are told of every finished job.
"""

from __future__ import annotations

import math

from jobsize.errors import ConfigError
from jobsize.models.resources import Resources, apb, apb_init, job_size, min_e, uber_size, vs_new
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, EXTRA, Policy
from jobsize.sim.queues import KeyedQueue
from jobsize.sim.schedulers.reservations import RELEASED, NodeReservations
from jobsize.sim.size_sources import ExactSizes, SizeSource
from jobsize.sim.virtual import VirtualCluster

FAIR, SIZED, LATE, DONE = 1, 2, 3, 4
#: Initial size S_init in seconds of the whole cluster: no job runs this long virtually.
INITIAL_SIZE_S = 1e7


class FSPY(Policy):
    """FSPY (see the module docstring).

    ``size_source``: where sizes come from (exact by default); its ``known_after_s`` is the
    probe's duration. ``probe_share``: the probing queue's guaranteed share of the cluster's
    memory; ``probe_max_share``: the most it may borrow. ``late``: ``"fifo"`` (FSPE) or
    ``"ps"`` (late jobs share, PSBS-style).
    """

    name = "fspy"

    def __init__(self, size_source: SizeSource | None = None, *, probe_share: float = 0.1,
                 probe_max_share: float = 1.0, late: str = "fifo", reserve: bool = True,
                 max_reserved: int = 1, virtual_am_share: bool = True) -> None:
        if not 0 <= probe_share <= probe_max_share <= 1:
            raise ConfigError(f"FSPY probing queue: need 0 ≤ share ≤ max share ≤ 1, found "
                              f"{probe_share}, {probe_max_share}")
        if late not in ("fifo", "ps"):
            raise ConfigError(f"FSPY late-job policy {late!r}: expected 'fifo' or 'ps'")
        self.size_source = size_source or ExactSizes()
        self.probe_share = probe_share
        self.probe_max_share = probe_max_share
        self.late_policy = late
        self.reserve = reserve
        self.virtual_am_share = virtual_am_share
        self.max_reserved = max_reserved
        self.name = "fspy" if late == "fifo" else "fspy+ps"

    def describe(self) -> str:
        return f"{self.name}[{self.size_source.name}]"

    # -----------------------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        if sim.cluster.slots:
            raise ConfigError("FSPY schedules YARN containers; it has no MRv1 slot mode")
        n = sim.n
        self.cr = Resources(float(sim.total0), float(sim.total1))
        am_share = sim.am_limit0 / sim.total0 if self.virtual_am_share else None
        self.vc = VirtualCluster((self.cr.memory, self.cr.vcores), sim.now, am_share)
        self._sizes(sim)
        self.state = [0] * n
        self.held = [0] * n  # memory of AM and task containers (probes excluded)
        self.rank = [0] * n
        self._ranks = 0
        self.fair_jobs: set[int] = set()
        self.fair_held = 0.0
        self.fair_virtual = 0.0
        held = self.held
        self.fair = KeyedQueue(sim, key=held.__getitem__)
        self.size = KeyedQueue(sim, key=self._virtual_key)
        self.late = KeyedQueue(sim, key=(self.rank.__getitem__ if self.late_policy == "fifo"
                                         else held.__getitem__))
        self.queues = {FAIR: self.fair, SIZED: self.size, LATE: self.late}
        self.probes: dict[int, None] = {}  # pending probes, FIFO
        self.probe_cid: dict[int, int] = {}
        self.probe_used = 0.0
        self.prod_used = 0.0
        self.probe_guaranteed = self.probe_share * sim.total0
        self.prod_guaranteed = (1 - self.probe_share) * sim.total0
        self.probe_limit = self.probe_max_share * sim.total0
        self._wake_version = 0
        self._wake_seq = -1
        self.reservations = NodeReservations(sim, self.max_reserved)

    def _sizes(self, sim: Simulation) -> None:
        """Estimates (static) or a learning sizer (online), and every job's probe delay."""
        online = getattr(self.size_source, "online", None)
        self.sizer = None
        if online is not None:
            self.sizer = online(sim.workload, (self.cr.memory, self.cr.vcores))
            self.delay = self.size_source.probe.durations(sim.workload).tolist()  # type: ignore
            self.est = None
        else:
            est = sim.estimates(self.size_source)
            self.delay = est.known_after_s.tolist()
            self.est = (est.map_time_s.tolist(), est.reduce_time_s.tolist())
        w = sim.workload
        self.r_am = [Resources(a, b) for a, b in zip(sim.req0[AM], sim.req1[AM], strict=True)]
        self.r_m = [Resources(a, b) for a, b in zip(w.jobs["map_mb"].tolist(),
                                                    w.jobs["map_vcores"].tolist(), strict=True)]
        self.r_r = [Resources(a, b) for a, b in zip(w.jobs["reduce_mb"].tolist(),
                                                    w.jobs["reduce_vcores"].tolist(),
                                                    strict=True)]
        self.s_init = self.cr * INITIAL_SIZE_S

    def _virtual_key(self, j: int) -> float:
        return self.vc.size(j)[0] if j in self.vc else 0.0

    def _sized(self, j: int, se_m: float, se_r: float) -> tuple[Resources, Resources]:
        """Size (eq 5, or the AM container for an uber job) and the virtual job's APB."""
        sim = self.sim
        if sim.uber[j]:
            return uber_size(se_m, se_r, self.r_am[j]), self.r_am[j]
        size = job_size(se_m, se_r, self.r_m[j], self.r_r[j])
        e = min_e(se_m, se_r, sim.n_maps[j], sim.n_reduces[j], self.r_m[j], self.r_r[j],
                  self.cr)
        return size, (apb(size, e) + self.r_am[j]).minimum(self.cr)

    def _estimate(self, j: int) -> tuple[float, float] | None:
        if self.sizer is not None:
            if self.sim.uber[j]:
                return self.sizer.history(j)
            return self.sizer.predict(j)
        assert self.est is not None
        return self.est[0][j], self.est[1][j]

    # -----------------------------------------------------------------------------------------
    # the new-job procedure (Fig 1) and the two finish cases

    def on_arrival(self, j: int) -> None:
        self._vsc()
        am = (self.r_am[j].memory, self.r_am[j].vcores)
        if self.sim.uber[j]:
            est = self._estimate(j) or (0.0, 0.0)
            size, bound = self._sized(j, *est)
            self.state[j] = SIZED
            self.vc.add(j, (size.memory, size.vcores), (bound.memory, bound.vcores), am, True)
            if size.memory <= 0:
                self._virtually_done(j, remove=True)
        else:
            self.state[j] = FAIR
            self.fair_jobs.add(j)
            first = apb_init(self.r_am[j], self.r_m[j], self.sim.n_maps[j], self.cr)
            self.vc.add(j, (self.s_init.memory, self.s_init.vcores),
                        (first.memory, first.vcores), am)
            delay = self.delay[j]
            if delay <= 0:
                self._predicted(j)
            elif math.isfinite(delay):
                self.probes[j] = None
                self.extra_pending = len(self.probes)
        self._vra()

    def _predicted(self, j: int) -> None:
        """The size of ``j`` is known: eq 10, and a move to the size-based queue."""
        est = self._estimate(j)
        if est is None:
            return  # the model cannot size it: it stays in the fair queue
        size, bound = self._sized(j, *est)
        cur = Resources(*self.vc.size(j))
        vs = vs_new(size, self.s_init, cur)
        self._leave_fair(j)
        self.state[j] = SIZED
        if vs.memory <= 0:
            self._virtually_done(j, remove=True)
        else:
            self.vc.update(j, (vs.memory, vs.vcores), (bound.memory, bound.vcores))
            self.size.touch(j)

    def on_job_finish(self, j: int) -> None:
        state = self.state[j]
        self.state[j] = DONE
        if state == FAIR:
            self._vsc()
            self.vc.remove(j)
            self._leave_fair(j)
            self._vra()
        else:
            self.queues[state].remove(j)
        if j in self.probes:
            del self.probes[j]
            self.extra_pending = len(self.probes)
        cid = self.probe_cid.pop(j, None)
        if cid is not None:
            self.sim.kill(cid)
        if self.sizer is not None:
            self.sizer.observe(j)

    def _leave_fair(self, j: int) -> None:
        self.fair_jobs.discard(j)
        self.fair.remove(j)
        self.fair_held -= self.held[j]

    # -----------------------------------------------------------------------------------------
    # the virtual cluster

    def _vsc(self) -> None:
        for j in self.vc.vsc(self.sim.now):
            self._virtually_done(j)

    def _virtually_done(self, j: int, remove: bool = False) -> None:
        if remove:
            self.vc.remove(j)
        self._ranks += 1
        self.rank[j] = self._ranks
        if self.state[j] == SIZED:
            self.size.remove(j)
            self.state[j] = LATE
            self.late.touch(j)

    def _vra(self) -> None:
        vc = self.vc
        vc.vra()
        # only the jobs VRA serves have a virtual resource, and only their virtual sizes moved
        live = vc.progressing()
        state, size = self.state, self.size
        self.fair_virtual = sum(vc.resource(j)[0] for j in live if state[j] == FAIR)
        for j in live:
            if j in size:
                size.touch(j)
        if self._wake_seq >= 0:
            self.sim.cancel(self._wake_seq)
            self._wake_seq = -1
        t = vc.next_completion()
        if math.isfinite(t):
            self._wake_version += 1
            self._wake_seq = self.sim.wake_at(t, ("virtual", self._wake_version))

    def on_wake(self, tag: object) -> None:
        if tag == ("virtual", self._wake_version):
            self._wake_seq = -1
            self._vsc()
            self._vra()

    # -----------------------------------------------------------------------------------------
    # demand, accounting, probes

    def on_demand(self, j: int) -> None:
        queue = self.queues.get(self.state[j])
        if queue is not None:
            queue.add(j)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        if kind == EXTRA:
            self.probe_used += self.sim.req0[AM][j]
            self.probe_cid[j] = cid
            return
        self._account(j, self.sim.req0[kind][j])

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        if kind != EXTRA:
            self._account(j, -self.sim.req0[kind][j])

    def _account(self, j: int, amount: int) -> None:
        self.held[j] += amount
        self.prod_used += amount
        state = self.state[j]
        if state == FAIR:
            self.fair_held += amount
            self.fair.touch(j)
        elif state == LATE and self.late_policy == "ps":
            self.late.touch(j)

    def extra_request(self, j: int, node: int) -> tuple[int, int, float, object]:
        del self.probes[j]
        self.extra_pending = len(self.probes)
        return self.sim.req0[AM][j], self.sim.req1[AM][j], self.delay[j], "probe"

    def on_extra_done(self, j: int, tag: object, node: int, cid: int, completed: bool) -> None:
        self.probe_used -= self.sim.req0[AM][j]
        self.probe_cid.pop(j, None)
        if completed and self.state[j] == FAIR:
            self._vsc()
            self._predicted(j)
            self._vra()

    # -----------------------------------------------------------------------------------------
    # where free resources go

    def choose(self, node: int) -> tuple[int, int] | None:
        res = self.reservations
        if node in res.nodes:
            pick = self._reserved(node)
            if pick is not RELEASED:
                return pick  # type: ignore[return-value]
        roomy = not self.reserve or res.roomy(node)  # then no reservation can be due
        for part in self._order():
            if part is not _PROBES and not len(part):  # type: ignore[arg-type]
                continue
            pick = self._pick(part, node)
            if roomy:
                if pick is not None:
                    return pick
                continue
            head = self._head(part)
            if head < 0:
                continue
            if pick is not None and pick[0] == head:
                return pick
            if res.reservable(head, node, probe=part is _PROBES):
                res.reserve(node, head, probe=part is _PROBES)
                return None
            if pick is not None:
                return pick
        return None

    def _order(self) -> tuple[object, ...]:
        """The queues in the order free resources are offered to them."""
        if self.fair_held < self.fair_virtual - 1e-9:
            production: tuple[object, ...] = (self.fair, self.late, self.size)
        else:
            production = (self.late, self.size, self.fair)
        if not self.probes:
            return production
        if self._probing_first():
            return (_PROBES, *production)
        return (*production, _PROBES)

    def _probing_first(self) -> bool:
        """Capacity's rule: the queue with the lower used/guaranteed ratio goes first."""
        if not self.sim.pending:
            return True
        probe = self.probe_used / self.probe_guaranteed if self.probe_guaranteed else math.inf
        prod = self.prod_used / self.prod_guaranteed if self.prod_guaranteed else math.inf
        return probe <= prod

    def _head(self, part: object) -> int:
        if part is _PROBES:
            return next(iter(self.probes), -1)
        return part.head()  # type: ignore[attr-defined]

    def _pick(self, part: object, node: int) -> tuple[int, int] | None:
        if part is _PROBES:
            return self._probe(node)
        return part.pick(node)  # type: ignore[attr-defined]

    def _probe(self, node: int) -> tuple[int, int] | None:
        sim = self.sim
        f0, f1 = sim.free0[node], sim.free1[node]
        for j in self.probes:
            r0, r1 = sim.req0[AM][j], sim.req1[AM][j]
            if r0 <= f0 and r1 <= f1 and self.probe_used + r0 <= self.probe_limit + 1e-9:
                return j, EXTRA
            if sim.uniform_am:
                break
        return None

    # -----------------------------------------------------------------------------------------
    # node reservations (a probe's is served here: it belongs to the probing queue)

    def _reserved(self, node: int) -> object:
        res = self.reservations
        j, probe = res.nodes[node]
        if not probe:
            return res.serve(node)
        sim = self.sim
        if j in self.probes and not res.fits(j, node, probe=True):
            return None  # keep the node for the probe
        res.release(node)
        if j in self.probes and self.probe_used + sim.req0[AM][j] <= self.probe_limit + 1e-9:
            return j, EXTRA
        return RELEASED


_PROBES = object()  # the probing queue, among the sub-queues in an offer order


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    register_scheduler("fspy", lambda size_source=None, **_: FSPY(size_source))
    register_scheduler("fspy+ps", lambda size_source=None, **_: FSPY(size_source, late="ps"))


_register()
