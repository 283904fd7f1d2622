"""Degenerate histories (property-based): a fit either works or raises a jobsize error, and a
fitted model's predictions are finite — never a crash, never NaN sizes. Generated test data."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobsize.models.size_model import SizeModel

from jobsize.errors import JobsizeError
from jobsize.schema import conform, records

# few distinct values per column, so constant, duplicated and all-zero columns come up often
_VALUES = st.sampled_from([0, 1, 2, 1000, 10**6])
_COLUMNS = ("map_input_bytes", "map_output_bytes", "map_output_records", "map_function_ms",
            "reduce_output_bytes", "reduce_input_records", "reduce_function_ms",
            "map_time_ms", "reduce_time_ms")


@st.composite
def histories(draw):
    n = draw(st.integers(0, 40))
    rows = []
    for i in range(n):
        row = {c: draw(_VALUES) for c in _COLUMNS}
        row.update(job_id=f"job_1_{i:04d}", n_maps=draw(st.sampled_from([1, 10, 40])),
                   n_reduces=draw(st.sampled_from([0, 1, 4])),
                   uberized=draw(st.sampled_from([False, False, False, True, None])),
                   state=draw(st.sampled_from(["SUCCEEDED", "SUCCEEDED", "FAILED", None])),
                   probe_fraction=draw(st.sampled_from([0.5, 1.0, None])))
        for c in ("map_output_bytes", "map_output_records", "map_function_ms",
                  "reduce_output_bytes", "reduce_input_records", "reduce_function_ms"):
            row[f"probe_{c}"] = row[c]
        rows.append(row)
    if not rows:
        return records([{"job_id": "job_1_0000"}]).iloc[:0]
    frame = pd.DataFrame.from_records(rows)
    frame["uberized"] = pd.array(frame["uberized"].tolist(), dtype="boolean")
    return conform(frame)


def _fit_or_fail_cleanly(history, features, method):
    with warnings.catch_warnings():
        # a warning would mean an undetected aliased column (statsmodels: rank-deficient
        # design) or arithmetic on degenerate values
        warnings.simplefilter("error")
        try:
            model = SizeModel.fit(history, features, method, form="paper")
        except JobsizeError:
            return
        pred = model.predict_frame(history, errors="nan")
    ok = pred["SE_m_s"].notna()
    for col in ("SE_m_s", "SE_r_s", "S_mb_s", "S_vcore_s", "minE_s", "APB_mb"):
        assert np.isfinite(pred.loc[ok, col]).all(), (col, pred.loc[ok, col])
    assert (pred.loc[ok, "S_low_mb_s"] >= 0).all()
    assert isinstance(pred, pd.DataFrame)


# Each case fits a model (a fraction of a second), so the default run draws 25 histories and
# ``pytest -m slow`` 400 of the same strategy.
_CASES = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
_DRAWS = {"history": histories(), "features": st.sampled_from(["probe", "actual"]),
          "method": st.sampled_from(["gls", "wls", "ols"])}


@settings(max_examples=25, **_CASES)
@given(**_DRAWS)
def test_degenerate_histories_fit_or_fail_cleanly(history, features, method):
    _fit_or_fail_cleanly(history, features, method)


@pytest.mark.slow
@settings(max_examples=400, **_CASES)
@given(**_DRAWS)
def test_degenerate_histories_fit_or_fail_cleanly_slow(history, features, method):
    _fit_or_fail_cleanly(history, features, method)


def test_a_variance_beyond_the_largest_float_is_infinite_in_both_paths() -> None:
    """A model file's variance fields can put exp() past the largest float (found by the slow
    model-file fuzz, as numpy's overflow warning): the design-matrix path gives inf without a
    warning, as the one-row path does."""
    from jobsize.models.variance import VarianceModel

    vm = VarianceModel(power=4.0, mean_coef=np.array([1e100, 1.0]), floor=1.0, centre=-10.0)
    rows = np.array([[1.0, 0.0], [1e-100, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vm.relative(rows)
    assert got[0] == np.inf and got[1] == vm.relative_one([1e-100, 0.0])
    assert vm.relative_one([1.0, 0.0]) == np.inf
