"""YARN's node reservations: the Fair scheduler with them, and the rules of who may reserve."""

from __future__ import annotations

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import Simulation, simulate
from jobsize.sim.policy import AM
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
