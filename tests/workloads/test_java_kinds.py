"""Drawn kinds written in Java: how a Java task is named, what Streaming is given for it, how
the draw chooses the language without moving the point, and the local engine's refusal."""

from __future__ import annotations

import dataclasses
import shlex
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobsize.sampler.probespec import ProbeSpec, render_hadoop, streaming_probe

from jobsize.cli import main
from jobsize.errors import ConfigError
from jobsize.javatask import JAVA, args_key, is_java, java_task, refuse_local, streaming_task
from jobsize.workloads import is_workload, workload
from jobsize.workloads import kindspace as ks

MAP = "org.jobsize.hadoop.CostShape$Map"


def test_a_command_names_a_java_class_by_its_first_word():
    task = java_task((JAVA, MAP, "rec=2", "fan=1.5"))
    assert (task.class_name, task.args) == (MAP, ("rec=2", "fan=1.5"))
    # as one string, the shell's words (the '$' of a nested class quoted)
    assert java_task(shlex.join((JAVA, MAP, "rec=2"))) == java_task((JAVA, MAP, "rec=2"))
    for program in (("python", "-m", "x"), "python -m x", None, ()):
        assert java_task(program) is None
    assert is_java(None, "python x", (JAVA, MAP)) and not is_java(None, "cat")
    with pytest.raises(ConfigError, match="class name"):
        java_task((JAVA,))


def test_streaming_is_given_the_class_and_its_arguments_in_the_configuration():
    option, conf = streaming_task("mapper", java_task((JAVA, MAP, "rec=2", "key=3")))
    assert option == MAP
    assert conf == {"jobsize.task.mapper.args": "rec=2 key=3", "stream.map.output": "text"}
    _, conf = streaming_task("combiner", java_task((JAVA, "C", "rec=1")))
    assert conf == {"jobsize.task.combiner.args": "rec=1"}  # the map's output types serve
    _, conf = streaming_task("reducer", java_task((JAVA, "R")))
    assert conf == {"jobsize.task.reducer.args": "", "stream.reduce.output": "text"}
    with pytest.raises(ConfigError, match="role"):
        args_key("partitioner")


def _spec(tmp_path, kind):
    data = tmp_path / "in.txt"
    data.write_bytes(b"some words here\n" * 200)
    w = kind.workload()
    return ProbeSpec(mapper=w.mapper, reducer=w.reducer, combiner=w.combiner,
                     inputs=(str(data),), n_maps=4, n_reduces=2, job_name="j")


def _point(**changes):
    base = ks.draw_kind(3, 0)
    return dataclasses.replace(base, map_only=False, combiner=True, **changes)


def test_the_probe_runs_a_java_task_as_itself_and_ships_the_module(tmp_path):
    spec = _spec(tmp_path, _point(language="java"))
    job = streaming_probe(spec, sample=["s0"], sample_bytes=100, output="out",
                          java_jar="/x/jobsize-hadoop.jar")
    args = dict(zip(job.args[::2], job.args[1::2], strict=False))
    assert args["-mapper"] == MAP and args["-reducer"].endswith("CostShape$Reduce")
    assert args["-combiner"].endswith("CostShape$Combine")  # no timing wrapper around them
    assert job.conf["jobsize.task.mapper.args"] == " ".join(spec.mapper[2:])
    assert job.conf["stream.map.output"] == job.conf["stream.reduce.output"] == "text"
    assert job.libjars == ("/x/jobsize-hadoop.jar",)
    argv = job.argv()
    assert argv[argv.index("-libjars") + 1] == "/x/jobsize-hadoop.jar"
    assert argv.index("-libjars") < argv.index("-files") < argv.index("-mapper")
    command = render_hadoop(spec, sample="s0", sample_bytes=100, output="out")
    assert "-libjars jobsize-hadoop.jar" in command and "'org.jobsize.hadoop.CostShape$Map'" \
        in command
    # a Streaming twin: wrapped programs, nothing to ship
    twin = streaming_probe(_spec(tmp_path, _point()), sample=["s0"], sample_bytes=100,
                           output="out")
    assert twin.libjars == () and "-libjars" not in twin.argv()
    assert "timing_wrapper.py" in dict(zip(twin.args[::2], twin.args[1::2],
                                           strict=False))["-mapper"]


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 2**31), st.integers(0, 5_000))
def test_a_java_kind_is_its_streaming_twin_in_java(seed, index):
    twin, java = ks.draw_kind(seed, index), ks.draw_kind(seed, index, "java")
    assert dataclasses.replace(java, language="streaming") == twin
    assert java.name == twin.name + "-java" and ks.point(java.name) == java
    w, t = java.workload(), twin.workload()
    assert w.mapper[:2] == (JAVA, ks.JAVA_CLASSES["map"]) and w.mapper[2:] == t.mapper[4:]
    assert (w.reducer is None) == (t.reducer is None) and (w.combiner is None) == \
        (t.combiner is None)
    assert w.generate is t.generate and w.max_reduces == t.max_reduces
    assert java.shape() == "Java, " + twin.shape()


def test_the_language_is_drawn_apart_from_the_point():
    plain = [w.name for w in ks.draw_kinds(11, 40)]
    assert plain == [w.name for w in ks.draw_kinds(11, 40, java_share=0.0)]
    mixed = [w.name for w in ks.draw_kinds(11, 40, java_share=0.5)]
    assert [n.removesuffix("-java") for n in mixed] == plain  # the same points
    assert 8 <= sum(n.endswith("-java") for n in mixed) <= 32
    assert mixed == [w.name for w in ks.draw_kinds(11, 40, java_share=0.5)]
    assert all(w.name.endswith("-java") for w in ks.draw_kinds(11, 5, java_share=1.0))
    # a larger share keeps every Java kind of a smaller one (one uniform draw per kind)
    more = [w.name for w in ks.draw_kinds(11, 40, java_share=0.8)]
    assert {n for n in mixed if n.endswith("-java")} <= set(more)
    assert is_workload("drawn-11-3-java") and workload("drawn-11-3-java").name == \
        "drawn-11-3-java"
    for bad in (-0.1, 1.5):
        with pytest.raises(ConfigError, match=r"\[0, 1\]"):
            ks.draw_kinds(11, 2, java_share=bad)
    with pytest.raises(ConfigError, match="streaming or java"):
        ks.draw_kind(1, 1, "scala")


def test_the_local_engine_refuses_a_java_task_in_one_line(tmp_path, capsys):
    with pytest.raises(ConfigError, match=r"CostShape\$Map.*--engine hadoop"):
        refuse_local("cat", (JAVA, MAP), where="j")
    data = tmp_path / "in.txt"
    data.write_text("a b\n" * 10)
    w = _point(language="java").workload()
    argv = ["run", "--input", str(data), "--mapper", shlex.join(w.mapper),
            "--reducer", shlex.join(w.reducer), "--reduces", "1", "-o", str(tmp_path / "o"),
            "--history", str(tmp_path / "h")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "CostShape$Map" in err and "--engine hadoop" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "o").exists()


def test_evaluate_draws_java_kinds_only_for_hadoop(tmp_path, capsys):
    base = ["evaluate", "-o", str(tmp_path / "e"), "--drawn", "6", "--kind-seed", "11",
            "--java-share", "0.5"]
    assert main([*base, "--dry-run"]) == 2
    assert "--java-share" in capsys.readouterr().err
    assert main([*base, "--engine", "hadoop", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "-java: " in out and "Java, " in out
    names = [w.name for w in ks.draw_kinds(11, 6, java_share=0.5)]
    assert all(f"{n}: " in out for n in names)


def test_the_evaluation_records_and_reproduces_its_java_share():
    from jobsize.heldout import Design, command_line

    design = Design.drawn(6, 11, java_share=0.5)
    assert design.settings()["java_share"] == 0.5
    assert "java_share" not in Design.drawn(6, 11).settings()
    assert list(design.kinds) == [w.name for w in ks.draw_kinds(11, 6, java_share=0.5)]
    trace = SimpleNamespace(dir=SimpleNamespace(root="E"), seed=1, design=design,
                            engine="hadoop", workers=None)
    assert "--drawn 6 --kind-seed 11 --java-share 0.5 " in command_line(trace)


def test_bench_trace_refuses_java_kinds_on_the_local_engine_before_any_job(tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["bench-trace", "-o", str(out), "--jobs", "2", "--seed", "1",
            "--workloads", "grep,drawn-7-3-java"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "drawn-7-3-java" in err and "--engine hadoop" in err and len(err.splitlines()) == 1
    assert not out.exists()
