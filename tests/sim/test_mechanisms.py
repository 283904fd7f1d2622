"""One small scenario per scheduler mechanism that fails when the mechanism is taken out.

Each docstring says what the scenario shows and what the run looks like with the mechanism
removed (measured by disabling it in the code: the forecast returning 0, SEPB's checks
replaced by Hadoop's, PreScheduling returning no task, the ledger's history replaced by the
current allocation, the routing LP suggesting every class on every node).
"""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import MAP, REDUCE
from jobsize.sim.schedulers.dress import DRESS, LD, SD
from jobsize.sim.schedulers.dynamicmr import DynamicMR
from jobsize.sim.schedulers.ltyarn import LTYARN
from jobsize.sim.schedulers.rasooli import RasooliDown
from jobsize.sim.speculation import Late
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import from_task_lists, make_jobs

# ---------------------------------------------------------------------------------------------
# DRESS: the release forecast


def test_dress_forecast_of_large_job_releases_reserves_room_for_a_small_job() -> None:
    """One node of 20 one-GB containers. A large job L (AM + 40 maps of 10, 11, ..., 49 s)
    comes at 0, a small one S (AM + 2 maps of 10 s, 3 GB ≤ θ·Tot_R = 5 GB) at 3. At 1 no small
    job waits, so δ falls to 0 and L fills the node; it keeps every released container, since
    SD's reservation is 0. Its map phase passes t_e at 15 (six completions, γ = 10); from then
    the forecast F2 expects L's running maps to be released, Algorithm 3's leftover step gives
    S's 3 GB to SD (δ = 0.15), and S's AM starts at 15, its maps at 16 and 17: done at 27.

    Without the forecast (F ≡ 0) E2 = A_c2 = 0 while L has maps to launch, δ stays 0 until
    L has launched all 40 and its releases are seen free: S starts at 43 and ends at 57.
    """
    jobs = make_jobs(2, submit_s=np.array([0.0, 3.0]), am_mb=1024)
    work = from_task_lists("forecast", jobs, [[10.0 + i for i in range(40)], [10.0] * 2],
                           [[], []])
    pol = DRESS(theta=0.25)
    res = simulate(work, Cluster.homogeneous(1, 20 * 1024, 20), pol, record=True)
    assert pol.category == [LD, SD]
    delta = dict(pol.trace)
    assert delta[14.0] == 0.0 and delta[15.0] == pytest.approx(0.15)
    att = res.attempts
    small = sorted(att[att.job == 1].start_s)
    assert small == [15.0, 16.0, 17.0]
    assert res.jobs.finish_s[1] == 27.0


# ---------------------------------------------------------------------------------------------
# DynamicMR: SEPB, Slot PreScheduling, DHSA

#: 10 % of first attempts 10× slower; with seed 112 only the workload's map 4 (job 0's fifth,
#: in its second wave) is a straggler, and later attempts run at normal speed
ONE_STRAGGLER = Stragglers(probability=0.1, slowdown=(10.0, 10.0), seed=112)


def test_sepb_gives_slots_to_pending_maps_and_kills_the_straggler() -> None:
    """4 map slots under FIFO; job 0 (8 maps of 10 s) at 0, job 1 (8 maps) at 5. Job 0's map
    4 starts at 10 and would run 100 s. At 20 three slots free up: with SEPB job 1's pending
    maps get them (no speculative copy), and the straggler, past 2 × the 10 s mean, is killed
    at the heartbeat of 33 and rerun first (FIFO): job 0 ends at 43, job 1 at 50.

    Without SEPB's pending check (Hadoop's ``may_speculate``), job 0's turn at 20 goes to a
    copy of the straggler: one speculative copy (job 0 ends at 30) and only two of job 1's
    maps start at 20. Without SEPB's straggler kill, no attempt is killed and job 0 ends at
    110.
    """
    assert np.flatnonzero(ONE_STRAGGLER.first_factors(16, MAP) > 1).tolist() == [4]
    jobs = make_jobs(2, submit_s=np.array([0.0, 5.0]))
    work = from_task_lists("sepb", jobs, [[10.0] * 8, [10.0] * 8], [[], []])
    pol = DynamicMR("fifo", dhsa=None, sepb=1.0, prescheduling=False, speculation=Late(lag_s=0))
    res = simulate(work, Cluster.mrv1(1, 4, 1), pol, stragglers=ONE_STRAGGLER, record=True)
    assert "speculative_copies" not in res.meta
    att = res.attempts
    assert (att[att.job == 1].start_s == 20.0).sum() == 3
    killed = att[~att.completed]
    assert killed[["job", "task", "end_s"]].values.tolist() == [[0, 4, 33.0]]
    assert res.jobs.finish_s.tolist() == [43.0, 50.0]


#: one replica per block; with seed 1 a job of 2 maps has both blocks on node 0 and a job of
#: 4 maps has blocks on nodes 0, 0, 0, 1
ON_NODE_0 = BlockLocality(replication=1, remote_s=20.0, seed=1)


@pytest.mark.parametrize("dhsa", ["pi", "pd"])
def test_prescheduling_p1_runs_a_local_map_in_an_extra_map_slot(dhsa) -> None:
    """2 nodes × (4 map, 1 reduce) slots, one job of 2 maps of 10 s whose blocks are both on
    node 0. The load factor 2/8 allows one map per node; PreScheduling (P1) runs the second
    map on node 0 anyway, in an idle map slot beyond the line: both local, done at 10.

    Without it the second map runs remotely on node 1 (20 s more): under PI-DHSA after delay
    scheduling's 4.5 s, done at 34.5; under PD-DHSA at once by Case (5), done at 30.
    """
    assert ON_NODE_0.replicas(0, 2, 2)[:, 0].tolist() == [0, 0]
    work = from_task_lists("p1", make_jobs(1), [[10.0] * 2], [[]])
    res = simulate(work, Cluster.mrv1(2, 4, 1), DynamicMR(dhsa=dhsa, sepb=None),
                   locality=ON_NODE_0, record=True)
    assert res.jobs.local_maps[0] == 2 and res.jobs.finish_s[0] == 10.0
    assert set(res.attempts.node) == {0}


@pytest.mark.parametrize("dhsa", ["pi", "pd"])
def test_prescheduling_p2_runs_a_local_map_in_an_idle_reduce_slot(dhsa) -> None:
    """2 nodes × (2 map, 2 reduce) slots, one map-only job of 4 maps of 10 s, blocks on nodes
    0, 0, 0, 1. The map load factor is 4/4 = 1: DHSA lends nothing (no phase is over 1) and
    each node may run 2 maps. PreScheduling (P2) runs node 0's third local map in one of its
    idle reduce slots: four local maps, done at 10.

    Without it the third map runs remotely on node 1: done at 34.5 (PI-DHSA, after delay
    scheduling's 4.5 s) or 30 (PD-DHSA's Case (5)), and no map holds a reduce slot.
    """
    assert ON_NODE_0.replicas(0, 4, 2)[:, 0].tolist() == [0, 0, 0, 1]
    work = from_task_lists("p2", make_jobs(1), [[10.0] * 4], [[]])
    res = simulate(work, Cluster.mrv1(2, 2, 2), DynamicMR(dhsa=dhsa, sepb=None),
                   locality=ON_NODE_0, record=True)
    assert res.jobs.local_maps[0] == 4 and res.jobs.finish_s[0] == 10.0
    att = res.attempts
    assert att[att.r1 > 0].node.tolist() == [0]  # one map in node 0's reduce slot


@pytest.mark.parametrize("dhsa", ["pi", "pd"])
def test_dhsa_lends_idle_reduce_slots_to_maps(dhsa) -> None:
    """1 node × (2 map, 2 reduce) slots, one map-only job of 4 maps of 10 s: map load 2,
    reduce load 0, so DHSA runs two maps in the idle reduce slots: done at 10. Without DHSA
    (``dhsa=None``, or ``plan`` as Hadoop's), the maps take two waves: done at 20."""
    work = from_task_lists("dhsa", make_jobs(1), [[10.0] * 4], [[]])
    res = simulate(work, Cluster.mrv1(1, 2, 2), DynamicMR(dhsa=dhsa, sepb=None,
                                                          prescheduling=False), record=True)
    assert res.jobs.finish_s[0] == 10.0
    assert (res.attempts.r1 > 0).sum() == 2


# ---------------------------------------------------------------------------------------------
# LTYARN: the long-term window


def test_ltyarn_long_term_share_favours_the_queue_that_lent() -> None:
    """4 map slots, queues a and b, a fixed quantum of 10 s. At 0 queue a has one map of
    20 s and b 20 maps of 10 s: a takes one slot, b the other three — lent by a. At 20 a
    submits 8 maps of 10 s. The instantaneous shares are equal (neither holds anything), but
    a has used 20 slot·s and b 60: long-term max-min gives a all four slots at 20 and two at
    30 (where both have used 60), so a's new job ends at 50.

    Without the history (f(t) replaced by the current allocation: memoryless max-min) the
    slots split 2 / 2 at 20 and a's new job ends at 60.
    """
    jobs = make_jobs(3, submit_s=np.array([0.0, 0.0, 20.0]), queue=np.array(["a", "b", "a"]))
    work = from_task_lists("lent", jobs, [[20.0], [10.0] * 20, [10.0] * 8], [[], [], []])
    pol = LTYARN(quantum_s=10.0, adaptive=False)
    res = simulate(work, Cluster.mrv1(1, 4, 1), pol, record=True)
    att = res.attempts
    assert att[att.start_s == 20.0].groupby("job").size().to_dict() == {2: 4}
    assert res.jobs.finish_s[2] == 50.0


# ---------------------------------------------------------------------------------------------
# Rasooli-Down: the routing LP over job classes


def test_rasooli_class_routing_sends_each_class_to_its_node() -> None:
    """Slots 2 map / 2 reduce on two nodes: node 0 runs maps 4× as fast, node 1 reduces. A
    map-heavy job (4 maps of 8 s, a reduce of 1 s) and a reduce-heavy one (a map of 1 s, 4
    reduces of 8 s) arrive together and fall in different classes; the LP gives node 0 to the
    map-heavy class and node 1 to the other, and (not work-conserving) each job runs only on
    its node: both done at 5 (two waves of 2 s and a 1 s task).

    Without the LP's suggested sets (every class suggested on every node) the map-heavy job's
    maps spread over both nodes, its reduce runs on node 1 and the other job's map on node 0:
    done at 8.25 and 10.25. Both jobs in one class (classification removed) spread the same
    way.
    """
    jobs = make_jobs(2)
    work = from_task_lists("routing", jobs, [[8.0] * 4, [1.0]], [[1.0], [8.0] * 4])
    cluster = Cluster.parse("1x2x2@4/1+1x2x2@1/4", slots=True)
    pol = RasooliDown(work_conserving=False)
    res = simulate(work, cluster, pol, slowstart=1.0, record=True)
    nodes = res.attempts.groupby(["job", "kind"]).node.apply(set).to_dict()
    assert nodes == {(0, MAP): {0}, (0, REDUCE): {0}, (1, MAP): {1}, (1, REDUCE): {1}}
    assert res.jobs.finish_s.tolist() == [5.0, 5.0]
    assert pol.klass[0] != pol.klass[1]
    assert pol.sc2 == (frozenset({pol.klass[0]}), frozenset({pol.klass[1]}))
