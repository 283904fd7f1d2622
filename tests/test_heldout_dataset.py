"""The committed held-out trace (datasets/heldout.*): what it holds and how it says it was made."""

from __future__ import annotations

import json

import numpy as np
import pytest

from jobsize.bundled import datasets_dir
from jobsize.heldout import heldout_pairs, kind_scores
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path
from jobsize.workloads import HELD_OUT

TRACE = datasets_dir() / "heldout.parquet"


@pytest.fixture(scope="module")
def trace():
    return read_trace(TRACE)


def test_held_out_trace_covers_every_kind_over_a_wide_range(trace):
    counts = trace["job_type"].value_counts()
    assert set(counts.index) == set(HELD_OUT)
    assert counts.min() >= 8
    assert trace["n_maps"].min() == 1 and 100 <= trace["n_maps"].max() <= 200
    assert set(trace["source"]) == {"jobsize evaluate"}
    assert list(trace["draw_index"]) == list(range(len(trace)))
    assert trace["host_load_1m"].notna().all()
    tasks = read_trace(tasks_path(TRACE), columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])


def test_every_job_has_its_prediction_and_probe_time(trace):
    assert trace["prediction"].notna().sum() + trace["predict_error"].notna().sum() == len(trace)
    for text, s in zip(trace["prediction"].dropna(), trace["S_pred_mb_s"].dropna(), strict=True):
        assert json.loads(text)["S"]["memory_mb_s"] == pytest.approx(s)
    assert (trace["probe_s"] > 0).all()
    big = trace[trace["n_maps"] >= 10]
    assert len(big) >= 10 and not big["probe_planned_uber"].any()


def test_scores_of_the_trace_are_computable(trace):
    scores = kind_scores("all", heldout_pairs(trace))
    assert scores.jobs == (trace["state"] == "SUCCEEDED").sum()
    assert np.isfinite(scores.errors.r2["S"]) and scores.probe_jobs >= 10


def test_the_dataset_says_how_it_was_made():
    text = (datasets_dir() / "HELDOUT.md").read_text()
    settings = json.loads((datasets_dir() / "heldout.evaluate.json").read_text())
    assert "jobsize evaluate" in text and f"--seed {settings['seed']}" in text
    assert settings["runs"] and all("load_1m" in run for run in settings["runs"])
    assert (datasets_dir() / "heldout.report.md").read_text().startswith("# Held-out evaluation")
