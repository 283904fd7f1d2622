"""YARN's node reservations: the Fair scheduler with them, and the rules of who may reserve."""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import Simulation, simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import AM, MAP
from jobsize.sim.schedulers import Fair, make_scheduler
from jobsize.sim.schedulers.fspy import FSPY
from jobsize.sim.schedulers.hfsp import HFSP
from jobsize.sim.schedulers.reservations import RELEASED, NodeReservations, ReservingFair
from jobsize.sim.workload import from_task_lists, make_jobs


def staggered():
    """Job 0's maps (1 GB) end one at a time; job 1's AM (1.5 GB) never fits in what one
    frees, so without a reservation every freed gigabyte goes back to job 0."""
    jobs = make_jobs(2, submit_s=[0.0, 1.0], am_mb=[1024, 1536])
    return from_task_lists("staggered", jobs, [[10.0 + k for k in range(7)] * 3, [1.0]],
                           [[], []])


def test_fair_with_reservations_serves_the_large_am() -> None:
    w, cluster = staggered(), Cluster.homogeneous(1, 8192, 8)
    assert simulate(w, cluster, Fair()).jobs.finish_s.tolist() == [49.0, 33.0]
    # the node is kept for job 1 at 10 (1 GB free), its AM starts at 11 (2 GB), its map at 12
    assert simulate(w, cluster, ReservingFair()).jobs.finish_s.tolist() == [48.0, 13.0]
    assert simulate(w, cluster, FSPY()).jobs.finish_s.tolist() == [48.0, 13.0]
    assert simulate(w, cluster, HFSP(reserve=False)).jobs.finish_s[1] > \
        simulate(w, cluster, HFSP()).jobs.finish_s[1]


def test_who_may_reserve() -> None:
    jobs = make_jobs(3, am_mb=[1024, 1536, 6144])
    w = from_task_lists("rules", jobs, [[5.0] * 6, [1.0], [1.0]], [[], [], []])
    sim = Simulation(w, Cluster.parse("1x4096x4+1x8192x8"), Fair(), max_am_share=0.25)
    res = NodeReservations(sim)
    sim.phase[:] = [1, 1, 1]
    sim.free0[0] = 1024
    # nothing runs on node 0 that will end: it gains no room, so no one may hold it
    assert not res.reservable(1, 0)
    sim._events[999] = (MAP, 0, 0, 0.0, 0, 3072, 3, 10.0, 1.0)  # a map timed to end at 10 s
    assert res.reservable(1, 0)  # 1536 > 1024 free, ≤ 4096 on the node
    assert not res.reservable(0, 0)  # its AM fits: nothing to reserve for
    assert not res.reservable(2, 0)  # larger than node 0 itself (it fits node 1)
    sim.am_used0 = 1024  # one AM runs; 1024 + 1536 passes the max AM share (3072)
    assert res.reservable(1, 0)
    sim.am_used0 = 2048  # 2048 + 1536 > 3072: the AM share, not the node, holds it back
    assert not res.reservable(1, 0)
    sim.am_used0 = 0
    res.reserve(0, 1)
    assert not res.reservable(1, 1)  # one node per job
    assert res.serve(0) is None  # still no room, and the map will free some: keep it
    del sim._events[999]
    assert res.serve(0) is RELEASED and not res.count  # no room coming: let it go
    sim._events[999] = (MAP, 0, 0, 0.0, 0, 3072, 3, 10.0, 1.0)
    res.reserve(0, 1)
    sim.free0[0] = 4096
    assert res.serve(0) == (1, AM) and 0 not in res.nodes
    res.reserve(0, 1)
    sim.phase[1] = 4  # the job finished meanwhile
    assert res.serve(0) is RELEASED and not res.count


def test_registry() -> None:
    assert make_scheduler("fair+reserve").describe() == "fair+reserve"
    assert make_scheduler("drf+reserve").describe() == "drf+reserve"


def test_no_reservations_in_the_slot_mode() -> None:
    # Found on a fresh seed: one map and one reduce slot; job 0 reserved the node for its
    # reduce, whose slot held job 1's reduce, which waited for job 1's map, which the
    # reservation kept out of the free map slot
    w = from_task_lists("slots", make_jobs(2), [[0.0], [0.0]], [[0.0], [0.0]])
    for name in ("fair+reserve", "drf+reserve"):
        res = simulate(w, Cluster.mrv1(1, 1, 1), make_scheduler(name), slowstart=0.0)
        assert res.jobs.finish_s.tolist() == [0.0, 0.0]


def _stalling_workload(reduce_mb: list[int], am_mb: list[int]):
    """Found on fresh seeds by the slow invariant tests: two 4 GB nodes, slow-start 0, reduces
    of jobs whose maps wait holding the room those maps need, and node reservations."""
    maps = [[0.538, 7.946], [6.688, 7.600, 8.043, 4.309], [5.453, 1.676, 0.0],
            [0.65, 0.0, 8.338, 1.083, 1.25], [], [3.547, 2.872, 0.690, 5.540, 0.0],
            [3.0, 0.8, 5.102, 0.0]]
    reduces = [[4.908, 4.070, 8.360], [0.160, 0.641, 0.942], [], [4.213, 4.825], [0.0],
               [0.0, 0.884, 5.711], [5.581, 2.413]]
    tails = [[0.0, 0.0, 3.898], [0.110, 0.0, 0.345], [], [0.958, 3.034], [0.0],
             [0.0, 0.579, 0.627], [5.560, 0.434]]
    jobs = make_jobs(7, submit_s=np.array([1.0, 4.328, 4.496, 6.949, 12.34, 16.049, 17.481]),
                     map_mb=np.array([1024, 1536, 1024, 1024, 1536, 2048, 1024]),
                     reduce_mb=np.array(reduce_mb), am_mb=np.array(am_mb),
                     uber=np.array([False, False, False, False, True, False, False]),
                     queue=np.array(["a", "b", "a", "a", "a", "a", "a"]),
                     weight=np.array([1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0]))
    return from_task_lists("stall", jobs, maps, reduces, tails)


@pytest.mark.parametrize(("reduce_mb", "am_mb"), [
    # a reduce killed for one job's map came straight back for another job's reduce
    ([2048, 1024, 1536, 1536, 2048, 1024, 1536], [1024, 1536, 2048, 2048, 1024, 2048, 2048]),
    # the freed room was reserved for a map larger than a node held only by AMs could fit
    ([1536, 1024, 1024, 2048, 1536, 1536, 1536], [1536, 1024, 2048, 1024, 1024, 1024, 1536]),
])
def test_reduces_ramp_down_and_no_node_is_held_that_gains_no_room(reduce_mb, am_mb) -> None:
    w = _stalling_workload(reduce_mb, am_mb)
    cluster = Cluster(capacity=np.array([[4096, 4], [4096, 4]]), slots=False,
                      speed=np.array([[1.0, 3.0], [0.5, 1.0]]), slot_weights=(1, 1))
    for name in ("drf+reserve", "fair+reserve"):
        res = simulate(w, cluster, make_scheduler(name), slowstart=0.0,
                       locality=BlockLocality(replication=3, remote_s=2.5, seed=3),
                       record=True)
        assert np.isfinite(res.jobs.finish_s).all()
