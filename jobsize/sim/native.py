"""The YARN container model compiled: :class:`~jobsize.sim.eventloop.Simulation` for policies
whose every decision is the head of one :class:`~jobsize.sim.queues.KeyedQueue`.

A policy declares such an order with :meth:`~jobsize.sim.policy.Policy.native_order`:
``"arrival"`` (the job's index: FIFO) or ``"memory"`` (the memory a job holds: Fair over one
queue, every job of weight 1). The core below is the event loop and that queue, step for step —
same events, same ties (event times, then container ids; keys, then jobs), same offers — over
flat arrays compiled by numba, so a day of 16 million tasks takes seconds rather than minutes.
It covers the plain model: no slot mode, equal node speeds, no block locality, stragglers,
speculative copies or attempt records. Where the run needs what only the Python loop does
(reduce preemption when waiting reduces hold the room their maps need, the progress guard's
errors) the core stops and the Python loop runs the whole simulation instead, so a run's
result never depends on which of the two ran it.
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

if TYPE_CHECKING:
    from jobsize.sim.eventloop import Simulation

from jobsize.sim.eventloop import _AM_READY, _UBER_DONE  # MAP 1, REDUCE 2: jobsize.sim.policy

ORDERS = {"arrival": 0, "memory": 1}
_DONE, _FALLBACK = 0, 1


def supported(sim: Simulation, order: str | None) -> bool:
    """Whether the compiled core can run ``sim`` (its policy declared ``order``)."""
    return (order in ORDERS and not sim.slots and not sim._shaped and not sim.record
            and sim.policy.extra_pending == 0 and sim.n > 0)


def run(sim: Simulation, order: str) -> bool:
    """Run ``sim`` in the compiled core; False when it needs the Python loop (nothing of
    ``sim`` is changed then). On success, its per-job times and event count are filled in."""
    w = sim.workload
    uber_work = np.array([sim._uber_work(j) if u else 0.0 for j, u in enumerate(sim.uber)])
    horizon, stall_limit = sim._progress_bounds()
    am_start = np.full(sim.n, np.nan)
    finish = np.full(sim.n, np.nan)
    status, events = _core(
        np.asarray(sim.submit, float), np.asarray(sim.n_maps, np.int64),
        np.asarray(sim.n_reduces, np.int64), np.asarray(w.map_off, np.int64),
        np.asarray(w.map_s, float), np.asarray(w.reduce_off, np.int64),
        np.asarray(w.reduce_s, float), np.asarray(w.reduce_tail_s, float),
        np.asarray(sim.uber, np.bool_), uber_work,
        np.asarray(sim.req0, np.int64).T.copy(), np.asarray(sim.req1, np.int64).T.copy(),
        np.asarray(sim.free0, np.int64), np.asarray(sim.free1, np.int64),
        sim.min0, sim.min1, float(sim.am_limit0), float(sim.am_limit1),
        sim._min_am0, sim._min_am1, sim.uniform_am, sim.uniform_task,
        np.asarray(sim._red_threshold, np.int64), ORDERS[order],
        float(sim.am_startup_s), float(sim.am_startup_per_am_s),
        float(horizon), int(stall_limit), am_start, finish)
    if status != _DONE:
        return False
    # in place: the policy's queue holds these very lists
    sim.am_start[:] = am_start.tolist()
    sim.finish[:] = finish.tolist()
    sim.phase[:] = [4] * sim.n
    sim.maps_done[:] = sim.n_maps
    sim.reduces_done[:] = sim.n_reduces
    sim.n_events = int(events)
    return True


@njit(cache=True)
def _core(submit, n_maps, n_reduces, map_off, map_s, red_off, red_s, red_tail, uber, uber_work,
          req0, req1, free0, free1, min0, min1, am_limit0, am_limit1, min_am0, min_am1,
          uniform_am, uniform_task, threshold, order, am_startup_s, am_per_s, horizon,
          stall_limit, am_start, finish):
    n = len(submit)
    n_nodes = len(free0)
    inf = math.inf
    # per job (as Simulation's lists)
    phase = np.zeros(n, np.int64)
    maps_todo = np.zeros(n, np.int64)
    reduces_todo = np.zeros(n, np.int64)
    maps_done = np.zeros(n, np.int64)
    reduces_done = np.zeros(n, np.int64)
    ready = np.zeros(n, np.bool_)
    use0 = np.zeros(n, np.int64)
    use1 = np.zeros(n, np.int64)
    mnext = np.zeros(n, np.int64)
    rnext = np.zeros(n, np.int64)
    am_node = np.full(n, -1, np.int64)
    wait_head = np.full(n, -1, np.int64)  # reduces waiting for their job's last map: a list
    room = np.zeros(n_nodes, np.bool_)
    for i in range(n_nodes):
        room[i] = free0[i] >= min0 and free1[i] >= min1 and free0[i] + free1[i] > 0
    dirty = np.zeros(n_nodes, np.bool_)
    dirty_list = np.zeros(n_nodes, np.int64)
    todo = np.zeros(n_nodes, np.int64)
    n_dirty = 0
    # running containers: recycled slots (heap entries carry the container id for ties)
    cap = 16  # grown by doubling as containers run at once
    c_kind = np.zeros(cap, np.int64)
    c_job = np.zeros(cap, np.int64)
    c_node = np.zeros(cap, np.int64)
    c_start = np.zeros(cap, np.float64)
    c_idx = np.zeros(cap, np.int64)
    c_cid = np.zeros(cap, np.int64)
    c_next = np.zeros(cap, np.int64)  # free list, and a job's waiting reduces
    free_slot = _chain(c_next, 0)
    heap = _entries()
    # the policy's queue: jobs waiting for their AM, and running jobs
    qheap_am = _entries()
    qheap_run = _entries()
    qkey = np.zeros(n, np.float64)
    qver = np.zeros(n, np.int64)  # 0: not queued; < 0: in the AM heap
    qn = 0
    seq = 0
    pending = 0
    am_waiting = 0
    am_starting = 0
    am_used0 = 0
    am_used1 = 0
    offer_all = False
    n_events = 0
    nxt = 0
    last = -inf
    stop = stall_limit
    skipped = _entries()

    while True:
        t_heap = heap[0][0] if len(heap) else inf
        t_arr = submit[nxt] if nxt < n else inf
        now = t_arr if t_arr < t_heap else t_heap
        if now == inf:
            break
        if now != now:  # a NaN time: the loop says what it makes of it
            return _FALLBACK, n_events
        if now > last:
            if now > horizon:
                for j in range(n):
                    if phase[j] != 4:
                        return _FALLBACK, n_events
                horizon = inf
            last = now
            stop = n_events + stall_limit
        # ---- arrivals
        while nxt < n and submit[nxt] <= now:
            j = nxt
            nxt += 1
            phase[j] = 1
            pending += 1
            am_waiting += 1
            offer_all = True  # _demand
            qn = _add(j, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver,
                      qheap_am, qheap_run)
        # ---- timed events
        while len(heap) and heap[0][0] <= now:
            entry = heapq.heappop(heap)
            slot = entry[2]
            n_events += 1
            if n_events > stop:
                return _FALLBACK, n_events
            kind = c_kind[slot]
            j = c_job[slot]
            node = c_node[slot]
            c_next[slot] = free_slot
            free_slot = slot
            finish_job = False
            if kind == 1 or kind == 2:
                n_dirty = _release(j, node, req0[j, kind], req1[j, kind], free0, free1, min0,
                                   min1, room, dirty, dirty_list, n_dirty, use0, use1)
                if order == 1:  # Fair: a released container shrinks the key: touch
                    qn = _touch(j, qn, phase, maps_todo, reduces_todo, ready, use0, order,
                                qkey, qver, qheap_am, qheap_run)
                if kind == 1:
                    maps_done[j] += 1
                    if not ready[j] and maps_done[j] >= threshold[j]:
                        pending, offer_all, qn = _reduces_ready(
                            j, pending, offer_all, qn, phase, maps_todo, reduces_todo, ready,
                            use0, order, qkey, qver, qheap_am, qheap_run)
                    if maps_done[j] == n_maps[j]:
                        # the waiting reduces now know when they end
                        w = wait_head[j]
                        wait_head[j] = -1
                        while w >= 0:
                            nw = c_next[w]
                            idx = c_idx[w]
                            a = c_start[w] + red_s[red_off[j] + idx]
                            b = now + red_tail[red_off[j] + idx]
                            heapq.heappush(heap, (b if b > a else a, c_cid[w], w))
                            w = nw
                        if reduces_done[j] == n_reduces[j]:
                            finish_job = True
                else:
                    reduces_done[j] += 1
                    if reduces_done[j] == n_reduces[j] and maps_done[j] == n_maps[j]:
                        finish_job = True
            elif kind == _AM_READY:
                am_starting -= 1
                phase[j] = 3
                maps_todo[j] = n_maps[j]
                reduces_todo[j] = n_reduces[j]
                pending += n_maps[j]
                if n_maps[j] == 0 and n_reduces[j] == 0:
                    finish_job = True
                else:
                    if not ready[j] and maps_done[j] >= threshold[j]:
                        pending, offer_all, qn = _reduces_ready(
                            j, pending, offer_all, qn, phase, maps_todo, reduces_todo, ready,
                            use0, order, qkey, qver, qheap_am, qheap_run)
                    offer_all = True
                    qn = _add(j, qn, phase, maps_todo, reduces_todo, ready, use0, order,
                              qkey, qver, qheap_am, qheap_run)
            else:  # an uber job's tasks all done
                maps_done[j] = n_maps[j]
                reduces_done[j] = n_reduces[j]
                finish_job = True
            if finish_job:
                phase[j] = 4
                finish[j] = now
                r0 = req0[j, 0]
                r1 = req1[j, 0]
                n_dirty = _release(j, am_node[j], r0, r1, free0, free1, min0, min1, room, dirty,
                                   dirty_list, n_dirty, use0, use1)
                am_used0 -= r0
                am_used1 -= r1
                if r0 > 0 and am_waiting:
                    offer_all = True  # an AM slot opened: waiting jobs may start
                if order == 1:
                    qver[j] = 0  # touch: no demand left
        # ---- offers
        n_todo = 0
        if offer_all:  # every node with room, in order
            offer_all = False
            for node in range(n_nodes):
                if room[node]:
                    todo[n_todo] = node
                    n_todo += 1
        else:  # the nodes where containers ended, in order
            for i in range(n_dirty):
                node = dirty_list[i]
                k = n_todo
                while k > 0 and todo[k - 1] > node:
                    todo[k] = todo[k - 1]
                    k -= 1
                todo[k] = node
                n_todo += 1
        for i in range(n_dirty):
            dirty[dirty_list[i]] = False
        n_dirty = 0
        for i in range(n_todo):
            if not pending:
                break
            node = todo[i]
            # _fill(node)
            while pending and free0[node] >= min0 and free1[node] >= min1 \
                    and free0[node] + free1[node] > 0:
                j, kind, qn = _pick(node, qn, phase, maps_todo, reduces_todo, ready, use0,
                                    order, qkey, qver, qheap_am, qheap_run, skipped, req0,
                                    req1, free0, free1, am_used0, am_used1, am_limit0,
                                    am_limit1, min_am0, min_am1, uniform_am, uniform_task)
                if j < 0:
                    break
                if free_slot < 0:  # grow the container table
                    old = cap
                    cap *= 2
                    c_kind = _grow(c_kind, cap)
                    c_job = _grow(c_job, cap)
                    c_node = _grow(c_node, cap)
                    c_start = _grow(c_start, cap)
                    c_idx = _grow(c_idx, cap)
                    c_cid = _grow(c_cid, cap)
                    c_next = _grow(c_next, cap)
                    free_slot = _chain(c_next, old)
                slot = free_slot
                free_slot = c_next[slot]
                r0 = req0[j, kind]
                r1 = req1[j, kind]
                f0 = free0[node] - r0
                f1 = free1[node] - r1
                if f0 < 0 or f1 < 0:  # never, as next_kind checked: the loop would raise
                    return _FALLBACK, n_events
                free0[node] = f0
                free1[node] = f1
                if not (f0 >= min0 and f1 >= min1 and f0 + f1 > 0):
                    room[node] = False
                use0[j] += r0
                use1[j] += r1
                pending -= 1
                seq += 1
                c_job[slot] = j
                c_node[slot] = node
                c_start[slot] = now
                c_cid[slot] = seq
                if kind == 0:
                    phase[j] = 2
                    am_waiting -= 1
                    am_used0 += r0
                    am_used1 += r1
                    am_node[j] = node
                    am_start[j] = now
                    delay = am_startup_s + am_per_s * am_starting
                    if uber[j]:
                        c_kind[slot] = _UBER_DONE
                        heapq.heappush(heap, (now + delay + uber_work[j], seq, slot))
                    else:
                        am_starting += 1
                        c_kind[slot] = _AM_READY
                        heapq.heappush(heap, (now + delay, seq, slot))
                elif kind == 1:
                    c_kind[slot] = 1
                    maps_todo[j] -= 1
                    idx = mnext[j]
                    mnext[j] = idx + 1
                    c_idx[slot] = idx
                    heapq.heappush(heap, (now + map_s[map_off[j] + idx], seq, slot))
                else:
                    c_kind[slot] = 2
                    reduces_todo[j] -= 1
                    idx = rnext[j]
                    rnext[j] = idx + 1
                    c_idx[slot] = idx
                    if maps_done[j] < n_maps[j]:  # waits for the job's last map
                        # (pushed in any order: the heap orders by time and container id)
                        c_next[slot] = wait_head[j]
                        wait_head[j] = slot
                    else:
                        heapq.heappush(heap, (now + red_s[red_off[j] + idx], seq, slot))
        if pending and not len(heap):
            # demand waits with nothing timed to end: the Python loop's reduce preemption
            return _FALLBACK, n_events
    for j in range(n):
        if phase[j] != 4:
            return _FALLBACK, n_events
    return _DONE, n_events


@njit(cache=True)
def _release(j, node, r0, r1, free0, free1, min0, min1, room, dirty, dirty_list, n_dirty, use0,
             use1):
    """Simulation._free and the job's usage: ``(r0, r1)`` back to ``node``, which is offered
    again. Returns the count of such nodes."""
    f0 = free0[node] + r0
    f1 = free1[node] + r1
    free0[node] = f0
    free1[node] = f1
    if f0 >= min0 and f1 >= min1 and f0 + f1 > 0:
        room[node] = True
    if not dirty[node]:
        dirty[node] = True
        dirty_list[n_dirty] = node
        n_dirty += 1
    use0[j] -= r0
    use1[j] -= r1
    return n_dirty


@njit(cache=True)
def _reduces_ready(j, pending, offer_all, qn, phase, maps_todo, reduces_todo, ready, use0, order,
                   qkey, qver, qheap_am, qheap_run):
    """Simulation._check_reduces once slow-start is passed: ``j``'s reduces become demand."""
    ready[j] = True
    if reduces_todo[j]:
        pending += reduces_todo[j]
        offer_all = True
        qn = _add(j, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver,
                  qheap_am, qheap_run)
    return pending, offer_all, qn


@njit(cache=True)
def _entries():
    """An empty heap of (key or time, job or container id, version or slot) entries."""
    entries = [(0.0, 0, 0)]
    entries.pop()
    return entries


@njit(cache=True)
def _chain(c_next, start):
    """Link the free container slots from ``start`` to the table's end; returns ``start``."""
    cap = len(c_next)
    for s in range(start, cap - 1):
        c_next[s] = s + 1
    c_next[cap - 1] = -1
    return start


@njit(cache=True)
def _grow(a, cap):
    """``a`` in an array of ``cap`` elements (the rest zero)."""
    b = np.zeros(cap, a.dtype)
    b[:len(a)] = a
    return b


@njit(cache=True, inline="always")
def _has_demand(j, phase, maps_todo, reduces_todo, ready):
    ph = phase[j]
    return ph == 1 or (ph == 3 and (maps_todo[j] > 0 or (ready[j] and reduces_todo[j] > 0)))


@njit(cache=True)
def _touch(j, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver, qheap_am,
           qheap_run):
    """KeyedQueue.touch: (re)file ``j`` unless its entry is still a lower bound."""
    if _has_demand(j, phase, maps_todo, reduces_todo, ready):
        key = float(use0[j]) if order == 1 else float(j)
        am = phase[j] == 1
        if qver[j] == 0 or qkey[j] > key or (qver[j] < 0) != am:
            qn += 1
            qkey[j] = key
            if am:
                qver[j] = -qn
                heapq.heappush(qheap_am, (key, j, -qn))
            else:
                qver[j] = qn
                heapq.heappush(qheap_run, (key, j, qn))
    else:
        qver[j] = 0
    return qn


@njit(cache=True)
def _add(j, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver, qheap_am,
         qheap_run):
    """KeyedQueue.add: file ``j`` unless queued in the right heap already."""
    if qver[j] == 0 or phase[j] == 3:
        qn = _touch(j, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver,
                    qheap_am, qheap_run)
    return qn


@njit(cache=True)
def _top(heap, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey,
         qver):
    """KeyedQueue._top: the live head's job, or -1 (stale entries dropped, grown keys
    re-filed)."""
    while len(heap):
        key0, j, ver = heap[0]
        if qver[j] != ver:
            heapq.heappop(heap)
            continue
        if not _has_demand(j, phase, maps_todo, reduces_todo, ready):
            heapq.heappop(heap)
            qver[j] = 0
            continue
        key = float(use0[j]) if order == 1 else float(j)
        if key <= key0:
            return j, qn
        qn += 1
        nv = qn if ver > 0 else -qn
        qkey[j] = key
        qver[j] = nv
        heapq.heapreplace(heap, (key, j, nv))
    return -1, qn


@njit(cache=True)
def _next_kind(j, node, phase, maps_todo, reduces_todo, ready, req0, req1, free0, free1,
               am_used0, am_used1, am_limit0, am_limit1):
    """Simulation.next_kind."""
    ph = phase[j]
    f0 = free0[node]
    f1 = free1[node]
    if ph == 1:
        r0 = req0[j, 0]
        r1 = req1[j, 0]
        if r0 > f0 or r1 > f1:
            return -1
        if am_used0 and (am_used0 + r0 > am_limit0 or am_used1 + r1 > am_limit1):
            return -1
        return 0
    if ph != 3:
        return -1
    if maps_todo[j] and req0[j, 1] <= f0 and req1[j, 1] <= f1:
        return 1
    if ready[j] and reduces_todo[j] and req0[j, 2] <= f0 and req1[j, 2] <= f1:
        return 2
    return -1


@njit(cache=True)
def _pick(node, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey, qver, qheap_am,
          qheap_run, skipped, req0, req1, free0, free1, am_used0, am_used1, am_limit0,
          am_limit1, min_am0, min_am1, uniform_am, uniform_task):
    """KeyedQueue.pick: the first job whose next container fits ``node``, and its kind."""
    admissible = am_used0 == 0 or (am_used0 + min_am0 <= am_limit0
                                   and am_used1 + min_am1 <= am_limit1)
    may_start = free0[node] >= min_am0 and free1[node] >= min_am1 and admissible
    if not len(qheap_am) or not may_start:
        j, qn = _top(qheap_run, qn, phase, maps_todo, reduces_todo, ready, use0, order, qkey,
                     qver)
        if j < 0:
            return -1, -1, qn
        kind = _next_kind(j, node, phase, maps_todo, reduces_todo, ready, req0, req1, free0,
                          free1, am_used0, am_used1, am_limit0, am_limit1)
        if kind >= 0:
            return j, kind, qn
    blocked_am = not admissible
    blocked_run = False
    found_j, found_kind = -1, -1
    skipped.clear()
    while True:
        best_j, best_key, h = -1, 0.0, -1
        if not blocked_am:
            j, qn = _top(qheap_am, qn, phase, maps_todo, reduces_todo, ready, use0, order,
                         qkey, qver)
            if j >= 0:
                best_j, best_key, h = j, qheap_am[0][0], 0
        if not blocked_run:
            j, qn = _top(qheap_run, qn, phase, maps_todo, reduces_todo, ready, use0, order,
                         qkey, qver)
            if j >= 0:
                key = qheap_run[0][0]
                if best_j < 0 or key < best_key or (key == best_key and j < best_j):
                    best_j, best_key, h = j, key, 1
        if best_j < 0:
            break
        kind = _next_kind(best_j, node, phase, maps_todo, reduces_todo, ready, req0, req1,
                          free0, free1, am_used0, am_used1, am_limit0, am_limit1)
        if kind >= 0:
            found_j, found_kind = best_j, kind
            break
        if h == 0:
            skipped.append(heapq.heappop(qheap_am))
            if uniform_am:
                blocked_am = True
        else:
            skipped.append(heapq.heappop(qheap_run))
            if uniform_task:
                blocked_run = True
    for i in range(len(skipped)):
        e = skipped[i]
        if e[2] < 0:
            heapq.heappush(qheap_am, e)
        else:
            heapq.heappush(qheap_run, e)
    skipped.clear()
    return found_j, found_kind, qn
