"""HFSP in the MRv1 slot mode and the YARN model: a hand-computed case, training estimates,
aging, late jobs, kill preemption."""

from __future__ import annotations

import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import Simulation, simulate
from jobsize.sim.policy import MAP, REDUCE
from jobsize.sim.schedulers import FIFO, make_scheduler
from jobsize.sim.schedulers.hfsp import HFSP
from jobsize.sim.virtual_slots import MaxMinCluster
from jobsize.sim.workload import from_task_lists, make_jobs


def test_slot_mode_hand_case() -> None:
    """One node, 2 map slots. A: 4 maps × 10 s at 0; B: 2 maps × 1 s at 1.

    At 0, A (initial estimate 60 s per task, no trained job yet) takes a training slot (one
    training slot: a tenth of 2, at least 1) and the other slot by virtual time. At 10 both
    end: A is trained (10 s per task, virtual time 38 s) while B still has its initial 60 s
    tasks. B takes the training slot (its maps run 10–11 and 11–12), A the other (10–20); at
    12 B is done and A's last map runs 12–22. FIFO would finish A at 20 and B at 21.
    """
    w = from_task_lists("hand", make_jobs(2, submit_s=[0.0, 1.0]), [[10.0] * 4, [1.0] * 2],
                        [[], []])
    cluster = Cluster.mrv1(1, 2, 1)
    pol = HFSP()
    res = simulate(w, cluster, pol, record=True)
    assert res.jobs.finish_s.tolist() == [22.0, 12.0]
    assert simulate(w, cluster, FIFO()).jobs.finish_s.tolist() == [20.0, 21.0]
    att = res.attempts
    b = att[att.job == 1].sort_values("start_s")
    assert b[["start_s", "end_s"]].values.tolist() == [[10.0, 11.0], [11.0, 12.0]]


def test_training_estimate_and_initial_estimate_of_later_jobs() -> None:
    jobs = make_jobs(2, submit_s=[0.0, 15.0])
    w = from_task_lists("train", jobs, [[10.0] * 6, [3.0] * 4], [[], []])

    class Seen(HFSP):
        def on_arrival(self, j):
            super().on_arrival(j)
            if j == 1:
                self.seen = (self.virtual[MAP].per_task(0), self.virtual[MAP].per_task(1))

    pol = Seen(initial_task_s=60.0)
    Simulation(w, Cluster.mrv1(1, 2, 1), pol).run()
    # A's first two completed tasks (10 s each) set its estimate; B arrives with the mean
    # per-task estimate of the trained jobs (A's 10 s) instead of the 60 s default
    assert pol.seen == (10.0, 10.0)


def test_late_jobs_first_in_virtual_finish_order() -> None:
    pol = HFSP()
    w = from_task_lists("late", make_jobs(1), [[1.0]], [[]])
    sim = Simulation(w, Cluster.mrv1(1, 3, 1), pol)
    pol.bind(sim)
    for j, n, d in ((10, 4, 1.0), (11, 1, 1.0), (12, 2, 5.0)):
        pol.virtual[MAP].add(j, n, d)
        pol.active.add(j)
    # 3 slots: one each; 11 ends at 1, then 10 runs on 2 slots (the spare one goes to the
    # earliest job) and ends at 3, 12 at 10
    pol.virtual[MAP].advance(100.0)
    keys = sorted((pol.key(j, MAP), j) for j in (10, 11, 12))
    assert [j for _, j in keys] == [11, 10, 12]
    assert all(k[0] == 0.0 for k, _ in keys)


def test_kill_preemption_frees_a_reduce_slot_for_a_smaller_job() -> None:
    # A's first reduce (50 s) trains it: its two others look like 100 s of work. B's reduce
    # (initial estimate: the trained mean, 50 s) is smaller, so with kill A's running reduce
    # is killed and rerun; with wait B waits for it.
    jobs = make_jobs(2, submit_s=[0.0, 60.0])
    w = from_task_lists("kill", jobs, [[1.0] * 2, [1.0]], [[50.0, 100.0, 100.0], [2.0]])
    cluster = Cluster.mrv1(1, 2, 1)
    wait = simulate(w, cluster, HFSP(train_tasks=1), slowstart=1.0).jobs.finish_s.tolist()
    kill = HFSP(train_tasks=1, preemption="kill")
    res = simulate(w, cluster, kill, slowstart=1.0, record=True)
    assert wait == [253.0, 153.0]
    assert res.jobs.finish_s.tolist() == [263.0, 63.0]
    assert kill.killed == 1
    lost = res.attempts[~res.attempts.completed]
    assert lost[["job", "kind", "start_s", "end_s"]].values.tolist() == [[0, REDUCE, 51.0, 61.0]]


def test_yarn_mode_maps_before_reduces_and_every_job_finishes() -> None:
    # early reduces that took every container would starve the maps they wait for: in the
    # YARN model a job gets a reduce container only when none of its maps fits there
    jobs = make_jobs(3, submit_s=[0.0, 2.0, 4.0], am_mb=1024)
    w = from_task_lists("yarn", jobs, [[5.0] * 40, [2.0] * 5, [1.0] * 3],
                        [[3.0] * 20, [1.0] * 2, []])

    class Checked(HFSP):
        reduces = 0

        def choose(self, node):
            pick = super().choose(node)
            if pick is not None and pick[1] == REDUCE:
                assert self.sim.next_kind(pick[0], node) == REDUCE
                self.reduces += 1
            return pick

    pol = Checked()
    res = simulate(w, Cluster.homogeneous(2, 8192, 8), pol)
    assert res.jobs.finish_s.notna().all()
    assert pol.reduces == 22


def test_registry_and_options() -> None:
    assert make_scheduler("hfsp").describe() == "hfsp"
    assert make_scheduler("hfsp+kill").describe() == "hfsp+kill"
    with pytest.raises(ConfigError, match="preemption"):
        HFSP(preemption="suspend")
    with pytest.raises(ConfigError, match="training"):
        HFSP(train_tasks=0)


def test_yarn_virtual_cluster_runs_at_the_real_clusters_pace() -> None:
    # One node of 8 GB: the AM (1.5 GB) leaves room for 6 task containers of 1 GB, shared by
    # both phases. A lone job of 12 maps and 12 reduces of 10 s (estimates exact from the
    # start) runs maps 0-20 and reduces 20-40. Its virtual cluster must not run faster: the
    # two phases share those 6 virtual slots, 3 each, so at t=30 each phase has 3 of its 10 s
    # tasks left. (With 8 map and 8 reduce virtual slots it was done virtually at 20.)
    w = from_task_lists("pace", make_jobs(1), [[10.0] * 12], [[10.0] * 12])

    class Watch(HFSP):
        def bind(self, sim):
            super().bind(sim)
            sim.wake_at(30.0, "watch")

        def on_wake(self, tag):
            if tag == "watch":
                self._advance()
                self.left = [self.virtual[p].remaining(0) for p in (MAP, REDUCE)]
            super().on_wake(tag)

    pol = Watch(initial_task_s=10.0)
    res = simulate(w, Cluster.homogeneous(1, 8192, 8), pol, slowstart=1.0)
    assert res.jobs.finish_s.tolist() == [40.0]
    assert pol.left == pytest.approx([30.0, 30.0])


def test_zero_length_tasks_end_virtually_too() -> None:
    # Found on a fresh seed: trained on two maps of 0 s, a job's virtual tasks last 0 s; the
    # virtual cluster's next event was "now" for ever and the wake-ups never moved time on.
    w = from_task_lists("zero", make_jobs(1), [[0.0, 0.0, 0.0]], [[]])
    res = simulate(w, Cluster.mrv1(1, 1, 1), HFSP(preemption="kill"))
    assert res.jobs.finish_s.tolist() == [0.0]
    # a task too short to move a late clock (1e6 + 1e-12 == 1e6) ends when it is due, too
    cluster = MaxMinCluster(1, now=1e6)
    cluster.add(7, 3, 0.0)
    cluster.add(8, 1, 1e-12)
    assert cluster.advance(1e6) == [7, 8]
    assert cluster.remaining(7) == cluster.remaining(8) == 0.0
    assert cluster.next_event() == float("inf")
