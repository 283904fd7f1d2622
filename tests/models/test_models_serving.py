"""What a prediction carries besides the regression: conformal intervals and quantiles,
recurring-application corrections, floors and extrapolation flags, the uber model."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobsize.models.conformal import Calibration
from jobsize.models.evaluation import calibrate
from jobsize.models.guard import Guard
from jobsize.models.job import flatten, job_values
from jobsize.models.modelfile import model_from_json, model_to_json
from jobsize.models.recurring import Recurring, application
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace
from jobsize.models.uber import MIN_UBER_JOBS, UberModel
from models_helpers import as_job

from jobsize.errors import InputError

# -- conformal calibration ------------------------------------------------------------------------


def test_conformal_quantiles_are_the_scores_at_their_ranks():
    rng = np.random.default_rng(0)
    predicted = np.full(999, 10.0)
    actual = predicted * np.exp(rng.normal(0, 0.3, 999))
    cal = Calibration.fit(predicted, actual)
    scores = np.sort(np.log(actual / predicted))
    # one bin here (all predicted equal); the 0.9-quantile is the ⌈1000·0.9⌉-th score
    assert cal.quantile(10.0, 0.9) == pytest.approx(10 * math.exp(scores[900 - 1]))
    lo, hi = cal.interval(20.0, 0.8)
    assert lo < 20 < hi and hi / lo == pytest.approx(math.exp(scores[899] - scores[99]))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), sigma=st.floats(0.05, 1.0), bias=st.floats(-0.5, 0.5))
def test_a_calibrated_interval_covers_new_exchangeable_jobs_at_its_level(seed, sigma, bias):
    rng = np.random.default_rng(seed)
    pred = np.exp(rng.uniform(0, 5, 3000))
    actual = pred * np.exp(bias + rng.normal(0, sigma, 3000))
    cal = Calibration.fit(pred[:1000], actual[:1000])
    inside = [lo <= a <= hi for p, a in zip(pred[1000:], actual[1000:], strict=True)
              for lo, hi in [cal.interval(p, 0.9)]]
    assert 0.85 <= np.mean(inside) <= 0.95


def test_calibration_roundtrips_and_rejects_a_damaged_document():
    cal = Calibration.fit([1, 2, 3, 4, 5] * 20, [1.1, 2.5, 2.9, 4.4, 6] * 20)
    assert Calibration.from_json(cal.to_json()).scores == cal.scores
    with pytest.raises(ValueError):
        Calibration.from_json({"edges": [3.0, 1.0], "scores": [[], [], []]})


# -- recurring applications ---------------------------------------------------------------------


def test_application_names_fold_digits_and_ignore_generic_names():
    assert application("wordcount-2026-11-24") == application("WordCount-2026-11-25")
    assert application("streamjob8836153744384923476.jar") is None
    assert application("job") is None and application(None) is None


def test_a_recurring_correction_grows_with_the_runs_and_is_shrunk():
    rec = Recurring(k=3.0)
    assert rec.factor("SE_m", "etl") == 1.0
    for _ in range(1):
        rec.add("SE_m", "etl", math.log(2))  # ran twice as long as predicted
    one = rec.factor("SE_m", "etl")
    for _ in range(29):
        rec.add("SE_m", "etl", math.log(2))
    many = rec.factor("SE_m", "etl")
    assert 1 < one < many < 2 and many == pytest.approx(2 ** (30 / 33))
    assert rec.factor("SE_r", "etl") == 1.0 and rec.factor("SE_m", "other") == 1.0


def test_shrinkage_is_estimated_from_how_much_applications_differ():
    rng = np.random.default_rng(1)
    apps = [f"app{chr(97 + i)}" for i in range(20) for _ in range(10)]
    offsets = {a: rng.normal(0, 0.5) for a in set(apps)}
    noisy = Recurring.fit(apps, {"SE_m": [offsets[a] + rng.normal(0, 0.1) for a in apps],
                                 "SE_r": [math.nan] * len(apps)})
    flat = Recurring.fit(apps, {"SE_m": [rng.normal(0, 0.5) for _ in apps],
                                "SE_r": [math.nan] * len(apps)})
    assert noisy.k < 1.5  # applications differ far more than runs: trust each one
    assert flat.k > 10  # runs differ as much as applications: stay with the global model


# -- floors and extrapolation ---------------------------------------------------------------------


def test_the_guard_flags_terms_beyond_the_fitted_range_and_high_leverage():
    x = np.column_stack([np.ones(50), np.linspace(1, 10, 50)])
    inv = np.linalg.inv(x.T @ x)
    g = Guard.of(x, np.full(50, 2.0), np.linspace(1, 10, 50), inv)
    assert g.outside([1.0, 5.0], ("const", "N_m"), inv) == []
    assert g.outside([1.0, 100.0], ("const", "N_m"), inv) == ["N_m", "leverage"]
    assert g.floor(4) == pytest.approx(4 * 0.5)


@pytest.fixture(scope="module")
def history() -> pd.DataFrame:
    trace = linear_trace(400, seed=3, uber=0.1)
    trace["job_name"] = [f"app-{'abcdefgh'[i % 8]}" for i in range(len(trace))]
    trace["job_type"] = trace["job_name"]
    return trace


@pytest.fixture(scope="module")
def fitted(history: pd.DataFrame) -> SizeModel:
    return calibrate(SizeModel.fit(history, form="paper"), history)


def test_a_negative_linear_prediction_is_raised_to_the_floor_and_says_why(fitted, history):
    job = as_job(history[~history["uberized"]].iloc[0])
    job = {**job, "probe_map_function_ms": 0.0, "map_input_bytes": 0.0, "n_maps": 1.0,
           "probe_map_output_bytes": 0.0, "probe_map_output_records": 0.0}
    fitted.se_m.solution.coef[0] -= 1e6  # push the intercept far below zero
    fitted.se_m.coef_list[0] -= 1e6
    try:
        p = fitted.predict_one(job_values(job), job)
    finally:
        fitted.se_m.solution.coef[0] += 1e6
        fitted.se_m.coef_list[0] += 1e6
    assert p.SE_m == pytest.approx(fitted.guards["SE_m"].floor(1)) and p.SE_m >= 0
    assert any("below" in note and "raised" in note for note in p.notes)


def test_predictions_carry_quantiles_flags_and_the_interval_method(fitted, history):
    job = as_job(history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0])
    p = fitted.predict_one(job_values(job), job)
    assert p.interval_method == "conformal"
    qs = list(p.quantiles.values())
    assert qs == sorted(qs) and p.quantiles[0.05] <= p.S.memory * 1.5
    assert p.S_interval[0].memory <= p.quantiles[0.5] <= p.S_interval[1].memory
    huge = {**job, "n_maps": job["n_maps"] * 1e5, "map_input_bytes": job["map_input_bytes"] * 1e5}
    flagged = fitted.predict_one(job_values(huge), huge)
    assert "SE_m:N_m" in flagged.extrapolation and "SE_m:MI" in flagged.extrapolation
    d = flagged.to_dict()
    assert d["extrapolation"] and d["intervals"]["method"] == "conformal"
    assert set(d["quantiles"]["S_memory_mb_s"]) == {"0.05", "0.1", "0.25", "0.5", "0.75",
                                                     "0.9", "0.95"}


def test_a_recurring_application_gets_its_correction(fitted, history):
    job = as_job(history[~history["uberized"]].iloc[3])
    named = fitted.predict_one(job_values(job), {**job, "job_name": "app-d"})
    anonymous = fitted.predict_one(job_values(job), {**job, "job_name": None})
    factor = fitted.recurring.factor("SE_m", "app-d")
    assert named.SE_m == pytest.approx(anonymous.SE_m * factor)
    assert any("recurring application" in n for n in named.notes) != (factor == 1.0)


def test_everything_served_survives_the_model_file(fitted, history):
    again = model_from_json(model_to_json(fitted))
    job = as_job(history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[5])
    a = fitted.predict_one(job_values(job), {**job, "job_name": "app-b"})
    b = again.predict_one(job_values(job), {**job, "job_name": "app-b"})
    assert a == b


def test_observe_learns_the_error_before_the_job(fitted, history):
    model = model_from_json(model_to_json(fitted))
    model.recurring = Recurring(k=3.0)
    job = as_job(history[~history["uberized"]].iloc[7])
    job = {**job, "job_name": "app-new", "map_time_ms": job["map_time_ms"] * 3}
    before = model.calibration["S"].size
    model.observe(job_values(job), job)
    assert model.calibration["S"].size == before + 1
    assert model.recurring.factor("SE_m", "app-new") > 1.2  # it took three times as long


# -- uber jobs ------------------------------------------------------------------------------------


def test_the_uber_model_follows_input_and_map_count_once_it_has_enough_jobs():
    model = UberModel()
    rng = np.random.default_rng(4)
    for _ in range(MIN_UBER_JOBS + 20):
        n_m, mi = float(rng.integers(1, 9)), float(rng.uniform(1e5, 1e8))
        se = 0.5 * n_m ** 0.8 * (1 + mi / 2**20) ** 0.5 * math.exp(rng.normal(0, 0.05))
        model.add(n_m, 0.0, mi, se, 0.0, True)
    se, _, k, fitted = model.predict("map", 4.0, 4.0, 50e6)
    truth = 0.5 * 4 ** 0.8 * (1 + 50e6 / 2**20) ** 0.5
    assert fitted and k == MIN_UBER_JOBS + 20 and se == pytest.approx(truth, rel=0.1)
    # without an input size, the mean task time stands in
    assert not model.predict("map", 4.0, 4.0, None)[3]


def test_a_degenerate_uber_history_does_not_overflow():
    """Regression (a fresh-seed run of the degenerate-history property test): uber jobs of
    0 and 1 byte of input, 10⁻³ s and 10³ s, give the log-linear model a slope of ~10⁷ per
    log MiB, and exp() of its answer at 1 MB overflowed; the mean task time answers."""
    model = UberModel()
    for i in range(MIN_UBER_JOBS):
        model.add(1.0, 0.0, float(i % 2), 1e3 if i % 2 else 1e-3, None, True)
    se, _, _, fitted = model.predict("map", 1.0, 1.0, 1e6)
    assert not fitted and se == pytest.approx((1e3 + 1e-3) / 2)


def test_flatten_takes_the_probe_documents_sections():
    doc = {"n_maps": 4, "conf": {"mapreduce.job.reduces": "2"}, "probe": {"probe_fraction": .1},
           "job": {"job_name": "x"}}
    assert flatten(doc) == {"n_maps": 4, "mapreduce.job.reduces": "2", "probe_fraction": .1,
                            "job_name": "x"}
    with pytest.raises(InputError, match=r"\$\.probe"):
        flatten({"probe": [1]})


def test_a_job_documents_sort_buffer_settings_are_read_by_hadoops_names():
    doc = {"n_maps": 4, "conf": {"mapreduce.task.io.sort.mb": "512",
                                 "mapreduce.map.sort.spill.percent": "0.9",
                                 "mapreduce.map.combine.minspills": "2"}}
    values = job_values(flatten(doc))
    assert (values["map_sort_mb"], values["map_spill_percent"],
            values["combine_min_spills"]) == (512.0, 0.9, 2.0)


def test_the_floor_is_the_probes_empty_task_where_it_ran_one(fitted, history):
    job = as_job(history[~history["uberized"]].iloc[0])
    job = {**job, "n_maps": 4.0}
    history_floor = fitted.guards["SE_m"].floor(4)
    empty_ms = 1000 * history_floor / 4 / 10  # a kind ten times faster than any in the history

    def predicted(linear_s: float, empty: float | None):
        """The job predicted with the intercept set so that eq 6 gives ``linear_s``."""
        values = job_values({**job, "probe_map_task_fixed_ms": empty})
        shift = linear_s - fitted.se_m.predict_one(fitted._row(values, "SE_m"))[0]
        fitted.se_m.solution.coef[0] += shift
        fitted.se_m.coef_list[0] += shift
        try:
            return fitted.predict_one(values, {})  # unnamed: no recurring correction
        finally:
            fitted.se_m.solution.coef[0] -= shift
            fitted.se_m.coef_list[0] -= shift

    negative = predicted(-1.0, empty_ms)
    assert negative.SE_m == pytest.approx(4 * empty_ms / 1000)
    assert any("probe's empty task" in note for note in negative.notes)
    # a cut-like mapper: its linear value stands though it lies below the history's floor ...
    fast = predicted(history_floor / 2, empty_ms)
    assert fast.SE_m == pytest.approx(history_floor / 2) and not fast.notes
    # ... which still holds for a job whose probe ran no empty task
    unprobed = predicted(history_floor / 2, None)
    assert unprobed.SE_m == pytest.approx(history_floor)
    assert any("in the history" in note for note in unprobed.notes)


@pytest.mark.parametrize("calibrated", [False, True], ids=["gls", "conformal"])
def test_a_probed_uber_job_is_sized_from_its_probe_in_its_am(history, calibrated):
    """`jobsize probe` probes an uber job; where its probe record has no task times, its tasks
    cost what eq 6 and 7 say (test_models_uber_probed: where it has), run one after another in
    the ApplicationMaster's container."""
    model = SizeModel.fit(history, form="tasks")
    if calibrated:
        model = calibrate(model, history)
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    job = {**as_job(row), "job_name": None, "am_memory_mb": 2048.0, "am_vcores": 1.0}
    normal = model.predict_one(job_values({**job, "uberized": False}))
    uber = model.predict_one(job_values({**job, "uberized": True}))
    assert uber.uber and not normal.uber
    assert (uber.SE_m, uber.SE_r) == (normal.SE_m, normal.SE_r)
    assert uber.S.memory == pytest.approx(2048 * (normal.SE_m + normal.SE_r))
    assert uber.minE == pytest.approx(normal.SE_m + normal.SE_r)
    assert uber.S_interval[0].memory <= uber.S.memory <= uber.S_interval[1].memory
    assert uber.APB.memory == 2048 and uber.interval_method == normal.interval_method
    # S's interval and quantiles are the calibrated ones, in the AM's container
    scale = uber.S.memory / normal.S.memory
    for got, was in zip(uber.S_interval, normal.S_interval, strict=True):
        assert got.memory == pytest.approx(was.memory * scale)
    assert uber.interval_method == ("conformal" if calibrated else "gls")
    assert uber.quantiles == pytest.approx({q: v * scale for q, v in normal.quantiles.items()})
    assert bool(uber.quantiles) == calibrated
    assert any("sized from its probe" in note for note in uber.notes)
    # the batch path says the same
    frame = pd.DataFrame([row]).assign(uberized=True, am_memory_mb=2048, am_vcores=1,
                                       job_name=pd.NA)
    batch = model.predict_frame(frame).iloc[0]
    assert batch["uber"] and batch["S_mb_s"] == pytest.approx(uber.S.memory)
    # without a probe, the uber model as before
    unprobed = {k: v for k, v in job.items() if not k.startswith("probe_")}
    plain = model.predict_one(job_values({**unprobed, "uberized": True}))
    assert plain.uber and plain.interval_method == "uber"
