"""MROrder (Tang's thesis, chapter 3): job orders, HSim, bounds, the online policy.

The numbers are the thesis's Figure 3.3 example (8 map / 4 reduce slots, J1..J4) and what
follows from it by hand: T^M = (5, 1, 1.5, 18), T^R = (4, 2, 10, 12).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.hsim import PhaseJob, best_order, hsim
from jobsize.sim.schedulers import FIFO, make_scheduler
from jobsize.sim.schedulers.job_order import (
    makespan_upper_bound,
    mk_jr,
    mk_tct_jr,
    phase_loads,
    tct,
    two_stage_makespan,
)
from jobsize.sim.schedulers.mrorder import MROrder
from jobsize.sim.size_sources import ExactSizes, SizeSource
from jobsize.sim.workload import from_task_lists, make_jobs

FIG33 = [PhaseJob(10, 4, 2, 8), PhaseJob(4, 2, 4, 2), PhaseJob(2, 6, 4, 10), PhaseJob(24, 6, 6, 8)]
#: every order of J1..J4 (1-based) -> (makespan, total completion time), worked out by hand
#: from the FIFO rules of Fig 3.3
ALL_ORDERS = {
    "2341": (40, 100), "3241": (40, 100), "3421": (40, 118), "3124": (42, 102),
    "3142": (42, 120), "3412": (42, 138), "2314": (44, 88), "3214": (44, 88), "2134": (44, 90),
    "1234": (44, 94), "1324": (44, 94), "1342": (44, 114), "2413": (46, 122), "2431": (46, 132),
    "4123": (46, 150), "4132": (46, 158), "4312": (46, 168), "4213": (48, 150),
    "4231": (48, 156), "4321": (48, 166), "2143": (52, 114), "1243": (52, 118),
    "1423": (52, 136), "1432": (52, 136),
}


def fig33_workload(order=(0, 1, 2, 3)):
    jobs = [FIG33[i] for i in order]
    return from_task_lists("fig3.3", make_jobs(len(jobs)),
                           [[j.map_s] * j.maps for j in jobs],
                           [[j.reduce_s] * j.reduces for j in jobs])


def loads():
    return phase_loads([40, 8, 12, 144], [16, 8, 40, 48], 8, 4)


def test_phase_loads_of_figure_3_3() -> None:
    tm, tr = loads()
    assert tm.tolist() == [5, 1, 1.5, 18]
    assert tr.tolist() == [4, 2, 10, 12]


def test_figure_3_3_completions() -> None:
    assert hsim(FIG33, 8, 4) == [16, 8, 26, 44]
    res = simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), FIFO(), slowstart=1.0)
    assert res.jobs.finish_s.tolist() == [16, 8, 26, 44]
    assert res.jobs.finish_s.max() == 44 and res.jobs.finish_s.sum() == 94


def test_every_order_of_figure_3_3() -> None:
    for perm in itertools.permutations(range(4)):
        key = "".join(str(i + 1) for i in perm)
        done = hsim([FIG33[i] for i in perm], 8, 4)
        assert (max(done), sum(done)) == ALL_ORDERS[key], key
    # the event loop agrees on a few of them
    for key in ("2341", "4321", "2314"):
        perm = [int(c) - 1 for c in key]
        res = simulate(fig33_workload(perm), Cluster.mrv1(2, 4, 2), FIFO(), slowstart=1.0)
        assert (res.jobs.finish_s.max(), res.jobs.finish_s.sum()) == ALL_ORDERS[key]


def test_mk_jr_mk_tct_jr_and_tct_orders() -> None:
    tm, tr = loads()
    assert mk_jr(tm, tr) == [1, 2, 3, 0]  # J2, J3, J4, J1: makespan 40, the optimum
    assert ALL_ORDERS["2341"] == (40, 100)
    assert min(v[0] for v in ALL_ORDERS.values()) == 40
    total = tm + tr
    assert float(np.exp(np.log(total).mean())) == pytest.approx(9315 ** 0.25) \
        == pytest.approx(9.8242, abs=1e-4)
    assert mk_tct_jr(tm, tr) == [1, 0, 2, 3]  # J2, J1, J3, J4: 44 / 90
    assert tct(tm, tr) == [1, 0, 2, 3]
    assert ALL_ORDERS["2134"] == (44, 90)
    # a job of no work leaves the geometric mean alone and goes with the small jobs
    assert mk_tct_jr([*tm, 0.0], [*tr, 0.0]) == [4, 1, 0, 2, 3]
    assert min(v[1] for v in ALL_ORDERS.values()) == 88  # what SIM finds
    assert best_order(FIG33, 8, 4, "tct") in ([1, 2, 0, 3], [2, 1, 0, 3])
    assert best_order(FIG33, 8, 4) == [1, 2, 3, 0]
    # Theorem 3.2: the reverse of Johnson's order is the worst makespan
    assert max(v[0] for v in ALL_ORDERS.values()) == ALL_ORDERS["1432"][0] == 52


def test_bounds_of_figure_3_3() -> None:
    tm, tr = loads()
    longest_m, longest_r = [4, 2, 6, 6], [8, 2, 10, 8]
    assert makespan_upper_bound(tm, tr, [0, 1, 2, 3], longest_m, longest_r) == 53.5  # eq 3.5
    assert two_stage_makespan(tm, tr, mk_jr(tm, tr)) == 36.5  # eq 3.3: Lemma 3.3's lower bound
    assert two_stage_makespan(tm, tr, [0, 1, 2, 3]) == 37.5  # TP-ATI's T_A of order J1..J4
    reverse = mk_jr(tm, tr)[::-1]
    assert makespan_upper_bound(tm, tr, reverse, longest_m, longest_r, over_all=True) == 63
    assert two_stage_makespan(tm, tr, []) == 0


def test_theorem_3_3_eight_slot_example() -> None:
    jobs = [PhaseJob(10, 9, 1, 10), PhaseJob(8, 11, 1, 15)]
    assert max(hsim(jobs, 8, 8)) == 44
    assert max(hsim(jobs[::-1], 8, 8)) == 39
    tm, tr = phase_loads([90, 88], [10, 15], 8, 8)
    assert mk_jr(tm, tr) == [1, 0]  # J2 -> J1 (the text's J1 -> J2 is not what Alg 1 gives)


@pytest.mark.parametrize(("name", "finish"), [
    ("fifo", [16, 8, 26, 44]),
    ("mk_jr", [40, 4, 16, 40]),
    ("mk_tct_jr", [16, 4, 26, 44]),
    ("tct", [16, 4, 26, 44]),
])
def test_batch_orders_in_the_simulator(name, finish) -> None:
    res = simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), make_scheduler(name), slowstart=1.0)
    assert res.jobs.finish_s.tolist() == finish


class ProbedExact(SizeSource):
    """Exact sizes known 3, 1, 6 and 2 s after submission (as if probed)."""

    name = "exact, probed"

    def estimate(self, workload):
        est = ExactSizes().estimate(workload)
        return replace(est, known_after_s=np.array([3.0, 1.0, 6.0, 2.0]))


def test_a_batch_is_ordered_once_every_estimate_is_known() -> None:
    # Figure 3.3's batch probed: MK_JR orders all four jobs at 6 s (the last estimate), as
    # it orders them at 0 with exact sizes — not job 2 alone at 1 s, then the rest.
    pol = MROrder(ProbedExact(), algorithm="mk_jr", trigger="batch", sim_jobs=0, name="mk_jr")
    res = simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), pol, slowstart=1.0)
    assert pol.rounds == [(6.0, 4, "MK_JR")]
    assert res.jobs.finish_s.tolist() == [6 + t for t in (40, 4, 16, 40)]


def test_online_mrorder_rounds() -> None:
    # TP-ATI: the first round after Δt = 10 s orders the four jobs with SIM (4 ≤ 7 jobs)
    pol = MROrder()
    res = simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), pol, slowstart=1.0)
    assert pol.rounds == [(10.0, 4, "SIM")]
    assert res.jobs.finish_s.max() == 10 + 40
    tct_pol = MROrder(objective="tct")
    res = simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), tct_pol, slowstart=1.0)
    assert res.jobs.finish_s.sum() == 4 * 10 + 88
    # without SIM, ALG (MK_JR) orders the round
    alg = MROrder(sim_jobs=0)
    simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), alg, slowstart=1.0)
    assert alg.rounds == [(10.0, 4, "MK_JR")]


def test_tp_ati_waits_for_the_dispatched_work() -> None:
    # J1..J4 dispatched at 10 s (T_A = 36.5 s for the MK_JR order); a job arriving at 12 s is
    # ordered in the round at 10 + 36.5 s under TP-ATI and at 20 s under TP-FTI
    jobs = make_jobs(5, submit_s=np.array([0, 0, 0, 0, 12.0]))
    maps = [[j.map_s] * j.maps for j in FIG33] + [[1.0]]
    reds = [[j.reduce_s] * j.reduces for j in FIG33] + [[1.0]]
    w = from_task_lists("late", jobs, maps, reds)
    ati = MROrder(sim_jobs=0)
    simulate(w, Cluster.mrv1(1, 8, 4), ati, slowstart=1.0)
    assert [r[:2] for r in ati.rounds] == [(10.0, 4), (46.5, 1)]
    fti = MROrder(sim_jobs=0, trigger="fti", interval_s=10)
    simulate(w, Cluster.mrv1(1, 8, 4), fti, slowstart=1.0)
    assert [r[:2] for r in fti.rounds] == [(10.0, 4), (20.0, 1)]


def test_pnj_orders_each_n0_jobs_and_the_rest_once_the_cluster_empties() -> None:
    # the PNJ-dominated solution with n0 = 2: J1, J2 (at 0 s) form a round at once, J3 and J4
    # (at 1 s and 2 s) one at 2 s; the fifth job (at 12 s) is alone, so it is ordered when
    # every dispatched job has finished — J1..J4 take 44 s in the order 1, 2, 3, 4
    jobs = make_jobs(5, submit_s=np.array([0, 0, 1.0, 2.0, 12.0]))
    maps = [[j.map_s] * j.maps for j in FIG33] + [[1.0]]
    reds = [[j.reduce_s] * j.reduces for j in FIG33] + [[1.0]]
    w = from_task_lists("pnj", jobs, maps, reds)
    pnj = MROrder(sim_jobs=0, trigger="pnj", n0=2)
    res = simulate(w, Cluster.mrv1(1, 8, 4), pnj, slowstart=1.0)
    rounds = [r[:2] for r in pnj.rounds]
    assert rounds[:2] == [(0.0, 2), (2.0, 2)]
    last_of_four = res.jobs.finish_s.iloc[:4].max()
    assert rounds[2] == (last_of_four, 1)
    assert res.jobs.finish_s.iloc[4] == last_of_four + 2.0
    # n0 larger than the workload: one round, when nothing is dispatched (at once, at 0 s)
    whole = MROrder(sim_jobs=0, trigger="pnj", n0=100)
    simulate(fig33_workload(), Cluster.mrv1(1, 8, 4), whole, slowstart=1.0)
    assert [r[:2] for r in whole.rounds] == [(0.0, 4)]


def test_pnj_a_job_without_tasks_does_not_hold_the_rest() -> None:
    # regression: a job of no tasks finishes before its round; counted as running, it kept
    # the next job waiting for an empty cluster that never came
    jobs = make_jobs(2, submit_s=np.array([0.0, 1.0]))
    w = from_task_lists("empty-first", jobs, [[], [1.0]], [[], []])
    res = simulate(w, Cluster.mrv1(1, 1, 1), MROrder(trigger="pnj", n0=2), slowstart=1.0)
    assert res.jobs.finish_s.notna().all()


def test_mrorder_runs_in_the_yarn_model() -> None:
    res = simulate(fig33_workload(), Cluster.parse("2x8g×8"), make_scheduler("mrorder"))
    assert res.jobs.finish_s.notna().all()


@st.composite
def phase_jobs(draw):
    n = draw(st.integers(1, 5))
    # tasks of no time make the order of events at one instant matter; HSim is for real ones
    return [PhaseJob(draw(st.integers(0, 12)), draw(st.integers(1, 9)),
                     draw(st.integers(0, 6)), draw(st.integers(1, 9))) for _ in range(n)]


@settings(max_examples=150, deadline=None)
@given(phase_jobs(), st.integers(1, 6), st.integers(1, 4))
def test_hsim_equals_the_event_loop(jobs, map_slots, reduce_slots) -> None:
    """HSim's wave arithmetic gives FIFO's completions with slow-start 1.0 (integer times:
    exact)."""
    w = from_task_lists("h", make_jobs(len(jobs)), [[float(j.map_s)] * j.maps for j in jobs],
                        [[float(j.reduce_s)] * j.reduces for j in jobs])
    res = simulate(w, Cluster.mrv1(1, map_slots, reduce_slots), FIFO(), slowstart=1.0)
    assert hsim(jobs, map_slots, reduce_slots) == res.jobs.finish_s.tolist()
