"""Drawn kinds as Java jobs on the mini cluster: ``org.jobsize.hadoop.CostShape`` run by Hadoop
Streaming in the task's JVM, against its Streaming twin, and probed as a real uber job."""

from __future__ import annotations

import json
import shlex

import pytest
from jobsize.collectors.jhist import read_jhist

from jobsize.cli import main
from jobsize.workloads import GENERATORS
from jobsize.workloads.kindspace import KindPoint

pytestmark = pytest.mark.hadoop

#: A framework-bound map, a combiner and a reduce: no hashing, so its Java and Streaming jobs
#: must write the same records. Costs in units of work; start-up on every task.
FRAMEWORK = dict(seed=0, index=0, input="text", map_only=False, combiner=True, framework=True,
                 piece=5, alphabet=6, start=60_000.0, combine_rec=0.5, reduce_rec=2.0,
                 reduce_key=10.0, max_reduces=2)
#: An expanding, skewed map with a superlinear reduce.
KEYED = dict(seed=0, index=1, input="text", map_only=False, combiner=False, framework=False,
             map_rec=3.0, map_byte=0.05, map_key=50.0, fan=2.5, keys=500, zipf=1.2,
             value_bytes=12, reduce_rec=1.0, superlinear=0.2, power=1.5, salt=7, max_reduces=2)


@pytest.fixture(scope="module")
def text(tmp_path_factory):
    where = tmp_path_factory.mktemp("java-kinds") / "text"
    where.mkdir()
    GENERATORS["text"](where, 1_500_000, 5)
    return where


def _run(client, kind, text, output, n_reduces=2):
    w = kind.workload()
    job = client.streaming(
        inputs=[str(text)], output=str(output), mapper=shlex.join(w.mapper),
        reducer=shlex.join(w.reducer), combiner=w.combiner and shlex.join(w.combiner),
        n_reduces=n_reduces, name=w.name,
        conf={"mapreduce.job.maps": "1", "fs.local.block.size": str(512 * 1024),
              "dfs.blocksize": str(512 * 1024)})
    assert job.state == "SUCCEEDED", job.history_path
    return read_jhist(job.history_path, job.conf_path)


def _counts(output):
    """The reduce output: key → count."""
    out = {}
    for part in sorted(output.glob("part-*")):
        for line in part.read_text().splitlines():
            key, _, count = line.partition("\t")
            out[key] = int(count)
    return out


def test_a_java_kind_writes_what_its_streaming_twin_writes(hadoop_client, text, tmp_path):
    java = _run(hadoop_client, KindPoint(**FRAMEWORK, language="java"), text,
                tmp_path / "java")
    python = _run(hadoop_client, KindPoint(**FRAMEWORK), text, tmp_path / "python")
    # the map ran in the task's JVM: the class itself, no pipe to a process
    assert java.conf["mapred.mapper.class"] == "org.jobsize.hadoop.CostShape$Map"
    assert "stream.map.streamprocessor" not in java.conf
    assert java.record["n_maps"] == python.record["n_maps"] == 3
    for column in ("map_input_records", "map_output_records", "reduce_input_groups"):
        assert java.record[column] == python.record[column] > 0, column
    assert _counts(tmp_path / "java") == _counts(tmp_path / "python")


def test_a_java_kind_reports_its_function_times(hadoop_client, text, tmp_path):
    history = _run(hadoop_client, KindPoint(**KEYED, language="java"), text, tmp_path / "out")
    r = history.record
    # the timing wrapper's counters, reported by the classes themselves
    assert r["map_function_ms"] > 0 and r["reduce_function_ms"] > 0
    assert 0 <= r["map_function_startup_ms"] <= r["map_function_ms"]
    # the reduce writes each key with how many records the maps emitted with it
    counts = _counts(tmp_path / "out")
    assert sum(counts.values()) == r["map_output_records"]
    assert len(counts) == r["reduce_input_groups"] <= KEYED["keys"]
    # fan-out 2.5: two or three records per input record
    assert 2 * r["map_input_records"] <= r["map_output_records"] <= 3 * r["map_input_records"]


def test_a_java_kind_is_probed_as_a_real_uber_job(hadoop_cluster, text, capsys):
    w = KindPoint(**FRAMEWORK, language="java").workload()
    argv = ["probe", "--input", str(text), "--mapper", shlex.join(w.mapper),
            "--combiner", shlex.join(w.combiner), "--reducer", shlex.join(w.reducer),
            "--maps", "3", "--reduces", "2", "--seed", "3", "--hadoop",
            "--cluster", hadoop_cluster.directory]
    assert main(argv) == 0, capsys.readouterr().err
    job = json.loads(capsys.readouterr().out)
    history = read_jhist(job["probe_history"])
    assert history.record["uberized"] is True and history.record["queue"] == "root.probing"
    assert history.conf["mapred.mapper.class"] == "org.jobsize.hadoop.CostShape$Map"
    assert job["probe_map_function_ms"] > 0 and job["probe_reduce_function_ms"] > 0
    assert 0 < job["probe_map_function_fixed_ms"] <= job["probe_map_function_ms"]
    assert job["probe_combine_runs"] >= 1 and job["probe_combine_function_ms"] >= 0
    assert job["probe_map_output_records"] == history.record["map_output_records"] > 0


def test_jobsize_run_takes_java_tasks_as_the_guide_gives_them(hadoop_cluster, text, tmp_path,
                                                              capsys):
    mapper = "java-class org.jobsize.hadoop.CostShape$Map piece=5 alpha=6"
    reducer = "java-class org.jobsize.hadoop.CostShape$Reduce rec=2"
    argv = ["-q", "run", "--engine", "hadoop", "--cluster", hadoop_cluster.directory,
            "--input", str(text), "--mapper", mapper, "--reducer", reducer, "--reduces", "2",
            "--history", str(tmp_path / "h"), "-o", str(tmp_path / "out")]
    assert main(argv) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    record = shown["record"]
    assert shown["state"] == "SUCCEEDED" and record["n_reduces"] == 2
    assert record["map_function_ms"] > 0 and record["reduce_function_ms"] > 0
    assert sum(_counts(tmp_path / "out").values()) == record["map_output_records"] > 0
