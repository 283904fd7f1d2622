"""The committed Hadoop trace (datasets/hadoop-trace.*): jobs measured on Apache Hadoop's own mini
cluster, what it holds, and that HADOOP.md states the accuracy its data gives."""

from __future__ import annotations

import json

import pytest
from jobsize.models.evaluation import evaluate

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
    assert sum(run["jobs"] for run in settings["runs"]) == len(trace)
