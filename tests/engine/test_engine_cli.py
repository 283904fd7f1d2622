"""``jobsize run`` and ``jobsize probe``."""

from __future__ import annotations

import json
import shlex

import pytest
from engine_helpers import THREE_LINES
from jobsize.collectors.jhist import read_jhist

from jobsize.cli import main


@pytest.fixture
def three_lines(tmp_path):
    path = tmp_path / "three.txt"
    path.write_bytes(THREE_LINES * 200)
    return path


def test_run_writes_output_history_and_prints_the_record(programs, three_lines, tmp_path,
                                                         capsys):
    code = main(["run", "--input", str(three_lines), "--mapper", shlex.join(programs["wc_map"]),
                 "--reducer", shlex.join(programs["wc_reduce"]), "--maps", "3", "--reduces",
                 "2", "--history", str(tmp_path / "h"), "-o", str(tmp_path / "out"),
                 "-D", "mapreduce.map.memory.mb=2048", "--name", "wc", "--parallel", "2"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["state"] == "SUCCEEDED"
    record = printed["record"]
    assert (record["n_maps"], record["n_reduces"]) == (3, 2)
    assert record["map_memory_mb"] == 2048 and record["job_name"] == "wc"
    assert record["reduce_output_records"] == 9
    history = read_jhist(printed["history"])
    assert history.record["map_memory_mb"] == 2048
    assert history.record["map_output_records"] == 12 * 200
    counts = dict(line.split("\t") for part in sorted((tmp_path / "out").glob("part-*"))
                  for line in part.read_text().splitlines())
    assert counts["the"] == "600"


def test_run_errors_are_one_line_and_exit_2(programs, three_lines, tmp_path, capsys):
    args = ["run", "--input", str(three_lines), "--mapper",
            shlex.join(programs["fail_always_map"]), "--maps", "1", "--reduces", "0",
            "--history", str(tmp_path / "h"), "-o", str(tmp_path / "out")]
    assert main(args) == 2
    # (a loaded machine adds a warning line first; the error itself is one line)
    err = [line for line in capsys.readouterr().err.splitlines()
           if not line.startswith("jobsize: warning:")]
    assert len(err) == 1 and err[0].startswith("jobsize: error: job_") and "boom" in err[0]
    assert list((tmp_path / "h").glob("*.jhist"))  # the failed job's history is kept
    assert main(["run", "--input", str(tmp_path / "nope"), "--mapper", "cat", "--maps", "1",
                 "--history", str(tmp_path / "h"), "-o", str(tmp_path / "o2")]) == 2
    assert "nope: input path does not exist" in capsys.readouterr().err


def _probe_args(programs, text, *extra):
    return ["probe", "--input", str(text), "--mapper", shlex.join(programs["wc_map"]),
            "--reducer", shlex.join(programs["wc_reduce"]), *extra]


def test_probe_prints_the_probe_record(programs, three_lines, capsys):
    assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "2",
                            "--seed", "1")) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["uberized"] is False
    assert 0.1 < record["probe_fraction"] <= 0.5
    assert record["probe_reduce_input_records"] == record["probe_map_output_records"] > 0
    # the job as predict takes it: its shape and configuration beside the probe record
    assert (record["n_maps"], record["n_reduces"]) == (4, 2)
    assert record["map_input_bytes"] == three_lines.stat().st_size
    assert record["conf"]["dfs.blocksize"] == str(64 << 20)
    # Hadoop's default is no uber mode: a small job is probed unless its conf enables it
    uber_on = ("-D", "mapreduce.job.ubertask.enable=true")
    assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "1")) == 0
    assert json.loads(capsys.readouterr().out)["uberized"] is False
    # an uber job is probed all the same, unless sized from the history as the paper does
    assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "1",
                            *uber_on, "--uber-from-history")) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["uberized"] is True and record["probe_fraction"] is None
    assert "uber" in record["reason"] and "--uber-from-history" in record["reason"]
    for old_spelling in ((), ("--force",)):  # --force, the default now, still accepted
        assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "1",
                                *uber_on, *old_spelling, "--seed", "2")) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["uberized"] is True and record["probe_map_output_records"] > 0
        assert "probed all the same" in record["reason"]
    with pytest.raises(SystemExit):
        main(_probe_args(programs, three_lines, "--force", "--uber-from-history"))


def test_probe_sizes_the_job_run_runs_when_maps_is_only_a_hint(programs, three_lines,
                                                                tmp_path, capsys):
    """``--maps`` is Hadoop's hint: with a smaller split size the job runs more maps than it
    says, and the probe's N_m, f_p and uber plan are those of the job that runs."""
    split = str(three_lines.stat().st_size // 5)
    shape = ["--maps", "2", "--reduces", "1", "--split-size", split]
    uber_on = ["-D", "mapreduce.job.ubertask.enable=true"]
    assert main(_probe_args(programs, three_lines, *shape, *uber_on, "--seed", "1")) == 0
    probed = json.loads(capsys.readouterr().out)
    assert main(["run", "--input", str(three_lines), "--mapper", shlex.join(programs["wc_map"]),
                 "--reducer", shlex.join(programs["wc_reduce"]), *shape, *uber_on,
                 "--history", str(tmp_path / "h"), "-o", str(tmp_path / "out")]) == 0
    ran = json.loads(capsys.readouterr().out)["record"]
    assert probed["n_maps"] == ran["n_maps"] == 5
    assert probed["uberized"] == ran["uberized"]
    assert probed["probe_fraction"] == pytest.approx(1 / 5, rel=0.2)


def test_probe_hadoop_prints_the_cluster_commands(programs, three_lines, tmp_path, capsys):
    sample_dir = tmp_path / "sample"
    assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "2", "--seed",
                            "3", "--hadoop", "--print-commands", "--sample-dir",
                            str(sample_dir), "--hdfs-dir", "/user/me/probe")) == 0
    out = capsys.readouterr().out
    assert "hdfs dfs -put -f" in out
    assert "hadoop jar" in out and "mapreduce.job.ubertask.enable=true" in out
    assert "-input /user/me/probe/0/three.txt" in out
    written = (sample_dir / "0" / "three.txt").read_bytes()
    assert written and written.endswith(b"\n")
    assert f"{len(written)} sample bytes" in out


def test_probe_hadoop_commands_for_an_uber_job(programs, three_lines, tmp_path, capsys):
    """An uber job's probe is printed as any job's, unless it is sized from the history
    (--uber-from-history): then there is nothing to run, and no sample is written."""
    uber = ["--maps", "4", "--reduces", "1", "-D", "mapreduce.job.ubertask.enable=true",
            "--hadoop", "--print-commands"]
    assert main(_probe_args(programs, three_lines, *uber, "--sample-dir",
                            str(tmp_path / "probed"))) == 0
    out = capsys.readouterr().out
    assert "hadoop jar" in out
    # several maps and a reduce: the sample in two files, so that the probe's second map runs
    # warm, as the job's later maps will
    assert (tmp_path / "probed" / "0" / "three.txt").is_file()
    assert (tmp_path / "probed" / "1" / "three.txt").is_file()
    assert "mapreduce.job.ubertask.maxmaps=2" in out and out.count("-input ") == 2
    assert main(_probe_args(programs, three_lines, *uber, "--uber-from-history",
                            "--sample-dir", str(tmp_path / "unprobed"))) == 0
    out = capsys.readouterr().out
    assert "hadoop jar" not in out and "--uber-from-history" in out
    assert "nothing to run" in out and not (tmp_path / "unprobed").exists()


def test_probe_rejects_reduces_without_a_reducer(programs, three_lines, capsys):
    assert main(["probe", "--input", str(three_lines), "--mapper", "cat", "--maps", "2",
                 "--reduces", "1"]) == 2
    assert "no reducer" in capsys.readouterr().err


def test_the_probes_output_is_the_job_predict_takes_as_is(programs, three_lines, tmp_path,
                                                          capsys, monkeypatch):
    """probe → predict: the CLI pipe and the Python call accept the same document."""
    import io

    from jobsize.models.synthetic import linear_trace

    import jobsize
    from jobsize.schema import write_trace

    trace = tmp_path / "t.parquet"
    write_trace(linear_trace(300, seed=4), trace)
    model = tmp_path / "m.json"
    assert main(["fit", str(trace), "--cv", "0", "--calibrate", "none", "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(_probe_args(programs, three_lines, "--maps", "4", "--reduces", "2",
                            "--seed", "5", "--name", "wc-daily")) == 0
    document = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO(document))
    assert main(["predict", "--model", str(model), "--job", "-"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_python = jobsize.predict(str(model), json.loads(document)).to_dict()
    assert from_cli == json.loads(json.dumps(from_python))
    assert from_cli["SE_m_s"] > 0 and not from_cli["uber"]


def test_the_map_hint_defaults_as_hadoops_does(programs, three_lines, tmp_path, capsys):
    """Without --maps the hint is -D mapreduce.job.maps, else Hadoop's default of 2 — the same
    in probe and run; a hint that is not a count is a one-line error."""
    split = ["--split-size", str(three_lines.stat().st_size)]
    for given, maps in (([], 2), (["-D", "mapreduce.job.maps=3"], 3)):
        assert main(_probe_args(programs, three_lines, "--reduces", "1", *split, *given)) == 0
        assert json.loads(capsys.readouterr().out)["n_maps"] == maps
        assert main(["run", "--input", str(three_lines), "--mapper", "cat", "--reduces", "0",
                     *split, *given, "--history", str(tmp_path / f"h{maps}"),
                     "-o", str(tmp_path / f"o{maps}")]) == 0
        assert json.loads(capsys.readouterr().out)["record"]["n_maps"] == maps
    assert main(_probe_args(programs, three_lines, "--reduces", "1", "-D",
                            "mapreduce.job.maps=many")) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "mapreduce.job.maps must be an integer" in err
