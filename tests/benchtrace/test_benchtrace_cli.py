"""``jobsize bench-trace`` on the command line, including a real kill and resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from jobsize.cli import main
from jobsize.schema import read_trace

# Tiny splits and a huge map scale: every drawn job has one map (uber, not probed) — fast.
TINY = ["--split-size", "8K", "--map-scale", "100000", "--workloads", "grep,groupby"]


def test_bench_trace_runs_and_resumes_as_a_no_op(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench-trace", "--jobs", "3", "--seed", "1", "-o", str(out), *TINY]) == 0
    printed = capsys.readouterr().out
    assert "[1/3]" in printed and "[3/3]" in printed and "uber, not probed" in printed
    trace = read_trace(out / "trace.parquet")
    assert list(trace["draw_index"]) == [0, 1, 2]
    assert trace["uberized"].all() and set(trace["job_type"]) <= {"grep", "groupby"}
    assert main(["bench-trace", "--jobs", "3", "--seed", "1", "-o", str(out), *TINY]) == 0
    assert "all 3 jobs are recorded" in capsys.readouterr().out
    # a larger --jobs extends the same trace with the next draws
    assert main(["bench-trace", "--jobs", "4", "--seed", "1", "-o", str(out), *TINY]) == 0
    assert "resuming: 3 of 4" in capsys.readouterr().out
    assert list(read_trace(out / "trace.parquet")["draw_index"]) == [0, 1, 2, 3]


def test_dry_run_prints_the_bins_and_runs_nothing(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench-trace", "--jobs", "300", "--seed", "1", "-o", str(out),
                 "--dry-run"]) == 0
    printed = capsys.readouterr().out
    for label in ("1-25", "26-50", "3201-6400", "58.0%", "map-only"):
        assert label in printed
    assert not out.exists()


def test_other_options_on_an_existing_trace_exit_2(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench-trace", "--jobs", "1", "--seed", "1", "-o", str(out), *TINY]) == 0
    capsys.readouterr()
    assert main(["bench-trace", "--jobs", "1", "--seed", "2", "-o", str(out), *TINY]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jobsize: error: ") and "bench-trace.json" in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_workload_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["bench-trace", "--jobs", "1", "--seed", "1", "-o", str(tmp_path),
              "--workloads", "grep,nope"])
    assert exc.value.code == 2


def test_killed_mid_run_and_resumed(tmp_path):
    """SIGKILL the command once it has recorded a job, then run it again to the end."""
    out = tmp_path / "bench"
    cmd = [sys.executable, "-m", "jobsize", "bench-trace", "--jobs", "8", "--seed", "3",
           "-o", str(out), "--split-size", "8K", "--map-scale", "40",
           "--workloads", "grep,wordcount,csvfilter"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "trace.parquet").exists():
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    before = read_trace(out / "trace.parquet") if (out / "trace.parquet").exists() else None
    assert before is None or len(before) < 8
    assert subprocess.run(cmd, capture_output=True, check=False).returncode == 0
    trace = read_trace(out / "trace.parquet")
    assert list(trace["draw_index"]) == list(range(8))
    assert trace["job_id"].is_unique
    jhists = sorted(p.stem for p in (out / "history" / "jobs").glob("*.jhist"))
    assert jhists == sorted(trace["job_id"])
