"""What makes an attempt take longer or shorter than its task: node speeds, block locality,
stragglers; slot borrowing and speculative copies launched through ``Launch``."""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.errors import ConfigError, SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import MAP, REDUCE, Launch
from jobsize.sim.schedulers import FIFO
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import from_task_lists, make_jobs


def one_job(maps, reduces=()):
    return from_task_lists("one", make_jobs(1), [list(maps)], [list(reduces)])


def test_cluster_speed_classes() -> None:
    c = Cluster.parse("2x4x2@2/0.5+1x2x2", slots=True)
    assert c.speed.tolist() == [[2, 0.5], [2, 0.5], [1, 1]]
    assert c.describe() == "1×2×2+2×4×2@2/0.5 (map/reduce slots)"
    assert Cluster.parse("1x4g×4@3").speed.tolist() == [[3, 3]]
    with pytest.raises(ConfigError):
        Cluster(np.array([[1, 1]]), slots=True, speed=np.array([0.0]))
    with pytest.raises(ConfigError):
        Cluster(np.array([[1024, 1]]), slot_weights=(1, 2))  # weights are for slots only


def test_node_speed_divides_task_time() -> None:
    # a 2×-map-speed node runs a 10 s map in 5 s; its reduce speed 0.5 makes a 4 s reduce 8 s
    res = simulate(one_job([10.0], [4.0]), Cluster.parse("1x1x1@2/0.5", slots=True), FIFO(),
                   slowstart=1.0, record=True)
    att = res.attempts.sort_values("start_s")
    assert (att.end_s - att.start_s).tolist() == [5.0, 8.0]
    assert res.jobs.finish_s[0] == 13.0


def test_replicas_are_seeded_per_job_and_distinct() -> None:
    loc = BlockLocality(replication=3, seed=7)
    a = loc.replicas(4, 50, 6)
    assert a.shape == (50, 3) and (np.sort(a, axis=1)[:, 1:] != np.sort(a, axis=1)[:, :-1]).all()
    assert (a == loc.replicas(4, 50, 6)).all()
    assert not (a == loc.replicas(5, 50, 6)).all()
    assert loc.replicas(0, 3, 2).shape == (3, 2)  # no more replicas than nodes


def test_remote_maps_pay_the_block_read() -> None:
    # one node holds every block (replication 1 on a one-node cluster): all maps local
    res = simulate(one_job([10.0] * 4), Cluster.mrv1(1, 4, 1), FIFO(),
                   locality=BlockLocality(replication=1, remote_s=7.0))
    assert res.jobs.finish_s[0] == 10.0
    assert res.jobs.local_maps[0] == 4 and res.jobs.remote_maps[0] == 0
    # four nodes, one replica each: a map on another node than its block's takes 7 s longer
    res = simulate(one_job([10.0] * 40), Cluster.mrv1(4, 1, 1), FIFO(),
                   locality=BlockLocality(replication=1, remote_s=7.0), record=True)
    att = res.attempts
    local, remote = res.jobs.local_maps[0], res.jobs.remote_maps[0]
    assert local + remote == 40 and local > 0
    assert sorted(set((att.end_s - att.start_s).round(9))) == ([10.0, 17.0] if remote else [10.0])
    assert ((att.end_s - att.start_s) == 17.0).sum() == remote


def test_the_loop_takes_local_maps_first() -> None:
    # 2 nodes, 1 replica per block: every map whose block is on node 0 runs there while it can
    loc = BlockLocality(replication=1, remote_s=5.0, seed=3)
    w = one_job([10.0] * 8)
    reps = loc.replicas(0, 8, 2)[:, 0]
    res = simulate(w, Cluster.mrv1(2, 1, 1), FIFO(), locality=loc, record=True)
    att = res.attempts.sort_values("start_s")
    first = att[att.start_s == 0]
    for node, task in zip(first.node, first.task, strict=True):
        if (reps == node).any():
            assert reps[task] == node


def test_stragglers_are_the_same_first_attempts_under_every_policy() -> None:
    s = Stragglers(probability=0.3, slowdown=(4.0, 4.0), seed=1)
    f = s.first_factors(1000, MAP)
    assert set(np.unique(f)) == {1.0, 4.0}
    assert 0.2 < (f > 1).mean() < 0.4
    assert (f == s.first_factors(1000, MAP)).all()
    w = one_job([10.0] * 20, [5.0] * 4)
    cluster = Cluster.mrv1(2, 4, 2)
    a = simulate(w, cluster, FIFO(), stragglers=s, slowstart=1.0, record=True).attempts
    durations = (a.end_s - a.start_s).to_numpy()
    maps = a.kind.to_numpy() == MAP
    expected = 10.0 * s.first_factors(20, MAP)[a.task.to_numpy()[maps]]
    assert durations[maps] == pytest.approx(expected)
    with pytest.raises(ConfigError):
        Stragglers(probability=2)


class Borrowing(FIFO):
    """FIFO that runs reduces in map slots once the job's maps are done."""

    def choose(self, node):
        pick = super().choose(node)
        sim = self.sim
        if pick is None and sim.free0[node] > 0:
            for j in range(sim.n):
                if sim.has_demand(j) and sim.reduce_ready[j] and sim.reduces_todo[j] \
                        and sim.maps_done[j] == sim.n_maps[j]:
                    return Launch(j, REDUCE, (1, 0))
        return pick


def test_a_reduce_may_run_in_a_map_slot() -> None:
    w = one_job([1.0], [10.0] * 4)
    plain = simulate(w, Cluster.mrv1(1, 3, 1), FIFO(), slowstart=1.0)
    res = simulate(w, Cluster.mrv1(1, 3, 1), Borrowing(), slowstart=1.0, record=True)
    assert plain.jobs.finish_s[0] == 41.0
    assert res.jobs.finish_s[0] == 11.0
    red = res.attempts[res.attempts.kind == REDUCE]
    assert sorted(zip(red.r0, red.r1, strict=True)) == [(0, 1), (1, 0), (1, 0), (1, 0)]


class Speculating(FIFO):
    """FIFO that copies the job's first running map onto any node with a free map slot."""

    def bind(self, sim):
        super().bind(sim)
        self.extra_pending = 1  # a copy may come when no task is pending

    def choose(self, node):
        pick = super().choose(node)
        sim = self.sim
        if pick is None and self.extra_pending and sim.free0[node] > 0 and sim.containers(0):
            self.extra_pending = 0
            return Launch(0, MAP, None, sim.containers(0)[0])
        return pick


class SlowFirstMaps(Stragglers):
    """Every map's first attempt 8× slow; nothing else."""

    def first_factors(self, n, kind):
        return np.full(n, 8.0 if kind == MAP else 1.0)

    def draw(self, rng):
        return 1.0


def test_a_speculative_copy_finishes_the_task_and_the_original_is_killed() -> None:
    w = one_job([10.0], [2.0])
    plain = simulate(w, Cluster.mrv1(1, 2, 1), FIFO(), stragglers=SlowFirstMaps(), slowstart=1.0)
    assert plain.jobs.finish_s[0] == 82.0
    res = simulate(w, Cluster.mrv1(1, 2, 1), Speculating(), stragglers=SlowFirstMaps(),
                   slowstart=1.0, record=True)
    assert res.jobs.finish_s[0] == 12.0
    att = res.attempts[res.attempts.kind == MAP]
    assert att.completed.sum() == 1 and len(att) == 2
    assert att.loc[~att.completed, "end_s"].tolist() == [10.0]  # killed when the copy won
    assert res.meta == {"speculative_copies": 1, "copies_finished_first": 1}


def test_copying_a_waiting_reduce_is_refused() -> None:
    class CopyWaiting(FIFO):
        def choose(self, node):
            sim = self.sim
            for cid in sim.containers(0):
                if sim.container(cid)[0] == REDUCE and sim.free1[node] > 0:
                    return Launch(0, REDUCE, None, cid)
            return super().choose(node)

    w = one_job([5.0] * 2, [1.0] * 2)
    with pytest.raises(SimulationError, match="copied"):
        simulate(w, Cluster.mrv1(1, 1, 2), CopyWaiting(), slowstart=0.0)


def test_progress_of_running_attempts() -> None:
    class Watching(FIFO):
        def bind(self, sim):
            super().bind(sim)
            self.seen = []
            sim.wake_at(2.5, "look")

        def on_wake(self, tag):
            sim = self.sim
            self.seen = [sim.progress(c) for c in sim.containers(0)]

    pol = Watching()
    simulate(one_job([10.0, 5.0], []), Cluster.mrv1(1, 2, 1), pol)
    assert pol.seen == [0.25, 0.5]
