"""A recurring application's uber jobs, sized from their probes, corrected by their own earlier
runs' errors — kept apart from the errors of the same application's jobs the regression sizes —
and every job's calibration score taken before its own error corrects its application."""

import math

import numpy as np
import pytest
from jobsize.models.conformal import Calibration
from jobsize.models.job import job_values
from jobsize.models.modelfile import model_from_json, model_to_json
from jobsize.models.recurring import Recurring
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace
from jobsize.models.uberprobe import uber_task_times
from models_helpers import as_job


@pytest.fixture
def model_and_job():
    history = linear_trace(400, seed=5, uber=0.1)
    model = SizeModel.fit(history, form="tasks")
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    job = {**as_job(row), "uberized": True, "am_memory_mb": 2048.0, "am_vcores": 1.0,
           "probe_map_tasks": 1.0, "probe_reduce_tasks": 1.0,
           "probe_map_task_ms": row["probe_map_function_ms"] + 300.0,
           "probe_reduce_task_ms": row["probe_reduce_function_ms"] + 80.0}
    return model, job


def _run(job: dict, day: int, **actual: float) -> tuple[dict, dict]:
    """One run of the application ``nightly-merge``, named by its day, as (values, conf)."""
    conf = {"job_name": f"nightly-merge-2026-11-{day:02d}"}
    return job_values({**job, **actual}), conf


def test_a_recurring_uber_application_is_corrected_by_its_own_runs(model_and_job):
    model, job = model_and_job
    values, conf = _run(job, 1)
    raw_m, raw_r = uber_task_times(values, model.key_cost)
    first = model.predict_one(values, conf)
    assert (first.SE_m, first.SE_r) == pytest.approx((raw_m, raw_r))
    # three runs, each taking twice what its probe said in maps and half in its reduce
    for day in (1, 2, 3):
        model.observe(*_run(job, day, map_time_ms=2000 * raw_m, reduce_time_ms=500 * raw_r))
    later = model.predict_one(*_run(job, 4))
    k = model.recurring.k
    assert later.SE_m == pytest.approx(raw_m * math.exp(3 * math.log(2) / (3 + k)))
    assert later.SE_r == pytest.approx(raw_r * math.exp(3 * math.log(0.5) / (3 + k)))
    assert any("recurring application 'nightly-merge-#-#-#'" in n for n in later.notes)
    # the regression's corrections of this application are not moved by its uber jobs
    assert "nightly-merge-#-#-#" not in model.recurring.sums["SE_m"]
    regression = model.predict_one(job_values({**job, "uberized": False}), _run(job, 4)[1])
    assert not any("recurring" in n for n in regression.notes)


def test_an_uber_job_of_no_application_moves_no_correction(model_and_job):
    model, job = model_and_job
    values = job_values({**job, "map_time_ms": 9000.0, "reduce_time_ms": 9000.0})
    model.observe(values, {"job_name": "streamjob123.jar"})
    assert all(not apps for apps in model.recurring.sums.values())


def test_model_files_keep_uber_corrections_and_older_files_load_without_them(model_and_job):
    model, job = model_and_job
    raw_m, raw_r = uber_task_times(job_values(job), model.key_cost)
    model.observe(*_run(job, 1, map_time_ms=3000 * raw_m, reduce_time_ms=1000 * raw_r))
    back = model_from_json(model_to_json(model))
    assert back.recurring.sums == model.recurring.sums
    assert back.predict_one(*_run(job, 2)).SE_m == pytest.approx(
        model.predict_one(*_run(job, 2)).SE_m)
    older = {"k": 2.0, "sums": {"SE_m": {"a": [1, 0.5, 0.25]}, "SE_r": {}}}
    assert Recurring.from_json(older).sums["uber:SE_m"] == {}
    with pytest.raises(KeyError):
        Recurring.from_json({"k": 2.0, "sums": {"SE_m": {}}})


def test_a_jobs_calibration_score_is_its_error_before_its_own_run_corrects_it(model_and_job):
    model, job = model_and_job
    values = job_values({**job, "uberized": False})
    conf = {"job_name": "hourly-rollup-7"}
    before = model.predict_one(values, conf)
    model.calibration = {name: Calibration.empty() for name in ("S", "SE_m", "SE_r")}
    model.observe(job_values({**job, "uberized": False,
                              "map_time_ms": 3000 * before.SE_m}), conf)
    # log(3): the prediction the job had before it ran, not one already moved toward it
    assert model.calibration["SE_m"].scores[0] == pytest.approx([np.log(3)])


@pytest.mark.parametrize("broken", [{"map_input_bytes": None}, {"probe_fraction": 0.0},
                                    {"probe_fraction": 2.0}])
def test_an_uber_record_that_cannot_be_predicted_is_learnt_without_a_correction(
        model_and_job, broken):
    model, job = model_and_job
    values, conf = _run({**job, **broken}, 1, map_time_ms=4000.0, reduce_time_ms=900.0)
    assert model.observe(values, conf) == ("uber",)
    assert all(not apps for apps in model.recurring.sums.values())


@pytest.mark.parametrize("entry", [[0, 0.1, 0.01], [-2.5, 0.1, 0.01], [2, 0.1, -0.5]])
def test_a_model_file_with_an_impossible_correction_is_refused(entry):
    with pytest.raises(ValueError, match="runs ≥ 1"):
        Recurring.from_json({"k": 2.0, "sums": {"SE_m": {}, "SE_r": {},
                                                "uber:SE_m": {"a": entry}}})


def test_an_uber_job_sized_from_the_history_takes_no_correction_learnt_elsewhere(model_and_job):
    # the application's regression-sized runs took twice what eq 6 said: their correction is
    # the regression's, and an unprobed uber job of the same application is the uber model's
    model, job = model_and_job
    plain = job_values({**job, "uberized": False})
    raw = model.predict_one(plain).SE_m
    for day in (1, 2, 3):
        model.observe(job_values({**job, "uberized": False, "map_time_ms": 2000 * raw,
                                  "reduce_time_ms": 1000.0}), _run(job, day)[1])
    assert "nightly-merge-#-#-#" in model.recurring.sums["SE_m"]
    unprobed = {k: v for k, v in job.items() if not k.startswith("probe_")}
    alone = model.predict_one(job_values(unprobed))
    named = model.predict_one(job_values(unprobed), _run(job, 4)[1])
    assert named.uber and named.interval_method == "uber"
    assert (named.SE_m, named.SE_r) == (alone.SE_m, alone.SE_r)
    assert not any("recurring" in n for n in named.notes)
