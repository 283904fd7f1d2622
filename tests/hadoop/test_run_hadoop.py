"""Jobs on Hadoop: ``jobsize run --engine hadoop`` (streaming and Hadoop's Java examples) and
``jobsize bench-trace --engine hadoop``, on the session's mini cluster.

Inputs are tiny: each Hadoop job costs tens of seconds of JVM start-ups on two cores, so the
examples run three at a time, in uber mode where Hadoop allows it (one JVM per job).
"""

from __future__ import annotations

import json
import shlex
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from jobsize.cli import main

pytestmark = pytest.mark.hadoop

#: Counters that depend only on the input and the functions: Hadoop and the local engine must
#: agree on them.
SAME = ("map_input_records", "map_output_records", "reduce_input_records",
        "reduce_input_groups", "reduce_output_records", "n_reduces")


def _run(capsys, argv: list[str]) -> dict:
    assert main(["-q", *argv]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def text_files(tmp_path_factory) -> Path:
    """Three files of the reference text (about 40 KB each), each read whole by one map."""
    from jobsize.workloads import WORKLOADS

    where = tmp_path_factory.mktemp("text")
    for i in range(3):
        WORKLOADS["wordcount"].generate(where / f"g{i}", 40_000, seed=i)
        for path in (where / f"g{i}").iterdir():
            path.rename(where / f"part-{i}-{path.name}")
        (where / f"g{i}").rmdir()
    return where


def _wordcount(text_files: Path) -> list[str]:
    from jobsize.workloads import WORKLOADS

    w = WORKLOADS["wordcount"]
    return ["--input", str(text_files), "--mapper", shlex.join(w.mapper),
            "--combiner", shlex.join(w.combiner), "--reducer", shlex.join(w.reducer),
            "--reduces", "2"]


def test_a_streaming_job_counts_as_the_local_engines(hadoop_cluster, text_files, tmp_path,
                                                      capsys):
    local = _run(capsys, ["run", *_wordcount(text_files), "--history", str(tmp_path / "lh"),
                          "-o", str(tmp_path / "local")])["record"]
    shown = _run(capsys, ["run", "--engine", "hadoop", "--cluster", hadoop_cluster.directory,
                          *_wordcount(text_files), "--history", str(tmp_path / "hh"),
                          "-o", str(tmp_path / "hadoop"), "--name", "wc on hadoop",
                          "-D", "mapreduce.map.memory.mb=768"])
    record = shown["record"]
    assert shown["state"] == record["state"] == "SUCCEEDED"
    assert shown["job_id"].startswith("job_") and shown["job_id"] != local["job_id"]
    # the same JSON as the local engine's, its history copied under the local engine's names
    assert Path(shown["history"]) == tmp_path / "hh" / f"{shown['job_id']}.jhist"
    assert Path(shown["conf"]) == tmp_path / "hh" / f"{shown['job_id']}_conf.xml"
    assert record["job_name"] == "wc on hadoop" and record["map_memory_mb"] == 768
    assert local["n_maps"] == record["n_maps"] == 3  # one map per file
    for column in (*SAME, "map_input_bytes"):  # whole files: the same bytes read
        assert record[column] == local[column], column
    assert record["map_output_bytes"] > 0 and record["combine_input_records"] > 0
    assert record["map_time_ms"] > 0 and record["reduce_time_ms"] > 0
    words = {}
    for out in ("local", "hadoop"):
        lines = sorted(line for p in (tmp_path / out).glob("part-*")
                       for line in p.read_text().splitlines())
        words[out] = lines
    assert words["local"] == words["hadoop"]
    # jobsize collect jhist reads the copied history as it reads the local engine's
    assert main(["-q", "collect", "jhist", str(tmp_path / "hh"), "-o",
                 str(tmp_path / "t.parquet")]) == 0
    from jobsize.schema import read_trace

    trace = read_trace(tmp_path / "t.parquet")
    assert list(trace["job_id"]) == [shown["job_id"]]
    assert int(trace["map_output_records"].iloc[0]) == local["map_output_records"]


def test_split_size_gives_the_maps_jobsize_computes(hadoop_cluster, tmp_path, capsys):
    from jobsize.cli.run import expected_maps

    words = tmp_path / "in" / "words.txt"
    words.parent.mkdir()
    words.write_text("".join(f"w{i % 97} w{i % 13} w{i % 7}\n" for i in range(6000)))
    size = words.stat().st_size  # about 70 KB: cut into 16 KiB splits, not the 64 MiB default
    argv = ["--input", str(words.parent), "--mapper", "tr ' ' '\\n'", "--reducer", "uniq -c",
            "--split-size", "16K", "--maps", "2"]
    local = _run(capsys, ["run", *argv, "--history", str(tmp_path / "lh"),
                          "-o", str(tmp_path / "local")])["record"]
    # in uber mode (one JVM: cheaper here; its input limit defaults to the block size, so it is
    # raised); the splits are cut at submission all the same
    record = _run(capsys, ["run", "--engine", "hadoop", "--cluster", hadoop_cluster.directory,
                           *argv, "-o", str(tmp_path / "hadoop"), "-D",
                           "mapreduce.job.ubertask.enable=true", "-D",
                           "mapreduce.job.ubertask.maxbytes=1048576"])["record"]
    assert record["uberized"]
    wanted = expected_maps([str(words.parent)], {"mapreduce.job.maps": "2"}, 16 << 10)
    assert wanted == local["n_maps"] == record["n_maps"] == size // (16 << 10) + 1
    for column in SAME:
        assert record[column] == local[column], column
    # a split's reader reads on to the end of the line that crosses the split's end; Hadoop's
    # BYTES_READ also counts what its buffer read beyond it
    assert record["map_input_bytes"] >= local["map_input_bytes"] == size


# --- Hadoop's examples --------------------------------------------------------------------------

UBER = {"mapreduce.job.ubertask.enable": "true"}


@pytest.fixture(scope="module")
def example_runs(hadoop_cluster, tmp_path_factory):
    """Every supported example over tiny inputs made as Hadoop makes them, three clients at a
    time, in uber mode: {name: (Submission or exception, output dir)}, the generators' jobs
    and the inputs."""
    from jobsize.hadoop import examples
    from jobsize.hadoop.client import HadoopClient

    root = tmp_path_factory.mktemp("examples")
    client = HadoopClient(hadoop_cluster, log_dir=root / "clients")
    sizes = {"text": 60_000, "sequence": 60_000, "tera": 20_000, "pairs": 20_000,
             "tables": 20_000}
    inputs, generated = {}, {}

    def make(kind):
        paths, jobs = examples.generate(client, kind, root / f"in-{kind}", sizes[kind],
                                        seed=1, conf=UBER)
        return kind, paths, jobs

    def run(name):
        work = root / f"work-{name}"
        work.mkdir()
        ex = examples.EXAMPLES[name]
        try:
            # terasort with two reduces (and so out of uber mode): its partitioner runs
            reduces = 2 if name == "terasort" else 1
            return name, examples.run_example(client, name, inputs[ex.input_kind],
                                              root / f"out-{name}", reduces=reduces, conf=UBER,
                                              cwd=work), root / f"out-{name}"
        except Exception as exc:  # reported by the test of that example
            return name, exc, root / f"out-{name}"

    with ThreadPoolExecutor(3) as pool:
        for kind, paths, jobs in pool.map(make, sizes):
            inputs[kind], generated[kind] = paths, jobs
        runs = {name: (sub, out) for name, sub, out in pool.map(run, examples.EXAMPLES)}
    return runs, generated, inputs


def test_generators_make_inputs_as_hadoop_does(example_runs):
    _, generated, inputs = example_runs
    for kind in ("text", "sequence", "tera"):
        (job,) = generated[kind]
        record = job.record()
        assert job.state == "SUCCEEDED", kind
        assert record["n_reduces"] == 0 and record["n_maps"] == 1, kind
        files = [p for p in Path(inputs[kind][0]).iterdir() if p.name.startswith("part-")]
        assert len(files) == 1
    tera = next(Path(inputs["tera"][0]).glob("part-*"))
    assert tera.stat().st_size == 20_000  # teragen: 200 rows of 100 bytes
    assert generated["pairs"] == generated["tables"] == []


@pytest.mark.parametrize("name", ["wordcount", "grep", "sort", "terasort", "join",
                                  "secondarysort", "multifilewc", "wordmean", "wordmedian",
                                  "wordstandarddeviation", "aggregatewordcount",
                                  "aggregatewordhist"])
def test_each_example_runs_and_its_record_is_sane(example_runs, name):
    from jobsize.hadoop.examples import EXAMPLES

    runs, _, _ = example_runs
    submission, output = runs[name]
    assert not isinstance(submission, Exception), submission
    assert submission.returncode == 0, submission.log[-2000:]
    assert len(submission.jobs) == EXAMPLES[name].jobs
    for job in submission.jobs:
        record = job.record()
        assert job.state == record["state"] == "SUCCEEDED"
        assert record["n_maps"] >= 1 and record["map_input_records"] > 0
        assert record["map_time_ms"] > 0
        assert record["map_memory_mb"] >= 1 and record["am_memory_mb"] >= 1
    first = submission.jobs[0].record()
    assert first["map_output_records"] > 0 and first["reduce_output_records"] > 0
    assert any(p.name.startswith("part-") and p.stat().st_size > 0 for p in output.iterdir())


def test_terasort_sorts_across_its_reduces(example_runs):
    runs, _, _ = example_runs
    submission, output = runs["terasort"]
    (job,) = submission.jobs
    assert job.record()["n_reduces"] == 2
    keys = []
    for part in sorted(output.glob("part-r-*")):
        data = part.read_bytes()
        keys += [data[i:i + 10] for i in range(0, len(data), 100)]
    assert len(keys) == 200 and keys == sorted(keys)


def test_grep_records_both_its_jobs(example_runs):
    runs, _, _ = example_runs
    search, order = (job.record() for job in runs["grep"][0].jobs)
    assert search["job_id"] != order["job_id"]
    # the sort job reads what the search wrote: one record per distinct match
    assert order["map_input_records"] == search["reduce_output_records"] > 0


def test_run_example_from_the_command_line(hadoop_cluster, tmp_path, capsys):
    shown = _run(capsys, ["run", "--engine", "hadoop", "--cluster", hadoop_cluster.directory,
                          "--example", "secondarysort", "--generate", "4K", "-o",
                          str(tmp_path / "out"), "--history", str(tmp_path / "h"),
                          "-D", "mapreduce.job.ubertask.enable=true"])
    assert shown["program"] == "secondarysort" and shown["generated"] == []
    assert shown["input"] == [str(tmp_path / "out.input")]
    (job,) = shown["jobs"]
    assert job["state"] == "SUCCEEDED" and job["record"]["reduce_output_records"] > 0
    assert Path(job["history"]).parent == tmp_path / "h"
    lines = (tmp_path / "out.input" / "pairs-00000.txt").read_text().splitlines()
    assert job["record"]["map_input_records"] == len(lines)


# --- bench-trace --------------------------------------------------------------------------------


def test_bench_trace_on_hadoop(hadoop_cluster, tmp_path, capsys):
    """Three drawn jobs — an uber one, one probed and run on two maps, a Java example — run on
    the cluster, the probe as a real uber job there; a second run resumes with nothing to do."""
    argv = ["bench-trace", "-n", "3", "--seed", "24", "-o", str(tmp_path / "b"),
            "--split-size", "16K", "--map-scale", "16", "--workloads", "wordcount,grep",
            "--engine", "hadoop", "--cluster", hadoop_cluster.directory,
            "--java-examples", "secondarysort", "--parallel", "1"]
    assert main(["-q", *argv]) == 0, capsys.readouterr().err
    from jobsize.benchtrace.tracedir import TraceDirectory

    trace = TraceDirectory(tmp_path / "b").records()
    assert len(trace) == 3 and set(trace["state"]) == {"SUCCEEDED"}
    assert set(trace["source"]) == {"bench-trace:hadoop"}
    assert set(trace["user"]) == {"jobsize"}
    jobs = {p.stem for p in (tmp_path / "b" / "history" / "jobs").glob("*.jhist")}
    assert jobs == set(trace["job_id"])
    kinds = dict(zip(trace["job_type"], trace.to_dict("records"), strict=True))
    assert "java:secondarysort" in kinds
    assert pd.isna(kinds["java:secondarysort"]["probe_fraction"])
    probed = [r for r in kinds.values() if not r["uberized"] and r["job_type"] != "java:"
              "secondarysort"]
    assert probed and all(r["probe_fraction"] > 0 for r in probed)
    probe_histories = list((tmp_path / "b" / "history" / "probes").rglob("*.jhist"))
    assert len(probe_histories) == len(probed)
    from jobsize.collectors.jhist import read_jhist

    for path in probe_histories:  # Hadoop ran each probe, in uber mode, on the probing queue
        record = read_jhist(path).record
        assert record["uberized"] is True and record["queue"] == "root.probing"
    settings = json.loads((tmp_path / "b" / "bench-trace.json").read_text())
    assert settings["distribution"]["engine"] == "hadoop"
    capsys.readouterr()
    assert main(["-q", *argv]) == 0
    assert "all 3 jobs are recorded" in " ".join(capsys.readouterr().out.split())

