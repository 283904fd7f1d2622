"""The committed Hadoop trace (datasets/hadoop-trace.*): jobs measured on Apache Hadoop's own mini
cluster, what it holds, and that HADOOP.md states the accuracy its data gives."""

from __future__ import annotations

import json

import pytest
from jobsize.models.evaluation import evaluate

from jobsize.benchtrace.summary import all_runs
from jobsize.bundled import datasets_dir
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path

TRACE = datasets_dir() / "hadoop-trace.parquet"


@pytest.fixture(scope="module")
def trace():
    return read_trace("hadoop-trace")


def test_it_holds_300_jobs_of_20_kinds_six_of_them_java(trace) -> None:
    kinds = set(trace["job_type"])
    assert len(trace) >= 300 and len(kinds) >= 20
    assert len({k for k in kinds if k.startswith("java:")}) >= 6
    assert set(trace["source"]) == {"bench-trace:hadoop"}
    assert trace["host_load_1m"].notna().all()
    assert trace["probe_fraction"].notna().sum() >= 100  # real probes, on the cluster
    tasks = read_trace(tasks_path(TRACE), columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])


def test_hadoop_md_states_what_the_data_gives(trace) -> None:
    text = " ".join((datasets_dir() / "HADOOP.md").read_text().split())
    settings = json.loads((datasets_dir() / "hadoop-trace.bench-trace.json").read_text())
    _, ev = evaluate(trace, folds=0, calibrate_by="none")
    r2 = ev.prequential.r2
    assert f"prequential R² {r2['SE_m']:.3f} / {r2['SE_r']:.3f} / {r2['S']:.3f}" in text
    assert f"{len(trace)} jobs" in text and "--engine hadoop" in text
    assert sum(run["jobs"] for run in all_runs(settings)) == len(trace)
    # the run table quotes every run, the appended jobs' (extensions) too
    assert all(run["started"] in text for run in all_runs(settings))


def test_hadoop_md_states_the_probe_costs_the_data_gives(trace) -> None:
    """Every probe within 1.5 × Algorithm 1's floor plus one uber job's start-up, and the
    median cost of jobs of 10 maps or more, as HADOOP.md says."""
    import numpy as np

    text = " ".join((datasets_dir() / "HADOOP.md").read_text().split())
    uber = trace[trace["uberized"].astype(bool)]
    start_s = float(((uber["finish_time_ms"] - uber["submit_time_ms"]
                      - uber["map_time_ms"] - uber["reduce_time_ms"]) / 1000).median())
    probed = trace[trace["probe_wall_ms"].notna()]
    se_s = (probed["map_time_ms"] + probed["reduce_time_ms"]) / 1000
    floor_s = se_s / np.maximum(probed["n_maps"], probed["n_reduces"].fillna(0))
    within = int((probed["probe_wall_ms"] / 1000 <= 1.5 * floor_s + start_s).sum())
    big = probed["n_maps"] >= 10
    cost = float((probed["probe_wall_ms"] / 1000 / se_s)[big].median())
    assert f"{start_s:.1f} s at the median (the {len(uber)} uber jobs)" in text
    assert f"Every probe ({within} of {len(probed)})" in text and within == len(probed)
    assert f"{100 * cost:.1f} % of the job at the median ({int(big.sum())} jobs)" in text
