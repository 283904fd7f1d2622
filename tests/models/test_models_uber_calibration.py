"""Probed uber jobs' intervals from their own errors: sized from the probe's task times, not eq 6
and 7, they err as neither the regression-sized jobs nor the history's uber jobs do."""

import numpy as np
import pandas as pd
import pytest
from jobsize.models.conformal import Calibration
from jobsize.models.evaluation import _calibrate_with_pairs
from jobsize.models.job import job_values
from jobsize.models.modelfile import ModelFileError, model_from_json, model_to_json
from jobsize.models.size_model import MIN_CALIBRATION, UBER_CALIBRATION, SizeModel, actual_sizes
from jobsize.models.synthetic import linear_trace
from models_helpers import as_job


def _calibration(spread: float, n: int = 60) -> Calibration:
    """Scores log(actual / predicted) spread evenly over ±``spread``."""
    predicted = np.full(n, 100.0)
    return Calibration.fit(predicted, predicted * np.exp(np.linspace(-spread, spread, n)))


@pytest.fixture(scope="module")
def fitted():
    history = linear_trace(400, seed=3, uber=0.1)
    return history, SizeModel.fit(history, form="tasks")


def _probed_uber(history: pd.DataFrame) -> dict[str, object]:
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    return {**as_job(row), "job_name": None, "uberized": True, "am_memory_mb": 2048.0,
            "am_vcores": 1.0, "probe_map_tasks": 1.0, "probe_reduce_tasks": 1.0,
            "probe_map_task_ms": row["probe_map_function_ms"] + 300.0,
            "probe_reduce_task_ms": row["probe_reduce_function_ms"] + 80.0,
            "map_time_ms": 4000.0, "reduce_time_ms": 1500.0}


def _ratio(interval) -> float:
    low, high = interval
    return high.memory / low.memory


def test_a_probed_uber_job_takes_its_own_calibration_and_others_the_main_one(fitted):
    history, model = fitted
    narrow, wide = _calibration(0.1), _calibration(1.0)
    model.calibration = {"S": narrow, "SE_m": narrow, "SE_r": narrow,
                         "uber:S": wide, "uber:SE_m": wide, "uber:SE_r": wide}
    uber = model.predict_one(job_values(_probed_uber(history)))
    normal = model.predict_one(job_values({**_probed_uber(history), "uberized": False}))
    assert uber.interval_method == normal.interval_method == "conformal"
    assert _ratio(uber.S_interval) == pytest.approx(np.exp(2 * 0.95), rel=0.1)
    assert _ratio(normal.S_interval) == pytest.approx(np.exp(2 * 0.095), rel=0.1)
    lo, hi = uber.SE_m_interval
    assert hi / lo == pytest.approx(_ratio(uber.S_interval), rel=0.1)
    # the interval is about the size in the AM's container, where calibration saw it
    assert uber.S_interval[0].memory < uber.S.memory < uber.S_interval[1].memory


def test_too_few_probed_uber_jobs_leave_them_the_main_calibration(fitted):
    history, model = fitted
    narrow = _calibration(0.1)
    few = _calibration(1.0, n=MIN_CALIBRATION - 1)
    model.calibration = {"S": narrow, "SE_m": narrow, "SE_r": narrow, "uber:S": few,
                         "uber:SE_m": few}
    main = {"S": narrow, "SE_m": narrow, "SE_r": narrow}
    assert model.calibration_of(True) == (main, False)
    uber = model.predict_one(job_values(_probed_uber(history)))
    assert _ratio(uber.S_interval) == pytest.approx(np.exp(2 * 0.095), rel=0.1)
    # enough for S but not for SE_m: the main ones, all of them
    model.calibration["uber:S"] = _calibration(1.0)
    assert model.calibration_of(True) == (main, False)
    # enough for S and SE_m, too few with reduces: SE_r's interval from the main scores
    model.calibration["uber:SE_m"] = wide = _calibration(1.0)
    model.calibration["uber:SE_r"] = few
    chosen, own = model.calibration_of(True)
    assert own and chosen["SE_m"] is wide and chosen["SE_r"] is narrow
    uber = model.predict_one(job_values(_probed_uber(history)))
    low, high = uber.SE_r_interval
    assert 0 < low < uber.SE_r < high and high / low == pytest.approx(np.exp(2 * 0.095), rel=0.1)


def _pairs(n: int, uber: bool, probed: bool, error: float) -> pd.DataFrame:
    predicted = np.linspace(10.0, 1000.0, n)
    return pd.DataFrame({"job_id": [f"{uber}{probed}{i}" for i in range(n)],
                         "finish_time_ms": 0.0, "uber": uber, "probed": probed,
                         "n_reduces": 1.0, "SE_m_s": predicted * error,
                         "SE_m_pred_s": predicted, "SE_r_s": predicted * error,
                         "SE_r_pred_s": predicted, "S_mb_s": predicted * error,
                         "S_pred_mb_s": predicted, "S_low_mb_s": np.nan, "S_high_mb_s": np.nan,
                         "S_vcore_s": np.nan, "S_pred_vcore_s": np.nan})


def test_calibration_keeps_the_probed_uber_jobs_apart(fitted):
    _, model = fitted
    pairs = pd.concat([_pairs(40, False, True, 1.1), _pairs(25, True, True, 2.0),
                       _pairs(30, True, False, 0.25)], ignore_index=True)
    _calibrate_with_pairs(model, pairs, "test")
    cal = model.calibration
    assert sorted(cal) == ["S", "SE_m", "SE_r", "uber:S", "uber:SE_m", "uber:SE_r"]
    # the history's uber jobs (error 0.25×) calibrate neither
    assert cal["S"].size == 40 and cal["uber:S"].size == 25
    assert cal["S"].quantiles(100.0)[0.5] == pytest.approx(100 * 1.1)
    assert cal["uber:S"].quantiles(100.0)[0.5] == pytest.approx(100 * 2.0)
    assert model.training["calibration"] == {"by": "test", "jobs": 40, "probed_uber_jobs": 25}
    # fewer than ten probed uber jobs: their own calibrations start empty, to fill online
    _calibrate_with_pairs(model, pairs.iloc[:49], "test")
    assert {name: model.calibration[name].size for name in model.calibration
            if name.startswith(UBER_CALIBRATION)} == {"uber:S": 0, "uber:SE_m": 0, "uber:SE_r": 0}
    assert not model.calibration_of(True)[1]


def test_a_finished_probed_uber_job_feeds_its_own_calibration_only(fitted):
    history, model = fitted
    model.calibration = {"S": _calibration(0.1), "SE_m": _calibration(0.1),
                         "uber:S": _calibration(1.0), "uber:SE_m": _calibration(1.0),
                         "uber:SE_r": _calibration(1.0)}
    sizes = {name: cal.size for name, cal in model.calibration.items()}
    job = job_values(_probed_uber(history))
    before = model.predict_one(job)
    assert model.observe(job) == ("uber",)
    grown = {name: cal.size - sizes[name] for name, cal in model.calibration.items()}
    assert grown == {"S": 0, "SE_m": 0, "uber:S": 1, "uber:SE_m": 1, "uber:SE_r": 1}
    # its score is that of S in the AM's container: 2048 MB × (4 s + 1.5 s)
    scores = model.calibration["uber:S"].scores[0]
    assert np.log(2048 * 5.5 / before.S.memory) == pytest.approx(
        min(scores, key=lambda s: abs(s - np.log(2048 * 5.5 / before.S.memory))))


def test_a_finished_job_of_the_regression_feeds_the_main_calibration_only(fitted):
    history, model = fitted
    model.calibration = {name: _calibration(0.5) for name in (
        "S", "SE_m", "SE_r", "uber:S", "uber:SE_m", "uber:SE_r")}
    sizes = {name: cal.size for name, cal in model.calibration.items()}
    job = job_values({**_probed_uber(history), "uberized": False})
    assert "SE_m" in model.observe(job)
    grown = {name: cal.size - sizes[name] for name, cal in model.calibration.items()}
    assert grown == {"S": 1, "SE_m": 1, "SE_r": 1, "uber:S": 0, "uber:SE_m": 0, "uber:SE_r": 0}


def test_a_probed_uber_jobs_interval_is_taken_in_the_bin_of_its_size_in_the_am(fitted):
    """Calibration saw probed uber jobs' sizes in the AM's container, so that is the size
    whose bin gives the interval — not the size in map and reduce containers."""
    history, model = fitted
    job = job_values(_probed_uber(history))
    model.calibration = {}
    plain = model.predict_one(job)
    in_am = plain.S.memory
    in_tasks = plain.SE_m * job["map_memory_mb"] + plain.SE_r * job["reduce_memory_mb"]
    assert in_am > 1.5 * in_tasks
    # two bins of 40 scores split between the two sizes: narrow below, wide above
    predicted = np.r_[np.full(40, in_tasks), np.full(40, in_am)]
    spread = np.r_[np.linspace(-0.1, 0.1, 40), np.linspace(-1.0, 1.0, 40)]
    cal = Calibration.fit(predicted, predicted * np.exp(spread))
    assert cal.edges and in_tasks < cal.edges[0] <= in_am
    model.calibration = {"S": _calibration(0.1), "SE_m": _calibration(0.1), "uber:S": cal,
                         "uber:SE_m": _calibration(0.1)}
    assert _ratio(model.predict_one(job).S_interval) == pytest.approx(np.exp(2 * 0.95), rel=0.1)


def test_the_model_file_keeps_the_probed_uber_calibration(fitted):
    _, model = fitted
    model.calibration = {"S": _calibration(0.1), "SE_m": _calibration(0.1),
                         "uber:S": _calibration(1.0), "uber:SE_m": _calibration(1.0)}
    doc = model_to_json(model)
    again = model_from_json(doc)
    assert sorted(again.calibration) == sorted(model.calibration)
    assert again.calibration["uber:S"].scores == model.calibration["uber:S"].scores
    doc["calibration"]["other:S"] = doc["calibration"]["S"]
    with pytest.raises(ModelFileError, match="other:S"):
        model_from_json(doc)


def test_actual_sizes_say_which_jobs_carry_a_probe(fitted):
    history, _ = fitted
    frame = history[history["probe_fraction"].notna()].head(4).copy()
    frame.loc[frame.index[:2], "probe_fraction"] = np.nan
    assert actual_sizes(frame)["probed"].tolist() == [False, False, True, True]
    assert not actual_sizes(frame, features="actual")["probed"].any()


def test_a_probed_uber_job_the_model_cannot_size_is_still_learnt(fitted):
    history, model = fitted
    model.calibration = {"S": _calibration(0.1), "SE_m": _calibration(0.1),
                         "uber:S": _calibration(1.0), "uber:SE_m": _calibration(1.0)}
    job = job_values({**_probed_uber(history), "probe_fraction": 0.5, "n_maps": 1.0,
                      "probe_map_output_records": None})
    sizes = {name: cal.size for name, cal in model.calibration.items()}
    assert model.observe(job) == ("uber",)
    assert {name: cal.size for name, cal in model.calibration.items()} == sizes


def test_fits_summary_tells_of_the_probed_uber_jobs_own_calibration(fitted):
    from jobsize.cli.fit import model_summary

    _, model = fitted
    model.training["calibration"] = {"by": "test", "jobs": 40, "probed_uber_jobs": 25}
    model.calibration = {"S": _calibration(0.1), "SE_m": _calibration(0.1),
                         "uber:S": _calibration(1.0), "uber:SE_m": _calibration(1.0)}
    said = " ".join(model_summary(model).split())
    assert "calibrated on 40 out-of-sample errors (test), and apart on 25 uber jobs" in said
    model.calibration["uber:S"] = Calibration.empty()
    assert "apart on" not in " ".join(model_summary(model).split())
