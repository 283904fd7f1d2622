"""``jobsize evaluate --engine hadoop``: a held-out kind probed and run on the session's mini
cluster — the probe a real uber job on its probing queue, the job a Hadoop Streaming job —
and recorded from the cluster's own history."""

from __future__ import annotations

import json

import numpy as np
import pytest
from jobsize.collectors.jhist import read_jhist

from jobsize.bundled import reference_trace
from jobsize.cli import main
from jobsize.schema import read_trace

pytestmark = pytest.mark.hadoop


def test_evaluate_on_hadoop(hadoop_cluster, tmp_path, capsys):
    trace = read_trace(reference_trace())
    history = tmp_path / "history.parquet"
    trace[trace["job_type"].isin(("grep", "groupby", "sort", "topk", "wordcount"))].to_parquet(
        history, index=False)
    out = tmp_path / "eval"
    argv = ["evaluate", "-o", str(out), "--trace", str(history), "--kinds", "hashaudit",
            "--scale", "0.004", "--seed", "3", "--jobs-per-kind", "1", "--engine", "hadoop",
            "--cluster", hadoop_cluster.directory]
    assert main(["-q", *argv]) == 0, capsys.readouterr().err
    records = read_trace(out / "heldout.parquet")
    assert len(records) == 1
    job = records.iloc[0]
    assert job["state"] == "SUCCEEDED" and job["source"] == "jobsize evaluate:hadoop"
    assert job["job_id"].startswith("job_") and not job["uberized"]
    assert job["probe_fraction"] > 0 and np.isfinite(job["S_pred_mb_s"])
    # the job's and the probe's histories are the cluster's own
    assert read_jhist(out / "history" / "jobs" / f"{job['job_id']}.jhist").record[
        "job_id"] == job["job_id"]
    (probe,) = (out / "history" / "probes").rglob("*.jhist")
    record = read_jhist(probe).record
    assert record["uberized"] is True and record["queue"] == "root.probing"
    assert json.loads((out / "evaluate.json").read_text())["distribution"]["engine"] == "hadoop"
    report = (out / "report.md").read_text()
    assert "jobs and probes on the Hadoop mini cluster" in report
    assert "--engine hadoop" in report
    # the same directory is not resumed on the other engine
    capsys.readouterr()
    assert main([*argv[:-4]]) == 2
    assert "evaluate.json" in capsys.readouterr().err
