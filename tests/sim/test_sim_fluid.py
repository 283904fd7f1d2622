"""The fluid model: a worked case of four jobs under every policy, and work conservation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.errors import ConfigError, SimulationError
from jobsize.sim.fluid import POLICIES, completion_times, make_policy, simulate_fluid

ARRIVAL = [0, 1, 2, 10]
SIZE = [10, 12, 5, 2]
ESTIMATE = [15, 4, 7, 3]

VECTOR = {
    "fifo": [10, 22, 27, 29],
    "ps": [26, 29, 19, 18],
    "srpt": [29, 13, 20, 15],
    "fsp": [29, 13, 20, 15],
    "fsp+ps": [29, 13, 20, 15],
    "srpt+ps": [29, 21, 19, 14],
    "las": [27, 29, 17, 12],
}


@pytest.mark.parametrize("policy", sorted(VECTOR))
def test_design_test_vector(policy: str) -> None:
    got = completion_times(ARRIVAL, SIZE, policy, ESTIMATE)
    assert got == pytest.approx(VECTOR[policy], abs=1e-9)


def test_estimates_steer_size_based_policies() -> None:
    # with exact estimates SRPT serves job 3 (size 5) before job 2 (size 12)
    exact = completion_times(ARRIVAL, SIZE, "srpt")
    assert exact[2] < exact[1]
    assert completion_times(ARRIVAL, SIZE, "srpt", ESTIMATE)[1] == pytest.approx(13)


def test_unknown_policy_and_bad_sizes() -> None:
    with pytest.raises(ConfigError, match="unknown fluid policy"):
        make_policy("nope")
    with pytest.raises(SimulationError):
        simulate_fluid([0, 1], [1, -1], "ps")


def _busy_period_ends(arrival: list[float], size: list[float]) -> list[float]:
    """Times the single-server system empties, from the workload alone."""
    ends, t = [], None
    for a, s in sorted(zip(arrival, size, strict=True)):
        if t is not None and a > t + 1e-9:
            ends.append(t)
            t = None
        t = (a if t is None else t) + s
    if t is not None:
        ends.append(t)
    return ends


workloads = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 50, allow_nan=False), min_size=n, max_size=n),
    st.lists(st.floats(0.01, 20, allow_nan=False), min_size=n, max_size=n),
    st.lists(st.floats(0.01, 40, allow_nan=False), min_size=n, max_size=n),
))


@settings(max_examples=150, deadline=None)
@given(workloads, st.sampled_from(sorted(POLICIES)))
def test_work_conservation(data: tuple[list[float], list[float], list[float]],
                           policy: str) -> None:
    arrival, size, estimate = data
    pol = make_policy(policy)
    assert pol.work_conserving
    res = simulate_fluid(arrival, size, pol, estimate, trace=True)
    # the server runs at full rate whenever a job is present
    for start, end, rate, present, _ in res.trace:
        if end > start:
            assert present > 0
            assert rate == pytest.approx(1.0, abs=1e-9)
    # unfinished work falls at rate 1 between arrivals: the system empties exactly when
    # the workload says it must, whatever the order of service
    done = res.completion.tolist()
    ends = _busy_period_ends(arrival, size)
    assert max(done) == pytest.approx(ends[-1], rel=1e-9, abs=1e-7)
    for e in ends:
        assert any(abs(d - e) <= 1e-7 * max(1, e) for d in done)
    for a, s, d in zip(arrival, size, done, strict=True):
        assert d >= a + s - 1e-7
