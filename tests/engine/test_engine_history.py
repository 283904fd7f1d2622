"""The engine's .jhist and _conf.xml: well-formed, Hadoop's layout, and read back exactly."""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro
import pytest
from engine_helpers import THREE_LINES, jhist_events
from fastavro.validation import validate
from jobsize.collectors.jhist import read_conf, read_jhist

from jobsize.engine import JobSpec
from jobsize.engine.events import schema

TERAGEN = ("job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-"
           "default-1416424779349.jhist")


@pytest.fixture(scope="module")
def jobs(engine, programs, tmp_path_factory) -> dict:
    """A reduce job with a retried map, a map-only job, an uber job and a failed job."""
    root = tmp_path_factory.mktemp("history")
    text = root / "three.txt"
    text.write_bytes(THREE_LINES * 50)
    history = root / "history"
    runs = {
        "reduce": JobSpec(inputs=text, output=root / "o1", mapper=programs["fail_once_map"],
                          reducer=programs["wc_reduce"], combiner=programs["wc_reduce"],
                          n_maps=3, n_reduces=2, name="word count"),
        "map_only": JobSpec(inputs=text, output=root / "o2", mapper=programs["wc_map"],
                            n_maps=2, n_reduces=0),
        "uber": JobSpec(inputs=text, output=root / "o3", mapper=programs["wc_map"],
                        reducer=programs["wc_reduce"], n_maps=2, n_reduces=1,
                        conf={"mapreduce.job.ubertask.enable": "true"}),
    }
    results = {name: engine.run(spec, history_dir=history) for name, spec in runs.items()}
    failing = JobSpec(inputs=text, output=root / "o4", mapper=programs["fail_always_map"],
                      reducer=programs["wc_reduce"], n_maps=2, n_reduces=1)
    with pytest.raises(Exception) as caught:
        engine.run(failing, history_dir=history)
    results["failed"] = caught.value.result
    return results


def test_events_are_valid_against_the_embedded_schema(jobs):
    for result in jobs.values():
        lines = result.history_path.read_text().split("\n")
        assert lines[0] == "Avro-Json"
        embedded = json.loads(lines[1])
        parsed = fastavro.parse_schema(embedded)
        body = "\n".join(line for line in lines[2:] if line.strip())
        decoded = list(fastavro.json_reader(io.StringIO(body), embedded))
        assert len(decoded) == len(jhist_events(result.history_path)) > 5
        for event in decoded:
            assert validate(event, parsed, raise_errors=True)


def test_the_schema_is_hadoop_26s(shared):
    # the embedded schema of a real Hadoop 2.6 history file
    real = (shared / "hadoop" / "jhist" / TERAGEN).read_text().split("\n")[1]
    assert schema() == json.loads(real)


def test_event_sequence(jobs):
    types = [e["type"] for e in jhist_events(jobs["map_only"].history_path)]
    assert types[:6] == ["AM_STARTED", "JOB_SUBMITTED", "JOB_QUEUE_CHANGED", "JOB_INITED",
                         "JOB_INFO_CHANGED", "TASK_STARTED"]
    assert types[-1] == "JOB_FINISHED"
    assert types.count("MAP_ATTEMPT_FINISHED") == types.count("TASK_FINISHED") == 2
    assert "REDUCE_ATTEMPT_STARTED" not in types
    inited = next(e for e in jhist_events(jobs["uber"].history_path)
                  if e["type"] == "JOB_INITED")
    assert inited["event"]["org.apache.hadoop.mapreduce.jobhistory.JobInited"]["uberized"]


@pytest.mark.parametrize("name", ["reduce", "map_only", "uber", "failed"])
def test_round_trip_through_the_collector(jobs, name):
    result = jobs[name]
    history = read_jhist(result.history_path)
    assert history.complete
    own = result.record()
    assert own["job_id"].startswith("job_") and own["state"] in ("SUCCEEDED", "FAILED")
    for column, value in own.items():
        if name == "failed" and column not in ("job_id", "state", "n_maps", "n_reduces",
                                               "submit_time_ms", "finish_time_ms",
                                               "map_wasted_ms", "map_memory_mb"):
            continue  # a failed job's history has no counter totals
        assert history.record[column] == value, column
    if name != "failed":
        for side in ("total", "map", "reduce"):
            assert history.counters[side] == result.counters[side], side
    rows = {(t["attempt_id"], t["status"], t["start_time_ms"], t["finish_time_ms"])
            for t in history.tasks}
    mine = {(a.attempt_id, "SUCCEEDED" if a.ok else "FAILED", a.start_ms, a.finish_ms)
            for a in result.attempts}
    assert rows == mine


def test_reduce_phase_times_are_ordered(jobs):
    history = read_jhist(jobs["reduce"].history_path)
    reduces = [t for t in history.tasks if t["task_type"] == "REDUCE"]
    assert len(reduces) == 2
    for t in reduces:
        assert (t["start_time_ms"] <= t["shuffle_finish_time_ms"] <= t["sort_finish_time_ms"]
                <= t["finish_time_ms"])
    maps_done = max(t["finish_time_ms"] for t in history.tasks
                    if t["task_type"] == "MAP" and t["status"] == "SUCCEEDED")
    assert all(t["start_time_ms"] >= maps_done for t in reduces)


def test_conf_xml(jobs):
    result = jobs["reduce"]
    conf = read_conf(result.conf_path)
    assert conf["mapreduce.job.maps"] == "3"
    assert conf["mapreduce.job.reduces"] == "2"
    assert conf["mapreduce.map.memory.mb"] == "1024"
    assert conf["mapreduce.map.maxattempts"] == "4"
    assert conf["mapreduce.job.ubertask.enable"] == "false"
    assert conf["mapreduce.job.name"] == "word count"
    assert conf["stream.combine.streamprocessor"].endswith("wc_reduce.py")
    assert conf["mapreduce.output.fileoutputformat.outputdir"] == (
        f"file:{Path(result.output_dir).resolve()}")
    assert read_conf(jobs["uber"].conf_path)["mapreduce.job.ubertask.enable"] == "true"


def test_conf_reports_what_the_engine_used(engine, programs, tmp_path):
    text = tmp_path / "t.txt"
    text.write_bytes(THREE_LINES)
    result = engine.run(JobSpec(inputs=text, output=tmp_path / "out", mapper=programs["cat"],
                                n_maps=2, n_reduces=0,
                                conf={"mapreduce.job.maps": "7", "my.own.key": "x",
                                      "mapreduce.job.reduce.slowstart.completedmaps": "0.05"}),
                        history_dir=tmp_path / "h")
    conf = read_conf(result.conf_path)
    assert conf["mapreduce.job.maps"] == "2"  # the splits decide, as in Hadoop
    assert conf["mapreduce.job.reduce.slowstart.completedmaps"] == "1.0"
    assert conf["my.own.key"] == "x"
