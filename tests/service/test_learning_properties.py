"""Random sequences of observations, retries, corrupted jobs, operator decisions, compactions and
restarts: the live model is always the model file having learned each accepted job exactly once,
in journal order, and a restart rebuilds exactly it."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from service_helpers import as_jobs, expected, fit_model, reference, same, usable

import jobsize
from jobsize.service.model_state import ModelState

_FRAME = reference()
_DIR = Path(tempfile.mkdtemp(prefix="jobsize-learning-"))
_MODEL = fit_model(_DIR / "m.json", _FRAME.iloc[:200])
_JOBS = usable(jobsize.SizePredictor.load(_MODEL), as_jobs(_FRAME.iloc[200:]))[:12]
_PROBE = _JOBS[-1]


def _bad(job: dict) -> dict:
    bad = {k: v for k, v in job.items() if k not in ("submit_time_ms", "launch_time_ms",
                                                     "finish_time_ms")}
    return {**bad, "job_id": job["job_id"] + "_bad", "map_time_ms": job["map_time_ms"] * 1000}


_STEP = st.one_of(
    st.tuples(st.just("observe"), st.integers(0, len(_JOBS) - 2)),
    st.tuples(st.just("corrupt"), st.integers(0, len(_JOBS) - 2)),
    st.tuples(st.just("accept"), st.integers(0, len(_JOBS) - 2)),
    st.tuples(st.just("drop"), st.integers(0, len(_JOBS) - 2)),
    st.tuples(st.just("compact"), st.just(0)),
    st.tuples(st.just("restart"), st.just(0)),
)


def _check(steps: list[tuple[str, int]], tmp: Path) -> None:
    journal = tmp / "j"
    state = ModelState(_MODEL, journal)
    state.compact_every = 4
    learned: list[dict] = []  # what the model must have learned, in order
    held: dict[str, dict] = {}
    seen: set[str] = set()
    polluted = 0  # corrupted jobs the operator had the model learn

    async def step(op: str, i: int) -> None:
        nonlocal state, polluted
        job = _JOBS[i] if op == "observe" else _bad(_JOBS[i])
        key = job["job_id"]
        if op in ("observe", "corrupt"):
            answer = await state.observe(job)
            assert answer.duplicate == (key in seen)
            if key not in seen:
                seen.add(key)
                if op == "observe" or polluted < 2:
                    # a model the operator made learn two jobs 1000× too long has learnt to
                    # expect such jobs, and may pass the next one
                    assert bool(answer.held) == (op == "corrupt")
                (held.__setitem__(key, job) if answer.held else learned.append(job))
        elif op in ("accept", "drop"):
            if key not in held:
                with pytest.raises(KeyError):
                    await (state.accept(key) if op == "accept" else state.drop(key))
                return
            await (state.accept(key) if op == "accept" else state.drop(key))
            job = held.pop(key)
            if op == "accept":
                learned.append(job)
                polluted += 1
        elif op == "compact":
            await state.compact()
        else:
            state.close()
            state = ModelState(_MODEL, journal)
            state.compact_every = 4

    async def run() -> None:
        for op, i in steps:
            await step(op, i)
            while state._compacting:
                await asyncio.sleep(0.001)
    asyncio.run(run())
    state.close()
    direct = jobsize.SizePredictor.load(_MODEL)
    for job in learned:
        direct.observe(job)
    assert state.observed == len(learned)
    assert sorted(h["key"] for h in state.held_list()) == sorted(held)
    assert same(expected(state.live, _PROBE), expected(direct, _PROBE), rel=1e-9)
    restarted = ModelState(_MODEL, journal)
    restarted.close()
    assert restarted.observed == len(learned)
    assert same(expected(restarted.live, _PROBE), expected(direct, _PROBE), rel=1e-9)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEP, max_size=25))
def test_each_accepted_job_is_learned_once_through_restarts_and_compactions(steps):
    with tempfile.TemporaryDirectory() as tmp:
        _check(steps, Path(tmp))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEP, max_size=60))
@example([("corrupt", 9), ("corrupt", 7), ("accept", 7), ("accept", 9), ("corrupt", 5)])
def test_each_accepted_job_is_learned_once_through_restarts_and_compactions_slow(steps):
    with tempfile.TemporaryDirectory() as tmp:
        _check(steps, Path(tmp))
