"""FSPY's virtual Fair cluster (Alg 2, Alg 3) and HFSP's virtual max-min slot cluster, on cases
computed by hand."""

from __future__ import annotations

import math

import pytest

from jobsize.sim.virtual import VirtualCluster
from jobsize.sim.virtual_slots import MaxMinCluster

CR = (8192.0, 8.0)


def test_vra_two_jobs_small_apb_first_then_the_rest() -> None:
    vc = VirtualCluster(CR)
    vc.add(1, size=(40960, 40), apb=(16384, 16), am=(1024, 1))  # asks for twice the cluster
    vc.add(0, size=(20480, 20), apb=(2048, 2), am=(512, 1))
    vc.vra()
    assert vc.queue() == [0, 1]  # ordered by APB memory, not by arrival
    # job 0: fair share (4096, 4) exceeds its APB → it gets its APB
    assert vc.resource(0) == pytest.approx((2048, 2))
    # job 1: what is left, (6144, 6), is below its APB → APB × 6144/16384 = APB × 6/16
    assert vc.resource(1) == pytest.approx((6144, 6))


def test_vra_three_jobs_leftovers_flow_down_the_queue() -> None:
    vc = VirtualCluster((8000, 8))
    for j, m in enumerate((6000, 1000, 3000)):
        vc.add(j, size=(1e6, 1e3), apb=(m, m / 1000), am=(0, 0), uber=True)
    vc.vra()
    # 1000: share 8000/3 → 1000; 3000: share 7000/2 → 3000; 6000: share 4000 → 4000
    assert vc.resource(1) == pytest.approx((1000, 1))
    assert vc.resource(2) == pytest.approx((3000, 3))
    assert vc.resource(0) == pytest.approx((4000, 4))


def test_vra_vector_resources_the_dominant_dimension_binds() -> None:
    vc = VirtualCluster(CR)
    vc.add(0, size=(1e6, 1e4), apb=(1024, 6), am=(512, 1))  # vcore-heavy
    vc.add(1, size=(1e6, 1e4), apb=(4096, 1), am=(512, 1))  # memory-heavy
    vc.vra()
    # job 0 first (less memory): share (4096, 4); its 6 vcores exceed 4 → scaled by 4/6
    assert vc.resource(0) == pytest.approx((1024 * 4 / 6, 4))
    # job 1: share (8192 − 682.7, 4) covers (4096, 1) → its APB
    assert vc.resource(1) == pytest.approx((4096, 1))


def test_vsc_excludes_the_am_of_normal_jobs_only() -> None:
    vc = VirtualCluster(CR)
    vc.add(0, size=(20480, 20), apb=(2048, 2), am=(512, 1))
    vc.add(1, size=(4096, 4), apb=(1024, 1), am=(1024, 1), uber=True)
    vc.vra()
    assert vc.vsc(2.0) == []
    # normal job: (2048 − 512, 2 − 1) × 2 s; uber job: its whole container (1024, 1) × 2 s
    assert vc.size(0) == pytest.approx((20480 - 1536 * 2, 20 - 2))
    assert vc.size(1) == pytest.approx((4096 - 2048, 4 - 2))
    # next virtual completion: uber job's 2048 MB·s at 1024 MB → 2 s after the update
    assert vc.next_completion() == pytest.approx(4.0)
    assert vc.vsc(4.0) == [1]
    assert 1 not in vc


def test_vsc_a_share_no_larger_than_the_am_makes_no_progress() -> None:
    vc = VirtualCluster((4096, 4))
    for j in range(4):  # fair share 1024 MB each = the AM: nothing left for tasks
        vc.add(j, size=(1e4, 10), apb=(4096, 4), am=(1024, 1))
    vc.vra()
    vc.vsc(100.0)
    assert all(vc.size(j) == (1e4, 10) for j in range(4))
    assert math.isinf(vc.next_completion())


def test_vsc_completions_in_the_order_they_reached_zero() -> None:
    vc = VirtualCluster((8000, 8))
    vc.add(0, size=(3000, 3), apb=(1000, 1), am=(0, 0), uber=True)  # zero at 3 s
    vc.add(1, size=(2000, 2), apb=(1000, 1), am=(0, 0), uber=True)  # zero at 2 s
    vc.add(2, size=(1e6, 1e3), apb=(1000, 1), am=(0, 0), uber=True)
    vc.vra()
    assert vc.vsc(5.0) == [1, 0]
    assert vc.queue() == [2]


def test_update_applies_eq10_size_and_new_apb() -> None:
    vc = VirtualCluster(CR)
    vc.add(0, size=(1e9, 1e6), apb=(4096, 4), am=(512, 1))
    vc.vra()
    vc.vsc(1.0)
    done = 1e9 - vc.size(0)[0]
    assert done == pytest.approx(4096 - 512)
    vc.update(0, size=(10000 - done, 9), apb=(1024, 1))  # eq 10 with S_pred = 10000
    vc.vra()
    assert vc.resource(0) == pytest.approx((1024, 1))
    assert vc.next_completion() == pytest.approx(1.0 + (10000 - done) / 512)


def test_am_share_admits_jobs_in_submission_order() -> None:
    vc = VirtualCluster(CR, am_share=0.5)  # 4096 MB of AMs: two 1536 MB AMs, not three
    for j in range(3):
        vc.add(j, size=(1e6, 1e3), apb=(8192, 8), am=(1536, 1))
    vc.vra()
    assert vc.admitted == {0, 1}
    assert vc.resource(0) == pytest.approx((4096, 4))
    assert vc.resource(2) == (0.0, 0.0)
    vc.remove(0)
    vc.vra()
    assert vc.admitted == {1, 2}
    assert vc.resource(2) == pytest.approx((4096, 4))


# ---------------------------------------------------------------------------------------------
# HFSP's virtual cluster


def test_maxmin_cluster_hand_case() -> None:
    """4 slots; A: 6 tasks × 10 s, B: 2 tasks × 4 s, both at 0.

    Max-min gives each 2 slots. B's tasks end at 4 (B done, first); A then has 2 tasks with
    6 s left and 4 untouched: all 4 slots → two end at 10, the other two (4 s left) at 14,
    the last two at 20.
    """
    c = MaxMinCluster(4)
    c.add(0, 6, 10.0)
    c.add(1, 2, 4.0)
    assert c.remaining(0) == 60 and c.remaining(1) == 8
    assert c.next_event() == 4.0
    assert c.advance(2.0) == []
    assert c.remaining(0) == pytest.approx(56) and c.remaining(1) == pytest.approx(4)
    assert c.advance(4.0) == [1]
    assert c.finish_position(1) == 1 and c.remaining(1) == 0
    assert c.remaining(0) == pytest.approx(52)
    assert c.next_event() == pytest.approx(10.0)
    c.advance(10.0)
    assert c.remaining(0) == pytest.approx(4 + 4 + 10 + 10)
    assert c.next_event() == pytest.approx(14.0)
    assert c.advance(20.0) == [0]
    assert c.finish_position(0) == 2


def test_maxmin_new_estimate_keeps_progress_fractions() -> None:
    c = MaxMinCluster(4)
    c.add(0, 6, 10.0)
    c.add(1, 2, 4.0)
    c.advance(2.0)  # A's two running tasks are 20 % done
    c.estimate(0, 5.0)
    assert c.remaining(0) == pytest.approx(2 * 4.0 + 4 * 5.0)


def test_maxmin_leftover_slots_go_to_the_earliest_jobs() -> None:
    c = MaxMinCluster(5)
    for j in range(3):
        c.add(j, 10, 1.0)
    # level 1 each (3 slots), 2 left over: jobs 0 and 1 get 2, job 2 gets 1
    assert [c.jobs[j].slots for j in range(3)] == [2, 2, 1]
    c.remove(0)
    assert [c.jobs[j].slots for j in (1, 2)] == [3, 2]
