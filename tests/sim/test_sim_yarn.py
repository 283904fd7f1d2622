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
def scenarios(draw):
    slots = draw(st.booleans())
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
ORDERING = ["mk_jr", "mk_tct_jr", "tct", "mrorder", "mrorder+tct", "mrorder-fti", "rasooli",
            "rasooli-idle"]
#: the schedulers of MRv1 slots
SLOT_ONLY = ["mrv1-fair", "mrv1-fifo", "pi-dhsa", "pd-dhsa", "pi-dhsa+fifo", "pd-dhsa+fifo",
             "dynamicmr", "dynamicmr+fifo", "dynamicmr-eager", "pd-dynamicmr"]


def _policy(name: str):
    if name == "mrorder-fti":
        return MROrder(trigger="fti", interval_s=3.0, sim_jobs=3)
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


@settings(max_examples=200, deadline=None)
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
