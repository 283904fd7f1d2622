"""Online updates from sufficient statistics equal a batch refit (synthetic test data)."""

import json

import numpy as np
import pytest
import statsmodels.api as sm
from jobsize.models.design import design_matrix
from jobsize.models.job import job_values
from jobsize.models.modelfile import model_to_json
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace
from models_helpers import as_job

from jobsize.errors import InputError


def _batch_reference(phase_model, trace, phase):
    """statsmodels GLS on every usable job with the online model's (frozen) variance model."""
    cols = {c: trace[c].to_numpy(dtype=float, na_value=np.nan) for c in trace.columns
            if str(trace[c].dtype) in ("Int64", "Float64")}
    x = design_matrix(cols, phase, "probe", se_m=cols["map_time_ms"] / 1000)
    y = cols["map_time_ms" if phase == "SE_m" else "reduce_time_ms"] / 1000
    rows = ~trace["uberized"].to_numpy(bool) & np.isfinite(x).all(axis=1)
    if phase == "SE_r":
        rows &= cols["n_reduces"] > 0
    x, y = x[rows], y[rows]
    scale = phase_model.stats.scale  # same column scaling: the solution does not depend on it
    fit = sm.GLS(y, x / scale, sigma=phase_model.variance.relative(x)).fit()
    return fit.params / scale, fit.normalized_cov_params / np.outer(scale, scale), fit, len(y)


@pytest.mark.parametrize("method", ["gls", "ols"])
def test_online_updates_equal_a_batch_refit(method):
    trace = linear_trace(3000, seed=5, uber=0.05)
    model = SizeModel.fit(trace.iloc[:300], "probe", method, form="paper")
    for _, row in trace.iloc[300:].iterrows():
        model.observe(job_values(as_job(row)))
    for phase, pm in (("SE_m", model.se_m), ("SE_r", model.se_r)):
        coef, inv, fit, n = _batch_reference(pm, trace, phase)
        assert pm.stats.n == n
        np.testing.assert_allclose(pm.coef, coef, rtol=1e-9)
        np.testing.assert_allclose(pm.solution.xtwx_inv, inv, rtol=1e-8)
        assert pm.s2 == pytest.approx(fit.scale, rel=1e-9)
        assert pm.solution.dof == fit.df_resid
    # and the variance model is the one the first 300 jobs gave
    first = SizeModel.fit(trace.iloc[:300], "probe", method, form="paper").se_m.variance
    assert (model.se_m.variance.power, model.se_m.variance.centre) == (first.power, first.centre)
    assert np.array_equal(model.se_m.variance.mean_coef, first.mean_coef)


def test_online_model_predicts_like_the_batch_model_with_its_variance_model():
    trace = linear_trace(1500, seed=8)
    online = SizeModel.fit(trace.iloc[:500], "probe", "gls", form="paper")
    for _, row in trace.iloc[500:].iterrows():
        online.observe(job_values(as_job(row)))
    coef, _, _, _ = _batch_reference(online.se_m, trace, "SE_m")
    got = online.predict_frame(trace)["SE_m_s"].to_numpy()
    cols = {c: trace[c].to_numpy(dtype=float, na_value=np.nan) for c in trace.columns
            if str(trace[c].dtype) in ("Int64", "Float64")}
    want = design_matrix(cols, "SE_m", "probe") @ coef
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_observe_feeds_only_the_parts_a_job_belongs_to(trace):
    model = SizeModel.fit(trace.iloc[:600], form="paper")
    n_m, n_r = model.se_m.stats.n, model.se_r.stats.n
    uber = job_values(as_job(trace[trace["uberized"]].iloc[0]))
    assert model.observe(uber) == ("uber",)
    normal = trace[~trace["uberized"]]
    map_only = job_values(as_job(normal[normal["n_reduces"] == 0].iloc[0]))
    assert model.observe(map_only) == ("uber", "SE_m")
    reduces = job_values(as_job(normal[normal["n_reduces"] > 0].iloc[0]))
    assert model.observe(reduces) == ("uber", "SE_m", "SE_r")
    assert model.observe(reduces, state="FAILED") == ()
    unprobed = {k: v for k, v in reduces.items() if k != "probe_fraction"}
    with pytest.raises(InputError, match="missing 'probe_fraction'"):
        model.observe(unprobed)  # a job it cannot learn from is refused, not dropped silently
    untimed = {k: v for k, v in reduces.items() if k != "reduce_time_ms"}
    with pytest.raises(InputError, match="missing 'reduce_time_ms'"):
        model.observe(untimed)
    assert (model.se_m.stats.n, model.se_r.stats.n) == (n_m + 2, n_r + 1)


def test_online_state_does_not_grow_with_the_jobs_seen(trace):
    model = SizeModel.fit(trace.iloc[:300], form="paper")
    before = len(json.dumps(model_to_json(model)))
    for _, row in trace.iloc[300:].iterrows():
        model.observe(job_values(as_job(row)))
    after = model_to_json(model)
    # O(p²) state: the same arrays, only their numbers change (a few digits of counts)
    assert abs(len(json.dumps(after)) - before) < 200
    assert after["models"]["SE_m"]["statistics"]["n"] > 800
