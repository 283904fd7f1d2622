"""DRESS (Mao et al.): Algorithm 3's reservation update and eq 9's release forecast from
hand-computed cases, and the scheduler in the YARN model."""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.schedulers import Capacity, make_scheduler
from jobsize.sim.schedulers.dress import DRESS, LD, SD, PhaseForecast, adjust_reserve
from jobsize.sim.workload import from_task_lists, make_jobs

TOT = 100.0


def alg3(free, release, sd, ld, delta=0.10, leftover="split"):
    return adjust_reserve(delta, TOT, free, release, (sd, ld), leftover=leftover)


def test_sd_surplus_goes_to_ld() -> None:
    """Lines 7-8: A_c1 + F1 = 8 + 2 ≥ P1 = 4 → δ = 0.10 − 6/100."""
    assert alg3((8, 0), (2, 0), [4], [50]) == pytest.approx(0.04)
    # no SD job at all: the whole expected SD surplus goes
    assert alg3((5, 0), (1, 0), [], [50]) == pytest.approx(0.04)


def test_ld_surplus_goes_to_sd() -> None:
    """Lines 10-11: E1 = 1 < P1 = 5; E2 = 10 + 5 ≥ P2 = 8 → δ = 0.10 + 7/100."""
    assert alg3((1, 10), (0, 5), [5], [8]) == pytest.approx(0.17)


def test_both_short_leftover_moves_to_sd() -> None:
    """Lines 12-24, the digest's case: a1 = 2 + 3 = 5 and a2 = 6 + 4 = 10 (line 14 read with
    F2); SD [3, 4]: 3 fits (a1 = 2), 4 does not; LD [20, 30]: 20 does not fit a2 = 10; the
    leftover takes 4 = 2 from a1 + 2 from a2 → δ = 0.12. The paper's lines 23-24 take all 4
    from A_c2 → 0.14."""
    assert alg3((2, 6), (3, 4), [4, 3], [20, 30]) == pytest.approx(0.12)
    assert alg3((2, 6), (3, 4), [4, 3], [20, 30], leftover="whole") == pytest.approx(0.14)


def test_leftover_serves_several_sd_jobs_until_one_does_not_fit() -> None:
    """a1 = 1, a2 = 7; SD [2, 3, 4]: none fits a1; LD [9, 12]: none fits a2. Leftover: 2 = 1 + 1
    (δ += .01), 3 = 0 + 3 (δ += .03), 4 > 0 + 3: stop → 0.14 (whole: 2 and 3 → 0.15)."""
    assert alg3((1, 5), (0, 2), [3, 4, 2], [12, 9]) == pytest.approx(0.14)
    assert alg3((1, 5), (0, 2), [3, 4, 2], [12, 9], leftover="whole") == pytest.approx(0.15)


def test_ld_jobs_that_fit_use_their_leftover_first() -> None:
    """a1 = 1, a2 = 8; LD 5 fits (a2 = 3), 10 does not; SD 3 = 1 + 2 (δ += .02), the next 3 >
    0 + 1 → 0.12 (whole: 0.13)."""
    assert alg3((0, 4), (1, 4), [3, 3], [10, 5]) == pytest.approx(0.12)
    assert alg3((0, 4), (1, 4), [3, 3], [10, 5], leftover="whole") == pytest.approx(0.13)


def test_nothing_fits_leaves_delta() -> None:
    assert alg3((0, 3), (0, 0), [5], [10]) == pytest.approx(0.10)
    with pytest.raises(ConfigError):
        alg3((0, 3), (0, 0), [5], [10], leftover="all")


def launched(times, window=10.0, threshold=5) -> PhaseForecast:
    phase = PhaseForecast(window, threshold)
    for t in times:
        phase.launch(float(t))
    return phase


def test_release_forecast_eq_9() -> None:
    """c = 20 started over [90, 100] (Δps = 10); 6 complete at 100..105 → γ = 100 (the 6th
    passes t_e = 5); by 106 eq 9 expects 20·6/10 = 12 released, 6 are: 6 more in (105, 106]."""
    phase = launched(np.linspace(90, 100, 20))
    for t in range(100, 105):
        phase.complete(float(t))
        assert phase.gamma is None  # five completions do not pass t_e
    phase.complete(105.0)
    assert phase.gamma == 100.0
    assert phase.expected(105.0, 1.0) == pytest.approx(6.0)
    assert phase.expected(105.0, 10.0) == pytest.approx(14.0)  # capped by the running tasks


def test_heading_task_does_not_set_gamma() -> None:
    phase = launched(np.linspace(0, 10, 20))
    phase.complete(3.0)  # a heading task, alone and early
    for t in np.linspace(40, 44, 6):
        phase.complete(float(t))
    assert phase.gamma == 40.0
    assert phase.expected(20.0, 1.0) == 0.0  # before γ nothing is expected


def test_small_phase_trailing_tasks_and_a_step() -> None:
    small = launched([5.0, 5.0, 5.0])  # at most t_e tasks: γ at the first completion
    small.complete(20.0)
    assert small.gamma == 20.0
    assert small.expected(20.0, 1.0) == 2.0  # Δps = 0: a step at γ
    # trailing: no completion for a window after γ → nothing more is expected
    assert small.expected(30.0, 1.0) == 0.0
    assert PhaseForecast().expected(0.0, 1.0) == 0.0


def reservation_case():
    """20 one-GB containers; a large job (AM + 40 maps of 10 s) at 0, a small one (AM + 2 maps)
    at 1. θ = 0.25: the small job's 3 GB is under 5 GB."""
    jobs = make_jobs(2, submit_s=np.array([0.0, 1.0]), am_mb=1024)
    work = from_task_lists("dress", jobs, [[10.0] * 40, [10.0] * 2], [[], []])
    return work, Cluster.homogeneous(1, 20 * 1024, 20)


def test_small_job_overtakes_through_its_reservation() -> None:
    work, cluster = reservation_case()
    # Capacity (one FIFO queue): the small job waits for the large one's maps: AM at 20, done 30
    fifo = simulate(work, cluster, Capacity())
    assert fifo.jobs.finish_s.tolist() == [30.0, 30.0]
    # DRESS: δ0 = 0.1 reserves 2 GB; the small job starts at 1 (AM + one map); at 10 both
    # categories are short and the large job's smallest demand does not fit its expected 17 GB,
    # so 1 GB of it moves to SD (δ = 0.15) and the second map runs 10-20
    pol = DRESS(theta=0.25)
    res = simulate(work, cluster, pol, record=True)
    assert pol.category == [LD, SD]
    assert res.jobs.finish_s[1] == 20.0
    assert dict(pol.trace)[10.0] == pytest.approx(0.15)
    att = res.attempts
    small = att[att.job == 1].sort_values("start_s")
    assert small.start_s.tolist() == [1.0, 1.0, 10.0]


def test_delta_falls_when_no_small_job_waits() -> None:
    jobs = make_jobs(1, am_mb=1024)
    work = from_task_lists("ld", jobs, [[10.0] * 40], [[]])
    pol = DRESS()
    res = simulate(work, Cluster.homogeneous(1, 20 * 1024, 20), pol, record=True)
    assert pol.trace[0] == (1.0, 0.0)  # lines 7-8 hand SD's 2 idle GB to LD
    att = res.attempts
    assert att[(att.start_s <= 1.5) & (att.end_s > 1.5)].r0.sum() == 20 * 1024


def test_classification_rules() -> None:
    work, cluster = reservation_case()
    literal = DRESS(theta=0.25, classify="available")  # θ·A_c: at 1 nothing is free
    simulate(work, cluster, literal)
    assert literal.category == [LD, LD]
    assert make_scheduler("dress", dress={"theta": 0.25}).describe() == "dress[θ=0.25,δ0=0.1]"
    for bad in ({"theta": 0}, {"delta": 0.5, "delta_range": (0, 0.4)}, {"classify": "x"},
                {"leftover": "x"}):
        with pytest.raises(ConfigError):
            DRESS(**bad)
