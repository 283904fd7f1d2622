"""Long property runs (``pytest -m slow``): every simulation terminates and keeps the model's
invariants, for every registered YARN-model scheduler (FSPY and HFSP included) in the YARN
and, where it has one, the slot mode; every fluid policy matches the naive reference."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from fluid_reference import reference_completions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fluid_reference import cases, check
from test_sim_yarn import _policy, scenarios

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.fluid import POLICIES, completion_times
from jobsize.sim.policy import MAP, REDUCE
from jobsize.sim.predicted import ProbeCost, WithProbe
from jobsize.sim.schedulers import SCHEDULERS, make_scheduler
from jobsize.sim.size_sources import ExactSizes, LognormalSizes
from jobsize.sim.workload import from_task_lists, make_jobs

pytestmark = pytest.mark.slow

LONG = settings(max_examples=2000, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check_invariants(w, cluster, res) -> None:
    """test_sim_yarn's invariants, in plain Python for thousands of runs: no node holds more
    than it has, every task completes exactly once, a job finishes when its last container
    ends and not before its submission."""
    rows = res.attempts[["job", "kind", "task", "node", "start_s", "end_s", "completed", "r0",
                         "r1"]].to_numpy().tolist()
    cap = cluster.units.tolist()  # slot units where slots are weighted
    events: dict[int, list[tuple[float, int, int, int]]] = {}
    done: dict[tuple[int, int], list[int]] = {}
    last: dict[int, float] = {}
    first: dict[int, float] = {}
    for job, kind, task, node, start, end, completed, r0, r1 in rows:
        if r0 or r1:
            events.setdefault(node, []).extend([(start, 1, r0, r1), (end, 0, -r0, -r1)])
        if completed and kind in (MAP, REDUCE):
            done.setdefault((job, kind), []).append(task)
        last[job] = max(last.get(job, -np.inf), end)
        first[job] = min(first.get(job, np.inf), start)
    for node, evs in events.items():
        used0 = used1 = 0
        for _, _, d0, d1 in sorted(evs):  # at one instant, ends (0) before starts (1)
            used0 += d0
            used1 += d1
            assert used0 <= cap[node][0] and used1 <= cap[node][1]
    for kind, counts in ((MAP, w.n_maps.tolist()), (REDUCE, w.n_reduces.tolist())):
        for j, n in enumerate(counts):
            assert sorted(done.get((j, kind), [])) == list(range(n))
    finish, submit = res.jobs["finish_s"].tolist(), w.submit_s().tolist()
    for j in range(w.n_jobs):
        assert finish[j] >= submit[j]
        if j in last:
            assert finish[j] == pytest.approx(last[j])
            assert first[j] >= submit[j] - 1e-12


def _runs_in(name: str, cluster: Cluster) -> bool:
    w = from_task_lists("probe", make_jobs(1), [[1.0]], [[1.0]])
    try:
        simulate(w, cluster, make_scheduler(name))
    except ConfigError:
        return False
    return True


@functools.cache
def _modes(name: str) -> tuple[bool, bool]:
    """The cluster models ``name`` runs in: (YARN containers, MRv1 slots); asked when a test
    runs, not when the (usually deselected) module is collected."""
    return (_runs_in(name, Cluster.homogeneous(1, 8192, 8)),
            _runs_in(name, Cluster.mrv1(1, 1, 1)))

size_sources = st.one_of(
    st.just(ExactSizes()),
    st.builds(LognormalSizes, st.sampled_from([0.5, 2.0]), st.integers(0, 3)),
    st.builds(lambda s: WithProbe(ExactSizes(), ProbeCost(startup_s=s)),
              st.sampled_from([0.0, 1.0, 5.0])),
)


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@LONG
@given(data=st.data())
def test_every_scheduler_terminates_with_the_invariants(name: str, data) -> None:
    yarn, slot = _modes(name)
    slots = data.draw(st.booleans()) if yarn and slot else slot
    w, cluster, _, slowstart, startup, options = data.draw(scenarios(slots=slots))
    source = data.draw(size_sources)
    policy = make_scheduler(name, size_source=source)
    res = simulate(w, cluster, policy, slowstart=slowstart, am_startup_s=startup, record=True,
                   **options)
    _check_invariants(w, cluster, res)


@pytest.mark.parametrize(("name", "slots"), [
    *((name, False) for name in ("capacity2", "fair-queues", "fair+preemption", "ltyarn-tree",
                                 "dress-lend")),
    *((name, True) for name in ("mrorder-fti", "mrorder-pnj", "rasooli-idle", "dynamicmr-eager",
                                "pd-dynamicmr")),
])
@LONG
@given(data=st.data())
def test_configured_schedulers_terminate_with_the_invariants(name: str, slots: bool,
                                                             data) -> None:
    w, cluster, _, slowstart, startup, options = data.draw(scenarios(slots=slots))
    res = simulate(w, cluster, _policy(name), slowstart=slowstart, am_startup_s=startup,
                   record=True, **options)
    _check_invariants(w, cluster, res)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@LONG
@given(cases(exact=True))
def test_fluid_matches_reference_exact(policy: str, case) -> None:
    check(case, policy)


@pytest.mark.parametrize("policy", sorted(POLICIES))
@LONG
@given(cases(exact=False))
def test_fluid_matches_reference_estimates(policy: str, case) -> None:
    check(case, policy)


@st.composite
def larger(draw):
    n = draw(st.integers(8, 25))
    arrival = sorted(draw(st.floats(0, 60, allow_nan=False)) for _ in range(n))
    size = [draw(st.one_of(st.just(0.0), st.floats(0.001, 15))) for _ in range(n)]
    estimate = [s * float(np.exp(draw(st.floats(-2, 2)))) for s in size]
    return arrival, size, estimate


@pytest.mark.parametrize("policy", sorted(POLICIES))
@LONG
@given(larger())
def test_fluid_larger_cases(policy: str, case) -> None:
    arrival, size, estimate = case
    got = completion_times(arrival, size, policy, estimate)
    want = reference_completions(arrival, size, estimate, policy)
    assert np.allclose(got, want, rtol=1e-9, atol=1e-9)
