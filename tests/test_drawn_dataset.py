"""The committed draws of job kinds (datasets/drawn-*.*): their kinds are the draws their seeds
make, and the scores DRAWN.md states are the ones their data give."""

from __future__ import annotations

import json
import re

import numpy as np
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
         "drawn-hadoop-java-20261206": 3, "drawn-hadoop-java-20261207": 3,
         "drawn-hadoop-uber-20261208": 3, "drawn-hadoop-uber-20261209": 3,
         "drawn-hadoop-uber-20261210": 3, "drawn-hadoop-uber-20261211": 3,
         "drawn-hadoop-uber-20261212": 3, "drawn-hadoop-uber-20261213": 3,
         "drawn-hadoop-uber-20261214": 3, "drawn-hadoop-uber-20261215": 3,
         "drawn-20261216": 3, "drawn-hadoop-java-20261217": 3}
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


def _uber_row(actual, predicted, low, high) -> str:
    ratio = predicted / actual
    covered = int(((actual >= low) & (actual <= high)).sum())
    return (f"{np.median(np.abs(ratio - 1)):.0%} | {np.mean(np.abs(ratio - 1) <= 0.25):.0%} | "
            f"{np.mean((ratio >= 2) | (ratio <= 0.5)):.0%} | ").replace("%", " %") + \
        (f"{covered / len(actual):.0%} ({covered} of {len(actual)})".replace("%", " %")
         if covered else "0 %") + f" | {np.exp(np.mean(np.log(ratio))):.2f} |"


#: the Hadoop uber draws, and the draws the Hadoop trace's model was calibrated on when each ran
UBER_DRAWS = {"drawn-hadoop-uber-20261208": ("drawn-hadoop-20261201",),
              "drawn-hadoop-uber-20261209": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261210": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261211": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261212": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261213": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261214": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208"),
              "drawn-hadoop-uber-20261215": ("drawn-hadoop-20261201",
                                             "drawn-hadoop-uber-20261208")}


@pytest.mark.parametrize("draw", sorted(UBER_DRAWS))
def test_drawn_md_states_the_hadoop_uber_jobs_three_ways(draw) -> None:
    """A Hadoop uber draw's uber jobs as recorded (sized from the probe's task times), and
    re-predicted by the Hadoop trace's model without the probe's task times (eq 6 and 7) and
    without the probe (the history's uber jobs), as its section of DRAWN.md says — by the
    model as it was then, calibrated on the draws before it."""
    from jobsize.bundled import path
    from jobsize.predictor import SizePredictor
    from jobsize.schema import read_traces

    text = (datasets_dir() / "DRAWN.md").read_text()
    text = text[re.search(rf"^# .*: {draw}$", text, re.MULTILINE).start():]
    end = text.find("\n# ")
    text = text if end < 0 else text[:end]
    trace = read_trace(draw)
    uber = trace[trace["uberized"].astype(bool) & trace["state"].astype(str).eq("SUCCEEDED")]
    assert len(uber) == 29
    actual = uber["S_mb_s"].to_numpy(float)
    recorded = [uber[c].to_numpy(float) for c in ("S_pred_mb_s", "S_low_mb_s", "S_high_mb_s")]
    assert f"| from the probe's task times (the default) | {_uber_row(actual, *recorded)}" in text
    history = datasets_dir() / "hadoop-trace.parquet"
    model = SizePredictor(level=0.9).fit(
        read_trace(history), calibration=read_traces([path(d) for d in UBER_DRAWS[draw]]))
    probe = [c for c in uber.columns if c.startswith("probe_")
             and c not in ("probe_planned_uber", "probe_error", "probe_s")]
    for way, records in (("by eq 6 and 7 from the same probe",
                          uber.assign(probe_map_task_ms=np.nan, probe_reduce_task_ms=np.nan)),
                         ("from the history's uber jobs", uber.assign(**dict.fromkeys(probe)))):
        frame = model.predict_frame(records)
        row = [frame[c].to_numpy(float) for c in ("S_mb_s", "S_low_mb_s", "S_high_mb_s")]
        assert f"| {way} | {_uber_row(actual, *row)}" in text
