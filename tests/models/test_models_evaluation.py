"""Evaluation modes and scores (on synthetic test data)."""

import numpy as np
import pandas as pd
import pytest
from jobsize.models.evaluation import (
    MIN_HISTORY,
    PAIR_COLUMNS,
    PAPER_R2,
    Scores,
    cross_validated_pairs,
    evaluate,
    prequential_predictions,
)
from jobsize.models.synthetic import linear_trace

from jobsize.errors import InputError, ModelError


def _pairs(actual, predicted, n_reduces=None, small_from=None):
    n = len(actual)
    return pd.DataFrame({
        "SE_m_s": small_from if small_from is not None else actual,
        "SE_m_pred_s": predicted if small_from is None else small_from,
        "SE_r_s": actual, "SE_r_pred_s": predicted,
        "S_mb_s": actual, "S_pred_mb_s": predicted,
        "n_reduces": n_reduces if n_reduces is not None else np.ones(n),
    })


def test_r2_is_unweighted_on_the_original_scale():
    actual = np.array([10.0, 20.0, 30.0, 1000.0])
    predicted = np.array([12.0, 18.0, 33.0, 900.0])
    s = Scores.of(_pairs(actual, predicted))
    want = 1 - np.sum((actual - predicted) ** 2) / np.sum((actual - actual.mean()) ** 2)
    assert s.r2["S"] == pytest.approx(want)
    assert s.r2["SE_m"] == pytest.approx(want)


def test_median_relative_error_overall_for_small_jobs_and_se_r_only_with_reduces():
    actual = np.array([10.0, 20.0, 100.0, 200.0, 400.0])
    predicted = np.array([11.0, 30.0, 100.0, 150.0, 400.0])  # errors .1 .5 0 .25 0
    se_m = np.array([5.0, 25.0, 40.0, 50.0, 60.0])  # the first two are small jobs
    s = Scores.of(_pairs(actual, predicted, n_reduces=np.array([1, 1, 0, 1, 1]),
                         small_from=se_m))
    assert s.mdare["S"] == pytest.approx(0.1)
    assert s.mdare_small["S"] == pytest.approx(0.3)  # median of .1 and .5
    assert s.small_jobs == 2
    assert s.mdare["SE_r"] == pytest.approx(np.median([0.1, 0.5, 0.25, 0.0]))


@pytest.fixture(scope="module")
def small_trace():
    return linear_trace(400, seed=21, uber=0.05)


def test_prequential_prediction_uses_only_jobs_that_finished_before(small_trace):
    base = prequential_predictions(small_trace)
    assert list(base.columns) == list(PAIR_COLUMNS)
    assert base["finish_time_ms"].is_monotonic_increasing
    assert len(base) == len(small_trace) - MIN_HISTORY
    # change the recorded times of the job in the middle of the finish order
    target = base["job_id"].iloc[len(base) // 2]
    spoiled = small_trace.copy()
    row = spoiled.index[spoiled["job_id"] == target][0]
    spoiled.loc[row, "map_time_ms"] *= 50
    spoiled.loc[row, "reduce_time_ms"] *= 50
    again = prequential_predictions(spoiled)
    before = base["finish_time_ms"] < base.loc[base["job_id"] == target, "finish_time_ms"].iloc[0]
    pd.testing.assert_frame_equal(again[before.to_numpy()][["SE_m_pred_s", "S_pred_mb_s"]],
                                  base[before][["SE_m_pred_s", "S_pred_mb_s"]])
    # the job's own prediction does not see its own outcome either
    own = base["job_id"] == target
    assert again.loc[own, "SE_m_pred_s"].iloc[0] == base.loc[own, "SE_m_pred_s"].iloc[0]
    after = ~before.to_numpy() & ~own.to_numpy()
    assert not np.allclose(again["SE_m_pred_s"][after], base["SE_m_pred_s"][after])


def test_cross_validated_predictions_come_from_other_folds(small_trace):
    base = cross_validated_pairs(small_trace, folds=4, seed=3)
    assert sorted(base["job_id"]) == sorted(small_trace["job_id"])
    spoiled = small_trace.copy()
    row = spoiled.index[~spoiled["uberized"]][10]
    spoiled.loc[row, "map_time_ms"] *= 50
    again = cross_validated_pairs(spoiled, folds=4, seed=3).set_index("job_id")
    base = base.set_index("job_id")
    job = spoiled.loc[row, "job_id"]
    assert again.loc[job, "SE_m_pred_s"] == pytest.approx(base.loc[job, "SE_m_pred_s"],
                                                          rel=1e-12)
    assert not np.allclose(again["SE_m_pred_s"], base.loc[again.index, "SE_m_pred_s"])


def test_grouped_cross_validation_never_sees_the_jobs_group(small_trace):
    trace = small_trace.copy()
    trace["job_type"] = np.where(np.arange(len(trace)) % 3 == 0, "a", "b")
    trace.loc[trace.index[-1], "job_type"] = "c"
    base = cross_validated_pairs(trace, groups="job_type").set_index("job_id")
    assert sorted(base.index) == sorted(trace["job_id"])
    # spoiling every job of group "a" changes no prediction of an "a" job, and others' do change
    spoiled = trace.copy()
    in_a = (spoiled["job_type"] == "a").to_numpy()
    spoiled.loc[in_a, "map_time_ms"] *= 50
    again = cross_validated_pairs(spoiled, groups="job_type").set_index("job_id")
    a_jobs = trace.loc[in_a, "job_id"]
    np.testing.assert_allclose(again.loc[a_jobs, "SE_m_pred_s"], base.loc[a_jobs, "SE_m_pred_s"],
                               rtol=1e-12)
    others = trace.loc[~in_a, "job_id"]
    assert not np.allclose(again.loc[others, "SE_m_pred_s"], base.loc[others, "SE_m_pred_s"])
    _, ev = evaluate(trace, groups="job_type")
    assert ev.groups == "job_type" and ev.cross_validated.jobs == len(base)


def test_grouped_cross_validation_needs_a_complete_column_and_two_groups(small_trace):
    with pytest.raises(InputError, match="no column 'team'"):
        cross_validated_pairs(small_trace, groups="team")
    trace = small_trace.copy()
    trace["job_type"] = "a"
    with pytest.raises(ModelError, match="at least 2 groups"):
        cross_validated_pairs(trace, groups="job_type")
    trace["job_type"] = trace["job_type"].where(np.arange(len(trace)) > 0, None)
    with pytest.raises(InputError, match="missing for 1 jobs"):
        cross_validated_pairs(trace, groups="job_type")


def test_evaluate_scores_three_modes(small_trace):
    model, ev = evaluate(small_trace, folds=3)
    assert ev.folds == 3 and ev.warmup == MIN_HISTORY
    assert ev.in_sample.jobs == ev.cross_validated.jobs == len(small_trace)
    assert ev.prequential.jobs == len(small_trace) - MIN_HISTORY
    for scores in (ev.in_sample, ev.cross_validated, ev.prequential):
        assert set(scores.r2) == set(PAPER_R2)
        assert 0.9 < scores.r2["S"] <= 1
    # out-of-sample can only be as good as in-sample, up to noise
    assert ev.cross_validated.r2["SE_m"] <= ev.in_sample.r2["SE_m"] + 0.005
    assert model.training["jobs"] == len(small_trace)
    _, no_cv = evaluate(small_trace, folds=0)
    assert no_cv.cross_validated is None and no_cv.folds == 0
    with pytest.raises(InputError, match="at least 2 folds"):
        evaluate(small_trace, folds=1)
