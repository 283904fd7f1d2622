"""``jobsize evaluate``: the held-out kinds through probe → predict → run, its report, its
resume, its metrics against hand-computed values, and the held-out kinds' absence from every
default draw."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobsize.models.evaluation import (
    ErrorProfile,
    coverage,
    median_relative_error,
    probe_cost,
    r2,
    share_off_by,
    share_within,
)

from jobsize.benchtrace import Distribution, draw_jobs
from jobsize.bundled import reference_trace
from jobsize.cli import main
from jobsize.errors import ConfigError
from jobsize.heldout import (
    Design,
    coverage_spread,
    flat_job,
    kind_scores,
    prediction_columns,
)
from jobsize.schema import TASK_COLUMNS, read_trace
from jobsize.workloads import HELD_OUT, WORKLOADS, workload

#: Reference kinds of the small history the tests fit on (fast fits, still 5 groups).
HISTORY_KINDS = ("grep", "groupby", "sort", "topk", "wordcount")
#: Tiny inputs (a few KB to a few hundred KB): one or two maps per job.
TINY = ["--kinds", "hashaudit,pagestats", "--scale", "0.004", "--seed", "3",
        "-D", "mapreduce.job.ubertask.enable=false", "--parallel", "1"]


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> str:
    trace = read_trace(reference_trace())
    path = tmp_path_factory.mktemp("history") / "history.parquet"
    trace[trace["job_type"].isin(HISTORY_KINDS)].to_parquet(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory, history):
    """One evaluation run with one job per kind, then extended to two (a resume)."""
    out = tmp_path_factory.mktemp("evaluate") / "eval"
    args = ["evaluate", "-o", str(out), "--trace", history, *TINY]
    assert main([*args, "--jobs-per-kind", "1"]) == 0
    first = read_trace(out / "heldout.parquet")
    assert main([*args, "--jobs-per-kind", "2"]) == 0
    return out, first, args


def test_evaluate_writes_trace_report_model_and_job_documents(evaluated):
    out, _, _ = evaluated
    for name in ("heldout.parquet", "heldout.tasks.parquet", "report.md", "model.json",
                 "leave-one-kind-out.parquet", "evaluate.json"):
        assert (out / name).is_file(), name
    trace = read_trace(out / "heldout.parquet")
    assert list(trace["draw_index"]) == [0, 1, 2, 3]
    assert list(trace["job_type"]) == ["hashaudit", "pagestats"] * 2
    assert (trace["state"] == "SUCCEEDED").all() and (trace["source"] == "jobsize evaluate").all()
    # probed (uber mode disabled by -D), predicted, with the probe's time and the host load
    assert not trace["probe_planned_uber"].any() and not trace["uberized"].any()
    assert (trace["probe_fraction"] > 0).all() and (trace["probe_s"] > 0).all()
    assert trace["predict_error"].isna().all()
    for column in ("SE_m_pred_s", "S_pred_mb_s", "S_low_mb_s", "S_high_mb_s", "SE_m_s",
                   "S_mb_s", "host_load_1m"):
        assert np.isfinite(trace[column].astype(float)).all(), column
    assert (trace["interval_level"] == 0.9).all()
    tasks = read_trace(out / "heldout.tasks.parquet",
                       columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])
    report = (out / "report.md").read_text()
    for text in ("| hashaudit | 2 | 0 |", "| pagestats | 2 | 0 |", "| all held-out jobs | 4 |",
                 "## Leave one kind out", "| held-out kinds | 4 |", "90 % interval coverage",
                 "jobsize evaluate -o", "## How much coverage depends on the kinds",
                 "Sets of 2 kinds drawn at random from the "):
        assert text in report, text


def test_a_job_document_replays_through_jobsize_predict(evaluated, capsys):
    out, _, _ = evaluated
    trace = read_trace(out / "heldout.parquet")
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.json"),
                 "--job", str(out / "jobs" / "1.json")]) == 0
    printed = json.loads(capsys.readouterr().out)
    stored = json.loads(trace["prediction"][1])
    assert printed["SE_m_s"] == pytest.approx(stored["SE_m_s"])
    assert printed["S"]["memory_mb_s"] == pytest.approx(trace["S_pred_mb_s"][1])
    document = json.loads((out / "jobs" / "1.json").read_text())
    assert document["n_maps"] == trace["n_maps"][1] and "probe_fraction" in document
    assert document["map_input_bytes"] == trace["map_input_bytes"][1]


def test_resume_keeps_recorded_jobs_and_refuses_other_settings(evaluated, capsys):
    out, first, args = evaluated
    trace = read_trace(out / "heldout.parquet")
    assert list(trace["job_id"][:2]) == list(first["job_id"])
    assert main([*args, "--jobs-per-kind", "2"]) == 0
    assert "resuming: 4 of 4" in capsys.readouterr().out
    assert len(read_trace(out / "heldout.parquet")) == 4
    assert main([*args[:-6], "--scale", "0.01", *args[-4:], "--jobs-per-kind", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jobsize: error: ") and "evaluate.json" in err
    # a capped probe is another evaluation, refused on this directory too
    assert main([*args, "--jobs-per-kind", "2", "--max-fraction", "0.03"]) == 2
    assert "evaluate.json" in capsys.readouterr().err


def test_a_cpu_clock_model_is_scored_and_recorded_on_cpu_time(history, tmp_path):
    """With a model of the CPU clock the recorded actual sizes are CPU time, as its
    predictions are (they were recorded as wall time)."""
    model = tmp_path / "cpu.json"
    assert main(["-q", "fit", history, "--clock", "cpu", "-o", str(model)]) == 0
    out = tmp_path / "eval"
    assert main(["evaluate", "-o", str(out), "--model", str(model), *TINY,
                 "--jobs-per-kind", "1"]) == 0
    trace = read_trace(out / "heldout.parquet")
    assert trace["SE_m_s"].tolist() == pytest.approx((trace["map_cpu_ms"] / 1000).tolist())
    # a tiny CPU-bound task's CPU time can equal its elapsed time to the millisecond (it did
    # in a CI run), so the report says which clock was scored rather than the data alone
    assert "cpu clock" in (out / "report.md").read_text()


def test_a_capped_probe_fraction_is_part_of_the_design():
    assert "max_fraction" not in Design().settings()  # directories made before it resume
    assert Design(max_fraction=0.03).settings()["max_fraction"] == 0.03
    with pytest.raises(ConfigError, match="largest fraction"):
        Design(max_fraction=0.0)


def test_uber_jobs_are_probed_and_sized_from_their_probes(history, tmp_path, capsys):
    # directories made before uber jobs were probed by default resume as they were made: with
    # uber mode off nothing differs; with it on, with the option
    assert "probe_uber" not in Design().settings()
    uber_on = {"mapreduce.job.ubertask.enable": "true"}
    assert "probe_uber" not in Design(probe_uber=False, conf=uber_on).settings()
    assert Design(conf=uber_on).settings()["probe_uber"] is True
    out = tmp_path / "uber"
    tiny = [a for a in TINY if a != "mapreduce.job.ubertask.enable=false"]
    tiny[tiny.index("-D") + 1:tiny.index("-D") + 1] = ["mapreduce.job.ubertask.enable=true"]
    assert main(["evaluate", "-o", str(out), "--trace", history, *tiny,
                 "--jobs-per-kind", "1"]) == 0
    trace = read_trace(out / "heldout.parquet")
    assert trace["uberized"].all() and trace["probe_planned_uber"].all()
    assert trace["probe_fraction"].notna().all()
    for stored in trace["prediction"]:
        prediction = json.loads(stored)
        assert prediction["uber"] and any("sized from its probe" in n
                                          for n in prediction["notes"])
    report = (out / "report.md").read_text()
    assert "probed, sized from their probes) for 2 jobs" in report
    assert "--uber-from-history" not in report.splitlines()[2]
    # the paper's way, on request: unprobed, sized from the history's uber jobs
    assert main(["evaluate", "-o", str(out), "--trace", history, *tiny, "--uber-from-history",
                 "--jobs-per-kind", "1"]) == 2  # not the options the directory was made with
    assert "were probed: resume without --uber-from-history" in capsys.readouterr().err
    paper = tmp_path / "paper"
    assert main(["evaluate", "-o", str(paper), "--trace", history, *tiny,
                 "--uber-from-history", "--jobs-per-kind", "1"]) == 0
    trace = read_trace(paper / "heldout.parquet")
    assert trace["uberized"].all() and trace["probe_fraction"].isna().all()
    for stored in trace["prediction"]:
        prediction = json.loads(stored)
        assert not any("sized from its probe" in n for n in prediction["notes"])
    report = (paper / "report.md").read_text()
    assert "not probed (--uber-from-history), sized from history) for 2 jobs" in report
    # as a directory made before uber jobs were probed by default is: resumed with the option
    assert main(["evaluate", "-o", str(paper), "--trace", history, *tiny,
                 "--jobs-per-kind", "1"]) == 2
    assert "resume with --uber-from-history" in capsys.readouterr().err
    assert "--uber-from-history" in report.splitlines()[2]


def test_another_model_on_an_evaluation_directory_is_refused(evaluated, tmp_path, capsys):
    out, _, args = evaluated
    other = tmp_path / "other.json"
    other.write_text((out / "model.json").read_text().replace('"level": 0.9', '"level": 0.8'))
    assert main([*args, "--model", str(other)]) == 2
    assert "another directory" in capsys.readouterr().err


# --- metrics against hand-computed values ------------------------------------------------------

ACTUAL = np.array([100.0, 200.0, 400.0, 800.0])
PREDICTED = np.array([110.0, 150.0, 900.0, 800.0])


def test_metric_functions_against_hand_computed_values():
    # residuals 10, 50, 500, 0; SS_res 252600; mean 375, SS_tot 287500
    assert r2(ACTUAL, PREDICTED) == pytest.approx(1 - 252600 / 287500)
    # relative errors 0.1, 0.25, 1.25, 0
    assert median_relative_error(ACTUAL, PREDICTED) == pytest.approx(0.175)
    assert share_within(ACTUAL, PREDICTED, 0.25) == 0.75  # 0.25 counts as within
    assert share_off_by(ACTUAL, PREDICTED, 2.0) == 0.25  # 900 / 400 = 2.25
    assert share_off_by(np.array([10.0, 10.0]), np.array([5.0, -1.0])) == 1.0
    low, high = np.array([90.0, 160.0, 300.0, np.nan]), np.array([120.0, 300.0, 380.0, np.nan])
    # 100 in [90, 120] and 200 in [160, 300]; 400 above 380; the unknown interval left out
    assert coverage(ACTUAL, low, high) == pytest.approx(2 / 3)
    assert math.isnan(coverage(ACTUAL, np.full(4, np.nan), np.full(4, np.nan)))
    n, median, p90 = probe_cost(np.array([1.0, 2.0, 3.0, 4.0]),
                                np.array([100.0, 100.0, 100.0, 10.0]),
                                np.array([10, 20, 5, 50]), min_maps=10)
    # jobs 0, 1, 3: ratios 0.01, 0.02, 0.4; the 90th percentile interpolates 0.02 → 0.4
    assert (n, median, p90) == (3, pytest.approx(0.02), pytest.approx(0.02 + 0.8 * 0.38))


def test_kind_scores_on_a_fixed_table():
    pairs = pd.DataFrame({
        "job_id": list("abcde"), "finish_time_ms": range(5), "uber": False,
        "n_reduces": [1, 1, 0, 1, 1],
        "SE_m_s": [50.0, 100.0, 400.0, 400.0, 5.0], "SE_m_pred_s": [50.0, 80.0, 900.0, 380.0,
                                                                   np.nan],
        "SE_r_s": [50.0, 100.0, 0.0, 400.0, 5.0], "SE_r_pred_s": [60.0, 70.0, 0.0, 420.0,
                                                                 np.nan],
        "S_mb_s": [*ACTUAL, 10.0], "S_pred_mb_s": [*PREDICTED, np.nan],
        "S_low_mb_s": [90.0, 160.0, 300.0, 0.0, np.nan],
        "S_high_mb_s": [120.0, 300.0, 380.0, np.inf, np.nan],
        "S_vcore_s": 1.0, "S_pred_vcore_s": 1.0, "succeeded": True,
        "n_maps": [10, 10, 1, 12, 3], "probe_s": [1.0, 2.0, 1.0, 8.0, 1.0],
        "task_s": [100.0, 200.0, 400.0, 800.0, 10.0],
    })
    s = kind_scores("k", pairs)
    assert (s.jobs, s.unpredicted) == (5, 1)
    assert s.errors.jobs == 4
    assert s.errors.r2["S"] == pytest.approx(1 - 252600 / 287500)
    assert s.errors.r2["SE_m"] == pytest.approx(r2(np.array([50, 100, 400, 400.0]),
                                                   np.array([50, 80, 900, 380.0])))
    # SE_r over jobs with reduces only: a, b, d
    assert s.errors.r2["SE_r"] == pytest.approx(
        1 - (100 + 900 + 400) / ((50 - 550 / 3) ** 2 + (100 - 550 / 3) ** 2
                                 + (400 - 550 / 3) ** 2))
    assert (s.errors.mdare, s.errors.within_25, s.errors.off_2x) == (
        pytest.approx(0.175), 0.75, 0.25)
    # a and b inside, c above its interval; d's interval is unbounded and says nothing
    assert s.errors.coverage == pytest.approx(2 / 3)
    # probe cost over jobs of at least 10 maps: 1/100, 2/200, 8/800 — all 1 %
    assert (s.probe_jobs, s.probe_median, s.probe_p90) == (3, pytest.approx(0.01),
                                                           pytest.approx(0.01))
    assert ErrorProfile.of(pairs.iloc[:0]).jobs == 0


def _coverage_table(kinds: list[str], inside: list[bool]) -> pd.DataFrame:
    return pd.DataFrame({
        "job_type": kinds, "S_mb_s": 100.0,
        "S_low_mb_s": [50.0 if i else 150.0 for i in inside],
        "S_high_mb_s": [200.0 if i else 300.0 for i in inside]})


def test_coverage_spread_over_sets_of_kinds():
    # a and c covered whole, b missed whole; d's only interval is unbounded (says nothing)
    pairs = _coverage_table(list("aabbccd"), [True, True, False, False, True, True, True])
    pairs.loc[6, "S_high_mb_s"] = np.inf
    one = coverage_spread(pairs, 1, draws=3000, seed=1)
    assert one.per_kind == {"a": 1.0, "b": 0.0, "c": 1.0}
    assert one.quantiles[0] == 0.0 and one.quantiles[2] == 1.0
    assert one.above == pytest.approx(2 / 3, abs=0.05)
    assert one.below == pytest.approx(1 / 3, abs=0.05)
    assert one.above + one.below == 1.0  # no set of one kind lands inside the band
    every = coverage_spread(pairs, 3, draws=50)
    assert every.quantiles == pytest.approx((2 / 3,) * 3) and every.below == 1.0
    assert coverage_spread(pairs, 4) is None


# No per-example deadline: an example's first call imports pandas' groupby machinery, which
# on a loaded machine (or after a checkout, compiling) takes longer than hypothesis's 200 ms.
@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from("pqrstu"), st.booleans()), min_size=1, max_size=30),
       st.integers(1, 6))
def test_coverage_of_every_set_lies_between_its_kinds(jobs, size):
    pairs = _coverage_table([k for k, _ in jobs], [i for _, i in jobs])
    spread = coverage_spread(pairs, size, draws=200)
    if spread is None:
        assert size > len({k for k, _ in jobs})
        return
    low, high = min(spread.per_kind.values()), max(spread.per_kind.values())
    assert low - 1e-12 <= spread.quantiles[0] <= spread.quantiles[1] <= spread.quantiles[2]
    assert spread.quantiles[2] <= high + 1e-12
    assert 0 <= spread.above + spread.below <= 1


def test_prediction_fields_are_read_generically():
    prediction = {"SE_m_s": 3.0, "SE_r_s": 1.0, "S": {"memory_mb_s": 4096.0, "vcore_s": 4.0},
                  "intervals": {"level": 0.9, "S_memory_mb_s": [1000.0, None]},
                  "quantiles": {"0.5": 4000.0}}
    cols = prediction_columns(prediction)
    assert (cols["SE_m_pred_s"], cols["S_pred_mb_s"], cols["S_low_mb_s"]) == (3.0, 4096.0,
                                                                             1000.0)
    assert cols["S_high_mb_s"] == math.inf and cols["interval_level"] == 0.9
    empty = prediction_columns(None)
    assert all(math.isnan(v) for v in empty.values())
    assert flat_job({"a": 1, "conf": {"a": 2, "b": 3}, "probe": {"b": 4}}) == {"a": 2, "b": 4}


# --- the plan and the held-out kinds' place --------------------------------------------------


def test_design_draws_every_kind_in_turn_within_the_limits():
    design = Design(jobs_per_kind=6)
    draws = [design.draw(5, i) for i in range(design.jobs)]
    assert draws == [design.draw(5, i) for i in range(design.jobs)]  # a pure function
    assert [d.workload for d in draws[: len(HELD_OUT)]] == sorted(HELD_OUT)
    for d in draws:
        assert 0.5 * 2**20 - 1 <= d.input_bytes <= 150 * 2**20 + 1
        assert 1 <= d.n_maps <= design.max_maps
        assert d.n_maps == math.ceil(d.input_bytes / d.split_bytes)
        assert d.n_reduces == workload(d.workload).typical_reduces(d.input_bytes)
    assert max(d.n_maps for d in draws) >= 100 and min(d.n_maps for d in draws) <= 2


def test_held_out_kinds_are_in_no_default_draw_and_in_no_reference_trace():
    assert not set(HELD_OUT) & set(WORKLOADS)
    dist = Distribution()
    assert not set(dist.workloads) & set(HELD_OUT)
    assert not {d.workload for d in draw_jobs(1, 3000, dist)} & set(HELD_OUT)
    assert not set(read_trace(reference_trace())["job_type"]) & set(HELD_OUT)
    # but a bench trace runs one when it is named
    named = Distribution(workloads=("chargrams", "grep"))
    assert {d.workload for d in draw_jobs(1, 50, named)} == {"chargrams", "grep"}


def test_unknown_kind_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "-o", str(tmp_path), "--kinds", "nope"])
    assert exc.value.code == 2


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path, capsys):
    assert main(["evaluate", "-o", str(tmp_path / "e"), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert all(f"{k}: 8 jobs" in printed for k in HELD_OUT)
    assert not (tmp_path / "e").exists()


@settings(deadline=None)  # the first example imports every held-out workload
@given(seed=st.integers(0, 2**31), index=st.integers(0, 10**6),
       scale=st.floats(0.001, 100.0), max_maps=st.integers(1, 500))
def test_any_draw_stays_within_the_design(seed, index, scale, max_maps):
    design = Design(scale=scale, max_maps=max_maps)
    d = design.draw(seed, index)
    assert d.workload == design.kinds[index % len(design.kinds)]
    assert 0.5 * scale * 2**20 - 1 <= d.input_bytes <= 150 * scale * 2**20 + 1
    assert d.split_bytes >= min(design.split_sizes)
    assert 1 <= d.n_maps <= max_maps and d.input_bytes <= d.n_maps * d.split_bytes


# --- kinds drawn from the space of cost shapes -------------------------------------------------

#: Two cheap drawn kinds with reduces and combiners (pages with a superlinear reduce, and text).
DRAWN = ["--drawn", "2", "--kind-seed", "7", *TINY[2:]]


def test_evaluate_runs_drawn_kinds_and_reports_their_seed_and_parameters(history, tmp_path,
                                                                          capsys):
    out = tmp_path / "drawn"
    args = ["evaluate", "-o", str(out), "--trace", history, *DRAWN, "--jobs-per-kind", "1"]
    assert main(args) == 0
    trace = read_trace(out / "heldout.parquet")
    assert list(trace["job_type"]) == ["drawn-7-0", "drawn-7-1"]
    assert (trace["state"] == "SUCCEEDED").all() and trace["predict_error"].isna().all()
    assert (trace["probe_fraction"] > 0).all()
    report = (out / "report.md").read_text()
    assert "--drawn 2 --kind-seed 7" in report.splitlines()[2]
    assert "## Drawn kinds" in report and "2 kinds drawn with kind seed 7" in report
    for name in ("drawn-7-0", "drawn-7-1"):
        w = workload(name)
        assert f"- {name}: {w.profile} — {w.description}" in report
        assert f"| {name} | {w.input_kind} |" in report
    settings = json.loads((out / "evaluate.json").read_text())["distribution"]
    assert settings["kind_seed"] == 7 and settings["kinds"] == ["drawn-7-0", "drawn-7-1"]
    # resuming with another kind seed, or the hand-written kinds, is refused
    capsys.readouterr()
    other = [a if a != "7" else "8" for a in args]
    assert main(other) == 2
    assert "was made with --kind-seed 7, not 8" in capsys.readouterr().err
    assert main([a for a in args if a not in DRAWN[:4]]) == 2
    assert "evaluate.json" in capsys.readouterr().err


def test_drawn_kinds_in_the_plan_and_their_option_errors(tmp_path, capsys):
    assert main(["evaluate", "-o", str(tmp_path / "e"), "--drawn", "3", "--kind-seed", "5",
                 "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert all(f"drawn-5-{i}: 8 jobs" in printed for i in range(3)) and "— drawn: " in printed
    assert Design.drawn(3, 5).kinds == ("drawn-5-0", "drawn-5-1", "drawn-5-2")
    assert "kind_seed" not in Design().settings()  # directories made before it resume
    # the kind seed defaults to the evaluation's seed
    assert main(["evaluate", "-o", str(tmp_path / "e"), "--drawn", "1", "--seed", "4",
                 "--dry-run"]) == 0
    assert "drawn-4-0:" in capsys.readouterr().out
    assert main(["evaluate", "-o", str(tmp_path / "e"), "--kind-seed", "5", "--dry-run"]) == 2
    assert "--kind-seed" in capsys.readouterr().err
    for bad in (["--drawn", "0"], ["--drawn", "x"], ["--drawn", "2", "--kinds", "grep"],
                ["--drawn", "2", "--kind-seed", "-1"]):
        with pytest.raises(SystemExit) as exc:
            main(["evaluate", "-o", str(tmp_path / "e"), *bad, "--dry-run"])
        assert exc.value.code == 2
        assert "--drawn" in capsys.readouterr().err or "--kind-seed" in bad
    with pytest.raises(ConfigError, match="--drawn"):
        Design.drawn(0, 1)
