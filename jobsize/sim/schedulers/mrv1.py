"""Hadoop 1.x's task assignment on MRv1 slots, the baseline DynamicMR changes.

What a TaskTracker's heartbeat gets, in Hadoop 1.2.1 (the thesis's testbed):

- **job order**: ``"fifo"`` (JobQueueTaskScheduler: submission order) or ``"fair"`` (the Fair
  Scheduler, HFS: pools — the jobs' ``queue`` — below their min share first, then by running
  tasks of the phase over their weight, and inside a pool jobs by running tasks over their
  ``weight``; each phase separately; ``pools`` maps a pool to (min share, weight), default
  (0, 1));
- **load balancing** (CapBasedLoadManager): a node uses at most ``⌈min(LF, 1) · slots⌉`` of its
  map (reduce) slots, where the load factor LF is the pending plus running maps (reduces) of all
  jobs over the cluster's map (reduce) slots — tasks spread over the nodes instead of filling
  the first ones;
- **data locality**: a map slot takes a map whose block is on the node if the job has one (the
  simulator's :mod:`~jobsize.sim.locality`); under HFS, **delay scheduling** skips a job with no
  local map for up to ``locality_delay_s`` (then it may run maps anywhere until it launches a
  local one again);
- **speculative execution** (LATE, :mod:`jobsize.sim.speculation`): a job whose turn comes with
  no pending task of the kind may launch a copy of one of its stragglers — before later jobs'
  pending tasks, which is what DynamicMR's SEPB changes.

Each slot holds one task of its own kind here; :class:`~jobsize.sim.schedulers.dynamicmr.
DynamicMR` overrides :meth:`HadoopMRv1.plan` (which slots may take which tasks) and adds its
three techniques. Registered as ``mrv1-fair`` and ``mrv1-fifo``. The slot model only.
"""

from __future__ import annotations

import math

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import MAP, REDUCE, Launch, Policy
from jobsize.sim.speculation import Late

MAP_SIDE, REDUCE_SIDE = 0, 1
SIDE_OF = {MAP: MAP_SIDE, REDUCE: REDUCE_SIDE}
OTHER = {MAP: REDUCE, REDUCE: MAP}


class HadoopMRv1(Policy):
    """Hadoop 1.x on MRv1 slots (see the module docstring).

    ``order``: ``"fair"`` or ``"fifo"``; ``speculation``: LATE's thresholds, or None for no
    speculative execution; ``locality_delay_s``: delay scheduling's wait (HFS, with a block
    locality model); ``heartbeat_s``: how often idle slots are offered again while a job waits
    for a delay to pass or a straggler may be copied (Hadoop's heartbeat, 3 s).
    """

    def __init__(self, order: str = "fair", *, speculation: Late | None = None,
                 locality_delay_s: float = 4.5, heartbeat_s: float = 3.0,
                 pools: dict[str, tuple[float, float]] | None = None,
                 name: str | None = None) -> None:
        if order not in ("fair", "fifo"):
            raise ConfigError(f"MRv1 job order {order!r}: expected fair or fifo")
        for pool, (share, weight) in (pools or {}).items():
            if share < 0 or weight <= 0:
                raise ConfigError(f"pool {pool!r}: min share must be ≥ 0 and weight > 0")
        self.pool_specs = dict(pools or {})
        if locality_delay_s < 0 or heartbeat_s <= 0:
            raise ConfigError("the locality delay must be ≥ 0 s and the heartbeat > 0 s")
        self.order = order
        self.late = speculation
        self.locality_delay_s = locality_delay_s
        self.heartbeat_s = heartbeat_s
        self.name = name or f"mrv1-{order}"

    def describe(self) -> str:
        return self.name

    # -----------------------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        if not sim.cluster.slots:
            raise ConfigError(f"{self.name} assigns MRv1 slots: run it with the slot model "
                              "(--cluster-model slots)")
        super().bind(sim)
        n = sim.n
        w = sim.cluster.slot_weights
        self.unit = (0, w[0], w[1])  # units a task of each kind takes, on either side
        units = sim.cluster.units
        self.cap = (units[:, 0].tolist(), units[:, 1].tolist())
        self.total = (int(units[:, 0].sum()), int(units[:, 1].sum()))
        pools = sim.jobs["queue"].astype(str).tolist()
        names = list(dict.fromkeys(pools))
        self.pool = [names.index(p) for p in pools]
        self.n_pools = len(names)
        spec = [self.pool_specs.get(p, (0.0, 1.0)) for p in names]
        self.pool_min = [float(m) for m, _ in spec]
        self.pool_weight = [float(w) for _, w in spec]
        self.weight = sim.jobs["weight"].to_numpy(float).tolist()
        self.active: dict[int, None] = {}  # submitted, unfinished, in submission order
        self.demand = [0, 0, 0]  # by kind: pending + running tasks (not attempts)
        self.job_running = ([], [0] * n, [0] * n)  # by kind: running attempts per job
        self.pool_running = ([], [0] * self.n_pools, [0] * self.n_pools)
        self.side_use = [[0, 0, 0], [0, 0, 0]]  # units held on each side by each kind
        self._reduces_counted = [False] * n
        self.done_s = ([], [0.0] * n, [0.0] * n)  # completed tasks' summed durations
        self.done_n = ([], [0] * n, [0] * n)
        self.held: dict[int, tuple[int, int]] = {}  # cid -> (side, units)
        self.copies: dict[int, int] = {}  # running copy -> the attempt it copies
        self.copied: set[int] = set()  # attempts with a running copy
        self._copying = -1
        self.skip_since: dict[int, float] = {}
        self._late_seen: dict[tuple[int, int], tuple[float, int, int]] = {}
        self._wake = -1
        self.locality = sim.locality is not None

    # -----------------------------------------------------------------------------------------
    # bookkeeping

    def on_arrival(self, j: int) -> None:
        self.active[j] = None
        self.demand[MAP] += self.sim.n_maps[j]
        if self.late is not None:
            self.extra_pending = 1  # offer idle slots for copies even with no task pending
        self._heartbeat()

    def on_demand(self, j: int) -> None:
        sim = self.sim
        if sim.reduce_ready[j] and not self._reduces_counted[j]:
            self._reduces_counted[j] = True
            self.demand[REDUCE] += sim.n_reduces[j] - sim.reduces_done[j]

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        r0, r1 = self.sim.held(cid)
        side, units = (MAP_SIDE, r0) if r0 else (REDUCE_SIDE, r1)
        self.held[cid] = (side, units)
        self.side_use[side][kind] += units
        self.job_running[kind][j] += 1
        self.pool_running[kind][self.pool[j]] += 1
        if self._copying >= 0:
            self.copies[cid] = self._copying
            self.copied.add(self._copying)
            self._copying = -1

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        side, units = self.held.pop(cid)
        self.side_use[side][kind] -= units
        self.job_running[kind][j] -= 1
        self.pool_running[kind][self.pool[j]] -= 1
        orig = self.copies.pop(cid, None)
        if orig is not None:
            self.copied.discard(orig)
        elif cid in self.copied:
            self.copied.discard(cid)
            for copy, of in list(self.copies.items()):
                if of == cid:
                    del self.copies[copy]
        if completed:
            self.demand[kind] -= 1
            self.done_s[kind][j] += elapsed_s
            self.done_n[kind][j] += 1

    def on_job_finish(self, j: int) -> None:
        self.active.pop(j, None)
        self.skip_since.pop(j, None)
        self._late_seen.pop((j, MAP), None)
        self._late_seen.pop((j, REDUCE), None)
        if not self.active:
            self.extra_pending = 0

    # -----------------------------------------------------------------------------------------
    # heartbeats: offer idle slots again while a delay runs out or a straggler may need a copy

    def _heartbeat(self) -> None:
        if self.late is None or not self.active or self._wake >= 0:
            return
        self._wake = self.sim.wake_at(self.sim.now + self.heartbeat_s, "heartbeat")

    def on_wake(self, tag: object) -> None:
        if tag != "heartbeat":
            return  # a delay ran out: the loop offers idle slots again
        self._wake = -1
        self.on_heartbeat()
        if self.active:
            self._heartbeat()

    def on_heartbeat(self) -> None:
        """Periodic work besides offering idle slots (SEPB kills stragglers here)."""

    # -----------------------------------------------------------------------------------------
    # which slots take which tasks

    def load(self, kind: int) -> float:
        """The load factor of a kind: its demand in slot units over the cluster's units."""
        return self.demand[kind] * self.unit[kind] / max(self.total[SIDE_OF[kind]], 1)

    def used(self, node: int, side: int) -> int:
        free = self.sim.free0 if side == MAP_SIDE else self.sim.free1
        return self.cap[side][node] - free[node]

    def budget(self, node: int, side: int, load: float) -> int:
        """Units of ``side`` the load manager lets ``node`` fill now: ⌈min(LF, 1)·units⌉ − used."""
        return math.ceil(min(load, 1.0) * self.cap[side][node] - 1e-9) - self.used(node, side)

    def plan(self, node: int) -> list[tuple[int, tuple[int, ...], int]]:
        """(side, kinds in preference order, units the side may fill) for ``node``; here each
        side takes its own kind."""
        return [(MAP_SIDE, (MAP,), self.budget(node, MAP_SIDE, self.load(MAP))),
                (REDUCE_SIDE, (REDUCE,), self.budget(node, REDUCE_SIDE, self.load(REDUCE)))]

    def choose(self, node: int) -> Launch | None:
        for side, kinds, budget in self.plan(node):
            pick = self.fill_side(node, side, kinds, budget)
            if pick is not None:
                return pick
        return None

    def fill_side(self, node: int, side: int, kinds: tuple[int, ...], budget: int
                  ) -> Launch | None:
        """A task for an idle slot of ``side``: of the first of ``kinds`` that has one."""
        for kind in kinds:
            if self.fits(node, side, kind, budget):
                pick = self.pick(node, side, kind)
                if pick is not None:
                    return pick
        return None

    def fits(self, node: int, side: int, kind: int, budget: int) -> bool:
        """The load manager leaves room (as Hadoop's ``running < available`` — a task of a
        heavier weight may pass the line by part of a slot) and the side has the units."""
        free = self.sim.free0 if side == MAP_SIDE else self.sim.free1
        return budget > 0 and free[node] >= self.unit[kind]

    def shape(self, side: int, kind: int) -> tuple[int, int]:
        return (self.unit[kind], 0) if side == MAP_SIDE else (0, self.unit[kind])

    # -----------------------------------------------------------------------------------------
    # which job

    def jobs(self, kind: int, pool: int | None = None) -> list[int]:
        """Active jobs in the order they get a slot of ``kind``."""
        jobs = [j for j in self.active if pool is None or self.pool[j] == pool]
        if self.order == "fifo":
            return jobs
        run, w = self.job_running[kind], self.weight
        if pool is None and self.n_pools > 1:
            return sorted(jobs, key=lambda j: (*self.pool_key(self.pool[j], kind), self.pool[j],
                                               run[j] / w[j], j))
        return sorted(jobs, key=lambda j: (run[j] / w[j], j))

    def pool_key(self, pool: int, kind: int) -> tuple[int, float]:
        """HFS's pool order in a phase: pools below their min share first (least served
        relative to it), then by running tasks over weight."""
        running, floor = self.pool_running[kind][pool], self.pool_min[pool]
        if running < floor:
            return 0, running / floor
        return 1, running / self.pool_weight[pool]

    def pending(self, j: int, kind: int) -> int:
        sim = self.sim
        if kind == MAP:
            return sim.maps_todo[j]
        return sim.reduces_todo[j] if sim.reduce_ready[j] else 0

    def pick(self, node: int, side: int, kind: int, jobs: list[int] | None = None,
             local_only: bool | None = None) -> Launch | None:
        """The first job in order with a task of ``kind`` for this slot: a pending one (maps:
        subject to locality), else a speculative copy of a straggler."""
        jobs = self.jobs(kind) if jobs is None else jobs
        shape = self.shape(side, kind)
        borrowing = SIDE_OF[kind] != side
        sim = self.sim
        for pos, j in enumerate(jobs):
            if borrowing and kind == REDUCE and sim.maps_done[j] < sim.n_maps[j]:
                continue  # a reduce waiting for its maps would hold the map slot they need
            if self.pending(j, kind):
                if kind == MAP and not self.local_ok(j, node, local_only):
                    continue
                return Launch(j, kind, shape)
            if self.late is not None and self.job_running[kind][j] \
                    and self.may_speculate(j, kind, pos, jobs):
                cid = self.straggler(j, kind)
                if cid >= 0:
                    self._copying = cid
                    return Launch(j, kind, shape, cid)
        return None

    def local_ok(self, j: int, node: int, local_only: bool | None = None) -> bool:
        """May ``j`` run a map on ``node`` now? ``local_only`` True: only a local one; False: any
        one; None: delay scheduling under HFS (FIFO takes any, local ones first)."""
        if local_only is False or not self.locality:
            return True
        if self.sim.has_local_map(j, node):
            self.skip_since.pop(j, None)
            return True
        if local_only:
            return False
        if self.order == "fifo":
            return True
        now = self.sim.now
        since = self.skip_since.get(j)
        if since is None:
            self.skip_since[j] = since = now
            self.sim.wake_at(now + self.locality_delay_s, "delay")  # offer again then
        return now - since >= self.locality_delay_s

    # -----------------------------------------------------------------------------------------
    # speculative execution

    def may_speculate(self, j: int, kind: int, pos: int, jobs: list[int]) -> bool:
        """Whether ``j``'s turn may go to a speculative copy (Hadoop: always)."""
        return True

    def straggler(self, j: int, kind: int) -> int:
        """LATE's choice among ``j``'s running attempts of ``kind``, or -1."""
        sim, late = self.sim, self.late
        n = self.done_n[kind][j]
        if late is None or not n \
                or len(self.copies) >= late.cap * (self.total[0] + self.total[1]):
            return -1
        conts = sim.containers(j)  # oldest first: if the oldest is young, all are
        if not conts or sim.now - sim.container(conts[0])[3] < late.lag_s:  # type: ignore[index]
            return -1
        key = (j, kind)
        cached = self._late_seen.get(key)
        if cached is not None and cached[0] == sim.now and cached[1] == len(self.copies) \
                and (cached[2] < 0 or sim.container(cached[2]) is not None):
            return cached[2]  # asked again in the same instant: nothing changed
        attempts = []
        for cid in conts:
            rec = sim.container(cid)
            if rec is None or rec[0] != kind or cid in self.copied or cid in self.copies:
                continue
            progress = sim.progress(cid)
            if progress <= 0:
                continue  # a reduce waiting for its maps
            attempts.append((cid, sim.now - rec[3], progress))
        pick = late.straggler(attempts, self.done_s[kind][j] / n)
        self._late_seen[key] = (sim.now, len(self.copies), pick)
        return pick


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    for order in ("fair", "fifo"):
        register_scheduler(f"mrv1-{order}", lambda _o=order, **_: HadoopMRv1(
            _o, speculation=Late()))


_register()
