"""The public API: SizePredictor (scikit-learn contract) and jobsize.predict.

All traces here are synthetic test data from models.synthetic, not measurements.
"""

import os

import numpy as np
import pandas as pd
import pytest
import sklearn.exceptions
from jobsize.models.resources import PAPER_CLUSTER, Resources
from jobsize.models.synthetic import linear_trace
from sklearn.base import clone
from sklearn.metrics import r2_score
from sklearn.model_selection import KFold, cross_val_score, cross_validate

import jobsize
from jobsize.errors import ConfigError, InputError, ModelError
from jobsize.predictor import NotFittedError, Prediction, SizePredictor, predict


@pytest.fixture(scope="module")
def trace():
    return linear_trace(800, seed=31, uber=0.05)


@pytest.fixture(scope="module")
def fitted(trace):
    return SizePredictor().fit(trace)


def _job(row: pd.Series) -> dict:
    return {k: (None if v is pd.NA else v) for k, v in row.to_dict().items()}


def _normal(trace, reduces=True):
    rows = trace[~trace["uberized"] & ((trace["n_reduces"] > 0) == reduces)]
    return rows.iloc[0]


def test_public_names_are_exported_lazily():
    assert jobsize.SizePredictor is SizePredictor
    assert jobsize.predict is predict and jobsize.Prediction is Prediction


def test_estimator_contract_clone_and_params(fitted):
    est = SizePredictor(features="actual", method="ols", target="SE_m", level=0.9,
                        form="paper", clock="cpu", calibrate=None)
    assert est.get_params() == {"features": "actual", "method": "ols", "target": "SE_m",
                                "level": 0.9, "form": "paper", "clock": "cpu",
                                "calibrate": None, "eq7_fit": None}
    copy = clone(fitted)
    assert copy.get_params() == fitted.get_params()
    assert not hasattr(copy, "model_") and hasattr(fitted, "model_")
    fresh = SizePredictor()
    assert fresh.fit(linear_trace(100, seed=1)) is fresh


def test_works_in_cross_val_score_and_cross_validate(trace):
    scores = cross_val_score(SizePredictor(), trace, cv=KFold(4, shuffle=True, random_state=0))
    assert len(scores) == 4 and (scores > 0.9).all()
    result = cross_validate(SizePredictor(target="SE_r", method="wls"), trace, cv=3)
    assert (result["test_score"] > 0.85).all()


@pytest.mark.parametrize("target,column", [("S", "S_mb_s"), ("S_vcores", "S_vcore_s"),
                                           ("SE_m", "SE_m_s"), ("SE_r", "SE_r_s")])
def test_predict_returns_the_target(trace, fitted, target, column):
    est = SizePredictor(target=target).fit(trace)
    np.testing.assert_array_equal(est.predict(trace), fitted.predict_frame(trace)[column])


def test_score_is_r2_against_the_recorded_outcome(trace, fitted):
    actual = (trace["map_time_ms"] / 1000).to_numpy(float)
    est = SizePredictor(target="SE_m").fit(trace)
    assert est.score(trace) == pytest.approx(r2_score(actual, est.predict(trace)))
    assert est.score(trace, actual) == pytest.approx(est.score(trace))
    s_r = SizePredictor(target="SE_r").fit(trace)
    has_r = trace["n_reduces"].to_numpy() > 0
    want = r2_score((trace["reduce_time_ms"] / 1000).to_numpy(float)[has_r],
                    s_r.predict(trace)[has_r])
    assert s_r.score(trace) == pytest.approx(want)
    # jobs that were never probed are out of the model's reach, in fit and in score alike
    unprobed = trace.copy()
    unprobed.loc[unprobed.index[:40], "probe_fraction"] = pd.NA
    kept = ~unprobed["probe_fraction"].isna() | unprobed["uberized"]
    assert est.score(unprobed) == pytest.approx(est.score(trace[kept.to_numpy()]))


def test_unfitted_and_bad_hyper_parameters(trace):
    with pytest.raises(NotFittedError, match="not fitted"):
        SizePredictor().predict(trace)
    assert issubclass(NotFittedError, ModelError)
    assert issubclass(NotFittedError, sklearn.exceptions.NotFittedError)
    with pytest.raises(ConfigError, match="unknown fitting method 'ridge'"):
        SizePredictor(method="ridge").fit(trace)
    with pytest.raises(ConfigError, match="unknown target"):
        SizePredictor(target="time").fit(trace)
    with pytest.raises(InputError, match="expected a DataFrame"):
        SizePredictor().fit([{"n_maps": 1}])


def test_one_job_prediction_equals_the_batch_prediction(trace, fitted):
    frame = fitted.predict_frame(trace)
    for i in range(0, len(trace), 37):
        p = predict(fitted, _job(trace.iloc[i]))
        row = frame.iloc[i]
        assert p.uber == row["uber"]
        got = [p.SE_m, p.SE_r, p.S.memory, p.S.vcores, p.minE, p.APB.memory, p.APB.vcores,
               *p.SE_m_interval, *p.SE_r_interval, p.S_interval[0].memory,
               p.S_interval[1].memory, p.S_interval[0].vcores, p.S_interval[1].vcores]
        want = row[["SE_m_s", "SE_r_s", "S_mb_s", "S_vcore_s", "minE_s", "APB_mb", "APB_vcores",
                    "SE_m_low_s", "SE_m_high_s", "SE_r_low_s", "SE_r_high_s", "S_low_mb_s",
                    "S_high_mb_s", "S_low_vcore_s", "S_high_vcore_s"]].to_numpy(float)
        np.testing.assert_allclose(got, want, rtol=1e-9)


def test_hadoop_conf_keys_and_string_values_are_accepted(trace, fitted):
    row = _job(_normal(trace))
    plain = predict(fitted, row)
    conf = {k: v for k, v in row.items()
            if k not in ("n_maps", "n_reduces", "map_memory_mb", "reduce_memory_mb")}
    conf.update({"mapreduce.job.maps": str(row["n_maps"]),
                 "mapreduce.job.reduces": str(row["n_reduces"]),
                 "mapreduce.map.memory.mb": str(row["map_memory_mb"]),
                 "mapreduce.reduce.memory.mb": f"{row['reduce_memory_mb']}"})
    assert predict(fitted, conf) == plain
    assert predict(fitted, pd.Series(row)) == plain
    assert predict(fitted, trace[trace["job_id"] == row["job_id"]]) == plain
    with pytest.raises(InputError, match=r"key 'mapreduce\.job\.maps': expected a number"):
        predict(fitted, {**conf, "mapreduce.job.maps": "forty"})


def test_containers_default_to_hadoop_and_shape_the_size(trace, fitted):
    row = {k: v for k, v in _job(_normal(trace)).items()
           if k not in ("map_memory_mb", "reduce_memory_mb", "map_vcores", "reduce_vcores")}
    p = predict(fitted, row)
    assert p.S.memory == pytest.approx(1024 * (p.SE_m + p.SE_r))
    big = predict(fitted, {**row, "mapreduce.map.memory.mb": 4096})
    assert big.S.memory == pytest.approx(4096 * p.SE_m + 1024 * p.SE_r)


def test_map_only_and_uber_jobs(trace, fitted):
    map_only = predict(fitted, _job(_normal(trace, reduces=False)))
    assert map_only.SE_r == 0 and map_only.SE_r_interval == (0.0, 0.0)
    uber = predict(fitted, {"n_maps": 2, "n_reduces": 1, "map_input_bytes": 10_000_000,
                            "am_memory_mb": 1536, "am_vcores": 1,
                            "mapreduce.job.ubertask.enable": "true"})
    assert uber.uber and Resources(1536, 1) == uber.APB  # an uber job's APB is its AM (§III-C)
    assert uber.S.memory == pytest.approx(1536 * (uber.SE_m + uber.SE_r))


def test_cluster_resources_change_min_e_and_apb_not_the_size(trace, fitted):
    row = _job(_normal(trace))
    paper = predict(fitted, row)
    assert predict(fitted, row, (65536, 64)) == paper
    tiny = predict(fitted, row, Resources(8192, 8))
    assert tiny.S == paper.S and tiny.minE >= paper.minE
    assert tiny.APB.memory <= paper.APB.memory
    with pytest.raises(ConfigError, match="positive"):
        predict(fitted, row, (0, 8))
    assert Resources(8 * 8192, 8 * 8) == PAPER_CLUSTER


def test_bad_probe_fraction_and_missing_inputs(trace, fitted):
    row = _job(_normal(trace))
    with pytest.raises(InputError, match="probe_fraction 0 is not in"):
        predict(fitted, {**row, "probe_fraction": 0})
    with pytest.raises(InputError, match="missing 'n_reduces'"):
        predict(fitted, {k: v for k, v in row.items() if k != "n_reduces"})


def test_model_file_path_is_accepted_and_reread_when_it_changes(trace, fitted, tmp_path):
    path = fitted.save(tmp_path / "model.json")
    row = _job(_normal(trace))
    assert predict(path, row) == predict(fitted, row)
    assert predict(str(path), row) == predict(fitted, row)
    other = SizePredictor(method="ols").fit(trace)
    other.save(path)
    os.utime(path, ns=(1, 1))  # a distinct stamp even on coarse-clock file systems
    assert predict(path, row) == predict(other, row)
    loaded = SizePredictor.load(path, target="SE_m")
    assert loaded.method == "ols" and loaded.target == "SE_m"
    np.testing.assert_array_equal(loaded.predict(trace), other.predict_frame(trace)["SE_m_s"])


def test_observe_learns_from_finished_jobs(trace):
    first, rest = trace.iloc[:400], trace.iloc[400:]
    by_frame = SizePredictor().fit(first)
    before = by_frame.predict(trace)
    by_frame.observe(rest)
    by_dict = SizePredictor().fit(first)
    for _, row in rest.iterrows():
        by_dict.observe(_job(row))
    after = by_frame.predict(trace)
    assert not np.allclose(after, before)
    np.testing.assert_array_equal(after, by_dict.predict(trace))
    assert by_frame.training_["observed"] == len(rest)
