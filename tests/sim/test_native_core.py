"""The compiled core runs FIFO and Fair exactly as the Python loop does.

Every job's start and finish, and the number of events, must be the same whichever of the two
ran: on random workloads (uber jobs, several container shapes, AM start-ups, the max AM share,
any slow-start), where the core stops for the Python loop's reduce preemption, and where the
loop raises. Policies whose decisions the core does not know keep the Python loop.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jobsize.errors import ConfigError, SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.policy import Policy
from jobsize.sim.schedulers import FIFO, Fair, FairQueueSpec, make_scheduler
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import Workload, from_task_lists, make_jobs


def _workload(seed: int, n: int, uber_share: float, shapes: int) -> Workload:
    """Jobs of 0-12 maps and 0-4 reduces, some uber, arriving faster than they are served;
    with ``shapes`` > 1, containers of several sizes in memory and in vcores."""
    rng = np.random.default_rng(seed)
    maps = [rng.exponential(5.0, rng.integers(0, 13)).round(1).tolist() for _ in range(n)]
    reduces = [rng.exponential(6.0, rng.integers(0, 5)).round(1).tolist() for _ in range(n)]
    tails = [[round(d * 0.4, 1) for d in r] for r in reduces]
    vcores = [1, 2, 3][:shapes]
    jobs = make_jobs(n, submit_s=np.sort(rng.uniform(0, 30, n).round(0)),
                     map_mb=rng.choice([1024, 2048, 1536][:shapes], n),
                     reduce_mb=rng.choice([1024, 3072][:shapes], n),
                     am_mb=rng.choice([1024, 1536][:shapes], n),
                     map_vcores=rng.choice(vcores, n), reduce_vcores=rng.choice(vcores, n),
                     am_vcores=rng.choice(vcores[:2], n))
    jobs["uber"] = rng.random(n) < uber_share
    return from_task_lists("random", jobs, maps, reduces, tails)


def _both(w: Workload, cluster: Cluster, policy: type[Policy], **options: object):
    runs = []
    for native in (True, False):
        try:
            runs.append(simulate(w, cluster, policy(), native=native, **options))
        except SimulationError as e:
            runs.append(str(e))
    return runs


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40),
       uber_share=st.sampled_from([0.0, 0.3]), shapes=st.integers(1, 3),
       cluster=st.sampled_from(["1x4g×4", "2x4g×4", "3x8g×8", "1x4g×4+2x8g×2"]),
       policy=st.sampled_from([FIFO, Fair]),
       slowstart=st.sampled_from([0.0, 0.05, 0.5, 1.0]),
       am_startup_s=st.sampled_from([0.0, 1.5]), per_am=st.sampled_from([0.0, 0.5]),
       max_am_share=st.sampled_from([0.1, 0.5, 1.0]))
@example(seed=0, n=30, uber_share=0.3, shapes=3, cluster="2x4g×4", policy=Fair, slowstart=0.0,
         am_startup_s=1.5, per_am=0.5, max_am_share=0.5)
def test_the_compiled_core_runs_as_the_loop(seed: int, n: int, uber_share: float, shapes: int,
                                            cluster: str, policy: type[Policy],
                                            slowstart: float, am_startup_s: float,
                                            per_am: float, max_am_share: float) -> None:
    w = _workload(seed, n, uber_share, shapes)
    compiled, loop = _both(w, Cluster.parse(cluster), policy, slowstart=slowstart,
                           am_startup_s=am_startup_s, am_startup_per_am_s=per_am,
                           max_am_share=max_am_share)
    if isinstance(loop, str):
        assert compiled == loop
        return
    assert not isinstance(compiled, str)
    pd.testing.assert_frame_equal(compiled.jobs, loop.jobs)
    assert compiled.events == loop.events
    assert "core" not in loop.meta


def test_the_core_runs_fifo_and_fair() -> None:
    # the equality above would hold vacuously if the core always handed back to the loop
    w = _workload(3, 60, 0.2, 2)
    for policy in (FIFO(), Fair()):
        res = simulate(w, Cluster.parse("3x8g×8"), policy, am_startup_s=1.0)
        assert res.meta.get("core") == "compiled"
        assert res.jobs.finish_s.notna().all()


def test_reduce_preemption_is_the_loops() -> None:
    # slow-start 0 lets job 6's reduces take the room its 1.5 GB map needs (as in
    # test_sim_yarn): the core hands the run to the loop, which kills a waiting reduce
    jobs = make_jobs(7, am_mb=1024, map_mb=np.array([1024] * 6 + [1536]))
    w = from_task_lists("reduce-deadlock", jobs, [[], [0.0, 0.0, 1.0], [], [], [], [0.0], [0.0]],
                        [[], [], [], [], [], [], [0.0, 0.0, 0.0]])
    compiled, loop = _both(w, Cluster.homogeneous(2, 3072, 3), FIFO, slowstart=0.0)
    assert "core" not in compiled.meta
    pd.testing.assert_frame_equal(compiled.jobs, loop.jobs)


def test_a_nan_reduce_tail_ends_as_in_the_loop() -> None:
    # the loop's max(own end, last map + tail) keeps the own end when the tail is NaN; the
    # core once pushed a NaN time and never finished
    w = from_task_lists("nan-tail", make_jobs(1), [[10.0]], [[5.0]], [[math.nan]])
    compiled, loop = _both(w, Cluster.parse("1x8g×8"), FIFO, slowstart=0.0)
    assert compiled.meta.get("core") == "compiled"
    pd.testing.assert_frame_equal(compiled.jobs, loop.jobs)
    assert compiled.jobs.finish_s.tolist() == [10.0]


def test_a_nan_am_start_up_is_refused() -> None:
    with pytest.raises(ConfigError, match="not a non-negative number"):
        simulate(_workload(1, 3, 0.0, 1), Cluster.parse("1x4g×4"), FIFO(), am_startup_s=math.nan)


@pytest.mark.parametrize(("policy", "queues", "options"), [
    (Fair(resource="drf"), 1, {}),
    (Fair(preemption=True), 1, {}),
    (Fair(queues={"a": FairQueueSpec(2.0, 2048)}), 2, {}),
    (Fair(), 1, {"weight": 2.0}),
    (make_scheduler("srpt"), 1, {}), (make_scheduler("capacity"), 2, {}),
    (make_scheduler("fair+reserve"), 1, {}),
    (Fair(), 1, {"record": True}), (FIFO(), 1, {"record": True}),
    (FIFO(), 1, {"locality": BlockLocality(seed=1)}),
    (Fair(), 1, {"stragglers": Stragglers(seed=1)}),
    (FIFO(), 1, {"cluster": "1x4g×4@2+1x4g×4"}),
    (FIFO(), 1, {"cluster": "slots"}), (Fair(), 1, {"cluster": "slots"}),
], ids=["drf", "preemption", "queues", "weights", "srpt", "capacity", "reserve", "record-fair",
        "record-fifo", "locality", "stragglers", "speeds", "slots-fifo", "slots-fair"])
def test_what_the_core_does_not_know_keeps_the_loop(policy: Policy, queues: int,
                                                    options: dict[str, object]) -> None:
    w = _workload(1, 20, 0.0, 1)
    if queues > 1:
        w.jobs["queue"] = np.where(np.arange(20) % 2, "a", "b")
    if "weight" in options:
        w.jobs["weight"] = options.pop("weight")
    spec = options.pop("cluster", "2x4g×4")
    cluster = Cluster.mrv1(2, 2, 2) if spec == "slots" else Cluster.parse(str(spec))
    res = simulate(w, cluster, policy, **options)
    assert "core" not in res.meta
    assert res.jobs.finish_s.notna().all()


def test_a_subclass_of_fifo_keeps_the_loop() -> None:
    class Reversed(FIFO):
        def choose(self, node: int) -> tuple[int, int] | None:
            return super().choose(node)

    res = simulate(_workload(2, 10, 0.0, 1), Cluster.parse("1x4g×4"), Reversed())
    assert "core" not in res.meta
