"""DynamicMR (Tang's thesis, chapter 4): DHSA's slot borrowing, slot weights, SEPB, Slot
PreScheduling, on the Hadoop 1.x baseline."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import MAP, REDUCE
from jobsize.sim.schedulers import make_scheduler
from jobsize.sim.schedulers.dynamicmr import DynamicMR
from jobsize.sim.schedulers.mrv1 import HadoopMRv1
from jobsize.sim.speculation import Late
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import from_task_lists, make_jobs

T_M, T_R = 10.0, 20.0


def sort_job():
    """The thesis's Sort benchmark (Fig 4.11): 320 maps, 200 reduces."""
    return from_task_lists("sort", make_jobs(1), [[T_M] * 320], [[T_R] * 200])


def waves(n: int, slots: int) -> int:
    return math.ceil(n / slots)


@pytest.mark.parametrize("name", ["mrv1-fair", "mrv1-fifo", "fifo", "fair"])
def test_static_slots_take_4_map_and_12_reduce_waves(name) -> None:
    # 9 slaves × (10 map + 2 reduce slots) = 90 / 18
    assert (waves(320, 90), waves(200, 18)) == (4, 12)
    res = simulate(sort_job(), Cluster.mrv1(9, 10, 2), make_scheduler(name), slowstart=1.0)
    assert res.jobs.finish_s[0] == 4 * T_M + 12 * T_R


@pytest.mark.parametrize("name", ["pi-dhsa", "pd-dhsa", "pi-dhsa+fifo", "pd-dhsa+fifo",
                                  "dynamicmr", "dynamicmr+fifo"])
def test_dhsa_takes_3_map_and_2_reduce_waves(name) -> None:
    assert (waves(320, 108), waves(200, 108)) == (3, 2)
    res = simulate(sort_job(), Cluster.mrv1(9, 10, 2), make_scheduler(name), slowstart=1.0,
                   record=True)
    assert res.jobs.finish_s[0] == 3 * T_M + 2 * T_R
    att = res.attempts
    first = att[att.start_s == 0]
    assert len(first) == 108 and (first.kind == MAP).all()
    assert ((first.r1 == 1).sum(), (first.r0 == 1).sum()) == (18, 90)  # maps in reduce slots


def test_borrowing_limits() -> None:
    cluster = Cluster.mrv1(9, 10, 2)
    # P_M = P_R = 0: DHSA disabled, as static slots
    res = simulate(sort_job(), cluster, DynamicMR(borrow_map=0, borrow_reduce=0, sepb=None,
                                                  prescheduling=False), slowstart=1.0)
    assert res.jobs.finish_s[0] == 4 * T_M + 12 * T_R
    # P_R = 1, P_M = 0: maps borrow reduce slots (3 waves), reduces stay on 18 slots (12)
    res = simulate(sort_job(), cluster, DynamicMR(borrow_map=0, borrow_reduce=1, sepb=None,
                                                  prescheduling=False), slowstart=1.0)
    assert res.jobs.finish_s[0] == 3 * T_M + 12 * T_R
    # P_M = 0.5: reduces may hold 45 map slots: 18 + 45 = 63 at once, 4 waves
    res = simulate(sort_job(), cluster, DynamicMR(borrow_map=0.5, borrow_reduce=1, sepb=None,
                                                  prescheduling=False), slowstart=1.0)
    assert res.jobs.finish_s[0] == 3 * T_M + waves(200, 63) * T_R
    with pytest.raises(ConfigError):
        DynamicMR(borrow_map=1.5)


def test_slot_weights_16_maps_or_8_reduces() -> None:
    cluster = Cluster.mrv1(1, 8, 4, slot_weights=(1, 2))
    assert cluster.units.tolist() == [[8, 8]]  # 8·1 + 4·2 = 16 units
    maps = from_task_lists("m", make_jobs(1), [[10.0] * 40], [[]])
    reds = from_task_lists("r", make_jobs(1), [[]], [[10.0] * 40])
    for name in ("pi-dhsa", "pd-dhsa"):
        for w, most in ((maps, 16), (reds, 8)):
            att = simulate(w, cluster, make_scheduler(name), record=True).attempts
            assert (att.start_s == 0).sum() == most
    # without borrowing the weights change nothing: 8 maps, 4 reduces
    for w, most in ((maps, 8), (reds, 4)):
        att = simulate(w, cluster, make_scheduler("mrv1-fair"), record=True).attempts
        assert (att.start_s == 0).sum() == most


def test_three_pools_share_108_slots_at_the_start() -> None:
    # Fig 4.9: three pools with one job each; under both DHSAs each pool gets 36 slots
    jobs = make_jobs(3, queue=np.array(["p1", "p2", "p3"]))
    w = from_task_lists("pools", jobs, [[30.0] * 200] * 3, [[10.0] * 20] * 3)
    for dhsa in ("pi", "pd"):
        att = simulate(w, Cluster.mrv1(9, 10, 2), DynamicMR(dhsa=dhsa, sepb=None,
                                                            prescheduling=False),
                       record=True).attempts
        at0 = att[att.start_s == 0].groupby("job").size()
        assert at0.tolist() == [36, 36, 36], dhsa


def test_load_manager_spreads_tasks() -> None:
    # 6 maps on 3 nodes × 4 map slots: LF = 0.5, at most 2 per node
    w = from_task_lists("few", make_jobs(1), [[5.0] * 6], [[]])
    att = simulate(w, Cluster.mrv1(3, 4, 1), make_scheduler("mrv1-fair"), record=True).attempts
    assert att.groupby("node").size().tolist() == [2, 2, 2]


def test_dynamicmr_needs_slots() -> None:
    with pytest.raises(ConfigError, match="slot model"):
        simulate(sort_job(), Cluster.parse("2x8g×8"), make_scheduler("dynamicmr"))


def stragglers_workload():
    """Job 0: 8 maps, one a straggler; job 1 (pending maps) arrives while job 0 runs its last
    wave."""
    jobs = make_jobs(2, submit_s=np.array([0.0, 5.0]))
    return from_task_lists("strag", jobs, [[10.0] * 8, [10.0] * 8], [[], []])


class FirstMapStraggles(Stragglers):
    def first_factors(self, n, kind):
        f = np.ones(n)
        if kind == MAP and n:
            f[4] = 10.0  # job 0's fifth map (it runs in the second wave)
        return f

    def draw(self, rng):
        return 1.0


def test_hadoop_speculates_before_later_jobs_pending_tasks_and_sepb_does_not() -> None:
    # 4 map slots; job 0's map 4 runs 100 s from t = 10. At t = 20 three slots free up while
    # job 1 has 8 pending maps: Hadoop gives job 0's turn to a copy of the straggler (job 0
    # done at 30); SEPB gives the slots to job 1 and kills the straggler at the first
    # heartbeat past 2 × 10 s, rerunning it (job 0 done at 33 + 10).
    late = Late(lag_s=0.0)
    w, cluster = stragglers_workload(), Cluster.mrv1(1, 4, 1)
    hadoop = simulate(w, cluster, HadoopMRv1("fifo", speculation=late),
                      stragglers=FirstMapStraggles(), record=True)
    sepb = simulate(w, cluster, DynamicMR("fifo", dhsa=None, sepb=1.0, prescheduling=False,
                                          speculation=late),
                    stragglers=FirstMapStraggles(), record=True)
    assert hadoop.meta["speculative_copies"] == 1
    assert hadoop.jobs.finish_s[0] == 30.0
    first_copy = hadoop.attempts[(hadoop.attempts.job == 0) & (hadoop.attempts.task == 4)]
    assert sorted(first_copy.start_s) == [10.0, 20.0]
    assert "speculative_copies" not in sepb.meta
    assert sepb.jobs.finish_s[0] == 43.0
    assert sepb.jobs.finish_s[1] <= hadoop.jobs.finish_s[1]
    att = sepb.attempts
    assert (att[(att.job == 1)].start_s.min()) == 20.0  # job 1 got the slots at t = 20


def test_sepb_kills_a_straggler_once() -> None:
    w = from_task_lists("k", make_jobs(1), [[10.0] * 8], [[]])
    pol = DynamicMR("fifo", dhsa=None, sepb=1.0, prescheduling=False,
                    speculation=Late(cap=0.0))  # no copies: only the kill
    res = simulate(w, Cluster.mrv1(1, 4, 1), pol, stragglers=FirstMapStraggles(),
                   record=True)
    att = res.attempts
    killed = att[~att.completed]
    assert len(killed) == 1 and killed.task.tolist() == [4]
    assert res.jobs.finish_s[0] < 10 + 100  # the rerun beats the 100 s straggler
    assert pol.killed_tasks == {(0, MAP, 4)}


class OnNodeOne(BlockLocality):
    """Every block has its one replica on node 1."""

    def replicas(self, job, n_maps, n_nodes):
        return np.ones((n_maps, 1), dtype=np.int64)


def test_prescheduling_runs_local_maps_beyond_the_balance_line() -> None:
    # 2 maps on 2 nodes × 4 map slots: the load manager allows one map per node (LF = 2/8);
    # PreScheduling runs the second one in an extra idle map slot of node 1, where its block is
    loc = OnNodeOne(replication=1, remote_s=20.0)
    w = from_task_lists("ps", make_jobs(1), [[10.0] * 2], [[]])
    cluster = Cluster.mrv1(2, 4, 1)
    base = simulate(w, cluster, DynamicMR(sepb=None, prescheduling=False), locality=loc)
    ps = simulate(w, cluster, DynamicMR(sepb=None, prescheduling=True), locality=loc,
                  record=True)
    # without it, the second map waits out delay scheduling — 4.5 s from when node 0 is next
    # offered, the heartbeat at 3 s (the local launch on node 1 reset the wait) — then reads
    # its block remotely
    assert base.jobs.remote_maps[0] == 1 and base.jobs.finish_s[0] == 3.0 + 4.5 + 30.0
    assert ps.jobs.local_maps[0] == 2 and ps.jobs.finish_s[0] == 10.0
    assert set(ps.attempts.node) == {1}


def test_reduces_waiting_for_maps_do_not_borrow_map_slots() -> None:
    # slow-start 0.05: reduces are ready early; in borrowed map slots they would wait for the
    # maps that need those slots
    w = from_task_lists("wait", make_jobs(1), [[10.0] * 40], [[5.0] * 30])
    att = simulate(w, Cluster.mrv1(2, 4, 1), make_scheduler("pi-dhsa"), record=True).attempts
    red = att[att.kind == REDUCE]
    last_map = att[att.kind == MAP].end_s.max()
    assert (red[red.r0 > 0].start_s >= last_map).all()


@pytest.mark.parametrize("name", ["pi-dhsa", "pd-dhsa", "dynamicmr+fifo"])
def test_a_heavy_task_passes_a_light_load_line(name) -> None:
    # one reduce of weight 2 on nodes with 3 reduce slots (6 units): the load factor 2/24
    # allows ⌈0.083 · 6⌉ = 1 unit per node, less than the task; Hadoop's "running < allowed"
    # still lets it start (found as a hang by the invariant properties)
    w = from_task_lists("heavy", make_jobs(1), [[]], [[5.0]])
    res = simulate(w, Cluster.mrv1(4, 2, 3, slot_weights=(1, 2)), make_scheduler(name))
    assert res.jobs.finish_s[0] == 5.0


def test_late_never_copies_an_attempt_launched_this_instant() -> None:
    # Two attempts of no elapsed time had an infinite rate each: the percentile became NaN, no
    # rate exceeded it, and with lag 0 the attempt just launched (time left ∞) was copied.
    # Found by the slow invariant search (dynamicmr-eager, LATE with lag 0).
    late = Late(lag_s=0.0)
    attempts = [(1, 0.0, 0.0), (2, 0.0, 0.0), (3, 50.0, 0.1), (4, 50.0, 0.9)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert late.straggler(attempts, mean_done_s=20.0) == 3
        assert late.straggler(attempts[:2], mean_done_s=20.0) == -1
