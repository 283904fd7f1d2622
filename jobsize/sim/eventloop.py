"""The YARN container model: an event loop over nodes, containers and jobs.

A job is submitted, asks for its ApplicationMaster container, and once the AM runs (after
``am_startup_s``, plus ``am_startup_per_am_s`` for each other AM still starting when it is
launched: AM JVMs that start together share the machine) asks for its map containers; its
reduces are asked for when the completed fraction of maps reaches ``slowstart``
(``mapreduce.job.reduce.slowstart.completedmaps``, 0.05).
A reduce started before the last map finished finishes at ``max(start + duration, maps_done +
tail)`` (it shuffles while maps run). The job finishes when its last task does and releases its
AM. Uber jobs run all their tasks one after another inside the AM container. In the MRv1 slot
mode (``cluster.slots``) there is no AM and no uber mode: a job's maps are pending from its
submission.

Node speeds (:class:`~jobsize.sim.cluster.Cluster`), block locality
(:mod:`jobsize.sim.locality`) and stragglers (:mod:`jobsize.sim.stragglers`) change how long an
attempt takes: ``duration × straggler factor / node speed``, plus the remote read of a map whose
block is not on its node. A policy may launch a task in the other kind's slots (MRv1 slot
borrowing) or a speculative copy of a running attempt by returning a
:class:`~jobsize.sim.policy.Launch`; the first attempt of a task to finish completes it and its
other attempts are killed.

Which job gets free resources is the policy's decision (:mod:`jobsize.sim.policy`); the loop
offers a node when a container on it ends, and every node with room when new demand appears.
Events at the same instant are all processed before resources are offered.

Speed: task durations stay in the workload's numpy arrays until a job's AM starts (then its
durations become two short lists); the only heap is the one of timed events (container
completions, AM start-ups, policy wake-ups); per-job state lives in flat lists. There is no
Python object per task. A policy that declares an order the compiled core knows
(:meth:`~jobsize.sim.policy.Policy.native_order`: FIFO, Fair over one queue) runs in
:mod:`jobsize.sim.native` instead, with the same result (``native=False`` keeps this loop).

Observable state a policy may read (lists indexed by job): ``submit``, ``n_maps``,
``n_reduces``, ``maps_done``, ``reduces_done``, ``maps_todo`` (not yet launched),
``reduces_todo``, ``reduce_ready``, ``use0``/``use1`` (allocated memory MB or map slots /
vcores or reduce slots, AM included), ``running`` (task containers), ``phase`` (0 not yet
submitted, 1 waiting for its AM, 2 AM starting, 3 running, 4 finished), ``req0``/``req1``
(requests, ``req0[kind][j]``), ``uber``; cluster-wide ``now``, ``total0``/``total1``,
``free0``/``free1`` (per node), ``jobs`` (the per-job frame without task durations); with
block locality ``local_maps``/``remote_maps`` (per job, attempts launched) and
:meth:`Simulation.has_local_map`; :meth:`Simulation.progress` of a running attempt (the
fraction done, what a TaskTracker reports).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from jobsize.errors import ConfigError, SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import AM, EXTRA, MAP, REDUCE, Launch, Policy
from jobsize.sim.size_sources import SizeEstimates, SizeSource
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import Workload

INF = math.inf
_AM_READY, _UBER_DONE, _WAKE = 4, 5, 6
WAITING = INF  # finish time of a reduce that waits for its job's last map


@dataclass
class SimResult:
    """Outcome of one run: per-job times and, with ``record=True``, every container."""

    jobs: pd.DataFrame
    attempts: pd.DataFrame | None
    policy: str
    cluster: str
    events: int
    wall_s: float
    meta: dict[str, object] = field(default_factory=dict)


class Simulation:
    """One run of ``policy`` on ``workload`` over ``cluster`` (see the module docstring)."""

    def __init__(self, workload: Workload, cluster: Cluster, policy: Policy, *,
                 slowstart: float = 0.05, am_startup_s: float = 0.0,
                 am_startup_per_am_s: float = 0.0,
                 max_am_share: float = 0.5, record: bool = False,
                 locality: BlockLocality | None = None,
                 stragglers: Stragglers | None = None, native: bool = True) -> None:
        if not 0.0 <= slowstart <= 1.0:
            raise ConfigError(f"reduce slow-start {slowstart!r} is not a fraction in [0, 1]")
        if not 0.0 < max_am_share <= 1.0:
            raise ConfigError(f"max AM share {max_am_share!r} is not a fraction in (0, 1]")
        if not (0 <= am_startup_s < INF and 0 <= am_startup_per_am_s < INF):
            raise ConfigError(f"AM start-up time {am_startup_s!r} (+{am_startup_per_am_s!r} per "
                              "AM starting) is not a non-negative number")
        workload.check_fits(cluster)
        self.workload, self.cluster, self.policy = workload, cluster, policy
        self.slowstart, self.am_startup_s, self.record = slowstart, am_startup_s, record
        #: run in the compiled core (:mod:`jobsize.sim.native`) where the policy and the model
        #: allow it; the result is the same either way
        self.native = native
        self.am_startup_per_am_s = am_startup_per_am_s
        self.am_starting = 0  # AMs launched whose start-up has not ended (uber jobs aside)
        self.slots = cluster.slots
        n = workload.n_jobs
        w = workload
        self.n = n
        self.jobs = w.jobs
        self.submit: list[float] = w.submit_s().tolist()
        self.n_maps: list[int] = w.n_maps.tolist()
        self.n_reduces: list[int] = w.n_reduces.tolist()
        req = w.requests(self.slots)
        if self.slots:  # weighted slots: a task takes its slot's weight in units
            req[:, MAP, 0] *= cluster.slot_weights[0]
            req[:, REDUCE, 1] *= cluster.slot_weights[1]
        self.req0 = [req[:, k, 0].tolist() for k in range(3)]
        self.req1 = [req[:, k, 1].tolist() for k in range(3)]
        self.uber: list[bool] = ([False] * n if self.slots
                                 else w.jobs["uber"].to_numpy(bool).tolist())
        units = cluster.units
        self.free0: list[int] = units[:, 0].tolist()
        self.free1: list[int] = units[:, 1].tolist()
        self.total0, self.total1 = int(units[:, 0].sum()), int(units[:, 1].sum())
        self.am_limit0 = max_am_share * self.total0
        self.am_limit1 = max_am_share * self.total1
        self.am_used0 = self.am_used1 = 0
        self._am_waiting: dict[int, None] = {}
        used = np.zeros((n, 3), bool)
        used[:, AM] = not self.slots
        used[:, MAP] = w.n_maps > 0
        used[:, REDUCE] = w.n_reduces > 0
        r0, r1 = req[:, :, 0][used], req[:, :, 1][used]
        self.min0 = int(r0.min()) if len(r0) else 0
        self.min1 = int(r1.min()) if len(r1) else 0
        if self.slots:  # a free slot of either kind is room: tasks may borrow the other kind's
            self.min0 = self.min1 = 0
        am_shapes = {(a, b) for a, b in zip(self.req0[AM], self.req1[AM], strict=True)}
        task_shapes = set()
        for kind, mask in ((MAP, used[:, MAP]), (REDUCE, used[:, REDUCE])):
            task_shapes |= set(map(tuple, req[mask, kind, :].tolist()))
        #: every job asks for the same AM (task) container: a queue may stop at the first misfit
        self.uniform_am = len(am_shapes) <= 1
        self.uniform_task = len(task_shapes) <= 1
        self._min_am0 = min(self.req0[AM], default=0)
        self._min_am1 = min(self.req1[AM], default=0)
        self.room = {i for i in range(cluster.n_nodes) if self._has_room(i)}
        # per-job progress
        self.phase = [0] * n
        self.maps_todo = [0] * n
        self.reduces_todo = [0] * n
        self.maps_done = [0] * n
        self.reduces_done = [0] * n
        self.reduce_ready = [False] * n
        self.running = [0] * n
        self.use0 = [0] * n
        self.use1 = [0] * n
        self.am_node = [-1] * n
        self.am_cid = [-1] * n
        self.am_start = [math.nan] * n
        self._am_delay = [0.0] * n  # each job's AM start-up, as it was launched
        self.finish = [math.nan] * n
        self._conts: list[dict[int, None]] = [{} for _ in range(n)]
        self._mdur: list[list[float] | None] = [None] * n
        self._rdur: list[list[float] | None] = [None] * n
        self._rtail: list[list[float] | None] = [None] * n
        self._mnext = [0] * n
        self._rnext = [0] * n
        self._retry: dict[tuple[int, int], list[int]] = {}
        self._waiting: dict[int, list[int]] = {}
        self._red_threshold = [self._threshold(m) for m in self.n_maps]
        self._attempt_models(cluster, locality, stragglers)
        # events
        self.now = 0.0
        self._heap: list[tuple[float, int]] = []
        self._events: dict[int, tuple] = {}
        self._seq = 0
        self.pending = 0
        self._offer_all = False
        self._dirty: set[int] = set()
        self._attempts: list[tuple] = []
        self.n_events = 0

    def _attempt_models(self, cluster: Cluster, locality: BlockLocality | None,
                        stragglers: Stragglers | None) -> None:
        """State of node speeds, block locality, stragglers and speculative copies."""
        speed = cluster.speed
        self._speed = (None, speed[:, 0].tolist(), speed[:, 1].tolist())  # type: ignore[index]
        self.locality, self.stragglers = locality, stragglers
        #: some attempt takes other than its task's duration: take the slower launch path
        self._shaped = locality is not None or stragglers is not None \
            or not cluster.uniform_speed
        n = self.n
        self.local_maps = [0] * n
        self.remote_maps = [0] * n
        self._mpend: list[dict[int, None] | None] | None = [None] * n if locality else None
        self._mlocal: list[dict[int, list[int]] | None] = [None] * n
        self._mrep: list[np.ndarray | None] = [None] * n
        self._fac: tuple | None = None
        if stragglers is not None:
            w = self.workload
            self._fac = (None, stragglers.first_factors(len(w.map_s), MAP),
                         stragglers.first_factors(len(w.reduce_s), REDUCE))
            self._srng = stragglers.generator()
        self._mfac: list[list[float | None] | None] = [None] * n
        self._rfac: list[list[float | None] | None] = [None] * n
        #: (job, kind, task) -> live attempts, for tasks with a speculative copy
        self._copies: dict[tuple[int, int, int], list[int]] = {}
        self.copies_launched = 0
        self.copies_won = 0

    # ---------------------------------------------------------------------------------------
    # queries for policies

    def _threshold(self, n_maps: int) -> int:
        """Smallest number of completed maps k with k / n_maps ≥ slowstart."""
        if n_maps == 0:
            return 0
        k = math.ceil(self.slowstart * n_maps - 1e-9)
        return min(max(k, 0), n_maps)

    def _has_room(self, node: int) -> bool:
        f0, f1 = self.free0[node], self.free1[node]
        return f0 >= self.min0 and f1 >= self.min1 and f0 + f1 > 0

    def has_demand(self, j: int) -> bool:
        """Whether job ``j`` waits for a container (AM, map or ready reduce)."""
        ph = self.phase[j]
        if ph == 1:
            return True
        if ph != 3:
            return False
        return self.maps_todo[j] > 0 or (self.reduce_ready[j] and self.reduces_todo[j] > 0)

    def next_kind(self, j: int, node: int) -> int:
        """The container ``j`` would launch on ``node`` (AM, MAP, REDUCE), or -1 if none fits."""
        ph = self.phase[j]
        f0, f1 = self.free0[node], self.free1[node]
        if ph == 1:
            r0, r1 = self.req0[AM][j], self.req1[AM][j]
            if r0 > f0 or r1 > f1:
                return -1
            if self.am_used0 and (self.am_used0 + r0 > self.am_limit0
                                  or self.am_used1 + r1 > self.am_limit1):
                return -1  # maxAMShare: AMs may not crowd out the tasks they wait for
            return AM
        if ph != 3:
            return -1
        if self.maps_todo[j] and self.req0[MAP][j] <= f0 and self.req1[MAP][j] <= f1:
            return MAP
        if (self.reduce_ready[j] and self.reduces_todo[j] and self.req0[REDUCE][j] <= f0
                and self.req1[REDUCE][j] <= f1):
            return REDUCE
        return -1

    def am_admissible(self) -> bool:
        """Whether the max AM share leaves room for the smallest AM."""
        return not self.am_used0 or (self.am_used0 + self._min_am0 <= self.am_limit0
                                     and self.am_used1 + self._min_am1 <= self.am_limit1)

    def am_may_start(self, node: int) -> bool:
        """Whether some AM could start on ``node`` now: the max AM share admits one and the
        node has room for the smallest AM (False rules out every job waiting for its AM)."""
        return (self.free0[node] >= self._min_am0 and self.free1[node] >= self._min_am1
                and self.am_admissible())

    def has_local_map(self, j: int, node: int) -> bool:
        """Whether ``j`` has a pending map whose block is on ``node`` (False without a block
        locality model)."""
        if self._mpend is None:
            return False
        pend, by_node = self._mpend[j], self._mlocal[j]
        if not pend or by_node is None:
            return False
        stack = by_node.get(node)
        while stack and stack[-1] not in pend:
            stack.pop()
        return bool(stack)

    def progress(self, cid: int) -> float:
        """Fraction done of a running task attempt (0 for a reduce waiting for its maps)."""
        rec = self._events.get(cid)
        if rec is None or rec[0] not in (MAP, REDUCE):
            raise SimulationError(f"container {cid} is not a running task")
        start, finish = rec[3], rec[7]
        if finish == WAITING:
            return 0.0
        span = finish - start
        return 1.0 if span <= 0 else min(1.0, (self.now - start) / span)

    def containers(self, j: int) -> list[int]:
        """Running task and extra containers of ``j`` (AM excluded), oldest first."""
        return list(self._conts[j])

    def container(self, cid: int) -> tuple | None:
        """(kind, job, node, start, task) of a running container (task: the index of a MAP or
        REDUCE task in its job, an EXTRA's tag; absent for an AM), or None."""
        rec = self._events.get(cid)
        return None if rec is None else rec[:5]

    def frees_room(self, node: int) -> bool:
        """Whether a task or extra container on ``node`` is timed to end (a reduce waiting for
        its maps, or an AM, ends only when other work does)."""
        return any(rec[2] == node and MAP <= rec[0] <= EXTRA and rec[7] != WAITING
                   for rec in self._events.values() if len(rec) > 7)

    def held(self, cid: int) -> tuple[int, int]:
        """Resources a running task or extra container holds (slot units in the slot mode)."""
        rec = self._events.get(cid)
        if rec is None or rec[0] > EXTRA:
            raise SimulationError(f"container {cid} is not running")
        return rec[5], rec[6]

    def estimates(self, source: SizeSource) -> SizeEstimates:
        """Size estimates of this run's jobs from ``source`` — a policy's only way to sizes."""
        return source.estimate(self.workload)

    # ---------------------------------------------------------------------------------------
    # actions for policies

    def wake_at(self, when: float, tag: object = None) -> int:
        """Call ``policy.on_wake(tag)`` at time ``when`` (not before now). Returns its id."""
        seq = self._push(max(when, self.now), (_WAKE, tag))
        return seq

    def cancel(self, seq: int) -> None:
        """Drop a pending wake-up."""
        rec = self._events.get(seq)
        if rec is not None and rec[0] == _WAKE:
            del self._events[seq]

    def request_offers(self) -> None:
        """Offer every node with room once the current instant's events are processed."""
        self._offer_all = True

    def kill(self, cid: int) -> None:
        """Kill a running task or extra container; a task becomes pending again."""
        rec = self._events.pop(cid, None)
        if rec is None or rec[0] > EXTRA:
            raise SimulationError(f"container {cid} is not running")
        kind, j, node, start, idx = rec[0], rec[1], rec[2], rec[3], rec[4]
        r0, r1 = self._release(j, kind, node, cid, rec)
        if self.record:
            self._attempts.append((j, kind, idx, node, start, self.now, False, r0, r1))
        if kind == EXTRA:
            self.policy.on_extra_done(j, idx, node, cid, False)
            return
        if self._copies and self._leave_copies(cid, (j, kind, idx)):
            self.policy.on_release(j, kind, node, cid, self.now - start, False)
            return  # another attempt of the task runs on
        self._requeue(j, kind, idx)
        if kind == MAP:
            self.maps_todo[j] += 1
            self.pending += 1
        else:
            self.reduces_todo[j] += 1
            if self.reduce_ready[j]:
                self.pending += 1
        self.policy.on_release(j, kind, node, cid, self.now - start, False)
        self._demand(j)

    # ---------------------------------------------------------------------------------------
    # internals

    def _requeue(self, j: int, kind: int, idx: int) -> None:
        if kind == MAP and self._mpend is not None:
            self._mpend[j][idx] = None  # type: ignore[index]
            by_node = self._mlocal[j]
            for node in self._mrep[j][idx].tolist():  # type: ignore[index]
                by_node.setdefault(node, []).append(idx)  # type: ignore[union-attr]
        else:
            self._retry.setdefault((j, kind), []).append(idx)

    def _leave_copies(self, cid: int, key: tuple[int, int, int]) -> bool:
        """Forget attempt ``cid`` of a task; True if another attempt of it still runs."""
        live = self._copies.get(key)
        if live is None:
            return False
        live.remove(cid)
        if len(live) <= 1:
            del self._copies[key]
        return bool(live)

    def _push(self, when: float, rec: tuple) -> int:
        self._seq += 1
        seq = self._seq
        self._events[seq] = rec
        if when != WAITING:
            heapq.heappush(self._heap, (when, seq))
        return seq

    def _demand(self, j: int) -> None:
        self._offer_all = True
        self.policy.on_demand(j)

    def _alloc(self, node: int, r0: int, r1: int) -> None:
        f0 = self.free0[node] - r0
        f1 = self.free1[node] - r1
        if f0 < 0 or f1 < 0:
            raise SimulationError(f"policy {self.policy.name} over-allocated node {node}")
        self.free0[node], self.free1[node] = f0, f1
        if not (f0 >= self.min0 and f1 >= self.min1 and f0 + f1 > 0):
            self.room.discard(node)

    def _free(self, node: int, r0: int, r1: int) -> None:
        self.free0[node] += r0
        self.free1[node] += r1
        if self._has_room(node):
            self.room.add(node)
        self._dirty.add(node)

    def _release(self, j: int, kind: int, node: int, cid: int, rec: tuple) -> tuple[int, int]:
        r0, r1 = rec[5], rec[6]
        if kind != EXTRA:
            self.running[j] -= 1
        self._free(node, r0, r1)
        self.use0[j] -= r0
        self.use1[j] -= r1
        del self._conts[j][cid]
        return r0, r1

    def _launch(self, j: int, kind: int, node: int,
                shape: tuple[int, int] | None = None) -> None:
        now = self.now
        if kind == AM:
            r0, r1 = self.req0[AM][j], self.req1[AM][j]
            self._alloc(node, r0, r1)
            self.use0[j] += r0
            self.use1[j] += r1
            self.phase[j] = 2
            self.pending -= 1
            del self._am_waiting[j]
            self._am_account(r0, r1)
            self.am_node[j] = node
            self.am_start[j] = now
            delay = self.am_startup_s + self.am_startup_per_am_s * self.am_starting
            self._am_delay[j] = delay
            if self.uber[j]:
                cid = self._push(now + delay + self._uber_work(j), (_UBER_DONE, j, node, now))
            else:
                self.am_starting += 1
                cid = self._push(now + delay, (_AM_READY, j, node, now))
            self.am_cid[j] = cid
            self.policy.on_launch(j, AM, node, cid)
            return
        if kind == EXTRA:
            r0, r1, duration, tag = self.policy.extra_request(j, node)
            self._alloc(node, r0, r1)
            self.use0[j] += r0
            self.use1[j] += r1
            cid = self._push(now + duration, (EXTRA, j, node, now, tag, r0, r1))
            self._conts[j][cid] = None
            self.policy.on_launch(j, EXTRA, node, cid)
            return
        if kind != MAP and kind != REDUCE:
            raise SimulationError(f"policy {self.policy.name} chose an unknown kind {kind!r}")
        if shape is None:
            self._start_task(j, kind, node, self.req0[kind][j], self.req1[kind][j])
        else:
            self._start_task(j, kind, node, *shape)

    def _uber_work(self, j: int) -> float:
        """Seconds an uber job's tasks take, one after another in its AM container."""
        w = self.workload
        return (float(w.map_s[w.map_off[j]:w.map_off[j + 1]].sum())
                + float(w.reduce_s[w.reduce_off[j]:w.reduce_off[j + 1]].sum()))

    def _start_task(self, j: int, kind: int, node: int, r0: int, r1: int) -> None:
        """The next MAP or REDUCE attempt of ``j`` on ``node``, holding ``(r0, r1)``."""
        free0, free1 = self.free0, self.free1
        f0 = free0[node] - r0
        f1 = free1[node] - r1
        if f0 < 0 or f1 < 0:
            raise SimulationError(f"policy {self.policy.name} over-allocated node {node}")
        free0[node] = f0
        free1[node] = f1
        if f0 < self.min0 or f1 < self.min1 or f0 + f1 <= 0:
            self.room.discard(node)
        self.use0[j] += r0
        self.use1[j] += r1
        self.running[j] += 1
        self.pending -= 1
        now = self.now
        retry = self._retry.get((j, kind)) if self._retry else None
        scale = 1.0
        if kind == MAP:
            self.maps_todo[j] -= 1
            if self._mpend is not None:
                idx = self._take_map(j, node)
            elif retry:
                idx = retry.pop()
            else:
                idx = self._mnext[j]
                self._mnext[j] = idx + 1
            d = self._mdur[j][idx]  # type: ignore[index]
            if self._shaped:
                scale = self._scale(MAP, j, idx, node, True)
                d = d * scale + self._remote_s(j, idx, node)
            finish = now + d
        else:
            self.reduces_todo[j] -= 1
            if retry:
                idx = retry.pop()
            else:
                idx = self._rnext[j]
                self._rnext[j] = idx + 1
            if self._shaped:
                scale = self._scale(REDUCE, j, idx, node, True)
            if self.maps_done[j] < self.n_maps[j]:
                finish = WAITING
            else:
                finish = now + self._rdur[j][idx] * scale  # type: ignore[index]
        self._seq = cid = self._seq + 1
        self._events[cid] = (kind, j, node, now, idx, r0, r1, finish, scale)
        if finish == WAITING:
            self._waiting.setdefault(j, []).append(cid)
        else:
            heapq.heappush(self._heap, (finish, cid))
        self._conts[j][cid] = None
        self.policy.on_launch(j, kind, node, cid)

    def _launch_ext(self, launch: Launch, node: int) -> None:
        """A policy's :class:`Launch`: a task in other slots, or a speculative copy."""
        if launch.copy_of < 0:
            self._launch(launch.job, launch.kind, node, launch.shape)
            return
        orig = self._events.get(launch.copy_of)
        if orig is None or orig[0] not in (MAP, REDUCE) or orig[7] == WAITING:
            raise SimulationError(f"policy {self.policy.name} copied {launch.copy_of}, which is "
                                  "not a running task attempt with a known end")
        kind, j, idx = orig[0], orig[1], orig[4]
        r0, r1 = launch.shape if launch.shape is not None else (self.req0[kind][j],
                                                                  self.req1[kind][j])
        self._alloc(node, r0, r1)
        self.use0[j] += r0
        self.use1[j] += r1
        self.running[j] += 1
        now = self.now
        scale = self._scale(kind, j, idx, node, False)
        if kind == MAP:
            d = self._mdur[j][idx] * scale + self._remote_s(j, idx, node)  # type: ignore[index]
        else:
            d = self._rdur[j][idx] * scale  # type: ignore[index]
        finish = now + d
        self._seq = cid = self._seq + 1
        self._events[cid] = (kind, j, node, now, idx, r0, r1, finish, scale)
        heapq.heappush(self._heap, (finish, cid))
        self._conts[j][cid] = None
        self._copies.setdefault((j, kind, idx), [launch.copy_of]).append(cid)
        self.copies_launched += 1
        self.policy.on_launch(j, kind, node, cid)

    def _take_map(self, j: int, node: int) -> int:
        """A pending map of ``j`` for ``node``: one with its block there if any (then counted
        local), else the first pending."""
        pend = self._mpend[j]  # type: ignore[index]
        stack = self._mlocal[j].get(node)  # type: ignore[union-attr]
        while stack:
            idx = stack.pop()
            if idx in pend:
                del pend[idx]  # type: ignore[attr-defined]
                self.local_maps[j] += 1
                return idx
        idx = next(iter(pend))  # type: ignore[arg-type]
        del pend[idx]  # type: ignore[attr-defined]
        self.remote_maps[j] += 1
        return idx

    def _remote_s(self, j: int, idx: int, node: int) -> float:
        """Extra seconds of a map reading its block from another node."""
        if self.locality is None:
            return 0.0
        if node in self._mrep[j][idx]:  # type: ignore[index]
            return 0.0
        return self.locality.remote_s

    def _scale(self, kind: int, j: int, idx: int, node: int, first: bool) -> float:
        """Duration multiplier of an attempt: straggler factor over node speed. A task's first
        attempt draws its factor from the workload's draws; later attempts afresh."""
        factor = 1.0
        if self.stragglers is not None:
            facs = (self._mfac if kind == MAP else self._rfac)[j]
            f = facs[idx] if first else None  # type: ignore[index]
            if f is None:
                factor = self.stragglers.draw(self._srng)
            else:
                factor = f
                facs[idx] = None  # type: ignore[index]
        return factor / self._speed[kind][node]  # type: ignore[index]

    def _arrive(self, j: int) -> None:
        if self.slots:
            self.am_start[j] = self.now
            self.policy.on_arrival(j)
            self._am_ready(j)
            return
        self.phase[j] = 1
        self.pending += 1
        self._am_waiting[j] = None
        self.policy.on_arrival(j)
        self._demand(j)

    def _am_ready(self, j: int) -> None:
        w = self.workload
        self.phase[j] = 3
        self._mdur[j] = w.map_s[w.map_off[j]:w.map_off[j + 1]].tolist()
        self._rdur[j] = w.reduce_s[w.reduce_off[j]:w.reduce_off[j + 1]].tolist()
        self._rtail[j] = w.reduce_tail_s[w.reduce_off[j]:w.reduce_off[j + 1]].tolist()
        self.maps_todo[j] = self.n_maps[j]
        self.reduces_todo[j] = self.n_reduces[j]
        self.pending += self.n_maps[j]
        if self._shaped:
            self._start_attempt_models(j)
        if self.n_maps[j] == 0 and self.n_reduces[j] == 0:
            self._finish_job(j)
            return
        self._check_reduces(j)
        self._demand(j)

    def _start_attempt_models(self, j: int) -> None:
        w = self.workload
        if self._fac is not None:
            m0, m1, r0, r1 = w.map_off[j], w.map_off[j + 1], w.reduce_off[j], w.reduce_off[j + 1]
            self._mfac[j] = self._fac[MAP][m0:m1].tolist()
            self._rfac[j] = self._fac[REDUCE][r0:r1].tolist()
        if self.locality is not None:
            reps = self.locality.replicas(j, self.n_maps[j], self.cluster.n_nodes)
            self._mrep[j] = reps
            by_node: dict[int, list[int]] = {}
            # stacks popped from the end: the first maps on top, as without locality
            for idx in range(self.n_maps[j] - 1, -1, -1):
                for node in reps[idx].tolist():
                    by_node.setdefault(node, []).append(idx)
            self._mlocal[j] = by_node
            self._mpend[j] = dict.fromkeys(range(self.n_maps[j]))  # type: ignore[index]

    def _am_account(self, r0: int, r1: int) -> None:
        self.am_used0 += r0
        self.am_used1 += r1
        if r0 < 0 and self._am_waiting:
            self._offer_all = True  # an AM slot opened: waiting jobs may start

    def _check_reduces(self, j: int) -> None:
        if not self.reduce_ready[j] and self.maps_done[j] >= self._red_threshold[j]:
            self.reduce_ready[j] = True
            if self.reduces_todo[j]:
                self.pending += self.reduces_todo[j]
                self._demand(j)

    def _maps_finished(self, j: int) -> None:
        waiting = self._waiting.pop(j, None)
        if not waiting:
            return
        now = self.now
        rdur, rtail = self._rdur[j], self._rtail[j]
        events = self._events
        for cid in waiting:
            rec = events.get(cid)
            if rec is None:
                continue  # killed while waiting
            start, idx, scale = rec[3], rec[4], rec[8]
            finish = max(start + rdur[idx] * scale, now + rtail[idx] * scale)  # type: ignore[index]
            events[cid] = (*rec[:7], finish, scale)
            heapq.heappush(self._heap, (finish, cid))

    def _finish_job(self, j: int) -> None:
        self.phase[j] = 4
        self.finish[j] = self.now
        self._events.pop(self.am_cid[j], None)
        node = self.am_node[j]
        if node >= 0:
            r0, r1 = self.req0[AM][j], self.req1[AM][j]
            self._free(node, r0, r1)
            self.use0[j] -= r0
            self.use1[j] -= r1
            self._am_account(-r0, -r1)
            if self.record:
                self._attempts.append((j, AM, 0, node, self.am_start[j], self.now, True, r0, r1))
            self.policy.on_release(j, AM, node, self.am_cid[j], self.now - self.am_start[j], True)
        self._mdur[j] = self._rdur[j] = self._rtail[j] = None
        if self._shaped:
            self._mfac[j] = self._rfac[j] = self._mrep[j] = None
            self._mlocal[j] = None
            if self._mpend is not None:
                self._mpend[j] = None
        self.policy.on_job_finish(j)

    def _task_done(self, cid: int, rec: tuple) -> None:
        kind, j, node, start, idx = rec[0], rec[1], rec[2], rec[3], rec[4]
        now = self.now
        if kind == EXTRA:
            r0, r1 = self._release(j, kind, node, cid, rec)
            if self.record:
                self._attempts.append((j, kind, idx, node, start, now, True, r0, r1))
            self.policy.on_extra_done(j, idx, node, cid, True)
            return
        # release (inlined: this runs once per task)
        r0, r1 = rec[5], rec[6]
        f0 = self.free0[node] = self.free0[node] + r0
        f1 = self.free1[node] = self.free1[node] + r1
        if f0 >= self.min0 and f1 >= self.min1 and f0 + f1 > 0:
            self.room.add(node)
        self._dirty.add(node)
        self.running[j] -= 1
        self.use0[j] -= r0
        self.use1[j] -= r1
        del self._conts[j][cid]
        if self.record:
            self._attempts.append((j, kind, idx, node, start, now, True, r0, r1))
        self.policy.on_release(j, kind, node, cid, now - start, True)
        if self._copies and (j, kind, idx) in self._copies:
            self._drop_copies(cid, (j, kind, idx))
        if kind == MAP:
            done = self.maps_done[j] = self.maps_done[j] + 1
            if not self.reduce_ready[j]:
                self._check_reduces(j)
            if done == self.n_maps[j]:
                self._maps_finished(j)
                if self.reduces_done[j] == self.n_reduces[j]:
                    self._finish_job(j)
        else:
            done = self.reduces_done[j] = self.reduces_done[j] + 1
            if done == self.n_reduces[j] and self.maps_done[j] == self.n_maps[j]:
                self._finish_job(j)

    def _drop_copies(self, winner: int, key: tuple[int, int, int]) -> None:
        """The task's attempt ``winner`` finished first: kill its other attempts."""
        live = self._copies.pop(key)
        if live[0] != winner:
            self.copies_won += 1
        for cid in live:
            if cid == winner:
                continue
            rec = self._events.pop(cid)
            j, kind, node, start = rec[1], rec[0], rec[2], rec[3]
            r0, r1 = self._release(j, kind, node, cid, rec)
            if self.record:
                self._attempts.append((j, kind, rec[4], node, start, self.now, False, r0, r1))
            self.policy.on_release(j, kind, node, cid, self.now - start, False)

    def _uber_done(self, j: int) -> None:
        if self.record:
            w, t = self.workload, self.am_start[j] + self._am_delay[j]
            node = self.am_node[j]
            for kind, durs in ((MAP, w.map_s[w.map_off[j]:w.map_off[j + 1]]),
                               (REDUCE, w.reduce_s[w.reduce_off[j]:w.reduce_off[j + 1]])):
                for idx, d in enumerate(durs.tolist()):
                    self._attempts.append((j, kind, idx, node, t, t + d, True, 0, 0))
                    t += d
        self.maps_done[j], self.reduces_done[j] = self.n_maps[j], self.n_reduces[j]
        self._finish_job(j)

    def _fill(self, node: int) -> None:
        free0, free1, min0, min1 = self.free0, self.free1, self.min0, self.min1
        choose, policy = self.policy.choose, self.policy
        req0, req1, start_task = self.req0, self.req1, self._start_task
        while (self.pending or policy.extra_pending) and free0[node] >= min0 \
                and free1[node] >= min1 and free0[node] + free1[node] > 0:
            pick = choose(node)
            if pick is None:
                return
            if len(pick) != 2:
                self._launch_ext(pick, node)  # type: ignore[arg-type]
                continue
            j, kind = pick
            if MAP <= kind <= REDUCE:  # the usual pick, straight to its start
                start_task(j, kind, node, req0[kind][j], req1[kind][j])
            else:
                self._launch(j, kind, node)

    def _offer(self) -> None:
        if self._offer_all:
            self._offer_all = False
            self._dirty.clear()
            for node in sorted(self.room):
                if not (self.pending or self.policy.extra_pending):
                    break
                self._fill(node)
        elif len(self._dirty) == 1:  # the usual case: one container ended
            self._fill(self._dirty.pop())
        else:
            dirty = sorted(self._dirty)
            self._dirty.clear()
            for node in dirty:
                self._fill(node)
        self._dirty.clear()

    # ---------------------------------------------------------------------------------------

    def run(self) -> SimResult:
        """Run to the last job's completion and return per-job times."""
        t0 = time.perf_counter()
        self.policy.bind(self)
        if self.native:
            from jobsize.sim import native  # numba compiles on first use: only when wanted

            order = self.policy.native_order()
            if native.supported(self, order) and native.run(self, order):  # type: ignore[arg-type]
                result = self._result(time.perf_counter() - t0)
                result.meta["core"] = "compiled"
                return result
        heap, events, submit, n = self._heap, self._events, self.submit, self.n
        dirty = self._dirty
        heappop = heapq.heappop
        nxt = 0
        horizon, stall_limit = self._progress_bounds()
        last, stop = -INF, stall_limit
        while True:
            t_heap = heap[0][0] if heap else INF
            t_arr = submit[nxt] if nxt < n else INF
            now = t_arr if t_arr < t_heap else t_heap
            if now == INF:
                break
            if now > last:  # a new instant: it may take up to stall_limit events
                if now > horizon:  # late events are fine once every job is done
                    if any(p != 4 for p in self.phase):
                        self._no_progress(now, False)
                    horizon = INF
                last, stop = now, self.n_events + stall_limit
            self.now = now
            while nxt < n and submit[nxt] <= now:
                self._arrive(nxt)
                nxt += 1
            while heap and heap[0][0] <= now:
                seq = heappop(heap)[1]
                rec = events.pop(seq, None)
                if rec is None:
                    continue
                self.n_events += 1
                if self.n_events > stop:
                    self._no_progress(now, True)
                kind = rec[0]
                if kind <= EXTRA:
                    self._task_done(seq, rec)
                elif kind == _AM_READY:
                    events[seq] = rec  # the AM container stays alive until the job ends
                    self.am_starting -= 1
                    self._am_ready(rec[1])
                elif kind == _UBER_DONE:
                    self._uber_done(rec[1])
                else:
                    self.policy.on_wake(rec[1])
                    self._offer_all = True
            if dirty and not self._offer_all and len(dirty) == 1:
                self._fill(dirty.pop())  # the usual case: one container ended
                dirty.clear()  # what a kill during the fill freed waits, as in _offer
            elif self._offer_all or dirty:
                self._offer()
            if self.pending:  # usually the heap's first entry shows a container timed to end
                rec = events.get(heap[0][1]) if heap else None
                if (rec is None or rec[0] == _WAKE) and not self._will_change() \
                        and self._preempt_waiting_reduces():
                    self._offer()
        unfinished = [j for j in range(n) if self.phase[j] != 4]
        if unfinished:
            j = unfinished[0]
            raise SimulationError(f"{len(unfinished)} jobs never finished (first: "
                                  f"{self.jobs['job_id'].iloc[j]}); policy {self.policy.name} "
                                  "left demand waiting with nothing running",
                                  source=self.workload.name)
        return self._result(time.perf_counter() - t0)

    def _will_change(self) -> bool:
        """Whether a container, an AM start-up or an uber job is timed to end (policy
        wake-ups alone change nothing). Usually answered by the heap's first entry."""
        events = self._events
        return any((rec := events.get(seq)) is not None and rec[0] != _WAKE
                   for _, seq in self._heap)

    def _preempt_waiting_reduces(self) -> bool:
        """Nothing is left to happen but policy wake-ups, yet a job's maps wait: reduces
        started early hold the room they need while waiting for those very maps. As
        MapReduce's ApplicationMaster does when its maps cannot be scheduled (reduce
        preemption), kill waiting reduces — the stuck job's own first, newest first — on the
        node where the fewest make a map fit, and ramp down the reduces of every job whose maps
        wait: no new reduce until one more of the job's maps has finished, so the room goes to
        a map and not straight back to a reduce. Returns whether it killed any."""
        events, req0, req1 = self._events, self.req0, self.req1
        waiting = [cid for cids in self._waiting.values() for cid in cids if cid in events]
        for j in range(self.n):
            if self.phase[j] != 3 or not self.maps_todo[j]:
                continue
            best: list[int] | None = None
            for node in range(self.cluster.n_nodes):
                f0, f1 = self.free0[node], self.free1[node]
                kills: list[int] = []
                here = sorted((c for c in waiting if events[c][2] == node),
                              key=lambda c: (events[c][1] != j, -c))
                for cid in here:
                    if f0 >= req0[MAP][j] and f1 >= req1[MAP][j]:
                        break
                    f0 += req0[REDUCE][events[cid][1]]
                    f1 += req1[REDUCE][events[cid][1]]
                    kills.append(cid)
                if (kills and f0 >= req0[MAP][j] and f1 >= req1[MAP][j]
                        and (best is None or len(kills) < len(best))):
                    best = kills
            if best:
                for cid in best:
                    self.kill(cid)
                # every job whose maps wait ramps its reduces down, as each one's AM would:
                # the room freed goes to a map, never straight back to another reduce
                for k in range(self.n):
                    if self.phase[k] == 3 and self.maps_todo[k]:
                        self._ramp_down_reduces(k)
                return True
        return False

    def _ramp_down_reduces(self, j: int) -> None:
        """Hold ``j``'s reduces back until one more of its maps finishes (slow-start again)."""
        if self.reduce_ready[j]:
            self.reduce_ready[j] = False
            self.pending -= self.reduces_todo[j]
        self._red_threshold[j] = min(self.maps_done[j] + 1, self.n_maps[j])

    def _progress_bounds(self) -> tuple[float, int]:
        """Progress guard: the latest time any run that makes progress can reach (every job's
        work ten times over, one after another, after the last submission, plus a minute per
        job), and how many events one instant can take (each ends a task, an AM or a
        wake-up)."""
        w = self.workload
        work = float(w.map_s.sum() + w.reduce_s.sum()) + self.n * (
            self.am_startup_s + self.am_startup_per_am_s * self.n)
        last = max(self.submit, default=0.0)
        return last + 10 * work + 60.0 * self.n + 3600.0, 4 * (w.n_tasks + self.n) + 10_000

    def _no_progress(self, now: float, stalled: bool) -> None:
        what = ("simulated time stopped advancing" if stalled else
                "simulated time ran past any schedule that makes progress")
        left = sum(1 for p in self.phase if p != 4)
        raise SimulationError(f"{what} at t={now!r} s under policy {self.policy.describe()} "
                              f"({left} jobs unfinished, {self.n_events} events)",
                              source=self.workload.name)

    def _result(self, wall: float) -> SimResult:
        submit = np.asarray(self.submit)
        finish = np.asarray(self.finish)
        jobs = pd.DataFrame({
            "job_id": self.jobs["job_id"].to_numpy(), "submit_s": submit,
            "start_s": np.asarray(self.am_start), "finish_s": finish,
            "response_s": finish - submit,
        })
        if self.locality is not None:
            jobs["local_maps"] = self.local_maps
            jobs["remote_maps"] = self.remote_maps
        attempts = None
        if self.record:
            attempts = pd.DataFrame(self._attempts, columns=[
                "job", "kind", "task", "node", "start_s", "end_s", "completed", "r0", "r1"])
        meta: dict[str, object] = {}
        if self.copies_launched:
            meta["speculative_copies"] = self.copies_launched
            meta["copies_finished_first"] = self.copies_won
        return SimResult(jobs, attempts, self.policy.describe(), self.cluster.describe(),
                         self.n_events, wall, meta)


def simulate(workload: Workload, cluster: Cluster, policy: Policy, **options: object) -> SimResult:
    """Run ``policy`` on ``workload`` over ``cluster``; options as :class:`Simulation`."""
    return Simulation(workload, cluster, policy, **options).run()  # type: ignore[arg-type]
