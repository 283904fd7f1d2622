"""Failed attempts are retried like Hadoop's, kept in the history, and fail the job at the end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from engine_helpers import THREE_LINES, event_body, jhist_events

from jobsize.engine import JobSpec, LocalEngine
from jobsize.engine import counters as C
from jobsize.errors import ConfigError, InputError, JobFailedError


@pytest.fixture
def three_lines(tmp_path: Path) -> Path:
    path = tmp_path / "three.txt"
    path.write_bytes(THREE_LINES)
    return path


def _types(history: Path) -> list[str]:
    return [e["type"] for e in jhist_events(history)]


def test_a_mapper_that_fails_once_succeeds_on_retry(engine, programs, three_lines, tmp_path):
    result = engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out",
                                mapper=programs["fail_once_map"], reducer=programs["wc_reduce"],
                                n_maps=2, n_reduces=1), history_dir=tmp_path / "history")
    assert result.state == "SUCCEEDED"
    events = jhist_events(result.history_path)
    failed = [event_body(e) for e in events if e["type"] == "MAP_ATTEMPT_FAILED"]
    finished = [event_body(e) for e in events if e["type"] == "MAP_ATTEMPT_FINISHED"]
    assert sorted(f["attemptId"][-2:] for f in failed) == ["_0", "_0"]
    assert sorted(f["attemptId"][-2:] for f in finished) == ["_1", "_1"]
    assert all("first attempt: deliberate failure" in f["error"] for f in failed)
    assert all(f["status"] == "FAILED" for f in failed)
    tasks_finished = [event_body(e) for e in events if e["type"] == "TASK_FINISHED"]
    assert {t["successfulAttemptId"]["string"][-2:] for t in tasks_finished} == {"_1", "_0"}
    assert _types(result.history_path)[-1] == "JOB_FINISHED"
    job = result.counters["total"][C.JOB]
    assert job["TOTAL_LAUNCHED_MAPS"] == 4 and job["NUM_FAILED_MAPS"] == 2
    assert job["MILLIS_MAPS"] == result.map_time_ms + result.map_wasted_ms
    counts = dict(line.split("\t") for line in result.outputs[0].read_text().splitlines())
    assert counts["the"] == "3"
    assert result.counters["total"][C.TASK]["MAP_INPUT_RECORDS"] == 3  # the retries' only


def test_a_mapper_that_always_fails_fails_the_job_with_its_stderr(engine, programs, three_lines,
                                                                  tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out",
                   mapper=programs["fail_always_map"], reducer=programs["wc_reduce"],
                   n_maps=1, n_reduces=1)
    with pytest.raises(JobFailedError) as caught:
        engine.run(spec, history_dir=tmp_path / "history")
    error = caught.value
    assert "boom: the mapper cannot go on" in str(error)
    assert "exited with code 7" in str(error)
    assert "\n" not in str(error)
    assert "some warning\nboom: the mapper cannot go on" in error.stderr
    result = error.result
    assert result.state == "FAILED"
    types = _types(result.history_path)
    assert types.count("MAP_ATTEMPT_FAILED") == 4  # mapreduce.map.maxattempts
    assert types[-1] == "JOB_FAILED"
    failures = [event_body(e) for e in jhist_events(result.history_path)
                if e["type"] == "TASK_FAILED"]
    assert [(f["taskType"], f["status"]) for f in failures] == [("MAP", "FAILED"),
                                                                ("REDUCE", "KILLED")]
    assert failures[0]["failedDueToAttempt"]["string"].endswith("_m_000000_3")
    assert not list((tmp_path / "out").glob("part-*"))
    assert not (tmp_path / "out" / "_SUCCESS").exists()


def test_a_reduce_that_fails_once_is_retried(engine, programs, three_lines, tmp_path):
    result = engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out",
                                mapper=programs["wc_map"], reducer=programs["fail_reduce_once"],
                                n_maps=1, n_reduces=1), history_dir=tmp_path / "history")
    types = _types(result.history_path)
    assert types.count("REDUCE_ATTEMPT_FAILED") == 1
    assert types.count("REDUCE_ATTEMPT_FINISHED") == 1
    assert result.counters["total"][C.JOB]["NUM_FAILED_REDUCES"] == 1
    assert len(result.outputs[0].read_text().splitlines()) == 12


def _boom(line: str):
    raise ValueError(f"cannot map {line!r}")


def test_a_failing_callable_reports_its_traceback(engine, three_lines, tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out", mapper=_boom, n_reduces=0,
                   max_map_attempts=2)
    with pytest.raises(JobFailedError, match="map function raised ValueError") as caught:
        engine.run(spec)
    assert "Traceback" in caught.value.stderr
    assert caught.value.result.counters["total"][C.JOB]["NUM_FAILED_MAPS"] == 2


def test_bad_inputs_are_reported_before_running(engine, programs, three_lines, tmp_path):
    with pytest.raises(InputError, match="input path does not exist"):
        engine.run(JobSpec(inputs=tmp_path / "missing", output=tmp_path / "out",
                           mapper=programs["cat"]))
    (tmp_path / "taken").mkdir()
    with pytest.raises(InputError, match="output directory already exists"):
        engine.run(JobSpec(inputs=three_lines, output=tmp_path / "taken",
                           mapper=programs["cat"]))
    with pytest.raises(JobFailedError, match="cannot run"):
        engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out2",
                           mapper="/no/such/program", max_map_attempts=1))
    with pytest.raises(InputError, match="cannot create the history directory"):
        engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out3",
                           mapper=programs["cat"]), history_dir=three_lines / "history")
    assert not (tmp_path / "out3").exists()  # refused before anything ran
    with pytest.raises(InputError, match="cannot create the output directory"):
        engine.run(JobSpec(inputs=three_lines, output=three_lines / "out",
                           mapper=programs["cat"]))


def _die_once(line: str):
    marker = Path(line.strip())
    if not marker.exists():
        marker.touch()
        os._exit(1)  # the worker process dies mid-task
    yield "ok", 1


def test_a_worker_that_dies_is_a_failed_attempt_and_the_pool_recovers(tmp_path):
    text = tmp_path / "marker.txt"
    text.write_text(f"{tmp_path / 'died'}\n")
    with LocalEngine(1) as engine:
        result = engine.run(JobSpec(inputs=text, output=tmp_path / "out", mapper=_die_once,
                                    n_reduces=0))
        assert result.state == "SUCCEEDED"
        assert [a.ok for a in result.attempts] == [False, True]
        assert "worker process died" in result.attempts[0].error
        again = engine.run(JobSpec(inputs=text, output=tmp_path / "out2", mapper=_die_once,
                                   n_reduces=0))
        assert [a.ok for a in again.attempts] == [True]


def test_a_lambda_cannot_go_to_the_pool(engine, three_lines, tmp_path):
    with pytest.raises(ConfigError, match="module-level function"):
        engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out",
                           mapper=lambda line: [(line, 1)], n_reduces=0))
    # in uber mode it runs in this process, where any callable will do
    result = engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out2",
                                mapper=lambda line: [(line, 1)], n_reduces=0), uber=True)
    assert result.uberized and result.counters["total"][C.TASK]["MAP_OUTPUT_RECORDS"] == 3
