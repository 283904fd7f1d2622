"""LTYARN (Tang's thesis, ch 5): Table 5.1 and Table 1.1 by hand, the ledger's quantum and
discount, PAR, the Quantum Updater, queue trees and rounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.policy import MAP
from jobsize.sim.schedulers import Fair, make_scheduler
from jobsize.sim.schedulers.ltyarn import LTYARN, Ledger, LTQueue, parse_ltyarn_queues
from jobsize.sim.workload import from_task_lists, make_jobs

PERIOD = 10.0


def periods(new_a: list[int], new_b: list[int], units: int, slots: bool):
    """The thesis's example as a workload: at the start of period k users (queues) A and B each
    submit a job of new_a[k] / new_b[k] one-unit tasks lasting one period. In the YARN model a
    unit is a 1 GB container and AMs take no resources; jobs come a second before their period
    (the AM asks for the maps then), so every period starts with all its demand pending."""
    n = 2 * len(new_a)
    submit = np.array([max(k * PERIOD - (0 if slots else 1), 0) for k in range(len(new_a))
                       for _ in "AB"])
    extra = {} if slots else {"am_mb": 0, "am_vcores": 0}
    jobs = make_jobs(n, submit_s=submit, queue=np.array(["A", "B"] * len(new_a)), **extra)
    maps = [[PERIOD] * (a if u == "A" else b) for a, b in zip(new_a, new_b, strict=True)
            for u in "AB"]
    work = from_task_lists("table5.1", jobs, maps, [[]] * n)
    # one spare vcore: a node that is full of tasks still has room for a zero-size AM
    cluster = (Cluster.mrv1(1, units, 0) if slots
               else Cluster.homogeneous(1, units * 1024, units + 1))
    return work, cluster


class Sampled(LTYARN):
    """LTYARN that notes its queues' accumulated resources just before each period ends."""

    def bind(self, sim):
        super().bind(sim)
        self.counted: dict[str, list[float]] = {"A": [], "B": []}
        for k in range(1, 5):
            sim.wake_at(k * PERIOD - 0.5, "sample")

    def on_wake(self, tag):
        if tag == "sample":
            for q in "AB":
                self.counted[q].append(self.accumulated(q))
        else:
            super().on_wake(tag)


def per_period(res, n_periods: int = 4) -> dict[str, list[int]]:
    att = res.attempts
    att = att[att.kind == MAP]
    out = {}
    for q, parity in (("A", 0), ("B", 1)):
        start = att[att.job % 2 == parity].start_s
        out[q] = [int(((start >= k * PERIOD) & (start < (k + 1) * PERIOD)).sum())
                  for k in range(n_periods)]
    return out


TABLE_5_1 = ([40, 80, 160, 120], [200, 120, 100, 100], 200)
TABLE_1_1 = ([20, 40, 80, 60], [100, 60, 50, 50], 100)


@pytest.mark.parametrize("slots", [True, False], ids=["slots", "yarn"])
def test_table_5_1_memoryless_and_long_term(slots) -> None:
    work, cluster = periods(*TABLE_5_1, slots)
    # (a) memoryless (MLRF): LTYARN's RA with order mlrf at the root, and Hadoop's Fair
    for policy in (LTYARN([LTQueue("root", order="mlrf")], quantum_s=PERIOD), Fair()):
        got = per_period(simulate(work, cluster, policy, record=True))
        assert got == {"A": [40, 80, 100, 100], "B": [160, 120, 100, 100]}
        assert np.cumsum(got["A"]).tolist() == [40, 120, 220, 320]
        assert np.cumsum(got["B"]).tolist() == [160, 280, 380, 480]
    # (b) long-term (LTRF): A gets back the 60 + 20 it lent
    pol = Sampled(quantum_s=PERIOD)
    got = per_period(simulate(work, cluster, pol, record=True))
    assert got == {"A": [40, 80, 160, 120], "B": [160, 120, 40, 80]}
    assert np.cumsum(got["A"]).tolist() == [40, 120, 280, 400]
    assert np.cumsum(got["B"]).tolist() == [160, 280, 320, 400]
    unit = PERIOD * (1 if slots else 1024)  # one unit held for one period
    assert [f / unit for f in pol.counted["A"]] == pytest.approx([40, 120, 280, 400])
    assert [f / unit for f in pol.counted["B"]] == pytest.approx([160, 280, 320, 400])


@pytest.mark.parametrize("slots", [True, False], ids=["slots", "yarn"])
def test_table_5_1_with_the_50_percent_discount(slots) -> None:
    """(c): resources beyond the share (100) count half; the real allocations stay (b)'s and
    the counted totals reach 360 each."""
    work, cluster = periods(*TABLE_5_1, slots)
    pol = Sampled(quantum_s=PERIOD, discount=0.5)
    got = per_period(simulate(work, cluster, pol, record=True))
    assert got == {"A": [40, 80, 160, 120], "B": [160, 120, 40, 80]}
    unit = PERIOD * (1 if slots else 1024)
    assert [f / unit for f in pol.counted["A"]] == pytest.approx([40, 120, 250, 360])
    assert [f / unit for f in pol.counted["B"]] == pytest.approx([130, 240, 280, 360])


def test_table_1_1_is_table_5_1_halved() -> None:
    work, cluster = periods(*TABLE_1_1, slots=True)
    mlrf = per_period(simulate(work, cluster, Fair(), record=True))
    assert np.cumsum(mlrf["A"]).tolist() == [20, 60, 110, 160]
    assert np.cumsum(mlrf["B"]).tolist() == [80, 140, 190, 240]
    ltrf = per_period(simulate(work, cluster, LTYARN(quantum_s=PERIOD), record=True))
    assert np.cumsum(ltrf["A"]).tolist() == [20, 60, 140, 200]
    assert np.cumsum(ltrf["B"]).tolist() == [80, 140, 160, 200]


def test_ledger_quantum_precharge_and_sawtooth() -> None:
    """Eq 5.15: α = Q from launch, then the running time; a task done before Q counts what it
    ran, so f drops (Fig 5.7's sawtooth with a too-large Q)."""
    led = Ledger(0.0)
    led.grant(0.0, cid=1, amount=2.0, expiry=10.0)
    assert led.value(0.0) == pytest.approx(20.0)
    assert led.value(6.0) == pytest.approx(20.0)
    assert led.value(15.0) == pytest.approx(30.0)  # past Q: its running time
    led.grant(15.0, cid=2, amount=1.0, expiry=25.0)
    assert led.value(15.0) == pytest.approx(40.0)
    led.take_back(18.0, cid=2, amount=1.0)  # done after 3 s of its assumed 10
    assert led.value(18.0) == pytest.approx(36.0 + 3.0)
    led.take_back(20.0, cid=1, amount=2.0)
    assert led.value(30.0) == pytest.approx(40.0 + 3.0)


def test_ledger_discount_eq_5_7() -> None:
    led = Ledger(0.0, share=100.0, eta=0.5)
    assert led.counted(80.0) == 80.0
    assert led.counted(160.0) == 130.0
    led.grant(0.0, 1, 160.0, expiry=0.0)  # no quantum
    assert led.value(2.0) == pytest.approx(260.0)


def two_jobs(second_at: float, queue=("default", "default")):
    """Two jobs of 40 ten-second tasks; AMs take no resources (a spare vcore gives them room),
    so a job submitted just before a task boundary has its maps pending at the boundary."""
    jobs = make_jobs(2, submit_s=np.array([0.0, second_at]), queue=np.array(queue),
                     am_mb=0, am_vcores=0)
    return from_task_lists("two", jobs, [[10.0] * 40, [10.0] * 40], [[], []])


def held_at(res, t: float) -> dict[int, int]:
    att = res.attempts
    att = att[(att.kind == MAP) & (att.start_s <= t) & (att.end_s > t)]
    return att.groupby("job").size().to_dict()


def test_par_late_application_does_not_catch_up() -> None:
    """Eq 5.10: the second job arrives level with the first (PAR) and they share from then on;
    without PAR it would take every container until it had caught up."""
    cluster = Cluster.homogeneous(1, 4096, 5)
    res = simulate(two_jobs(19.5), cluster, LTYARN(quantum_s=10.0), record=True)
    assert held_at(res, 25.0) == {0: 2, 1: 2}
    assert held_at(res, 45.0) == {0: 2, 1: 2}


def test_without_app_par_the_late_application_catches_up() -> None:
    """The ablation: with ``app_par=False`` the second job starts from nothing and takes every
    container until it has caught up with the first."""
    cluster = Cluster.homogeneous(1, 4096, 5)
    res = simulate(two_jobs(19.5), cluster, LTYARN(quantum_s=10.0, app_par=False),
                   record=True)
    assert held_at(res, 25.0) == {1: 4}
    assert LTYARN(app_par=False).describe() == "ltyarn[Q0=60,no app PAR]"


def test_late_queue_gets_par_but_an_idle_queue_keeps_its_credit() -> None:
    """Queues arrive once: B, active later than A, starts level with A; when A goes idle and
    comes back it gets back what it lent (lending agreement)."""
    jobs = make_jobs(3, submit_s=np.array([0.0, 5.0, 59.5]), queue=np.array(["A", "B", "A"]),
                     am_mb=0, am_vcores=0)
    work = from_task_lists("lend", jobs, [[10.0] * 4, [10.0] * 40, [10.0] * 40], [[], [], []])
    cluster = Cluster.homogeneous(1, 4096, 5)
    res = simulate(work, cluster, LTYARN(quantum_s=10.0), record=True)
    # A's first job is done at 10; B alone from 10 to 60 accumulates 4 × 50 more than A
    assert held_at(res, 35.0) == {1: 4}
    # A's new job takes everything until A has caught up
    assert held_at(res, 65.0) == {2: 4}
    fair = simulate(work, cluster, Fair(), record=True)
    assert held_at(fair, 65.0) == {1: 2, 2: 2}


def test_quantum_updater_means_up_the_tree() -> None:
    """§5.5.2.1: app Q = mean of its completed tasks; leaf = mean of its apps; parent = mean of
    its children; a new app starts from its leaf's Q."""
    jobs = make_jobs(4, submit_s=np.array([0.0, 0.0, 0.0, 100.0]),
                     queue=np.array(["org.a", "org.b", "c", "c"]), am_mb=0, am_vcores=0)
    work = from_task_lists("qu", jobs, [[4.0] * 3, [8.0] * 2, [1.0, 3.0], [5.0]],
                           [[], [], [], []])
    class Probe(LTYARN):
        def on_arrival(self, j):
            super().on_arrival(j)
            self.first_q = {**getattr(self, "first_q", {}), j: self.app_q[j]}

    pol = Probe(quantum_s=60.0)
    simulate(work, Cluster.homogeneous(2, 8192, 9), pol)
    assert pol.quantum("org.a") == pytest.approx(4.0)
    assert pol.quantum("org.b") == pytest.approx(8.0)
    assert pol.quantum("org") == pytest.approx(6.0)
    assert pol.first_q == {0: 60.0, 1: 60.0, 2: 60.0, 3: pytest.approx(2.0)}  # c's: 1 and 3
    assert pol.quantum("c") == pytest.approx(5.0)
    assert pol.quantum() == pytest.approx((6.0 + 5.0) / 2)
    fixed = LTYARN(quantum_s=60.0, adaptive=False)
    simulate(work, Cluster.homogeneous(2, 8192, 9), fixed)
    assert fixed.quantum("org.a") == fixed.quantum() == fixed.app_q[3] == 60.0


def test_weights_min_and_max_shares() -> None:
    jobs = make_jobs(2, queue=np.array(["x", "y"]), am_mb=0, am_vcores=0)
    work = from_task_lists("w", jobs, [[10.0] * 60, [10.0] * 60], [[], []])
    cluster = Cluster.homogeneous(1, 6144, 7)
    weighted = simulate(work, cluster, LTYARN([LTQueue("x", 2.0)], quantum_s=10.0),
                        record=True)
    assert held_at(weighted, 35.0) == {0: 4, 1: 2}
    capped = simulate(work, cluster, LTYARN([LTQueue("y", max_share=0.5)], quantum_s=10.0),
                      record=True)
    assert held_at(capped, 5.0)[1] == 3
    # a min share comes first even against a lower accumulated f
    late = make_jobs(2, submit_s=np.array([0.0, 29.5]), queue=np.array(["x", "y"]),
                     am_mb=0, am_vcores=0)
    work = from_task_lists("m", late, [[10.0] * 60, [10.0] * 60], [[], []])
    res = simulate(work, cluster, LTYARN([LTQueue("x", min_share=5 / 6)], quantum_s=10.0),
                   record=True)
    assert held_at(res, 35.0) == {0: 5, 1: 1}


def test_rounds_restart_history() -> None:
    """S-LTMM: at every multiple of L the accumulated resources start again from the tasks
    running then."""

    class Probe(LTYARN):
        def bind(self, sim):
            super().bind(sim)
            self.seen = []
            sim.wake_at(25.5, "probe")

        def on_wake(self, tag):
            if tag == "probe":
                self.seen.append((self.accumulated("A"), self.accumulated("B")))
            else:
                super().on_wake(tag)

    jobs = make_jobs(2, submit_s=np.array([0.0, 0.0]), queue=np.array(["A", "B"]),
                     am_mb=0, am_vcores=0)
    work = from_task_lists("r", jobs, [[10.0] * 40, [10.0] * 4], [[], []])
    full = Probe(quantum_s=10.0)
    simulate(work, Cluster.mrv1(1, 4, 0), full)
    semi = Probe(quantum_s=10.0, round_s=25.0)
    simulate(work, Cluster.mrv1(1, 4, 0), semi)
    # F-LTMM: A held 2 slots in [0, 20) and 4 since 20 (charged to 30); B 2 slots in [0, 20)
    assert full.seen == [(pytest.approx(80.0), pytest.approx(40.0))]
    # S-LTMM (L = 25): 4 slots of A running since 20 count from 25, with α = Q from 25
    assert semi.seen == [(pytest.approx(4 * 10.0), 0.0)]


def test_queue_specs_and_mistakes() -> None:
    qs = parse_ltyarn_queues("fb:1, root.org.a:2:mlrf, org:1::0.2:0.5, root::fifo")
    assert qs == [LTQueue("fb"), LTQueue("org.a", 2.0, "mlrf"), LTQueue("org", 1.0, "ltmm", 0.2,
                                                                         0.5),
                  LTQueue("root", 1.0, "fifo")]
    for bad in ("a:x", "a:1:lifo", "a:1:ltmm:0.6:0.5", "a..b", "a:1:ltmm:0:1:9"):
        with pytest.raises(ConfigError):
            parse_ltyarn_queues(bad)
    with pytest.raises(ConfigError):
        LTYARN(discount=1.5)
    jobs = make_jobs(1, queue="org")
    work = from_task_lists("x", jobs, [[1.0]], [[]])
    with pytest.raises(ConfigError, match="leaf"):
        simulate(work, Cluster.homogeneous(1, 4096, 4), LTYARN([LTQueue("org.a")]))


def test_by_name_with_options() -> None:
    pol = make_scheduler("ltyarn", ltyarn={"queues": [LTQueue("a", 2.0)], "quantum_s": 5.0,
                                           "round_s": math.inf, "discount": 0.5})
    assert isinstance(pol, LTYARN) and pol.describe() == "ltyarn[Q0=5,η=0.5]"
    assert make_scheduler("ltyarn").describe() == "ltyarn[Q0=60]"
