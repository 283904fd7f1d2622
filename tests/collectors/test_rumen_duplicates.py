"""A Rumen trace holding one job twice: kept once when the copies agree, refused when not."""

from __future__ import annotations

import json
import warnings

import pytest
from jobsize.collectors.rumen import parse_rumen, read_rumen

from jobsize.errors import JobsizeWarning, ParseError


def _wordcount(shared) -> bytes:
    return (shared / "hadoop" / "rumen" / "wordcount.json").read_bytes()


def test_identical_copies_are_kept_once_with_a_warning(shared, tmp_path):
    data = _wordcount(shared)
    once, once_tasks = parse_rumen(data, source="once.json")
    path = tmp_path / "twice.json"
    path.write_bytes(data + b"\n" + data)
    lines = data.count(b"\n") + 1
    with pytest.warns(JobsizeWarning) as caught:
        jobs, tasks = read_rumen(path)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"{path}: line {lines + 1}: job job_201009241532_0001 appears again, identical to "
        "line 1; kept once")
    assert list(jobs["job_id"]) == ["job_201009241532_0001"]
    assert jobs.equals(once) and tasks.equals(once_tasks)
    assert len(tasks) == 4


def test_a_copy_written_differently_but_reading_the_same_is_identical(shared):
    """Key order and a field the record does not keep do not make copies conflict."""
    job = json.loads(_wordcount(shared))
    again = dict(reversed(list(job.items())))
    again["clusterMapMB"] = 4096  # not a record column
    with pytest.warns(JobsizeWarning, match="kept once"):
        jobs, _ = parse_rumen(json.dumps(job).encode() + b"\n" + json.dumps(again).encode())
    assert len(jobs) == 1


def test_conflicting_copies_are_one_line_error(shared):
    job = json.loads(_wordcount(shared))
    other = json.loads(json.dumps(job))
    other["finishTime"] += 1000
    data = (json.dumps(job) + "\n" + json.dumps(other)).encode()
    with pytest.raises(ParseError) as raised, warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_rumen(data, source="trace.json")
    message = str(raised.value)
    assert "\n" not in message
    assert message == (
        "trace.json: line 2: job job_201009241532_0001 appears twice and the copies differ: "
        "finish_time_ms 1285322675837 then 1285322676837 (first at line 1)")


def test_conflicting_attempts_are_named(shared):
    job = json.loads(_wordcount(shared))
    other = json.loads(json.dumps(job))
    attempt = other["mapTasks"][1]["attempts"][0]
    attempt["finishTime"] += 5
    with pytest.raises(ParseError, match=rf"attempt {attempt['attemptID']}: finish_time_ms "
                                         r"\d+ then \d+ \(first at line 1\)$"):
        parse_rumen((json.dumps(job) + "\n" + json.dumps(other)).encode(), source="t.json")
    other = json.loads(json.dumps(job))
    dropped = other["reduceTasks"][0]["attempts"].pop()
    with pytest.raises(ParseError, match=f"attempt {dropped['attemptID']} is in the first "
                                         "copy only"):
        parse_rumen((json.dumps(job) + "\n" + json.dumps(other)).encode(), source="t.json")


def test_two_minimal_jobs_with_one_id_twice():
    """Without the shared file: a minimal trace, two jobs, the first repeated."""
    a = {"jobID": "job_1_0001", "outcome": "SUCCESS", "totalMaps": 0, "totalReduces": 0,
         "mapTasks": [], "reduceTasks": []}
    b = {**a, "jobID": "job_1_0002"}
    data = "\n".join(json.dumps(j) for j in (a, b, a)).encode()
    with pytest.warns(JobsizeWarning, match="line 3: job job_1_0001 appears again"):
        jobs, _ = parse_rumen(data, source="mini.json")
    assert list(jobs["job_id"]) == ["job_1_0001", "job_1_0002"]
    c = {**a, "outcome": "KILLED"}
    data = "\n".join(json.dumps(j) for j in (a, b, c)).encode()
    with pytest.raises(ParseError) as raised:
        parse_rumen(data, source="mini.json")
    assert str(raised.value) == ("mini.json: line 3: job job_1_0001 appears twice and the copies "
                                 "differ: state 'SUCCEEDED' then 'KILLED' (first at line 1)")
