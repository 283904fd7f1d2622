"""Leaving many kinds out: ten folds of kinds at a time in a nested calibration."""

import numpy as np
import pandas as pd
from jobsize.models import evaluation
from jobsize.models.evaluation import NESTED_GROUP_FOLDS, _splits


def _frame(groups: int) -> pd.DataFrame:
    return pd.DataFrame({"job_type": [f"k{i % groups}" for i in range(5 * groups)]})


def test_more_kinds_than_the_folds_are_left_out_a_fold_of_kinds_at_a_time():
    frame = _frame(25)
    what, splits = _splits(frame, 5, 0, "job_type", group_folds=10)
    assert len(splits) == 10 and "10 folds" in what
    kinds = frame["job_type"].to_numpy()
    seen = []
    for train, test in splits:
        assert not set(kinds[train]) & set(kinds[test])  # a kind wholly out or wholly in
        seen.extend(test)
    assert sorted(seen) == list(range(len(frame)))
    what, splits = _splits(_frame(8), 5, 0, "job_type", group_folds=10)
    assert len(splits) == 8 and what == "leave-one-job_type-out"
    assert len(_splits(frame, 5, 0, "job_type")[1]) == 25  # without it, one kind at a time


def test_a_nested_calibration_leaves_kinds_out_in_folds(monkeypatch):
    asked = []

    def calibrate(model, records, **options):
        asked.append(options.get("group_folds"))
        return model

    monkeypatch.setattr(evaluation, "calibrate", calibrate)
    from jobsize.schema import read_trace

    trace = read_trace("reference")
    evaluation.cross_validated_pairs(trace, groups="job_type", calibrated=True)
    assert asked and set(asked) == {NESTED_GROUP_FOLDS}
    assert np.isfinite(NESTED_GROUP_FOLDS) and NESTED_GROUP_FOLDS >= 5
