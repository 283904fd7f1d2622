"""The probe spec, the uber-mode rule, the probe record from counters, and the cluster command."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jobsize.sampler import timing_wrapper
from jobsize.sampler.probespec import (
    PROBE_COLUMNS,
    ProbeSpec,
    plan_probe,
    probe_record,
    render_hadoop,
    streaming_quote,
)

from jobsize.errors import ConfigError, InputError
from jobsize.schema import JOB_COLUMNS, records

TC = "org.apache.hadoop.mapreduce.TaskCounter"
FOC = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"
MB = 1024 * 1024


def _spec(**kw: object) -> ProbeSpec:
    base: dict = {"mapper": "python3 wc.py map", "reducer": ["python3", "wc.py", "reduce"],
                  "inputs": "/data/in", "n_maps": 40, "n_reduces": 4}
    base.update(kw)
    return ProbeSpec(**base)


# ---------------------------------------------------------------------------------------------
# the spec


def test_spec_normalises_commands_and_inputs() -> None:
    spec = _spec(combiner="python3 wc.py 'reduce all'", inputs=Path("/data/in"))
    assert spec.mapper == ("python3", "wc.py", "map")
    assert spec.reducer == ("python3", "wc.py", "reduce")
    assert spec.combiner == ("python3", "wc.py", "reduce all")
    assert spec.inputs == ("/data/in",)
    assert not spec.map_only
    assert spec.job_columns()["n_maps"] == 40 and spec.job_columns()["am_memory_mb"] == 1536


def test_spec_accepts_callables_for_the_local_engine() -> None:
    def mapper(line: str) -> list[str]:
        return [line]

    assert _spec(mapper=mapper).mapper is mapper


@pytest.mark.parametrize(("kw", "message"), [
    ({"reducer": None}, "no reducer"),
    ({"n_reduces": 0}, "map-only job: drop the reducer"),
    ({"n_maps": 0}, "N_m must be at least 1"),
    ({"mapper": ""}, "mapper command is empty"),
    ({"mapper": "python3 'unclosed"}, "mapper command"),
    ({"inputs": ()}, "at least one input"),
    ({"map_memory_mb": 0}, "map_memory_mb must be a positive integer"),
])
def test_inconsistent_specs_are_config_errors(kw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _spec(**kw)


def test_spec_draws_its_sample_from_its_inputs(tmp_path: Path) -> None:
    data = b"".join(b"word%d other\n" % i for i in range(5000))
    (tmp_path / "part-0").write_bytes(data)
    spec = _spec(inputs=[tmp_path], n_maps=8, n_reduces=2, split_bytes=len(data) // 8 + 1,
                 seed=4, max_splits=4)
    assert len(spec.splits()) == 8
    s = spec.take_sample()
    assert s.target_fraction == 1 / 8 and len(s.splits_chosen) == 4 and s.seed == 4
    assert s.data == spec.take_sample().data
    assert spec.plan().probe  # 8 maps ≤ 9, 2 reduces > 1: not uber


# ---------------------------------------------------------------------------------------------
# uber jobs are not probed


ON = {"mapreduce.job.ubertask.enable": "true"}


def test_an_uber_job_is_planned_as_one_and_the_record_says_so() -> None:
    plan = plan_probe(3, 1, 20 * MB, ON)
    assert not plan.probe and plan.uberized
    assert "uber job" in plan.reason and "AM container" in plan.reason
    assert "sized from its probe" in plan.said(probe_uber=True)
    assert "history's uber jobs" in plan.said(probe_uber=False)
    assert plan_probe(3, 1, 20 * MB).said(False) == plan_probe(3, 1, 20 * MB).reason
    rec = plan.record()
    assert rec["uberized"] is True
    assert all(rec[c] is None for c in PROBE_COLUMNS)
    frame = records([{"job_id": "j", **rec}])  # the schema accepts it as a row
    assert bool(frame.loc[0, "uberized"]) and frame["probe_fraction"].isna().all()


def test_hadoops_default_is_no_uber_mode_so_small_jobs_are_probed() -> None:
    plan = plan_probe(3, 1, 20 * MB)
    assert plan.probe and "uber mode is disabled" in plan.reason


@pytest.mark.parametrize(("maps", "reduces", "size", "conf", "why"), [
    (10, 1, MB, ON, "10 maps vs mapreduce.job.ubertask.maxmaps = 9"),
    (2, 2, MB, ON, "2 reduces vs mapreduce.job.ubertask.maxreduces = 1"),
    (2, 1, 129 * MB, ON, "input bytes vs mapreduce.job.ubertask.maxbytes = 134217728"),
    (2, 1, 65 * MB, {**ON, "dfs.blocksize": "64m"},
     "input bytes vs mapreduce.job.ubertask.maxbytes = 67108864"),
    (2, 1, MB, {"mapreduce.job.ubertask.enable": "false"}, "uber mode is disabled"),
    (2, 1, 3 * MB, {**ON, "mapreduce.job.ubertask.maxbytes": str(2 * MB)}, "input bytes vs"),
    (2, 1, MB, {**ON, "mapreduce.map.memory.mb": "2048"}, "task memory vs the AM's"),
])
def test_other_jobs_are_probed_with_the_reason(maps: int, reduces: int, size: int, conf: dict,
                                               why: str) -> None:
    plan = plan_probe(maps, reduces, size, conf)
    assert plan.probe and why in plan.reason
    assert plan.record() == {"uberized": False}


def test_map_only_small_job_is_uber_where_uber_mode_is_on() -> None:
    assert not plan_probe(1, 0, 100, ON).probe


def test_bad_uber_limit_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="maxmaps must be an integer"):
        plan_probe(1, 0, 100, {**ON, "mapreduce.job.ubertask.maxmaps": "many"})


# ---------------------------------------------------------------------------------------------
# counters → probe record


def _counters(**task: int) -> dict:
    return {
        TC: {"MAP_INPUT_RECORDS": 100, "MAP_OUTPUT_RECORDS": 800, "MAP_OUTPUT_BYTES": 9000,
             "REDUCE_INPUT_RECORDS": 800, "REDUCE_INPUT_GROUPS": 50, **task},
        FOC: {"BYTES_WRITTEN": 700},
        "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter": {"BYTES_READ": 4321},
        "jobsize": {"MAP_FUNCTION_MILLIS": 120, "REDUCE_FUNCTION_MILLIS": 45},
    }


def test_probe_record_reads_the_counters() -> None:
    rec = probe_record(_counters(), fraction=0.01, input_bytes=4000, wall_ms=2500.5)
    assert tuple(rec) == PROBE_COLUMNS
    assert rec == {
        "probe_fraction": 0.01, "probe_input_bytes": 4000, "probe_map_function_ms": 120.0,
        "probe_reduce_function_ms": 45.0, "probe_map_output_bytes": 9000,
        "probe_map_output_records": 800, "probe_reduce_input_records": 800,
        "probe_reduce_output_bytes": 700, "probe_wall_ms": 2500.5,
        # a probe of one map and one reduce (no task counters): no split columns
        **{c: None for c in PROBE_COLUMNS if c.endswith(("_tasks", "_split", "_fixed_ms",
                                                         "_startup_ms", "_exponent", "_task_ms"))},
        "probe_combine_function_ms": 0.0, "probe_combine_input_records": 0,
        "probe_combine_runs": 0,
        "probe_map_cpu_ms": None, "probe_reduce_cpu_ms": None, "probe_map_processes": None,
        "probe_reduce_input_groups": 50,
        # the local engine's probe record does not time its later maps apart, nor from its
        # launch, and its functions run unwrapped
        "probe_map_later_task_ms": None, "probe_map_later_function_ms": None,
        "probe_map_later_input_share": None,
        "probe_map_wrapper_ms": None, "probe_reduce_wrapper_ms": None,
        "probe_task_start_ms": None,
    }
    frame = records([{"job_id": "j", **rec}])  # every column has the schema's type
    schema = {c.name: c.dtype for c in JOB_COLUMNS}
    assert all(str(frame[c].dtype) == schema[c] for c in PROBE_COLUMNS)


def test_probe_record_input_bytes_fall_back_to_the_input_counter() -> None:
    rec = probe_record(_counters(), fraction=0.5, input_bytes=None, wall_ms=1)
    assert rec["probe_input_bytes"] == 4321


def test_probe_record_accepts_display_group_names_and_string_values() -> None:
    counters = {"Map-Reduce Framework": {"MAP_OUTPUT_RECORDS": "8", "MAP_OUTPUT_BYTES": "90",
                                         "REDUCE_INPUT_RECORDS": "8"},
                "File Output Format Counters ": {"BYTES_WRITTEN": 70}}
    rec = probe_record(counters, fraction=1.0, input_bytes=10, wall_ms=3)
    assert (rec["probe_map_output_records"], rec["probe_reduce_output_bytes"]) == (8, 70)
    assert rec["probe_map_function_ms"] is None  # run without the timing wrapper


def test_map_only_probe_reports_zeros_for_the_reduce_side() -> None:
    counters = {TC: {"MAP_INPUT_RECORDS": 10, "MAP_OUTPUT_RECORDS": 10}, FOC: {"BYTES_WRITTEN": 99},
                "jobsize": {"MAP_FUNCTION_MILLIS": 7}}
    rec = probe_record(counters, fraction=0.1, input_bytes=10, wall_ms=5, n_reduces=0)
    assert rec["probe_reduce_function_ms"] == 0.0
    assert rec["probe_reduce_input_records"] == 0
    assert rec["probe_map_output_bytes"] == 0  # Hadoop counts no map output bytes without reduces
    assert rec["probe_reduce_output_bytes"] == 99  # RO of a map-only job: what the map wrote
    assert probe_record(counters, fraction=0.1, input_bytes=10, wall_ms=5) == rec  # inferred


@pytest.mark.parametrize(("counters", "kw", "message"), [
    ({TC: {"MAP_OUTPUT_RECORDS": 1}}, {"n_reduces": 2}, "missing counter MAP_OUTPUT_BYTES"),
    ({}, {}, "missing counter MAP_OUTPUT_RECORDS"),
    ({TC: {"MAP_OUTPUT_RECORDS": -3}}, {}, "not a non-negative integer"),
    ({TC: {"MAP_OUTPUT_RECORDS": 1}}, {"fraction": 0.0}, r"f_p must be in \(0, 1\]"),
])
def test_bad_counters_are_input_errors(counters: dict, kw: dict, message: str) -> None:
    args = {"fraction": 0.5, "input_bytes": 1, "wall_ms": 1.0, **kw}
    with pytest.raises(InputError, match=message):
        probe_record(counters, **args)


def _jhist_total_counters(path: Path) -> dict:
    """TOTAL_COUNTERS of a real .jhist, read straight from its JOB_FINISHED event."""
    for line in path.read_text().splitlines():
        if '"type":"JOB_FINISHED"' in line:
            event = next(iter(json.loads(line)["event"].values()))
            return {g["name"]: {c["name"]: c["value"] for c in g["counts"]}
                    for g in event["totalCounters"]["groups"]}
    raise AssertionError(f"no JOB_FINISHED in {path}")


def test_probe_record_from_real_hadoop_counters(shared: Path) -> None:
    jhist = shared / "hadoop" / "jhist"
    teragen = _jhist_total_counters(next(jhist.glob("job_1416424547277_0002-*.jhist")))
    rec = probe_record(teragen, fraction=1.0, input_bytes=0, wall_ms=1)  # map-only TeraGen
    assert (rec["probe_map_output_records"], rec["probe_reduce_output_bytes"]) == (100, 10000)
    assert rec["probe_reduce_input_records"] == 0
    sleep = _jhist_total_counters(next(jhist.glob("job_1329348432655_0001-*.jhist")))
    rec = probe_record(sleep, fraction=1.0, input_bytes=0, wall_ms=1)  # 10 maps, 1 reduce
    assert (rec["probe_map_output_bytes"], rec["probe_reduce_input_records"]) == (40, 10)


# ---------------------------------------------------------------------------------------------
# the cluster command


def _argv(command: str) -> list[str]:
    """The words a POSIX shell passes to ``hadoop`` for the rendered command."""
    script = command.replace("hadoop jar", f"{shlex.quote(sys.executable)} -c "
                             "'import json, sys; print(json.dumps(sys.argv[1:]))' jar", 1)
    done = subprocess.run(["sh", "-c", script], capture_output=True, check=True,
                          env={**os.environ, "HADOOP_HOME": "/opt/hadoop"})
    return json.loads(done.stdout)


def _options(command: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    argv = _argv(command)
    assert argv[0] == "jar"
    conf: dict[str, str] = {}
    opts: dict[str, list[str]] = {}
    for flag, value in zip(argv[2::2], argv[3::2], strict=True):
        if flag == "-D":
            key, _, value = value.partition("=")
            conf[key] = value
        else:
            opts.setdefault(flag, []).append(value)
    return conf, opts


def streaming_split(command: str) -> list[str]:
    """How Hadoop Streaming splits a -mapper string (PipeMapRed.splitArgs): spaces separate
    words, single or double quotes group them, no escapes."""
    words, word, quote, quoted = [], "", None, False
    for ch in command:
        if quote:
            if ch == quote:
                quote = None
            else:
                word += ch
        elif ch in "'\"":
            quote, quoted = ch, True
        elif ch == " ":
            if word or quoted:
                words.append(word)
            word, quoted = "", False
        else:
            word += ch
    if word or quoted:
        words.append(word)
    return words


def test_render_hadoop_runs_the_probe_in_uber_mode() -> None:
    spec = _spec(map_memory_mb=2048, reduce_memory_mb=3072, am_memory_mb=1536, queue="probe-q",
                 files=("/home/u/wc.py",), job_name="wordcount")
    command = render_hadoop(spec, sample="/tmp/probe/sample.txt", sample_bytes=5 * MB,
                            output="/tmp/probe/out", streaming_jar="/opt/hadoop/streaming.jar")
    conf, opts = _options(command)
    assert _argv(command)[:2] == ["jar", "/opt/hadoop/streaming.jar"]
    assert conf["mapreduce.job.ubertask.enable"] == "true"
    assert conf["mapreduce.job.ubertask.maxmaps"] == "1"
    assert conf["mapreduce.job.ubertask.maxreduces"] == "1"
    assert int(conf["mapreduce.job.ubertask.maxbytes"]) > 5 * MB
    assert int(conf["mapreduce.input.fileinputformat.split.minsize"]) > 5 * MB
    assert conf["mapreduce.job.queuename"] == "probe-q"
    assert conf["mapreduce.job.name"] == "jobsize probe: wordcount"
    # the job's containers, and an AM large enough to hold them (else Hadoop refuses uber mode)
    assert (conf["mapreduce.map.memory.mb"], conf["mapreduce.reduce.memory.mb"]) == ("2048",
                                                                                      "3072")
    assert int(conf["yarn.app.mapreduce.am.resource.mb"]) >= 3072
    files = opts["-files"][0].split(",")
    assert Path(files[0]).name == "timing_wrapper.py" and Path(files[0]).is_file()
    assert files[1:] == ["/home/u/wc.py"]
    assert opts["-input"] == ["/tmp/probe/sample.txt"] and opts["-output"] == ["/tmp/probe/out"]
    assert opts["-numReduceTasks"] == ["1"]
    mapper = streaming_split(opts["-mapper"][0])
    assert mapper == ["python3", "timing_wrapper.py", "--counter", "jobsize,MAP_FUNCTION_MILLIS",
                      "--startup-counter", "jobsize,MAP_FUNCTION_STARTUP_MILLIS",
                      "--overhead-counter", "jobsize,MAP_WRAPPER_MILLIS",
                      "--", "python3", "wc.py", "map"]
    reducer = streaming_split(opts["-reducer"][0])
    assert reducer[3] == "jobsize,REDUCE_FUNCTION_MILLIS"
    assert reducer[5] == "jobsize,REDUCE_FUNCTION_STARTUP_MILLIS"
    assert reducer[7] == "jobsize,REDUCE_WRAPPER_MILLIS"


def test_render_hadoop_map_only_runs_no_reduce() -> None:
    spec = _spec(reducer=None, n_reduces=0, combiner=None)
    command = render_hadoop(spec, sample="/s", sample_bytes=10, output="/o")
    _, opts = _options(command)
    assert opts["-numReduceTasks"] == ["0"] and "-reducer" not in opts
    # the default jar path is left for the shell to expand
    assert _argv(command)[1] == "/opt/hadoop/share/hadoop/tools/lib/hadoop-streaming-*.jar"


def test_render_hadoop_with_several_sample_files_and_a_combiner() -> None:
    spec = _spec(combiner="python3 wc.py reduce")
    conf, opts = _options(render_hadoop(spec, sample=["/s/a", "/s/b"], sample_bytes=10,
                                        output="/o"))
    assert opts["-input"] == ["/s/a", "/s/b"] and conf["mapreduce.job.ubertask.maxmaps"] == "2"
    # the combiner is timed, its start-up measured and its runs (one per spill) counted
    assert streaming_split(opts["-combiner"][0]) == [
        "python3", "timing_wrapper.py", "--counter", "jobsize,COMBINE_FUNCTION_MILLIS",
        "--startup-counter", "jobsize,COMBINE_FUNCTION_STARTUP_MILLIS",
        "--runs-counter", "jobsize,COMBINE_RUNS",
        "--overhead-counter", "jobsize,COMBINE_WRAPPER_MILLIS", "--", "python3", "wc.py", "reduce"]


def test_render_hadoop_refuses_what_streaming_cannot_run() -> None:
    with pytest.raises(ConfigError, match="Python callable"):
        render_hadoop(_spec(mapper=len), sample="/s", sample_bytes=1, output="/o")
    with pytest.raises(ConfigError, match="both quote kinds"):
        render_hadoop(_spec(mapper=["grep", "it's \"x\""]), sample="/s", sample_bytes=1,
                      output="/o")


def test_streaming_quote_round_trips_through_streamings_splitter() -> None:
    args = ["grep", "-E", "a b", "it's", 'say "hi"', "tab\there"]
    assert streaming_split(" ".join(streaming_quote(a) for a in args)) == args


def _run_rendered(tmp_path: Path, spec: ProbeSpec, option: str, stdin: bytes
                  ) -> subprocess.CompletedProcess:
    """Run a rendered -mapper/-reducer as a task would: split by Streaming's rules, in a
    directory holding the shipped wrapper."""
    command = render_hadoop(spec, sample="/s", sample_bytes=1, output="/o",
                            python=sys.executable)
    argv = streaming_split(_options(command)[1][option][0])
    shutil.copy(timing_wrapper.__file__, tmp_path / "timing_wrapper.py")  # what -files does
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=tmp_path, check=False,
                          env={**os.environ, "LC_ALL": "C"})


def test_the_wrapper_reports_function_time_as_streaming_counters(tmp_path: Path) -> None:
    spec = _spec(mapper=["wc", "-l"], reducer=[sys.executable, "-c",
                 "import sys, time; time.sleep(0.2); sys.stdout.write(sys.stdin.read().upper())"])
    done = _run_rendered(tmp_path, spec, "-mapper", b"a\nb\nc\n")
    assert done.returncode == 0
    # records pass through the wrapper untouched; the run over no input printed nothing
    assert done.stdout.strip() == b"3"
    assert list(_reported(done)) == ["jobsize,MAP_FUNCTION_STARTUP_MILLIS",
                                     "jobsize,MAP_FUNCTION_MILLIS", "jobsize,MAP_WRAPPER_MILLIS"]

    done = _run_rendered(tmp_path, spec, "-reducer", b"k\t1\n")
    assert done.returncode == 0 and done.stdout == b"K\t1\n"
    counters = _reported(done)
    # the command's own run time, and the start-up's: each sleeps 0.2 s whatever its input
    assert counters["jobsize,REDUCE_FUNCTION_MILLIS"] >= 200
    assert counters["jobsize,REDUCE_FUNCTION_STARTUP_MILLIS"] >= 200
    # the wrapper's own time holds the start-up run, not the timed run
    assert counters["jobsize,REDUCE_WRAPPER_MILLIS"] >= \
        counters["jobsize,REDUCE_FUNCTION_STARTUP_MILLIS"]
    assert counters["jobsize,REDUCE_WRAPPER_MILLIS"] < \
        counters["jobsize,REDUCE_FUNCTION_STARTUP_MILLIS"] + counters[
            "jobsize,REDUCE_FUNCTION_MILLIS"]


def _reported(done: subprocess.CompletedProcess) -> dict[str, int]:
    """The streaming counters a wrapped command reported on stderr, in order."""
    out = {}
    for line in done.stderr.decode().splitlines():
        assert line.startswith("reporter:counter:"), line
        name, value = line.removeprefix("reporter:counter:").rsplit(",", 1)
        out[name] = int(value)
    return out


def test_the_wrapped_combiner_counts_its_runs_and_measures_its_start_up(tmp_path: Path) -> None:
    script = tmp_path / "combine.py"
    # start-up of 0.15 s, then 1 ms per record; a record count on stdout
    script.write_text("import sys, time\ntime.sleep(0.15)\nn = 0\n"
                      "for line in sys.stdin:\n    time.sleep(0.001)\n    n += 1\n"
                      "print(n)\n")
    spec = _spec(combiner=[sys.executable, str(script)])
    done = _run_rendered(tmp_path, spec, "-combiner", b"k\t1\n" * 50)
    assert done.returncode == 0 and done.stdout == b"50\n"  # not the empty run's "0"
    counters = _reported(done)
    assert counters["jobsize,COMBINE_RUNS"] == 1
    assert counters["jobsize,COMBINE_FUNCTION_STARTUP_MILLIS"] >= 150
    assert counters["jobsize,COMBINE_FUNCTION_MILLIS"] >= 150 + 50


def test_a_function_that_fails_on_no_input_reports_no_start_up(tmp_path: Path) -> None:
    # fails (status 4) when its input is empty, and only then
    fussy = [sys.executable, "-c", "import sys; data = sys.stdin.read(); "
             "sys.exit(0 if data else 4)"]
    done = _run_rendered(tmp_path, _spec(mapper=fussy), "-mapper", b"x\n")
    assert done.returncode == 0
    assert list(_reported(done)) == ["jobsize,MAP_FUNCTION_MILLIS", "jobsize,MAP_WRAPPER_MILLIS"]


def test_the_wrapper_passes_on_failure(tmp_path: Path) -> None:
    done = _run_rendered(tmp_path, _spec(mapper=[sys.executable, "-c", "raise SystemExit(3)"]),
                         "-mapper", b"")
    assert done.returncode == 3 and b"reporter:counter:jobsize,MAP_FUNCTION_MILLIS," in \
        done.stderr
    done = _run_rendered(tmp_path, _spec(mapper=["no-such-program-xyz"]), "-mapper", b"")
    assert done.returncode == 127 and b"cannot run no-such-program-xyz" in done.stderr


def test_the_wrapper_runs_with_the_standard_library_only(tmp_path: Path) -> None:
    source = Path(timing_wrapper.__file__).read_text()
    imports = {line.split()[1].split(".")[0] for line in source.splitlines()
               if line.startswith(("import ", "from "))}
    assert imports <= {"__future__", "argparse", "os", "subprocess", "sys", "time"}
    done = subprocess.run([sys.executable, "-I", timing_wrapper.__file__, "--counter", "g,c",
                           "--", "true"], capture_output=True, check=False)
    assert done.returncode == 0 and done.stderr.startswith(b"reporter:counter:g,c,")
    for bad in (["--counter", "g"], ["--counter", "g,c", "--startup-counter", "s"],
                ["--counter", "g,c", "--runs-counter", "r,a,b"]):
        done = subprocess.run([sys.executable, "-I", timing_wrapper.__file__, *bad, "--",
                               "true"], capture_output=True, check=False)
        assert done.returncode == 2 and b"GROUP,NAME" in done.stderr, bad


def test_the_wrappers_own_time_counts_from_its_process_start(tmp_path: Path) -> None:
    # the wrapper started late by a parent that sleeps first would not count the sleep; one
    # whose own interpreter is slow to start does: its life is the kernel's, not its code's
    slow_start = tmp_path / "sitecustomize.py"
    slow_start.write_text("import time\ntime.sleep(0.3)\n")
    done = subprocess.run([sys.executable, timing_wrapper.__file__, "--counter", "g,run",
                           "--overhead-counter", "g,own", "--", "true"], capture_output=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0
    counters = _reported(done)
    assert counters["g,own"] >= 300 - 10  # the start-up sleep, to a clock tick
