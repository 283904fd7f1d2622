"""HFSP, the Hadoop Fair Sojourn Protocol (Pastorelli, Carra, Dell'Amico, Michiardi), in the MRv1
slot mode and in the YARN container model.

Per phase (map, reduce) a virtual cluster shares the phase's slots max-min over the jobs'
estimated tasks (:mod:`jobsize.sim.virtual_slots`); its progress ages the jobs. Real resources
go to:

1. **training**: while fewer than ``train_slots`` training tasks of the phase run, a job still
   in its training stage (fewer than ``train_tasks`` of its tasks launched for training) gets the
   slot — the one with the smallest initial virtual time first. When its first ``train_tasks``
   tasks have completed (all of them, for a smaller phase), their mean duration becomes the
   job's per-task estimate in the virtual cluster.
2. otherwise the job with the **smallest remaining virtual time** in the phase; late jobs
   (virtual time 0, real tasks left) come first, in virtual-finish order.

A job's initial per-task estimate is the mean per-task estimate of the trained jobs in the
system, or ``initial_task_s`` (60 s) before there are any. As in the reference
implementation, a job leaves the virtual clusters when it completes.

Preemption: ``"wait"`` (none: a smaller job waits for running tasks to end) or ``"kill"``:
when a job's ready reduces find no free room, running reduce attempts of jobs with a larger
virtual time (not in training) are killed — newest first — and rerun later; their work is
lost. Maps are never killed (they are short; the reference implementation preempts reduces).

In the slot mode a node's map slots take map tasks and its reduce slots reduce tasks. In the
YARN model there are no slots: maps and reduces take containers from one pool, the task
containers of the usual task size that fit in the cluster beside the running
ApplicationMasters, and each phase's virtual cluster gets half of them, as an MRv1 cluster
with as many map as reduce slots per node (Hadoop's default, two and two). With both phases
busy the virtual clusters then run at the real cluster's pace, never faster, so jobs do not
turn late early (each phase with every container made virtual time run about twice as fast
as real time, and HFSP drift to FIFO in virtual-finish order). A job's AM counts as its map
phase's demand, and a free container goes to the smallest virtual time over both phases —
except that, as the MapReduce AM does, a job takes a reduce container only when none of its
maps fits. As YARN's schedulers do, the job that would be served first reserves a node whose
free room is too small for its next container (``reserve=False`` turns this off).
"""

from __future__ import annotations

import math
from collections import Counter

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, MAP, REDUCE, Policy
from jobsize.sim.schedulers.reservations import RELEASED, NodeReservations
from jobsize.sim.virtual_slots import MaxMinCluster

PHASES = (MAP, REDUCE)


class HFSP(Policy):
    """HFSP (see the module docstring).

    ``train_tasks``: training tasks per job and phase; ``train_slots``: training tasks that may
    run at once per phase (default: a tenth of the phase's slots, at least one);
    ``initial_task_s``: the per-task estimate before any job is trained; ``preemption``:
    ``"wait"`` or ``"kill"``.
    """

    name = "hfsp"

    def __init__(self, *, train_tasks: int = 2, train_slots: int | None = None,
                 initial_task_s: float = 60.0, preemption: str = "wait",
                 reserve: bool = True) -> None:
        if train_tasks < 1 or (train_slots is not None and train_slots < 0):
            raise ConfigError("HFSP needs at least one training task per job and a "
                              "non-negative number of training slots")
        if not initial_task_s > 0:
            raise ConfigError(f"HFSP initial task duration {initial_task_s!r} must be positive")
        if preemption not in ("wait", "kill"):
            raise ConfigError(f"HFSP preemption {preemption!r}: expected 'wait' or 'kill'")
        self.train_tasks = train_tasks
        self.train_slots = train_slots
        self.initial_task_s = initial_task_s
        self.preemption = preemption
        self.reserve = reserve
        self.name = "hfsp" if preemption == "wait" else "hfsp+kill"
        self.killed = 0

    def describe(self) -> str:
        return self.name

    # -----------------------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.slots = sim.cluster.slots
        self.virtual = {p: MaxMinCluster(self._phase_slots(p), sim.now) for p in PHASES}
        limit = {p: (self.train_slots if self.train_slots is not None
                     else max(1, self.virtual[p].n_slots // 10)) for p in PHASES}
        self.train_limit = limit
        self.train_running = {MAP: 0, REDUCE: 0}
        self.training: dict[int, set[int]] = {MAP: set(), REDUCE: set()}
        self.train_launched: dict[int, list[int]] = {MAP: [0] * sim.n, REDUCE: [0] * sim.n}
        self.samples: dict[int, list[list[float]]] = {p: [[] for _ in range(sim.n)]
                                                      for p in PHASES}
        self.initial = {MAP: [0.0] * sim.n, REDUCE: [0.0] * sim.n}
        self.train_cids: set[int] = set()
        self.active: set[int] = set()
        self.waiting: dict[int, None] = {}  # jobs that may want a container (pruned lazily)
        self._training_pick: tuple[int, int] | None = None
        self._wake_seq = -1
        self._wake_version = 0
        self._preempting = False
        self.reservations = NodeReservations(sim)

    def _phase_slots(self, phase: int) -> int:
        """Slots of a phase's virtual cluster: the real ones in the slot mode; in YARN half of
        the task containers (of the most common task size, on the nodes) beside the running
        AMs, the map phase taking the odd one, at least one each."""
        sim = self.sim
        cap = sim.cluster.capacity
        if sim.cluster.slots:
            return int(cap[:, 0 if phase == MAP else 1].sum())
        shapes = Counter(zip(sim.req0[MAP] + sim.req0[REDUCE], sim.req1[MAP] + sim.req1[REDUCE],
                             strict=True))
        r0, r1 = shapes.most_common(1)[0][0] if shapes else (1, 1)
        r0, r1 = max(r0, 1), max(r1, 1)
        fit = sum(min(a // r0, b // r1) for a, b in cap.tolist())
        tasks = fit - max(math.ceil(sim.am_used0 / r0), math.ceil(sim.am_used1 / r1))
        return max(1, (tasks + 1) // 2 if phase == MAP else tasks // 2)

    def _resize(self) -> None:
        """AMs started or ended: the YARN virtual clusters follow the task containers left."""
        if not self.slots:
            for p in PHASES:
                self.virtual[p].resize(self._phase_slots(p))

    # -----------------------------------------------------------------------------------------
    # arrivals, estimates, departures

    def on_arrival(self, j: int) -> None:
        self._advance()
        sim = self.sim
        self.active.add(j)
        for p, n in ((MAP, sim.n_maps[j]), (REDUCE, sim.n_reduces[j])):
            d = self._initial_estimate(p)
            self.initial[p][j] = n * d
            self.virtual[p].add(j, n, d)
            if n > 0:
                self.training[p].add(j)
        self._schedule_wake()

    def _initial_estimate(self, phase: int) -> float:
        """Mean per-task estimate of the trained jobs in the system, or ``initial_task_s``."""
        cluster = self.virtual[phase]
        trained = [cluster.per_task(j) for j in self.active
                   if j in cluster and j not in self.training[phase] and cluster.per_task(j) > 0]
        return sum(trained) / len(trained) if trained else self.initial_task_s

    def _trained(self, j: int, phase: int) -> None:
        sample = self.samples[phase][j]
        self.training[phase].discard(j)
        if sample and j in self.virtual[phase]:
            self.virtual[phase].estimate(j, sum(sample) / len(sample))

    def on_job_finish(self, j: int) -> None:
        self._advance()
        self.active.discard(j)
        self.waiting.pop(j, None)
        for p in PHASES:
            self.training[p].discard(j)
            self.virtual[p].remove(j)
        self._resize()  # its AM is released
        self._schedule_wake()

    # -----------------------------------------------------------------------------------------
    # the virtual clusters as events

    def _advance(self) -> None:
        for cluster in self.virtual.values():
            cluster.advance(self.sim.now)

    def _schedule_wake(self) -> None:
        t = min(c.next_event() for c in self.virtual.values())
        if self._wake_seq >= 0:
            self.sim.cancel(self._wake_seq)
            self._wake_seq = -1
        if math.isfinite(t):
            self._wake_version += 1
            self._wake_seq = self.sim.wake_at(t, ("virtual", self._wake_version))

    def on_wake(self, tag: object) -> None:
        if tag != ("virtual", self._wake_version):
            return
        self._wake_seq = -1
        self._advance()
        self._schedule_wake()
        if self.preemption == "kill":
            self._preempt()

    def key(self, j: int, phase: int) -> tuple[float, int, int]:
        """Order of ``j`` in ``phase``: remaining virtual time, then virtual-finish order."""
        cluster = self.virtual[phase]
        if j not in cluster:
            return (math.inf, 0, j)
        return (cluster.remaining(j), cluster.finish_position(j), j)

    # -----------------------------------------------------------------------------------------
    # accounting

    def on_demand(self, j: int) -> None:
        self.waiting[j] = None
        if self.preemption == "kill" and self.sim.reduce_ready[j] and self.sim.reduces_todo[j]:
            self._advance()
            self._preempt()

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        if kind == AM and not self.slots:  # fewer containers left for tasks
            self._advance()
            self._resize()
            self._schedule_wake()
        pick = self._training_pick
        self._training_pick = None
        if pick is not None and pick == (j, kind) and kind in PHASES:
            self.train_cids.add(cid)
            self.train_running[kind] += 1
            self.train_launched[kind][j] += 1

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        if kind not in PHASES:
            return
        training = cid in self.train_cids
        if training:
            self.train_cids.discard(cid)
            self.train_running[kind] -= 1
        if j not in self.training[kind]:
            return
        if completed:
            sample = self.samples[kind][j]
            sample.append(elapsed_s)
            total = self.sim.n_maps[j] if kind == MAP else self.sim.n_reduces[j]
            if len(sample) >= min(self.train_tasks, total):
                self._advance()
                self._trained(j, kind)
                self._schedule_wake()
        elif training:
            self.train_launched[kind][j] -= 1  # a killed training task is retried

    # -----------------------------------------------------------------------------------------
    # where free resources go

    def _wants(self, j: int, phase: int, node: int) -> int:
        """The container kind ``j`` would launch on ``node`` for ``phase``, or -1."""
        sim = self.sim
        f0, f1 = sim.free0[node], sim.free1[node]
        if phase == MAP:
            if sim.phase[j] == 1:
                return sim.next_kind(j, node)  # its AM (checks the max AM share)
            if sim.phase[j] == 3 and sim.maps_todo[j] and sim.req0[MAP][j] <= f0 \
                    and sim.req1[MAP][j] <= f1:
                return MAP
            return -1
        if not (sim.phase[j] == 3 and sim.reduce_ready[j] and sim.reduces_todo[j]
                and sim.req0[REDUCE][j] <= f0 and sim.req1[REDUCE][j] <= f1):
            return -1
        if not self.slots and sim.next_kind(j, node) == MAP:
            return -1  # the job's AM asks for its maps first (reduces waiting on them could
            # otherwise fill the cluster while the maps they wait for find no room)
        return REDUCE

    def choose(self, node: int) -> tuple[int, int] | None:
        self._advance()
        res = self.reservations
        if node in res.nodes:
            held = res.serve(node)
            if held is not RELEASED:
                return held  # type: ignore[return-value]
        phases = self._phases(node)
        for p in phases:
            pick = self._train(p, node)
            if pick is not None:
                self._training_pick = pick
                return pick
        best: tuple[tuple[float, int, int], int, int] | None = None
        has_demand = self.sim.has_demand
        candidates = [j for j in self.waiting if has_demand(j)]
        if len(candidates) < len(self.waiting):
            self.waiting = dict.fromkeys(candidates)
        for p in phases:
            for j in candidates:
                kind = self._wants(j, p, node)
                if kind < 0:
                    continue
                k = self.key(j, p)
                if best is None or k < best[0]:
                    best = (k, j, kind)
            if best is not None and self.slots:
                break  # a slot node fills its map slots first, then its reduce slots
        pick = None if best is None else (best[1], best[2])
        if self.reserve and not self.slots and not res.roomy(node):
            head = self._head_of(candidates)
            if head >= 0 and (pick is None or pick[0] != head) and res.reservable(head, node):
                res.reserve(node, head)
                return None
        return pick

    def _head_of(self, candidates: list[int]) -> int:
        """The job with the smallest key over the phases it waits in, fit or not."""
        sim = self.sim
        best, head = None, -1
        for j in candidates:
            phase = MAP if sim.phase[j] == 1 or sim.maps_todo[j] else REDUCE
            k = self.key(j, phase)
            if best is None or k < best:
                best, head = k, j
        return head

    def _phases(self, node: int) -> tuple[int, ...]:
        sim = self.sim
        if not self.slots:
            return PHASES
        return tuple(p for p, free in ((MAP, sim.free0[node]), (REDUCE, sim.free1[node]))
                     if free > 0)

    def _train(self, phase: int, node: int) -> tuple[int, int] | None:
        if self.train_running[phase] >= self.train_limit[phase] or not self.training[phase]:
            return None
        best = None
        for j in self.training[phase]:
            if self.train_launched[phase][j] >= self.train_tasks:
                continue
            kind = self._wants(j, phase, node)
            if kind not in PHASES:
                continue
            k = (self.initial[phase][j], j)
            if best is None or k < best[0]:
                best = (k, j, kind)
        return None if best is None else (best[1], best[2])

    # -----------------------------------------------------------------------------------------
    # kill preemption (reduces)

    def _preempt(self) -> None:
        if self._preempting:
            return  # a kill re-raises demand: the outer pass already accounts for it
        self._preempting = True
        try:
            self._kill_for_smaller()
        finally:
            self._preempting = False

    def _kill_for_smaller(self) -> None:
        """Kill larger jobs' reduce attempts for the job that would get the room next."""
        sim = self.sim
        head = self._head()
        if head is None:
            return
        key, j = head
        need = sim.reduces_todo[j] - self._free_reduce_room()
        if need <= 0:
            return
        victims = sorted(((self.key(v, REDUCE), v) for v in self.active
                          if v != j and v not in self.training[REDUCE]), reverse=True)
        for vkey, v in victims:
            if need <= 0 or vkey <= key:
                break
            for cid in reversed(sim.containers(v)):
                if need <= 0:
                    break
                rec = sim.container(cid)
                if rec is None or rec[0] != REDUCE or cid in self.train_cids:
                    continue
                sim.kill(cid)
                self.killed += 1
                need -= 1

    def _head(self) -> tuple[tuple[float, int, int], int] | None:
        """The job that freed room goes to, if it is a reduce it waits for: the smallest
        reduce key among jobs with ready reduces — and, in the YARN model, no job with a
        smaller key waits for a map or an AM (it would take the room instead)."""
        sim = self.sim
        best = None
        for j in self.active:
            if sim.phase[j] == 3 and sim.reduce_ready[j] and sim.reduces_todo[j] \
                    and (self.slots or not sim.maps_todo[j]):
                k = self.key(j, REDUCE)
                if best is None or k < best[0]:
                    best = (k, j)
        if best is None or self.slots:
            return best
        for j in self.active:
            if (sim.phase[j] == 1 or (sim.phase[j] == 3 and sim.maps_todo[j])) \
                    and self.key(j, MAP) < best[0]:
                return None
        return best

    def _free_reduce_room(self) -> int:
        """Reduce containers (slots) that fit in the free resources right now."""
        sim = self.sim
        if self.slots:
            return int(sum(sim.free1))
        shapes = Counter(zip(sim.req0[REDUCE], sim.req1[REDUCE], strict=True))
        r0, r1 = shapes.most_common(1)[0][0] if shapes else (1, 1)
        return int(sum(min(a // max(r0, 1), b // max(r1, 1))
                       for a, b in zip(sim.free0, sim.free1, strict=True)))


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    register_scheduler("hfsp", lambda **_: HFSP())
    register_scheduler("hfsp+kill", lambda **_: HFSP(preemption="kill"))


_register()
