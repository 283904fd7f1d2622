"""Real Hadoop 3.4.2 job histories (tests/fixtures/hadoop-3.4.2) read as Hadoop reads them.

Each ``.jhist`` there was written by a real MRAppMaster on the mini cluster, and
``<job id>.parser.json`` beside it is what Hadoop's own JobHistoryParser read from it
(HistoryDump). ``read_jhist`` must give the same record, counters and attempt rows. These jobs
are the ones where jobsize's reader once differed from Hadoop; the named tests pin each case:

- an attempt killed before it started (the killed job's waiting reduce; elsewhere a speculative
  twin) has no row (Hadoop lists none);
- a failed reduce attempt's shuffle and sort finish are its finish time (Hadoop's rule);
- a failed or killed job's counters are the sum of all its tasks' counters, failed tasks
  included (what the history server reports; the file records no job totals);
- the reduce side of a map-only job counts 0 for a counter the job total holds.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from history_dump import ROW_COLUMNS, hadoop_counters, hadoop_record, hadoop_rows
from jobsize.collectors.jhist import collect_jhist, read_jhist

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hadoop-3.4.2"
JOBS = sorted(p.name.split(".")[0] for p in FIXTURES.glob("*.parser.json"))
TC = "org.apache.hadoop.mapreduce.TaskCounter"


def _parser(job_id: str) -> dict:
    return json.loads((FIXTURES / f"{job_id}.parser.json").read_text())


def _read(job_id: str, tmp_path: Path):
    """read_jhist of the fixture, with its configuration unpacked beside it."""
    doc = _parser(job_id)
    folder = tmp_path / job_id
    folder.mkdir()
    jhist = folder / doc["file"]
    jhist.write_bytes((FIXTURES / doc["file"]).read_bytes())
    (folder / f"{job_id}_conf.xml").write_bytes(
        gzip.decompress((FIXTURES / f"{job_id}_conf.xml.gz").read_bytes()))
    return read_jhist(jhist), doc


def _by_name(name: str) -> str:
    found = [j for j in JOBS if _parser(j)["job"]["name"] == name]
    assert len(found) == 1, (name, JOBS)
    return found[0]


def test_the_fixtures_are_there():
    names = {_parser(j)["job"]["name"] for j in JOBS}
    assert names == {"streaming map-only", "streaming combiner", "streaming reduce retried",
                     "streaming failed", "streaming killed"}


@pytest.mark.parametrize("job_id", JOBS)
def test_read_jhist_equals_job_history_parser(job_id, tmp_path):
    history, doc = _read(job_id, tmp_path)
    assert doc["parse_error"] is None
    expected = hadoop_record(doc)
    assert {k: history.record[k] for k in expected} == expected
    assert history.counters == hadoop_counters(doc)
    rows = sorted(({c: r[c] for c in ROW_COLUMNS} for r in history.tasks),
                  key=lambda r: r["attempt_id"])
    assert rows == hadoop_rows(doc)
    assert history.complete
    # the configuration was read: container sizes as the job ran
    assert history.record["map_memory_mb"] == 1024 and history.record["am_memory_mb"] == 1536


def test_an_attempt_killed_before_it_started_has_no_row(tmp_path):
    """Attempts killed before they ran (here the killed job's reduce, which was waiting for
    its maps): in the file as a kill event with finish time 0, not in Hadoop's list, not among
    the rows."""
    never = 0
    for job_id in JOBS:
        history, doc = _read(job_id, tmp_path)
        raw = (FIXTURES / doc["file"]).read_bytes()
        in_file = {m.decode() for m in re.findall(rb"attempt_\d+_\d+_[mr]_\d+_\d+", raw)}
        listed = {a["id"] for t in doc["tasks"] for a in t["attempts"]}
        ours = {r["attempt_id"] for r in history.tasks}
        assert ours == listed
        never += len(in_file - listed)
    assert never > 0


def test_a_failed_reduce_attempt_ends_its_shuffle_and_sort_when_it_ends(tmp_path):
    history, _ = _read(_by_name("streaming reduce retried"), tmp_path)
    failed = [r for r in history.tasks if r["task_type"] == "REDUCE" and r["status"] == "FAILED"]
    assert len(failed) == 1
    row = failed[0]
    assert row["shuffle_finish_time_ms"] == row["sort_finish_time_ms"] == row["finish_time_ms"]
    assert history.record["reduce_wasted_ms"] == row["finish_time_ms"] - row["start_time_ms"] > 0


def test_a_failed_jobs_counters_sum_its_failed_tasks(tmp_path):
    history, doc = _read(_by_name("streaming failed"), tmp_path)
    assert doc["job"]["counters"]["total"] is None  # the file records no job totals
    assert history.record["state"] == "FAILED"
    assert history.counters["total"] == {
        TC: {"CPU_MILLISECONDS": 0, "PHYSICAL_MEMORY_BYTES": 0, "VIRTUAL_MEMORY_BYTES": 0}}
    assert history.record["map_cpu_ms"] == 0
    assert history.record["reduce_cpu_ms"] == 0  # map-only: the reduce side counts 0
    assert history.record["map_time_ms"] == 0 and history.record["map_wasted_ms"] > 0


def test_a_killed_job(tmp_path):
    history, _ = _read(_by_name("streaming killed"), tmp_path)
    assert history.record["state"] == "KILLED"
    killed = [r for r in history.tasks if r["status"] == "KILLED"]
    assert {r["task_type"] for r in killed} == {"MAP"} and len(killed) == 2
    assert history.record["map_wasted_ms"] == sum(r["finish_time_ms"] - r["start_time_ms"]
                                                  for r in killed)
    assert history.record["map_cpu_ms"] == 0 and history.record["reduce_cpu_ms"] == 0


def test_the_reduce_side_of_a_map_only_job_counts_zero(tmp_path):
    history, doc = _read(_by_name("streaming map-only"), tmp_path)
    assert doc["job"]["counters"]["reduce"] == {}
    assert history.record["n_reduces"] == 0
    assert history.record["reduce_cpu_ms"] == 0
    assert history.record["map_cpu_ms"] == history.counters["map"][TC]["CPU_MILLISECONDS"]


def test_collect_jhist_reads_them_all(tmp_path):
    for job_id in JOBS:
        _read(job_id, tmp_path)
    trace = collect_jhist([tmp_path])
    assert sorted(trace.jobs["job_id"]) == JOBS
    assert sorted(trace.jobs["state"]) == ["FAILED", "KILLED", "SUCCEEDED", "SUCCEEDED",
                                           "SUCCEEDED"]
