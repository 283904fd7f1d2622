"""The committed draws of job kinds (datasets/drawn-*.*): their kinds are the draws their seeds
make, and the scores DRAWN.md states are the ones their data give."""

from __future__ import annotations

import json

import pytest

from jobsize.bundled import datasets_dir
from jobsize.heldout import heldout_pairs, kind_scores
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path
from jobsize.workloads.kindspace import draw_kinds

#: each committed draw and its jobs per kind
DRAWS = {"drawn-20261127": 4, "drawn-20261128": 3, "drawn-20261129": 4, "drawn-20261130": 3,
         "drawn-20261131": 3, "drawn-hadoop-20261201": 3, "drawn-loaded-wall-20261202": 3,
         "drawn-loaded-cpu-20261202": 3, "drawn-hadoop-20261203": 3,
         "drawn-uber-history-20261204": 3, "drawn-uber-probed-20261204": 3,
         "drawn-uber-capped-20261204": 3, "drawn-hadoop-20261205": 3,
         "drawn-hadoop-java-20261206": 3, "drawn-hadoop-java-20261207": 3}
#: the clock of a draw's model where it is not the wall clock
CLOCK = {"drawn-loaded-cpu-20261202": "cpu"}


@pytest.fixture(scope="module", params=sorted(DRAWS))
def name(request):
    return request.param


@pytest.fixture(scope="module")
def trace(name):
    return read_trace(name)


@pytest.fixture(scope="module")
def settings(name):
    return json.loads((datasets_dir() / f"{name}.evaluate.json").read_text())


def test_its_kinds_are_the_draw_of_its_kind_seed(name, trace, settings) -> None:
    plan = settings["distribution"]
    kinds = draw_kinds(plan["kind_seed"], len(plan["kinds"]), plan.get("java_share", 0.0))
    assert [k.name for k in kinds] == plan["kinds"]
    assert set(trace["job_type"]) == set(plan["kinds"])
    assert trace["job_type"].value_counts().eq(DRAWS[name]).all()
    tasks = read_trace(tasks_path(datasets_dir() / f"{name}.parquet"), columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])


def test_drawn_md_states_what_the_data_gives(name, trace, settings) -> None:
    text = (datasets_dir() / "DRAWN.md").read_text()
    pairs = heldout_pairs(trace, CLOCK.get(name, "wall"))
    scores = kind_scores("all", pairs).errors
    covered = ((pairs["S_mb_s"] >= pairs["S_low_mb_s"])
               & (pairs["S_mb_s"] <= pairs["S_high_mb_s"])).sum()
    assert f"R² of S {scores.r2['S']:.3f}" in text
    assert f"covering {round(100 * covered / len(trace))} % ({covered} of {len(trace)})" in text
    assert f"--kind-seed {settings['distribution']['kind_seed']}" in text
    assert f"{len(trace)} jobs" in text
