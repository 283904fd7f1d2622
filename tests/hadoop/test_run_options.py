"""Without a cluster: ``run --engine hadoop`` and ``bench-trace --engine hadoop`` options, and the
arguments that make and run Hadoop's examples (no JVM is started here)."""

from __future__ import annotations

import pytest
from jobsize.hadoop import examples
from jobsize.hadoop.examples import (
    CLIENT_POLL,
    EXAMPLES,
    KEY_VALUE_INPUT,
    TEXT_OUTPUT,
    generator_step,
    write_pairs,
    write_tables,
)

from jobsize.cli import main


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "--input", "x", "--mapper", "cat", "-o", "o"], "--history: required on the local"),
    (["run", "--mapper", "cat", "-o", "o", "--history", "h"], "--input: required"),
    (["run", "--engine", "hadoop", "--input", "x", "-o", "o"], "--mapper: required"),
    (["run", "--example", "wordcount", "-o", "o"], "--example: needs --engine hadoop"),
    (["run", "--input", "x", "--mapper", "cat", "-o", "o", "--history", "h", "--cluster", "c"],
     "--cluster: needs --engine hadoop"),
    (["run", "--engine", "hadoop", "--example", "nosuch", "-o", "o", "--input", "i"],
     "--example: unknown example 'nosuch'; supported: aggregatewordcount"),
    (["run", "--engine", "hadoop", "--example", "wordcount", "--input", "i"],
     "-o/--output: required with --example"),
    (["run", "--engine", "hadoop", "--example", "terasort", "-o", "o"],
     "--input: terasort needs an input: --input PATH, or --generate BYTES to make one (tera)"),
    (["run", "--engine", "hadoop", "--example", "wordcount", "--mapper", "cat", "-o", "o",
      "--input", "i"], "--mapper: a streaming option"),
    (["run", "--engine", "hadoop", "--example", "wordcount", "in", "out", "-o", "o"],
     "-o/--output: not with the program's own arguments (in out)"),
    (["run", "--engine", "hadoop", "--example", "teragen", "-o", "o", "--generate", "1K"],
     "--example: teragen is a generator: give its arguments"),
    (["run", "--engine", "hadoop", "--example", "sort", "--pattern", "a", "-o", "o",
      "--generate", "1K"], "--pattern: grep's option; sort takes no pattern"),
])
def test_options_that_do_not_go_together_are_one_line(argv, says, capsys) -> None:
    assert says in _error(capsys, argv)


def test_a_missing_cluster_is_one_line(tmp_path, capsys) -> None:
    (tmp_path / "in.txt").write_text("a\n")
    line = _error(capsys, ["run", "--engine", "hadoop", "--cluster", str(tmp_path / "none"),
                           "--input", str(tmp_path / "in.txt"), "--mapper", "cat",
                           "-o", str(tmp_path / "out")])
    assert line == (f"jobsize: error: {tmp_path / 'none'}: no mini cluster is running here "
                    "(start one with `jobsize hadoop up`)")


def test_a_bad_size_or_split_in_D_is_one_line(tmp_path) -> None:
    from jobsize.cli import build_parser
    from jobsize.cli.run import expected_maps, streaming_conf
    from jobsize.errors import ConfigError

    (tmp_path / "in.txt").write_text("a\n" * 10)
    args = build_parser("run").parse_args(
        ["run", "--engine", "hadoop", "--input", str(tmp_path), "--mapper", "cat", "-o", "o",
         "-D", "mapreduce.map.memory.mb=lots"])
    with pytest.raises(ConfigError, match=r"-D: mapreduce\.map\.memory\.mb must be an integer"):
        streaming_conf(args, 1024)
    conf = {"mapreduce.job.maps": "2", "mapreduce.input.fileinputformat.split.minsize": "x"}
    with pytest.raises(ConfigError, match=r"split\.minsize must be an integer"):
        expected_maps([str(tmp_path)], conf, 1024)


def test_streaming_conf_sets_the_split_size_as_the_local_block_size(tmp_path) -> None:
    from jobsize.cli import build_parser
    from jobsize.cli.run import expected_maps, streaming_conf

    path = tmp_path / "in.txt"
    path.write_text("x" * 91 + "\n")  # 92 bytes
    args = build_parser("run").parse_args(
        ["run", "--engine", "hadoop", "--input", str(path), "--mapper", "cat", "-o", "o",
         "--queue", "q", "-D", "mapreduce.job.maps=4"])
    conf = streaming_conf(args, 30)
    assert conf["fs.local.block.size"] == "30" and conf["dfs.blocksize"] == "30"
    assert conf["mapreduce.job.maps"] == "4" and conf["mapreduce.job.queuename"] == "q"
    # goal 92 / 4 = 23 < block 30: four splits of 23 bytes
    assert expected_maps([str(path)], conf, 30) == 4
    # the hint 1: splits of the block size, the last 32 bytes within the 10% slop
    assert expected_maps([str(path)], {**conf, "mapreduce.job.maps": "1"}, 30) == 3
    assert expected_maps([str(path)], {**conf, "mapreduce.job.maps": "1",
                          "mapreduce.input.fileinputformat.split.minsize": "60"}, 30) == 2


def test_bench_trace_hadoop_options(capsys) -> None:
    assert "--cluster: needs --engine hadoop" in _error(
        capsys, ["bench-trace", "-n", "1", "--seed", "1", "-o", "d", "--cluster", "c"])
    assert "--java-examples: needs --engine hadoop" in _error(
        capsys, ["bench-trace", "-n", "1", "--seed", "1", "-o", "d", "--java-examples"])
    with pytest.raises(SystemExit):
        main(["bench-trace", "-n", "1", "--seed", "1", "-o", "d", "--engine", "hadoop",
              "--java-examples", "nosuch"])
    assert "unknown Java example 'java:nosuch'" in capsys.readouterr().err


def test_java_kinds_are_drawn_only_when_named() -> None:
    from jobsize.benchtrace import BenchTrace, Distribution, draw_jobs
    from jobsize.benchtrace.java import JAVA_KINDS
    from jobsize.errors import ConfigError

    assert "java:grep" not in JAVA_KINDS  # two jobs: not one trace row
    assert {"java:wordcount", "java:terasort", "java:join"} <= set(JAVA_KINDS)
    plain = draw_jobs(3, 40, Distribution())
    assert not any(d.workload.startswith("java:") for d in plain)
    dist = Distribution(workloads=("wordcount", "java:terasort", "java:wordcount"))
    drawn = draw_jobs(3, 40, dist)
    assert {d.workload for d in drawn} >= {"java:terasort", "java:wordcount"}
    assert {d.input_kind for d in drawn if d.workload == "java:terasort"} == {"java-tera"}
    with pytest.raises(ConfigError, match="run on Hadoop only"):
        BenchTrace("unused", 3, dist)
    assert BenchTrace("unused", 3, dist, engine="hadoop").settings()["engine"] == "hadoop"
    assert "engine" not in BenchTrace("unused", 3, Distribution()).settings()


# --- the examples' arguments -------------------------------------------------------------------


def test_generators_are_hadoops_with_the_requested_size_and_maps() -> None:
    text = generator_step("text", "/d/in", 10_000, maps=3)
    assert text.program == "randomtextwriter"
    assert text.args == ("-outFormat", TEXT_OUTPUT, "/d/in")
    assert text.conf["mapreduce.randomtextwriter.bytespermap"] == "3334"
    assert text.conf["mapreduce.randomtextwriter.totalbytes"] == "10002"
    seq = generator_step("sequence", "/d/in", 5000)
    assert (seq.program, seq.args) == ("randomwriter", ("/d/in",))
    assert seq.conf["mapreduce.randomwriter.totalbytes"] == "5000"
    tera = generator_step("tera", "/d/in", 12_345, maps=2)
    assert (tera.program, tera.args) == ("teragen", ("123", "/d/in"))
    assert tera.conf["mapreduce.job.maps"] == "2"
    assert generator_step("tera", "/d/in", 100, maps=4).conf["mapreduce.job.maps"] == "1"
    for step in (text, seq, tera):
        assert step.conf.items() >= CLIENT_POLL.items()
    with pytest.raises(Exception, match="not made by a Hadoop generator"):
        generator_step("pairs", "/d/in", 100)
    with pytest.raises(Exception, match="positive size"):
        generator_step("text", "/d/in", 0)


def test_each_example_gets_its_programs_arguments() -> None:
    def args(name, inputs=("/in",), reduces=2):
        return EXAMPLES[name].arguments(list(inputs), "/out", reduces=reduces)

    assert args("wordcount", ("/a", "/b")) == ["/a", "/b", "/out"]
    assert args("grep") == ["/in", "/out", examples.GREP_PATTERN]
    assert args("sort") == ["-r", "2", "/in", "/out"]
    assert args("sort", reduces=None) == ["/in", "/out"]
    assert args("terasort") == ["/in", "/out"]
    assert args("join", ("/l", "/r")) == ["-r", "2", "-inFormat", KEY_VALUE_INPUT, "-outKey",
                                          "org.apache.hadoop.io.Text", "-outFormat",
                                          TEXT_OUTPUT, "/l", "/r", "/out"]
    assert args("aggregatewordcount", ("/a", "/b")) == ["/a,/b", "/out", "2",
                                                        "textinputformat"]
    for name in ("secondarysort", "multifilewc", "wordmean", "wordmedian"):
        assert args(name) == ["/in", "/out"]
    assert EXAMPLES["terasort"].conf(3)["mapreduce.job.reduces"] == "3"
    assert EXAMPLES["terasort"].conf()["mapreduce.terasort.simplepartitioner"] == "true"
    assert "mapreduce.job.reduces" not in EXAMPLES["sort"].conf(3)  # it takes -r
    with pytest.raises(Exception, match="join needs two or more inputs"):
        args("join")
    with pytest.raises(Exception, match="sort reads one input path, got 2"):
        args("sort", ("/a", "/b"))
    assert EXAMPLES["grep"].jobs == 2


def test_jobsizes_own_inputs_are_seeded_and_sized(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = write_pairs(tmp_path / "a", 2000, seed=4)
    b = write_pairs(tmp_path / "b", 2000, seed=4)
    assert a[0].read_bytes() == b[0].read_bytes()
    lines = a[0].read_text().splitlines()
    assert all(len(line.split()) == 2 for line in lines)
    assert 2000 <= a[0].stat().st_size < 2000 + 20
    left, right = write_tables(tmp_path / "t", 4800, seed=1)
    keys = [line.split("\t")[0] for line in (left / "part-00000").read_text().splitlines()]
    rkeys = [line.split("\t")[0] for line in (right / "part-00000").read_text().splitlines()]
    assert keys == sorted(keys) and len(keys) == 100
    assert rkeys == sorted(rkeys) and set(rkeys) < set(keys)
