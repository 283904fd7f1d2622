"""The loop's and queues' fast paths decide exactly as the straightforward paths do.

A queue keeps a live entry whose key is still a lower bound instead of filing a new one, and
looks only at running jobs when no AM can start on the node; the straightforward path files
every touched job anew and always weighs the jobs waiting for their AM. Every attempt of a run
must be the same either way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import Simulation, simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.queues import KeyedQueue
from jobsize.sim.schedulers import Fair, FairQueueSpec, make_scheduler
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import Workload, from_task_lists, make_jobs


def _touch_always_files(self: KeyedQueue, j: int) -> None:
    sim = self.sim
    if sim.has_demand(j):
        self._push(j, self.key(j), sim.phase[j] == 1)
    else:
        self._ver.pop(j, None)


def _straightforward(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(KeyedQueue, "touch", _touch_always_files)
    monkeypatch.setattr(Simulation, "am_may_start", lambda self, node: True)


def _workload(seed: int, n: int = 60) -> Workload:
    """Jobs of 0-20 maps and 0-4 reduces arriving faster than a small cluster serves them."""
    rng = np.random.default_rng(seed)
    maps = [rng.exponential(6.0, rng.integers(0, 21)).tolist() for _ in range(n)]
    reduces = [rng.exponential(8.0, rng.integers(0, 5)).tolist() for _ in range(n)]
    tails = [[d * 0.5 for d in r] for r in reduces]
    jobs = make_jobs(n, submit_s=np.sort(rng.uniform(0, 60, n)),
                     map_mb=rng.choice([1024, 2048], n), am_mb=rng.choice([1024, 1536], n),
                     queue=rng.choice(["a", "b"], n))
    return from_task_lists("random", jobs, maps, reduces, tails)


def _attempts(name: str, cluster: str, seed: int, **options: object) -> list[pd.DataFrame]:
    w = _workload(seed)
    if name == "fair+preemption":
        policy = Fair(preemption=True, preemption_interval_s=5.0)
    elif name == "fair-queues":
        policy = Fair(queues={"a": FairQueueSpec(2.0, 2048)})
    else:
        policy = make_scheduler(name)
    res = simulate(w, Cluster.parse(cluster), policy, record=True, **options)
    assert res.attempts is not None
    return [res.attempts, res.jobs]


@pytest.mark.parametrize("name", ["fair", "drf", "fair+preemption", "fair-queues", "fifo",
                                  "capacity", "srpt", "fair+reserve", "fspy", "hfsp"])
@pytest.mark.parametrize("seed", [0, 1])
def test_fast_paths_launch_the_same_attempts(name: str, seed: int,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _attempts(name, "3x4g×4", seed, am_startup_s=2.0)
    _straightforward(monkeypatch)
    plain = _attempts(name, "3x4g×4", seed, am_startup_s=2.0)
    for a, b in zip(fast, plain, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_fast_paths_with_locality_stragglers_and_speeds(monkeypatch: pytest.MonkeyPatch) -> None:
    options = {"locality": BlockLocality(seed=1), "stragglers": Stragglers(seed=1)}
    fast = _attempts("fair", "2x4g×4@2+2x4g×4", 2, **options)
    _straightforward(monkeypatch)
    plain = _attempts("fair", "2x4g×4@2+2x4g×4", 2, **options)
    for a, b in zip(fast, plain, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_a_touched_job_keeps_a_lower_bound_entry() -> None:
    w = _workload(0, n=5)
    sim = Simulation(w, Cluster.parse("2x4g×4"), Fair())
    keys = [5.0, 3.0, 4.0, 1.0, 2.0]
    q = KeyedQueue(sim, key=keys.__getitem__)
    for j in range(5):
        sim.phase[j] = 1
        q.touch(j)
    keys[3] = 7.0  # grew: the old entry (1.0) is still a lower bound, kept
    q.touch(3)
    assert len(q._heaps[0]) == 5
    keys[3] = 0.5  # shrank below the entry: filed anew
    q.touch(3)
    assert len(q._heaps[0]) == 6
    assert q._heaps[0][0][1] == 3  # the fresh entry heads the heap
