"""The committed fresh draw (datasets/drawn-20261127.*): its kinds are the draw its seed makes,
and the scores DRAWN.md states are the ones its data gives."""

from __future__ import annotations

import json

import pytest

from jobsize.bundled import datasets_dir
from jobsize.heldout import heldout_pairs, kind_scores
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path
from jobsize.workloads.kindspace import draw_kinds

NAME = "drawn-20261127"
TRACE = datasets_dir() / f"{NAME}.parquet"


@pytest.fixture(scope="module")
def trace():
    return read_trace(NAME)


@pytest.fixture(scope="module")
def settings():
    return json.loads((datasets_dir() / f"{NAME}.evaluate.json").read_text())


def test_its_kinds_are_the_draw_of_its_kind_seed(trace, settings) -> None:
    plan = settings["distribution"]
    kinds = draw_kinds(plan["kind_seed"], len(plan["kinds"]))
    assert [k.name for k in kinds] == plan["kinds"]
    assert set(trace["job_type"]) == set(plan["kinds"])
    assert trace["job_type"].value_counts().eq(4).all()
    tasks = read_trace(tasks_path(TRACE), columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])


def test_drawn_md_states_what_the_data_gives(trace, settings) -> None:
    text = (datasets_dir() / "DRAWN.md").read_text()
    scores = kind_scores("all", heldout_pairs(trace)).errors
    covered = ((trace["S_mb_s"] >= trace["S_low_mb_s"])
               & (trace["S_mb_s"] <= trace["S_high_mb_s"])).sum()
    assert f"R² of S {scores.r2['S']:.3f}" in text
    assert f"covering {round(100 * covered / len(trace))} % ({covered} of {len(trace)})" in text
    assert f"--kind-seed {settings['distribution']['kind_seed']}" in text
    assert f"{len(trace)} jobs" in text
