"""The collectors against Hadoop itself: every value jobsize stores is the value Hadoop reports.

Twenty-one real jobs of many shapes run once on the session's mini cluster
(:mod:`parity_jobs`). For each one:

(a) ``read_jhist`` against Hadoop's own ``JobHistoryParser`` on the same ``.jhist`` file
    (``HistoryDump``): the record's identity, times, shape, every counter (job totals, map and
    reduce sides), SE_m, SE_r and wasted time, and every attempt row;
(b) ``collect_jhs`` (the JobHistory Server's REST API) against the REST documents fetched
    directly, and against the ``.jhist`` reading;
(c) ``collect rm`` against the ResourceManager's REST cluster metrics and nodes.

No tolerance anywhere: a difference is a bug in a parser, fixed there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import requests
from history_dump import ROW_COLUMNS, dump, hadoop_counters, hadoop_record, hadoop_rows
from parity_jobs import run_jobs

pytestmark = pytest.mark.hadoop

JSON = {"Accept": "application/json"}
API = "ws/v1/history/mapreduce"


@pytest.fixture(scope="module")
def ran(hadoop_client, tmp_path_factory):
    """Every job of the plan, run once: name → HadoopJobs."""
    return run_jobs(hadoop_client, tmp_path_factory.mktemp("parity"))


@pytest.fixture(scope="module")
def jobs(ran):
    """job id → (plan name, HadoopJob)."""
    return {job.job_id: (name, job) for name, found in ran.items() for job in found}


@pytest.fixture(scope="module")
def dumps(hadoop_cluster, jobs):
    """job id → HistoryDump's JSON of its .jhist (Hadoop's JobHistoryParser)."""
    ids = sorted(jobs)
    docs = dump(hadoop_cluster, [jobs[i][1].history_path for i in ids])
    return dict(zip(ids, docs, strict=True))


@pytest.fixture(scope="module")
def histories(jobs):
    from jobsize.collectors.jhist import read_jhist

    return {i: read_jhist(job.history_path, job.conf_path) for i, (_, job) in jobs.items()}


@pytest.fixture(scope="module")
def collected(hadoop_cluster, jobs, tmp_path_factory):
    """collect_jhs over the whole history server: (records by id, rows by id)."""
    from jobsize.collectors.jhs import collect_jhs

    from jobsize.schema import read_trace, tasks_path

    out = tmp_path_factory.mktemp("jhs") / "trace.parquet"
    result = collect_jhs(hadoop_cluster.jhs_web, out, workers=4)
    assert not result.failed and not result.rejected
    trace = read_trace(out)
    tasks = pd.read_parquet(tasks_path(out))
    records = {r["job_id"]: _plain(r) for r in trace.to_dict("records")}
    rows = {i: _rows(tasks[tasks["job_id"] == i]) for i in records}
    return records, rows


def _plain(record: dict) -> dict:
    return {k: None if v is pd.NA or (isinstance(v, float) and v != v) else
            (v.item() if hasattr(v, "item") else v) for k, v in record.items()}


def _rows(frame: pd.DataFrame) -> list[dict]:
    rows = [{c: _plain(r)[c] for c in ROW_COLUMNS} for r in frame.to_dict("records")]
    return sorted(rows, key=lambda r: r["attempt_id"])


def _differences(ours: dict, theirs: dict) -> dict:
    return {k: (ours.get(k), v) for k, v in theirs.items() if ours.get(k) != v}


def _row_differences(ours: list[dict], theirs: list[dict]) -> dict:
    """attempt id → (our row, their row) where they differ or one side lacks it."""
    a = {r["attempt_id"]: r for r in ours}
    b = {r["attempt_id"]: r for r in theirs}
    return {i: (a.get(i), b.get(i)) for i in sorted(a.keys() | b.keys()) if a.get(i) != b.get(i)}


def test_the_plan_covers_the_shapes(ran, jobs, dumps):
    """≥ 20 jobs: map-only, combiner, retried attempts, failed, killed, uber, Streaming, Java."""
    assert len(jobs) >= 20
    states = [(name, job.state) for name, job in jobs.values()]
    assert sorted(s for s in states if s[1] != "SUCCEEDED") == [
        ("streaming failed", "FAILED"), ("streaming killed", "KILLED")]
    assert len(ran["grep"]) == 2  # grep runs a search job, then a sort job
    by_name = {name: dumps[i] for i, (name, _) in jobs.items()}
    assert by_name["streaming map-only"]["job"]["total_reduces"] == 0
    assert by_name["streaming uber"]["job"]["uberized"] is True
    assert by_name["wordcount uber"]["job"]["uberized"] is True
    combined = hadoop_counters(by_name["streaming combiner"])["total"]
    assert combined["org.apache.hadoop.mapreduce.TaskCounter"]["COMBINE_INPUT_RECORDS"] > 0
    for name in ("streaming map retried", "streaming reduce retried"):
        statuses = sorted(a["status"] for t in by_name[name]["tasks"] for a in t["attempts"]
                          if a["id"].endswith("_0") and t["type"] in ("MAP", "REDUCE"))
        assert "FAILED" in statuses, name
    killed = [a["status"] for t in by_name["streaming killed"]["tasks"] for a in t["attempts"]]
    assert "KILLED" in killed


def test_read_jhist_equals_job_history_parser(jobs, dumps, histories):
    """(a) Every record column and attempt row jobsize reads from a .jhist is Hadoop's."""
    problems = {}
    for job_id, doc in dumps.items():
        assert doc["parse_error"] is None, doc["parse_error"]
        history = histories[job_id]
        record_diff = _differences(history.record, hadoop_record(doc))
        ours = sorted(({c: r[c] for c in ROW_COLUMNS} for r in history.tasks),
                      key=lambda r: r["attempt_id"])
        counters_diff = {side: (history.counters.get(side), theirs)
                         for side, theirs in hadoop_counters(doc).items()
                         if history.counters.get(side) != theirs}
        rows_diff = _row_differences(ours, hadoop_rows(doc))
        if record_diff or counters_diff or rows_diff:
            problems[f"{jobs[job_id][0]} {job_id}"] = (record_diff, counters_diff, rows_diff)
    assert problems == {}


def test_collect_jhs_equals_the_rest_documents(hadoop_cluster, jobs, collected):
    """(b) collect_jhs stores what the history server's REST documents say."""
    records, rows = collected
    assert set(jobs) <= set(records)
    problems = {}
    base = f"{hadoop_cluster.jhs_web}/{API}/jobs"
    for job_id in jobs:
        job = requests.get(f"{base}/{job_id}", headers=JSON, timeout=30).json()["job"]
        expected = {
            "job_id": job["id"], "job_name": job["name"], "user": job["user"],
            "queue": job["queue"], "state": {"ERROR": "FAILED"}.get(job["state"], job["state"]),
            "uberized": job["uberized"], "submit_time_ms": job["submitTime"],
            "launch_time_ms": job["startTime"], "finish_time_ms": job["finishTime"],
            "n_maps": job["mapsTotal"], "n_reduces": job["reducesTotal"],
        }
        expected.update(_rest_counter_columns(base, job_id))
        rest_rows = _rest_rows(base, job_id)
        expected.update(_times(rest_rows))
        diff = _differences(records[job_id], expected)
        rows_diff = _row_differences(rows[job_id], rest_rows)
        if diff or rows_diff:
            problems[f"{jobs[job_id][0]} {job_id}"] = (diff, rows_diff)
    assert problems == {}


def test_collect_jhs_equals_read_jhist(jobs, collected, histories):
    """(b) The REST API and the .jhist file give one record and the same attempt rows."""
    records, rows = collected
    problems = {}
    for job_id, history in histories.items():
        ours = {k: v for k, v in records[job_id].items() if k != "source"}
        theirs = {k: v for k, v in history.record.items() if k != "source"}
        diff = _differences(ours, theirs)
        jhist_rows = sorted(({c: r[c] for c in ROW_COLUMNS} for r in history.tasks),
                            key=lambda r: r["attempt_id"])
        rows_diff = _row_differences(rows[job_id], jhist_rows)
        if diff or rows_diff:
            problems[f"{jobs[job_id][0]} {job_id}"] = (diff, rows_diff)
    assert problems == {}


def test_collect_rm_equals_cluster_metrics(hadoop_cluster):
    """(c) CR and the node table are the ResourceManager's own numbers."""
    from jobsize.collectors.rm import cluster_nodes, cluster_resources

    metrics = requests.get(f"{hadoop_cluster.rm_web}/ws/v1/cluster/metrics", headers=JSON,
                           timeout=30).json()["clusterMetrics"]
    assert cluster_resources(hadoop_cluster.rm_web) == (metrics["totalMB"],
                                                        metrics["totalVirtualCores"])
    assert metrics["totalMB"] == hadoop_cluster.nodemanagers * hadoop_cluster.nm_memory_mb
    nodes = requests.get(f"{hadoop_cluster.rm_web}/ws/v1/cluster/nodes", headers=JSON,
                         timeout=30).json()["nodes"]["node"]
    expected = sorted((n["id"], n["rack"], n["usedMemoryMB"] + n["availMemoryMB"],
                       n["usedVirtualCores"] + n["availableVirtualCores"], n["state"])
                      for n in nodes)
    frame = cluster_nodes(hadoop_cluster.rm_web)
    assert sorted(tuple(_plain(r).values()) for r in frame.to_dict("records")) == expected
    shown = subprocess.run([sys.executable, "-m", "jobsize", "collect", "rm",
                            hadoop_cluster.rm_web], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == (f"cluster resources (CR): {metrics['totalMB']} MB memory, "
                                    f"{metrics['totalVirtualCores']} vcores")


def _rest_counter_columns(base: str, job_id: str) -> dict:
    from jobsize.collectors.counter_columns import record_columns

    doc = requests.get(f"{base}/{job_id}/counters", headers=JSON, timeout=30).json()
    sides: dict = {"total": {}, "map": {}, "reduce": {}}
    for group in doc["jobCounters"].get("counterGroup") or []:
        for counter in group.get("counter") or []:
            for side, key in (("total", "totalCounterValue"), ("map", "mapCounterValue"),
                              ("reduce", "reduceCounterValue")):
                sides[side].setdefault(group["counterGroupName"], {})[counter["name"]] = \
                    counter[key]
    return record_columns(sides)


def _rest_rows(base: str, job_id: str) -> list[dict]:
    rows = []
    tasks = requests.get(f"{base}/{job_id}/tasks", headers=JSON, timeout=30).json()
    for task in (tasks["tasks"] or {}).get("task") or []:
        attempts = requests.get(f"{base}/{job_id}/tasks/{task['id']}/attempts", headers=JSON,
                                timeout=30).json()
        for a in (attempts["taskAttempts"] or {}).get("taskAttempt") or []:
            rows.append({"task_id": task["id"], "attempt_id": a["id"], "task_type": a["type"],
                         "status": a["state"], "start_time_ms": a["startTime"],
                         "finish_time_ms": a["finishTime"],
                         "shuffle_finish_time_ms": a.get("shuffleFinishTime"),
                         "sort_finish_time_ms": a.get("mergeFinishTime")})
    return sorted(rows, key=lambda r: r["attempt_id"])


def _times(rows: list[dict]) -> dict:
    out = {"map_time_ms": 0, "reduce_time_ms": 0, "map_wasted_ms": 0, "reduce_wasted_ms": 0}
    for row in rows:
        phase = "map" if row["task_type"] == "MAP" else "reduce"
        kind = "time" if row["status"] == "SUCCEEDED" else "wasted"
        out[f"{phase}_{kind}_ms"] += row["finish_time_ms"] - row["start_time_ms"]
    return out


def test_history_dump_reads_what_the_job_did(jobs, dumps):
    """HistoryDump itself: the map-only streaming job read 2 files of 200 lines each."""
    doc = next(dumps[i] for i, (name, _) in jobs.items() if name == "streaming map-only")
    total = hadoop_counters(doc)["total"]["org.apache.hadoop.mapreduce.TaskCounter"]
    assert total["MAP_INPUT_RECORDS"] == 400
    assert doc["job"]["total_maps"] == 2 and doc["job"]["status"] == "SUCCEEDED"
    assert all(t["status"] == "SUCCEEDED" for t in doc["tasks"])
    assert Path(doc["file"]).name.startswith(doc["job"]["id"])


def test_history_dump_names_a_file_it_cannot_read(hadoop_cluster, tmp_path):
    from history_dump import MAIN

    bad = tmp_path / "bad.jhist"
    bad.write_text("Avro-Json\nnot a schema\n")
    for path, reason in ((bad, "IOException: "), (tmp_path / "none.jhist",
                                                   "FileNotFoundException: ")):
        done = subprocess.run(hadoop_cluster.java_command(MAIN, "--jhist", str(path)),
                              capture_output=True, text=True, check=False,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines()[-1].startswith(f"{path}: {reason}")
