"""Rasooli and Down's adaptive scheduler: the routing LP and the job selector."""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.policy import MAP, REDUCE
from jobsize.sim.schedulers import make_scheduler
from jobsize.sim.schedulers.class_routing import suggested_sets
from jobsize.sim.schedulers.rasooli import EXP1_USERS, RasooliDown
from jobsize.sim.workload import from_task_lists, make_jobs


def test_two_by_two_example() -> None:
    """§6's example: two classes, two resources, α1 = α2; R1 is the fastest for C1 but
    μ11/μ12 < μ21/μ22, so R1 serves only C2: SC_1 = {C2}, SC_2 = {C1, C2}."""
    alpha = np.array([2.45, 2.45])
    mu = np.array([[9.0, 5.0], [2.0, 1.0]])
    r = suggested_sets(alpha, mu)
    assert r.suggested == (frozenset({1}), frozenset({0, 1}))
    # by hand: R1 all to C2; 5·δ12 = 2 + (1 − δ12) balances the classes: δ12 = 1/2
    assert r.lam == pytest.approx(2.5 / 2.45)
    assert r.delta == pytest.approx(np.array([[0.0, 0.5], [1.0, 0.5]]))


def test_lp_edge_cases() -> None:
    r = suggested_sets(np.array([1.0, 0.0]), np.array([[1.0, 2.0], [1.0, 1.0]]))
    assert all(1 not in s for s in r.suggested)  # a class that never arrives gets nothing
    assert r.lam == pytest.approx(3.0)
    assert suggested_sets(np.zeros(2), np.ones((2, 2))).suggested == (frozenset(), frozenset())
    with pytest.raises(ConfigError):
        suggested_sets(np.ones(3), np.ones((2, 2)))


def test_suggested_classes_route_jobs_to_their_nodes() -> None:
    # node 0 runs maps 4× faster, node 1 reduces 4× faster; map-heavy and reduce-heavy jobs
    # alternate; the LP gives node 0 to the map-heavy class and node 1 to the reduce-heavy one
    n = 12
    # a map-heavy and a reduce-heavy job arrive together: both classes exist before routing
    jobs = make_jobs(n, submit_s=(np.arange(n) // 2) * 1.0, queue="User5")
    maps = [[8.0] * 8 if i % 2 == 0 else [1.0] for i in range(n)]
    reds = [[1.0] if i % 2 == 0 else [8.0] * 8 for i in range(n)]
    w = from_task_lists("het", jobs, maps, reds)
    cluster = Cluster.parse("1x2x2@4/1+1x2x2@1/4", slots=True)
    pol = RasooliDown(work_conserving=False)
    res = simulate(w, cluster, pol, slowstart=1.0, record=True)
    att = res.attempts
    heavy_maps = att[(att.kind == 1) & (att.job % 2 == 0)]
    heavy_reds = att[(att.kind == 2) & (att.job % 2 == 1)]
    assert (heavy_maps.node == 0).all() and (heavy_reds.node == 1).all()
    fifo = simulate(w, cluster, make_scheduler("fifo"), slowstart=1.0)
    assert res.jobs.response_s.mean() < fifo.jobs.response_s.mean()


def test_min_shares_first_by_priority_times_deficit() -> None:
    # User1 (min share 50, priority 3) before User2 (20, 2) before User5 (no min share)
    jobs = make_jobs(3, queue=np.array(["User5", "User2", "User1"]))
    w = from_task_lists("users", jobs, [[5.0] * 4] * 3, [[], [], []])
    res = simulate(w, Cluster.mrv1(1, 1, 1), make_scheduler("rasooli"), record=True)
    att = res.attempts.sort_values("start_s")
    assert att.job.tolist()[:4] == [2, 2, 2, 2]
    assert att.job.tolist()[4:8] == [1, 1, 1, 1]
    assert EXP1_USERS["User1"] == (50, 3)


def test_fairness_stage_shares_slots_by_priority() -> None:
    # no min shares: the user furthest below its share per priority goes first
    users = {"a": (0, 1), "b": (0, 3)}
    jobs = make_jobs(2, queue=np.array(["a", "b"]))
    w = from_task_lists("fair", jobs, [[10.0] * 20] * 2, [[], []])
    res = simulate(w, Cluster.mrv1(1, 4, 1), RasooliDown(users=users), record=True)
    at0 = res.attempts[res.attempts.start_s == 0].groupby("job").size()
    # (assigned − 0)/priority ascending: b takes slots while assigned_b/3 ≤ assigned_a/1
    assert at0.to_dict() == {0: 1, 1: 3}


def test_runs_in_the_yarn_model() -> None:
    jobs = make_jobs(4, queue=np.array(["User1", "User5", "User6", "User2"]))
    w = from_task_lists("yarn", jobs, [[3.0] * 5] * 4, [[2.0]] * 4)
    res = simulate(w, Cluster.parse("2x8g×8@2+1x8g×8"), make_scheduler("rasooli"))
    assert res.jobs.finish_s.notna().all()


def test_a_job_of_almost_no_work_keeps_the_lp_well_scaled() -> None:
    # Found on a fresh seed: one map of 6e-258 s made μ 1.6e257 and HiGHS refused the model
    w = from_task_lists("tiny", make_jobs(1), [[6.13249009e-258]], [[]])
    res = simulate(w, Cluster.mrv1(1, 1, 1), make_scheduler("rasooli"))
    assert np.isfinite(res.jobs.finish_s).all()


def test_min_share_classification_counts_only_min_share_users_jobs() -> None:
    """§6 item 2: JobClasses1 considers only the jobs of users with a min share. Users
    ``share`` (min share 5) and ``plain`` (none) have one priority, so their map jobs share a
    class K; ``share`` also has a reduce job, class M. K has 41 arrivals, 1 of them from
    ``share``. Rates: K 1 per s on node 0 (fast maps), 0.25 on node 1; M 0.25 on both.

    JobClasses2 (α_K : α_M = 41 : 1): K takes node 0 and most of node 1, SC' = ({K}, {K, M}).
    JobClasses1 (1 : 1, only ``share``'s jobs): M, short of capacity, gets part of node 0,
    SC = ({K, M}, {M}). Counting all 41 K jobs there made SC equal to SC'."""
    users = {"share": (5, 1), "plain": (0, 1)}
    n = 42
    jobs = make_jobs(n, queue=np.array(["share", "share"] + ["plain"] * 40))
    maps = [[8.0], []] + [[8.0]] * 40
    reds = [[], [8.0]] + [[]] * 40
    w = from_task_lists("classes1", jobs, maps, reds)
    pol = RasooliDown(users=users, resolve_every=1)
    simulate(w, Cluster.parse("1x2x2@4/1+1x2x2", slots=True), pol)
    k, m = pol.klass[0], pol.klass[1]
    assert k != m and set(pol.klass[2:]) == {k}
    assert pol.sc2 == (frozenset({k}), frozenset({k, m}))
    assert pol.sc1 == (frozenset({k, m}), frozenset({m}))
    mu = np.array([[1.0, 0.25], [0.25, 0.25]])
    assert suggested_sets(np.array([41.0, 1.0]), mu).suggested == (frozenset({0}),
                                                                    frozenset({0, 1}))
    assert suggested_sets(np.array([1.0, 1.0]), mu).suggested == (frozenset({0, 1}),
                                                                  frozenset({1}))


def test_a_class_is_never_routed_to_a_node_its_containers_do_not_fit() -> None:
    """Found as a hang (``work_conserving=False``): execution times assumed the most common
    container (1 GB) on every node, so node 0 (2 GB, maps 8× as fast) looked the best place
    for job 1's class — whose 3 GB maps never fit there. Its AM started on node 0 and its maps
    waited forever once job 0 was done ("left demand waiting with nothing running"). A job's
    execution time on a node now counts the containers of its own that fit: node 1 only."""
    jobs = make_jobs(2, map_mb=np.array([1024, 3072]), am_mb=1024)
    w = from_task_lists("small-node", jobs, [[1.0], [10.0] * 2], [[10.0] * 4, []])
    pol = RasooliDown(work_conserving=False)
    res = simulate(w, Cluster.parse("1x2g×4@8/1+1x8g×8"), pol, record=True)
    assert np.isinf(pol.exec_s[1, 0]) and pol.exec_s[1, 1] == 10.0  # 20 s of maps on 2 × 3 GB
    assert pol.sc2[0] == frozenset({pol.klass[0]})
    att = res.attempts
    assert (att[att.job == 1].node == 1).all()
    assert res.jobs.finish_s.tolist() == [20.0, 10.0]


def test_idle_nodes_are_offered_again_when_the_suggested_sets_change() -> None:
    """Found as a hang by the invariant properties (``rasooli-idle``, slot model). Job 4, a
    reduce-only job of user a, arrives at 3; its class is suggested only on node 1, whose
    reduce slots job 1's reduces hold until its maps end. At 5 job 5, a job with no task,
    arrives: a new class, so the LPs are solved again and job 4's class moves to node 0 alone,
    idle since 3.25. The simulator offers idle nodes only on new demand, and job 5 brings none:
    job 4 waited for an offer of node 0 that never came, and at 6.5, node 1 free, its class no
    longer suggested there, nothing ran. Now a change of the sets offers every node again: job
    4's reduce runs on node 0 from 5 to 6."""
    cap = np.array([[1, 2], [2, 2], [2, 1]])
    speed = np.array([[4.0, 2.0], [4.0, 4.0], [1.0, 2.0]])
    maps = [[9.0], [4.0, 4.0], [2.0], [], [], []]
    reds = [[2.0, 1.0], [1.0, 2.0], [], [], [2.0], []]
    jobs = make_jobs(6, submit_s=np.array([0.0, 2.0, 2.0, 3.0, 3.0, 5.0]),
                     queue=np.array(["a", "a", "b", "b", "a", "a"]))
    w = from_task_lists("re-solve", jobs, maps, reds)
    pol = RasooliDown(users={"a": (2, 2), "b": (0, 1)}, work_conserving=False, resolve_every=2)
    res = simulate(w, Cluster(cap, slots=True, speed=speed), pol, slowstart=0.0, record=True)
    att = res.attempts
    assert att[att.job == 4][["node", "start_s", "end_s"]].values.tolist() == [[0, 5.0, 6.0]]
    assert pol.klass[4] in pol.sc2[0] and pol.klass[4] not in pol.sc2[1]


def test_a_class_no_node_can_run_alone_is_suggested_everywhere() -> None:
    """A map-only node and a reduce-only node: no node can run the job alone, its execution
    time is infinite on both, μ = 0 and the LP gave its class no node — with
    ``work_conserving=False`` it waited forever. It is now suggested on both: maps on node 0,
    the reduce on node 1."""
    w = from_task_lists("split", make_jobs(1), [[4.0, 4.0]], [[2.0]])
    pol = RasooliDown(work_conserving=False)
    res = simulate(w, Cluster(np.array([[2, 0], [0, 2]]), slots=True), pol, record=True)
    assert np.isinf(pol.exec_s).all()
    assert pol.sc2 == (frozenset({pol.klass[0]}),) * 2
    assert res.attempts.groupby("kind").node.apply(set).to_dict() == {MAP: {0}, REDUCE: {1}}
    assert res.jobs.finish_s[0] == 6.0


def test_not_work_conserving_a_job_whose_suggested_node_its_ams_fill_still_runs() -> None:
    # regression (found by the YARN invariants' random search): two jobs' AMs (1 and 1.5 GB)
    # fill the one node their class is suggested on, so neither's 1 GB reduce fits there, and
    # the other node, idle, is not suggested: with nothing running, nothing would ever free
    # the suggested node. Such a stranded job now takes the idle node.
    maps = [[], [], [1.0], [0.0], []]
    reds = [[], [0.0, 0.0, 0.0], [0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    jobs = make_jobs(5, submit_s=np.array([0, 0, 0, 8.0, 8.0]), map_mb=np.full(5, 1024),
                     reduce_mb=np.full(5, 1024), am_mb=np.array([1024] * 4 + [1536]),
                     queue=np.array(["a"] * 5))
    w = from_task_lists("strand", jobs, maps, reds, [[0.0] * len(r) for r in reds])
    policy = RasooliDown(users={"a": (2, 2), "b": (0, 1)}, work_conserving=False,
                         resolve_every=2)
    res = simulate(w, Cluster(np.array([[3072, 3], [3072, 3]])), policy)
    assert res.jobs.finish_s.notna().all()
