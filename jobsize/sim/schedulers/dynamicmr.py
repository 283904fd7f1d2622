"""DynamicMR (Tang's thesis, chapter 4): dynamic slot allocation on Hadoop 1.x, over HFS or FIFO.

Three techniques on top of :class:`~jobsize.sim.schedulers.mrv1.HadoopMRv1`, each a switch:

1. **DHSA**, the Dynamic Hadoop Slot Allocator (§4.2.2): slots stay typed but may lend
   themselves — map tasks fill map slots first and borrow idle reduce slots only when map slots
   are short, and the other way round; a borrowed slot returns when its task ends.

   - ``dhsa="pi"`` — PI-DHSA (Algorithm 6): fairness per phase across pools, as HFS. Load
     factors ``LF = (pending + running tasks) / slots`` per phase; only when one phase is under
     (LF < 1) and the other over (LF > 1) may the over phase borrow (Cases 3 and 4), up to
     ``⌊slots · P⌋`` borrowed slots (``borrow_map`` = P_M, map slots reduces may hold;
     ``borrow_reduce`` = P_R), by raising the lending phase's load factor to
     ``(demand + lent + extra) / slots`` for the load manager (Algorithm 6 writes
     ``(demand + extra) / slots``; with the slots already lent left out, lending stops short of
     the limit — see the scheduler's documentation).
   - ``dhsa="pd"`` — PD-DHSA (Algorithm 7): fairness on each pool's map + reduce slots together.
     Pools by total running tasks; for each, (1) a map on a map slot, (2) a reduce on a reduce
     slot, (3) a map on a reduce slot, (4) a reduce on a map slot; (5) if no pool could, any
     map on any idle slot, locality ignored.

   Slot weights (the cluster's ``slot_weights``, §4.2.2.1): a task takes its kind's weight in
   units of whichever slots it runs in — with 8 map / 4 reduce slots weighted 1 / 2, 16 maps or
   8 reduces fit a node.
2. **SEPB**, Speculative Execution Performance Balancing (§4.2.3, Algorithm 8): a job's turn
   goes to a speculative copy of its straggler only if none of the next
   ``⌊sepb · #jobs⌋`` jobs in the order (itself included) has a pending task of the slot's kind
   — or of the other kind, when DHSA lets it borrow this slot; and an attempt running longer
   than ``kill_factor`` (2) times its job's mean task time is killed and rerun.
3. **Slot PreScheduling** (§4.2.4, Algorithm 9): when the load manager leaves a node no
   allowable idle map slot, a job (in fair order) with a map whose block is on that node may
   still run it there — in an *extra* idle map slot (P1) or, with DHSA, in an idle reduce slot
   (P2, at most ``max_prescheduled`` at once); under PD-DHSA, reduces may then take idle map
   slots to restore the balance (P3). Needs the simulator's block-locality model.

It needs to know nothing about jobs. The slot model only (the YARN model has no slots to lend).
"""

from __future__ import annotations

import math

from jobsize.errors import ConfigError
from jobsize.sim.policy import MAP, REDUCE, Launch
from jobsize.sim.schedulers.mrv1 import MAP_SIDE, OTHER, REDUCE_SIDE, SIDE_OF, HadoopMRv1
from jobsize.sim.speculation import DEFAULT_LATE, Late

CASES_PD = ((MAP_SIDE, MAP), (REDUCE_SIDE, REDUCE), (REDUCE_SIDE, MAP), (MAP_SIDE, REDUCE))


class DynamicMR(HadoopMRv1):
    """DHSA, SEPB and Slot PreScheduling on HFS (``order="fair"``) or FIFO (see the module
    docstring). ``dhsa``: ``"pi"``, ``"pd"`` or None; ``borrow_map`` / ``borrow_reduce``:
    P_M / P_R in [0, 1]; ``sepb``: percentageOfJobsCheckedForPendingTasks, or None for
    Hadoop's speculation; ``prescheduling``: Slot PreScheduling on or off; ``speculation``:
    LATE's thresholds (None: no speculative copies; SEPB then only kills stragglers)."""

    def __init__(self, order: str = "fair", *, dhsa: str | None = "pi",
                 borrow_map: float = 1.0, borrow_reduce: float = 1.0,
                 sepb: float | None = 1.0, kill_factor: float = 2.0,
                 prescheduling: bool = True, max_prescheduled: int = 100000,
                 speculation: Late | None = DEFAULT_LATE, name: str | None = None,
                 **options: float) -> None:
        if dhsa not in ("pi", "pd", None):
            raise ConfigError(f"DHSA {dhsa!r}: expected pi, pd or none")
        if not (0 <= borrow_map <= 1 and 0 <= borrow_reduce <= 1):
            raise ConfigError("the borrowed-slot percentages P_M, P_R must be in [0, 1]")
        if sepb is not None and not 0 <= sepb <= 1:
            raise ConfigError(f"SEPB's share of jobs checked {sepb!r} must be in [0, 1]")
        if kill_factor <= 1 or max_prescheduled < 0:
            raise ConfigError("the straggler kill factor must exceed 1 and the prescheduling "
                              "limit be ≥ 0")
        super().__init__(order, speculation=speculation, name=name,
                         **options)  # type: ignore[arg-type]
        self.dhsa = dhsa
        self.borrow = (borrow_map, borrow_reduce)  # by the side lending
        self.sepb, self.kill_factor = sepb, kill_factor
        self.prescheduling, self.max_prescheduled = prescheduling, max_prescheduled
        self.name = name or self._default_name()

    def _default_name(self) -> str:
        parts = [f"{self.dhsa}-dhsa" if self.dhsa else "static"]
        if self.sepb is not None:
            parts.append("sepb")
        if self.prescheduling:
            parts.append("ps")
        return "dynamicmr[" + "+".join(parts) + f", {self.order}]"

    def bind(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().bind(sim)
        self.prescheduled: set[int] = set()  # maps PreScheduling put in reduce slots
        self.killed_tasks: set[tuple[int, int, int]] = set()  # SEPB's straggler kills
        self._presched_pick = False

    # -----------------------------------------------------------------------------------------
    # DHSA: which slots take which tasks

    def plan(self, node: int) -> list[tuple[int, tuple[int, ...], int]]:
        """Algorithm 6 (PI-DHSA): load factors, Cases 1-4, the lending phase's updated load
        factor, and the per-node budgets of the load manager."""
        lf = {MAP: self.load(MAP), REDUCE: self.load(REDUCE)}
        kinds = {MAP_SIDE: (MAP,), REDUCE_SIDE: (REDUCE,)}
        if self.dhsa is not None:
            for lender, over in ((MAP, REDUCE), (REDUCE, MAP)):  # Case 3, then Case 4
                if lf[lender] < 1 < lf[over]:
                    side = SIDE_OF[lender]
                    borrowed = self.side_use[side][over]
                    extra = min(max(math.floor(self.total[side] * self.borrow[side]) - borrowed,
                                    0),
                                self.demand[over] * self.unit[over] - self.total[SIDE_OF[over]])
                    # the slots already lent count too (Algorithm 6 leaves them out, and
                    # lending would stall short of P_M / P_R)
                    lf[lender] = (self.demand[lender] * self.unit[lender] + borrowed + extra) \
                        / max(self.total[side], 1)
                    kinds[side] = (lender, over)
        return [(side, kinds[side], self.budget(node, side, lf[kind]))
                for side, kind in ((MAP_SIDE, MAP), (REDUCE_SIDE, REDUCE))]

    def fits(self, node: int, side: int, kind: int, budget: int) -> bool:
        """A borrowed slot also respects P_M / P_R: at most ⌊units · P⌋ of a side lent out."""
        if not super().fits(node, side, kind, budget):
            return False
        if SIDE_OF[kind] == side:
            return True
        limit = math.floor(self.total[side] * self.borrow[side])
        return self.dhsa is not None and self.side_use[side][kind] + self.unit[kind] <= limit

    def choose(self, node: int) -> Launch | None:
        if self.dhsa == "pd":
            return self._choose_pd(node)
        return super().choose(node)

    def fill_side(self, node: int, side: int, kinds: tuple[int, ...], budget: int
                  ) -> Launch | None:
        """PI-DHSA's side, then Slot PreScheduling when the map side has no allowable slot."""
        pick = super().fill_side(node, side, kinds, budget)
        if pick is None and side == MAP_SIDE and self.prescheduling and budget <= 0:
            pick = self._preschedule(node, self.jobs(MAP))
        return pick

    def _choose_pd(self, node: int) -> Launch | None:
        """Algorithm 7 (PD-DHSA), with Slot PreScheduling's P1-P3 (Fig 4.8)."""
        total_units = self.total[0] + self.total[1]
        load = (self.demand[MAP] * self.unit[MAP] + self.demand[REDUCE] * self.unit[REDUCE]) \
            / max(total_units, 1)
        node_units = self.cap[0][node] + self.cap[1][node]
        room = math.ceil(min(load, 1.0) * node_units - 1e-9) \
            - self.used(node, MAP_SIDE) - self.used(node, REDUCE_SIDE)
        groups = self._pool_groups()
        for jobs in groups:
            by_kind = {MAP: self._within(jobs, MAP), REDUCE: self._within(jobs, REDUCE)}
            for k, (side, kind) in enumerate(CASES_PD):
                if self.fits(node, side, kind, room):
                    pick = self.pick(node, side, kind, by_kind[kind])
                    if pick is not None:
                        return pick
                if k == 0 and self.prescheduling:  # P1, P2 after Case (1) fails
                    pick = self._preschedule(node, by_kind[MAP], room)
                    if pick is not None:
                        return pick
                if k == 1 and self.prescheduling and self.prescheduled \
                        and super().fits(node, MAP_SIDE, REDUCE, room):
                    pick = self.pick(node, MAP_SIDE, REDUCE, by_kind[REDUCE])  # P3: restore
                    if pick is not None:
                        return pick
        for jobs in groups:  # Case (5): maps anywhere, locality ignored
            for side in (MAP_SIDE, REDUCE_SIDE):
                if self.fits(node, side, MAP, room):
                    pick = self.pick(node, side, MAP, self._within(jobs, MAP), local_only=False)
                    if pick is not None:
                        return pick
        return None

    def _pool_groups(self) -> list[list[int]]:
        """Jobs grouped by pool, pools below their min share first, then by total running tasks
        over weight (FIFO: one job each, in submission order)."""
        if self.order == "fifo":
            return [[j] for j in self.active]
        groups: dict[int, list[int]] = {}
        for j in self.active:
            groups.setdefault(self.pool[j], []).append(j)
        run_m, run_r = self.pool_running[MAP], self.pool_running[REDUCE]

        def key(p: int) -> tuple[int, float, int]:  # "distance below min and fair share"
            running, floor = run_m[p] + run_r[p], self.pool_min[p]
            if running < floor:
                return 0, running / floor, p
            return 1, running / self.pool_weight[p], p

        return [groups[p] for p in sorted(groups, key=key)]

    def _within(self, jobs: list[int], kind: int) -> list[int]:
        if self.order == "fifo" or len(jobs) == 1:
            return jobs
        run, w = self.job_running[kind], self.weight
        return sorted(jobs, key=lambda j: (run[j] / w[j], j))

    # -----------------------------------------------------------------------------------------
    # Slot PreScheduling

    def _preschedule(self, node: int, jobs: list[int], room: int | None = None) -> Launch | None:
        """Algorithm 9: a job with a local map on ``node`` but no allowable idle map slot runs
        it in an extra idle map slot (P1) or, with DHSA, an idle reduce slot (P2)."""
        sim = self.sim
        if not self.locality:
            return None
        unit = self.unit[MAP]
        for j in jobs:
            if not sim.has_local_map(j, node):
                continue
            if sim.free0[node] >= unit:
                return Launch(j, MAP, (unit, 0))
            if self.dhsa is not None and sim.free1[node] >= unit \
                    and len(self.prescheduled) < self.max_prescheduled:
                self._presched_pick = True
                return Launch(j, MAP, (0, unit))
            return None  # no idle slot of either kind on this node
        return None

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        super().on_launch(j, kind, node, cid)
        if self._presched_pick:
            self.prescheduled.add(cid)
            self._presched_pick = False

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        super().on_release(j, kind, node, cid, elapsed_s, completed)
        self.prescheduled.discard(cid)

    # -----------------------------------------------------------------------------------------
    # SEPB

    def may_speculate(self, j: int, kind: int, pos: int, jobs: list[int]) -> bool:
        """Algorithm 8: check ⌊sepb · #jobs⌋ jobs from ``j`` on for pending tasks first."""
        if self.sepb is None:
            return True
        window = jobs[pos:pos + math.floor(self.sepb * len(jobs))]
        if any(self.pending(k, kind) for k in window):
            return False
        lends = self.dhsa is not None and self.borrow[SIDE_OF[kind]] > 0
        return not (lends and any(self.pending(k, OTHER[kind]) for k in window))

    def on_heartbeat(self) -> None:
        """SEPB's straggler kill: an attempt past ``kill_factor`` × its job's mean task time
        (of that kind) is killed and rerun — once per task, so that a task slow wherever it
        runs (a remote read, a slow node) is not killed forever."""
        if self.sepb is None:
            return
        sim = self.sim
        for j in list(self.active):
            for cid in sim.containers(j):
                rec = sim.container(cid)
                if rec is None or cid in self.copied or cid in self.copies:
                    continue
                kind = rec[0]
                n = self.done_n[kind][j]
                if not n or sim.progress(cid) <= 0:
                    continue
                task = (j, kind, rec[4])
                if task not in self.killed_tasks \
                        and sim.now - rec[3] > self.kill_factor * self.done_s[kind][j] / n:
                    self.killed_tasks.add(task)  # once: a rerun that is as slow runs on
                    sim.kill(cid)


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    def dhsa_only(order: str, dhsa: str, name: str):
        return lambda **_: DynamicMR(order, dhsa=dhsa, sepb=None, prescheduling=False, name=name)

    def full(order: str, name: str):
        return lambda **_: DynamicMR(order, name=name)

    for order, tail in (("fair", ""), ("fifo", "+fifo")):
        for dhsa in ("pi", "pd"):
            register_scheduler(f"{dhsa}-dhsa{tail}", dhsa_only(order, dhsa, f"{dhsa}-dhsa{tail}"))
        register_scheduler(f"dynamicmr{tail}", full(order, f"dynamicmr{tail}"))


_register()
