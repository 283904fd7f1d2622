"""The YARN container model: the thesis's Figure 3.3 example, invariants, policies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.errors import ConfigError, SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import AM, EXTRA, MAP, REDUCE
from jobsize.sim.schedulers import (
    FIFO,
    SRPT,
    Capacity,
    CapacityQueue,
    Fair,
    FairQueueSpec,
    make_scheduler,
    water_fill,
)
from jobsize.sim.schedulers.dress import DRESS
from jobsize.sim.schedulers.dynamicmr import DynamicMR
from jobsize.sim.schedulers.ltyarn import LTYARN, LTQueue
from jobsize.sim.schedulers.mrorder import MROrder
from jobsize.sim.schedulers.rasooli import RasooliDown
from jobsize.sim.size_sources import ExactSizes, SizeEstimates, SizeSource
from jobsize.sim.speculation import Late
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import Workload, from_task_lists, make_jobs


def figure_3_3() -> Workload:
    """Tang's thesis, Figure 3.3: four jobs, 8 map and 4 reduce slots."""
    return from_task_lists("fig3.3", make_jobs(4),
                           [[4] * 10, [2] * 4, [6] * 2, [6] * 24],
                           [[8] * 2, [2] * 4, [10] * 4, [8] * 6])


def test_thesis_figure_3_3_slot_model() -> None:
    res = simulate(figure_3_3(), Cluster.mrv1(1, 8, 4), FIFO(), slowstart=1.0, record=True)
    assert res.jobs["finish_s"].tolist() == [16, 8, 26, 44]
    att = res.attempts
    # reduces start only after all maps of their job (slow-start 1.0)
    for j in range(4):
        last_map = att[(att.job == j) & (att.kind == MAP)].end_s.max()
        assert att[(att.job == j) & (att.kind == REDUCE)].start_s.min() >= last_map


def test_default_slowstart_lets_reduces_start_early() -> None:
    res = simulate(figure_3_3(), Cluster.mrv1(1, 8, 4), FIFO(), record=True)
    att = res.attempts
    j4 = att[att.job == 3]
    assert j4[j4.kind == REDUCE].start_s.min() < j4[j4.kind == MAP].end_s.max()
    # an early reduce cannot finish before its job's last map
    assert j4[j4.kind == REDUCE].end_s.min() >= j4[j4.kind == MAP].end_s.max()


def _check_invariants(w: Workload, cluster: Cluster, res) -> None:
    att = res.attempts
    cap = cluster.units
    # never more allocated than a node has: sweep each node's container starts and ends
    for node, grp in att[(att.r0 > 0) | (att.r1 > 0)].groupby("node"):
        ev = pd.concat([
            pd.DataFrame({"t": grp.start_s, "d0": grp.r0, "d1": grp.r1, "o": 1}),
            pd.DataFrame({"t": grp.end_s, "d0": -grp.r0, "d1": -grp.r1, "o": 0}),
        ]).sort_values(["t", "o"])
        assert ev.d0.cumsum().max() <= cap[node, 0]
        assert ev.d1.cumsum().max() <= cap[node, 1]
    # every task runs to completion exactly once
    done = att[att.completed & att.kind.isin([MAP, REDUCE])]
    for kind, counts in ((MAP, w.n_maps), (REDUCE, w.n_reduces)):
        got = done[done.kind == kind].groupby("job").task.agg(["count", "nunique"])
        for j, n in enumerate(counts):
            if n:
                assert got.loc[j, "count"] == n and got.loc[j, "nunique"] == n
            else:
                assert j not in got.index
    # a job finishes after all its tasks, when its last one does (or its AM ends)
    finish = res.jobs["finish_s"].to_numpy()
    last = att.groupby("job").end_s.max()
    first = att.groupby("job").start_s.min()
    for j in range(w.n_jobs):
        assert finish[j] >= w.submit_s()[j]
        if j in last.index:
            assert finish[j] == pytest.approx(last[j])
            assert first[j] >= w.submit_s()[j] - 1e-12


@st.composite
def scenarios(draw, slots: bool | None = None):
    """(workload, cluster, policy name, slow-start, AM start-up, simulate options: node speeds,
    locality, stragglers); ``slots`` fixes the model."""
    slots = draw(st.booleans()) if slots is None else slots
    n_nodes = draw(st.integers(1, 4))
    if slots:
        cap = [(draw(st.integers(1, 4)), draw(st.integers(1, 3))) for _ in range(n_nodes)]
    else:
        # vcores ample, so memory binds: AMs (≤ half the memory) never crowd out all tasks
        mems = [draw(st.sampled_from([2048, 3072, 4096, 8192])) for _ in range(n_nodes)]
        cap = [(m, m // 1024 + draw(st.integers(0, 2))) for m in mems]
    cluster = Cluster(np.array(cap), slots=slots)
    n = draw(st.integers(1, 7))
    small = min(c[0] for c in cap) // 2 if not slots else 0
    maps, reduces, tails, rows = [], [], [], []
    for _ in range(n):
        nm, nr = draw(st.integers(0, 6)), draw(st.integers(0, 3))
        maps.append([draw(st.floats(0, 9)) for _ in range(nm)])
        rd = [draw(st.floats(0, 9)) for _ in range(nr)]
        reduces.append(rd)
        tails.append([d * draw(st.floats(0, 1)) for d in rd])
        mem = [1024, 1536, 2048]
        rows.append({
            "submit_s": draw(st.floats(0, 20)),
            "map_mb": draw(st.sampled_from([m for m in mem if m <= small] or [0])),
            "reduce_mb": draw(st.sampled_from([m for m in mem if m <= small] or [0])),
            "am_mb": draw(st.sampled_from([m for m in mem if m <= small] or [0])),
            "uber": draw(st.booleans()) and nm <= 2 and nr <= 1,
            "queue": draw(st.sampled_from(["a", "b"])),
            "weight": draw(st.sampled_from([1.0, 2.0])),
        })
    frame = pd.DataFrame(rows)
    jobs = make_jobs(n, **{c: frame[c].to_numpy() for c in frame.columns})
    w = from_task_lists("random", jobs, maps, reduces, tails)
    policy = draw(st.sampled_from(["fifo", "fair", "drf", "fair+preemption", "capacity",
                                   "capacity2", "srpt", "fair-queues", "ltyarn", "ltyarn-tree",
                                   "dress", "dress-lend", *ORDERING]
                                  + (SLOT_ONLY if slots else [])))
    options: dict[str, object] = {}
    if draw(st.booleans()):  # node speed classes, block locality, stragglers
        speed = [(draw(st.sampled_from([0.5, 1.0, 2.0])), draw(st.sampled_from([1.0, 3.0])))
                 for _ in range(n_nodes)]
        weights = (1, draw(st.sampled_from([1, 2]))) if slots else (1, 1)
        cluster = Cluster(cluster.capacity, slots=slots, speed=np.array(speed),
                          slot_weights=weights)
        options["locality"] = BlockLocality(replication=draw(st.integers(1, 3)),
                                            remote_s=draw(st.sampled_from([0.0, 2.5])),
                                            seed=draw(st.integers(0, 3)))
        options["stragglers"] = Stragglers(probability=draw(st.sampled_from([0.0, 0.3, 1.0])),
                                           slowdown=(2.0, 5.0), seed=draw(st.integers(0, 3)))
    return w, cluster, policy, draw(st.sampled_from([0.0, 0.05, 1.0])), draw(
        st.sampled_from([0.0, 1.5])), options


#: MROrder's orders and Rasooli-Down: both models
ORDERING = ["mk_jr", "mk_tct_jr", "tct", "mrorder", "mrorder+tct", "mrorder-fti",
            "mrorder-pnj", "rasooli", "rasooli-idle"]
#: the schedulers of MRv1 slots
SLOT_ONLY = ["mrv1-fair", "mrv1-fifo", "pi-dhsa", "pd-dhsa", "pi-dhsa+fifo", "pd-dhsa+fifo",
             "dynamicmr", "dynamicmr+fifo", "dynamicmr-eager", "pd-dynamicmr"]


def _policy(name: str):
    if name == "mrorder-fti":
        return MROrder(trigger="fti", interval_s=3.0, sim_jobs=3)
    if name == "mrorder-pnj":  # rounds of two, and what is left when the cluster empties
        return MROrder(trigger="pnj", n0=2, sim_jobs=1)
    if name == "rasooli-idle":
        return RasooliDown(users={"a": (2, 2), "b": (0, 1)}, work_conserving=False,
                           resolve_every=2)
    if name == "dynamicmr-eager":  # speculates at once, kills stragglers, lends half
        return DynamicMR("fair", borrow_map=0.5, speculation=Late(lag_s=0.0, cap=0.5),
                         heartbeat_s=1.0)
    if name == "pd-dynamicmr":
        return DynamicMR("fifo", dhsa="pd", speculation=Late(lag_s=0.0), locality_delay_s=1.0)
    if name == "capacity2":
        return Capacity([CapacityQueue("a", 0.6, 1.0, "fair"), CapacityQueue("b", 0.4, 1.0)])
    if name == "fair-queues":
        return Fair(queues={"a": FairQueueSpec(2.0, 2048), "b": FairQueueSpec(1.0, 0)},
                    preemption=True, preemption_interval_s=2.0)
    if name == "fair+preemption":
        return Fair(preemption=True, preemption_interval_s=1.0, preemption_threshold=1.0)
    if name == "ltyarn-tree":  # two levels, a min share, a discount and rounds
        return LTYARN([LTQueue("org.a", 2.0, "mlrf", 0.2), LTQueue("org.b", order="fifo"),
                       LTQueue("root", order="ltmm")],
                      quantum_s=2.0, round_s=7.0, discount=0.5)
    if name == "dress-lend":
        return DRESS(theta=0.3, delta=0.3, lend=True, classify="available")
    return make_scheduler(name)


# 60 scenarios in the default run; tests/sim/test_sim_properties_slow.py checks the same
# invariants on 2,000 runs per scheduler under ``pytest -m slow``.
@settings(max_examples=60, deadline=None)
@given(scenarios())
def test_yarn_invariants(scenario) -> None:
    w, cluster, policy, slowstart, startup, options = scenario
    res = simulate(w, cluster, _policy(policy), slowstart=slowstart, am_startup_s=startup,
                   record=True, **options)
    _check_invariants(w, cluster, res)


def test_preemption_kills_and_reruns() -> None:
    # job 0 fills the cluster with long maps; job 1 arrives and is starved until preemption
    jobs = make_jobs(2, submit_s=np.array([0.0, 1.0]), am_mb=1024)
    w = from_task_lists("preempt", jobs, [[100.0] * 8, [1.0] * 4], [[], []])
    cluster = Cluster.homogeneous(1, 8192, 8)
    plain = simulate(w, cluster, Fair(), record=True)
    pol = Fair(preemption=True, preemption_interval_s=5.0)
    res = simulate(w, cluster, pol, record=True)
    assert pol.preempted > 0
    assert (~res.attempts.completed).sum() == pol.preempted
    assert res.jobs.finish_s[1] < plain.jobs.finish_s[1]
    _check_invariants(w, cluster, res)


def test_fair_shares_memory_and_weights() -> None:
    assert water_fill(np.array([10, 10]), np.array([1.0, 3.0]), 8).tolist() == \
        pytest.approx([2, 6])
    assert water_fill(np.array([1, 10]), np.array([1.0, 1.0]), 8).tolist() == \
        pytest.approx([1, 7])
    assert water_fill(np.array([10, 10]), np.array([1.0, 1.0]), 8,
                      np.array([6.0, 0])).tolist() == pytest.approx([6, 2])


def test_fair_shares_the_cluster_between_two_jobs() -> None:
    jobs = make_jobs(2, submit_s=np.array([0.0, 0.5]), am_mb=1024)
    w = from_task_lists("two", jobs, [[10.0] * 40, [10.0] * 40], [[], []])
    cluster = Cluster.homogeneous(2, 4096, 4)
    fifo = simulate(w, cluster, FIFO()).jobs.finish_s.tolist()
    res = simulate(w, cluster, Fair(), record=True)
    fair = res.jobs.finish_s.tolist()
    assert fifo[0] < fifo[1]
    assert fair[0] > fifo[0] + 30  # the first job now shares the cluster
    att = res.attempts
    held = att[(att.start_s <= 35) & (att.end_s > 35)].groupby("job").r0.sum()
    assert held[0] == held[1] == 4096  # equal memory, AM included


class _Reversed(SizeSource):
    name = "reversed"

    def estimate(self, workload: Workload) -> SizeEstimates:
        exact = ExactSizes().estimate(workload)
        return SizeEstimates.from_phases(workload, exact.map_time_s[::-1].copy(),
                                         exact.reduce_time_s[::-1].copy())


def test_srpt_sees_sizes_only_through_its_source() -> None:
    jobs = make_jobs(3, am_mb=1024)
    w = from_task_lists("srpt", jobs, [[5.0] * 20, [5.0] * 8, [5.0] * 2], [[], [], []])
    cluster = Cluster.homogeneous(1, 6144, 6)  # 3 AMs (max AM share 0.5) + 3 task containers
    exact = simulate(w, cluster, SRPT(ExactSizes())).jobs.finish_s.to_numpy()
    wrong = simulate(w, cluster, SRPT(_Reversed())).jobs.finish_s.to_numpy()
    assert exact[2] < exact[1] < exact[0]
    assert wrong[0] < wrong[1] < wrong[2]


def test_capacity_lends_and_caps() -> None:
    jobs = make_jobs(2, queue=np.array(["a", "b"]), am_mb=1024)
    w = from_task_lists("cap", jobs, [[10.0] * 20, [10.0] * 20], [[], []])
    cluster = Cluster.homogeneous(1, 10240, 10)
    # queue b idle at first? no: both busy — a gets about 30 %, b 70 %
    res = simulate(w, cluster, Capacity([CapacityQueue("a", 0.3), CapacityQueue("b", 0.7)]),
                   record=True)
    att = res.attempts
    at5 = att[(att.start_s <= 5) & (att.end_s > 5)]
    use = at5.groupby("job").r0.sum()
    assert use[0] == 3 * 1024 and use[1] == 7 * 1024
    # max-capacity 0.5 stops queue a from borrowing b's idle half
    alone = from_task_lists("cap1", make_jobs(1, queue="a", am_mb=1024), [[10.0] * 20], [[]])
    capped = simulate(alone, cluster, Capacity([CapacityQueue("a", 0.3, 0.5),
                                                CapacityQueue("b", 0.7)]), record=True)
    a = capped.attempts
    assert a[(a.start_s <= 5) & (a.end_s > 5)].r0.sum() == 5 * 1024
    with pytest.raises(ConfigError):
        CapacityQueue("x", 0.5, 0.4)


def test_capacity_holds_each_queues_ams_to_its_share() -> None:
    """A queue of two containers (max-capacity 0.25 of 8) with three jobs: under the
    cluster-wide AM share alone two AMs would take both and wait for ever for a task; the
    queue's own share (half its limit, at least one AM) runs them one at a time."""
    jobs = make_jobs(3, submit_s=np.array([0.0, 0.1, 0.2]), queue="small", am_mb=1024)
    w = from_task_lists("small", jobs, [[5.0, 5.0]] * 3, [[], [], []])
    cluster = Cluster.homogeneous(1, 8192, 8)
    policy = Capacity([CapacityQueue("small", 0.25, 0.25), CapacityQueue("big", 0.75)])
    res = simulate(w, cluster, policy, record=True, am_startup_s=1.0)
    assert res.jobs["finish_s"].notna().all()
    att = res.attempts
    ams = att[att.kind == AM]
    for t in np.linspace(0, float(res.jobs["finish_s"].max()), 200):
        assert ((ams.start_s <= t) & (ams.end_s > t)).sum() <= 1
    assert (ams.sort_values("start_s").job.tolist()) == [0, 1, 2]


def test_am_start_up_grows_with_the_ams_starting_beside_it() -> None:
    """Three AMs launched at once: each waits ``am_startup_s`` plus ``am_startup_per_am_s`` for
    every AM already starting; one launched after the others are ready waits the base alone."""
    jobs = make_jobs(4, submit_s=np.array([0.0, 0.0, 0.0, 20.0]), am_mb=1024)
    w = from_task_lists("starts", jobs, [[2.0]] * 4, [[]] * 4)
    cluster = Cluster.homogeneous(1, 16384, 16)
    res = simulate(w, cluster, make_scheduler("fifo"), record=True, am_startup_s=5.0,
                   am_startup_per_am_s=3.0, max_am_share=1.0)
    att = res.attempts
    first_task = att[att.kind == MAP].groupby("job").start_s.min()
    assert first_task.tolist() == pytest.approx([5.0, 8.0, 11.0, 25.0])
    plain = simulate(w, cluster, make_scheduler("fifo"), record=True, am_startup_s=5.0,
                     max_am_share=1.0).attempts
    assert plain[plain.kind == MAP].groupby("job").start_s.min().tolist() == \
        pytest.approx([5.0, 5.0, 5.0, 25.0])
    with pytest.raises(ConfigError):
        simulate(w, cluster, make_scheduler("fifo"), am_startup_per_am_s=-1.0)


def test_uber_job_runs_inside_its_am() -> None:
    jobs = make_jobs(1, uber=True)
    w = from_task_lists("uber", jobs, [[2.0, 3.0]], [[4.0]])
    res = simulate(w, Cluster.homogeneous(1, 4096, 4), FIFO(), am_startup_s=1.0, record=True)
    assert res.jobs.finish_s[0] == pytest.approx(10.0)
    att = res.attempts
    assert (att[att.kind != AM][["r0", "r1"]] == 0).all().all()


def test_container_too_big_for_every_node() -> None:
    jobs = make_jobs(1, map_mb=16384)
    w = from_task_lists("big", jobs, [[1.0]], [[]])
    with pytest.raises(SimulationError, match="fits on no node"):
        simulate(w, Cluster.homogeneous(2, 8192, 8), FIFO())


def test_cluster_spec_parsing() -> None:
    c = Cluster.parse("2x8g×8+1x4096x4")
    assert c.capacity.tolist() == [[8192, 8], [8192, 8], [4096, 4]]
    assert c.total == (20480, 20)
    with pytest.raises(ConfigError, match="NODES"):
        Cluster.parse("eight nodes")


def test_extra_work_holds_resources() -> None:
    """A policy can run extra work (a probe) that occupies real resources for a while."""

    class Probing(FIFO):
        def bind(self, sim):
            super().bind(sim)
            self.extra_pending = 1
            self.done = []

        def choose(self, node):
            if self.extra_pending and self.sim.free0[node] >= 1024:
                return 0, EXTRA
            return super().choose(node)

        def extra_request(self, j, node):
            self.extra_pending = 0
            return 1024, 1, 7.0, "probe"

        def on_extra_done(self, j, tag, node, cid, completed):
            self.done.append((tag, self.sim.now))

    jobs = make_jobs(1, am_mb=1024)
    w = from_task_lists("probe", jobs, [[1.0] * 4], [[]])
    pol = Probing()
    res = simulate(w, Cluster.homogeneous(1, 2048, 2), pol, record=True)
    assert pol.done == [("probe", 7.0)]
    # with the probe holding half the node, the AM waits for it and the maps run one at a time
    assert res.jobs.finish_s[0] == pytest.approx(11.0)
    _check_invariants(w, Cluster.homogeneous(1, 2048, 2), res)


def _subnormal_preemption_case() -> Workload:
    """Found by test_yarn_invariants on a fresh seed: six jobs in one queue, task times
    down to subnormal numbers, 2 map + 2 reduce slots."""
    maps = [[0.5, 6.479184451578237, 2.536900446280879], [],
            [7.245493498305088, 1.3547234737905973, 1e-308], [0.5, 0.2204160974402688],
            [7.441427966010489, 5.94319842468471, 2.5],
            [9.0, 0.5644613031369142, 1.4805653982669118, 9.0]]
    reduces = [[1.6071469035693473], [5e-324, 1.0], [6e-285], [0.0, 3.8810407389966555],
               [5.689216057501503, 3.076152515461017], [1.0, 2.188939178756944, 6e-285]]
    tails = [[0.41432748442612516], [5e-324, 0.6978935706830813], [7.720392739030166e-286],
             [0.0, 1.6336130804256612], [3.7832390523880024, 1.402507026538561],
             [0.5865183268255314, 1.8380185266386082, 4.358841661874223e-285]]
    jobs = make_jobs(6, submit_s=np.array([0.0, 1e-308, 1e-308, 1e-308, 0.0, 6.260957176398754]),
                     queue="b", weight=np.array([2.0, 1.0, 2.0, 2.0, 2.0, 1.0]))
    return from_task_lists("subnormal", jobs, maps, reduces, tails)


def test_fair_preemption_kills_only_what_the_starved_job_can_use() -> None:
    # The starved jobs wait for reduce slots; killing a map (the newest container) freed a
    # map slot they could not take, it went back, and the same kill came every second forever.
    w, cluster = _subnormal_preemption_case(), Cluster(np.array([[2, 2]]), slots=True)
    pol = Fair(preemption=True, preemption_interval_s=1.0, preemption_threshold=1.0)
    res = simulate(w, cluster, pol, slowstart=0.05, record=True)
    _check_invariants(w, cluster, res)
    assert (~res.attempts.completed).sum() == pol.preempted <= 3  # not one every second


class _Frozen(FIFO):
    """Asks to be woken at the current instant, again and again."""

    def on_arrival(self, j: int) -> None:
        self.sim.wake_at(self.sim.now, "again")

    def on_wake(self, tag: object) -> None:
        self.sim.wake_at(self.sim.now, "again")


class _Livelock(FIFO):
    """Kills every running task each second: time advances, nothing ever finishes."""

    def on_arrival(self, j: int) -> None:
        self.sim.wake_at(self.sim.now + 1.0, "kill")

    def on_wake(self, tag: object) -> None:
        for j in range(self.sim.n):
            for cid in self.sim.containers(j):
                self.sim.kill(cid)
        self.sim.wake_at(self.sim.now + 1.0, "kill")


@pytest.mark.parametrize(("policy", "what"), [(_Frozen, "stopped advancing at t=0.0"),
                                              (_Livelock, "ran past any schedule")])
def test_progress_guard_names_time_and_policy(policy, what) -> None:
    w = from_task_lists("guard", make_jobs(1, am_mb=1024), [[5.0] * 2], [[]])
    with pytest.raises(SimulationError, match=f"{what}.* under policy fifo"):
        simulate(w, Cluster.homogeneous(1, 4096, 4), policy())


def test_fair_preemption_does_not_kill_for_an_am_the_max_am_share_holds_back() -> None:
    # Found on a fresh seed: AMs of 1536 and 2048 MB wait because of the max AM share (half of
    # 4 GB, the first job's AM holds 1 GB), not for room; killing the first job's 1 s map
    # for them, every second, kept it from ever finishing.
    jobs = make_jobs(6, am_mb=np.array([1024, 1536, 1024, 1024, 2048, 1024]),
                     queue="a", weight=np.array([1.0, 1.0, 1.0, 1.0, 2.0, 1.0]))
    w = from_task_lists("am-share", jobs, [[0.0, 1.0, 0.0], [], [], [], [], []],
                        [[]] * 6)
    cluster = Cluster.homogeneous(1, 4096, 4)
    pol = Fair(preemption=True, preemption_interval_s=1.0, preemption_threshold=1.0)
    res = simulate(w, cluster, pol, slowstart=0.0, record=True)
    _check_invariants(w, cluster, res)
    assert pol.preempted == 0


def test_waiting_reduces_give_way_to_the_maps_they_wait_for() -> None:
    # Found on a fresh seed: slow-start 0 lets job 6's three reduces (1 GB) start at once;
    # with the AMs they leave no node 1.5 GB for its map, and they wait for that map. As the
    # MapReduce AM does, a waiting reduce is killed so the map can run.
    jobs = make_jobs(7, am_mb=1024, map_mb=np.array([1024] * 6 + [1536]))
    w = from_task_lists("reduce-deadlock", jobs, [[], [0.0, 0.0, 1.0], [], [], [], [0.0], [0.0]],
                        [[], [], [], [], [], [], [0.0, 0.0, 0.0]])
    cluster = Cluster.homogeneous(2, 3072, 3)
    res = simulate(w, cluster, FIFO(), slowstart=0.0, record=True)
    _check_invariants(w, cluster, res)
    killed = res.attempts[~res.attempts.completed]
    assert len(killed) >= 1 and (killed.kind == REDUCE).all() and (killed.job == 6).all()


@pytest.mark.parametrize("name", ["fair+preemption", "drf+preemption", "hfsp", "fspy"])
def test_waiting_reduces_give_way_while_the_policy_keeps_waking(name: str) -> None:
    # Found on a fresh seed: the same deadlock (two reduces and the AM leave 1 GB, the map
    # wants 1.5 GB), hidden from the check by the policy's periodic wake-ups
    jobs = make_jobs(3, am_mb=1024, map_mb=np.array([1024, 1536, 1024]), queue="a")
    w = from_task_lists("wakes", jobs, [[], [0.0], []], [[0.0] * 3, [0.0] * 2, []])
    cluster = Cluster.homogeneous(1, 4096, 4)
    res = simulate(w, cluster, make_scheduler(name), slowstart=0.0, record=True)
    _check_invariants(w, cluster, res)
    assert res.jobs.finish_s.tolist() == [0.0, 0.0, 0.0]


def test_fair_preemption_kills_only_for_a_job_fair_then_serves() -> None:
    # Found on a fresh seed: one map slot. Killing job 0's map for job 5 (the other queue)
    # left both queues equally used, the tie gave the slot back to job 0, and the kill came
    # again every second
    maps = [[2.47907142, 7.25656584], [], [8.4274721, 0.25, 4.03054393, 0.0, 0.0], [], [],
            [2.0, 5.30864738, 0.86319781, 3.42298825, 8.60001098, 8.0]]
    reduces = [[0.0], [6.87085541], [0.0], [1.68615012], [3.92843029], [0.62336208]]
    tails = [[0.0], [0.0], [0.0], [0.71330618], [2.85732683], [0.02295523]]
    jobs = make_jobs(6, submit_s=np.array([0, 4.149238, 7.121586, 7.177463, 8.095018, 8.524156]),
                     queue=np.array(list("aaaaab")),
                     uber=np.array([False, False, False, True, False, False]))
    w, cluster = from_task_lists("tie", jobs, maps, reduces, tails), Cluster.mrv1(1, 1, 2)
    pol = Fair(preemption=True, preemption_interval_s=1.0, preemption_threshold=1.0)
    res = simulate(w, cluster, pol, slowstart=0.0, record=True)
    _check_invariants(w, cluster, res)
    assert pol.preempted <= 3
