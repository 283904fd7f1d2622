"""Fitting eq 6 and eq 7 on synthetic records from a known linear process (test data)."""

import numpy as np
import pandas as pd
import pytest
from jobsize.models.design import design_matrix
from jobsize.models.job import job_values
from jobsize.models.normal_equations import column_scale
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import TRUE_ALPHA, TRUE_BETA, linear_trace
from models_helpers import as_job

from jobsize.errors import ConfigError, InputError, ModelError, SchemaError


def _design(trace, phase="SE_m"):
    cols = {c: trace[c].to_numpy(dtype=float, na_value=np.nan) for c in trace.columns
            if str(trace[c].dtype) in ("Int64", "Float64")}
    return design_matrix(cols, phase, "actual", se_m=cols["map_time_ms"] / 1000)


def test_known_coefficients_are_recovered():
    trace = linear_trace(20_000, seed=1, noise_cv=0.1)
    m = SizeModel.fit(trace, "actual", "gls", form="paper")
    for phase_model, truth in ((m.se_m, TRUE_ALPHA), (m.se_r, TRUE_BETA)):
        table = phase_model.coefficient_table()
        z = (table["coef"] - truth) / table["std_err"]
        # every coefficient within 4 standard errors of the truth: the standard errors are honest
        assert (z.abs() < 4).all(), table.assign(truth=truth, z=z)
        # the well-identified terms (all but the n·log n pair) within 3 % of the truth
        close = np.abs(table["coef"] / truth - 1)
        named = table["term"].isin(["const", "N_m", "N_r", "MI", "MFE", "RFE", "MO", "RO",
                                    "SE_m"])
        assert (close[named] < 0.03).all(), table.assign(truth=truth)


def test_gls_coefficient_error_is_lower_than_ols_under_heteroscedastic_noise():
    errors = {"ols": [], "gls": []}
    for seed in range(10):
        trace = linear_trace(500, seed=100 + seed, noise_cv=0.15, map_only=0.0)
        scale = column_scale(_design(trace))
        for method in errors:
            coef = SizeModel.fit(trace, "actual", method, form="paper").se_m.coef
            errors[method].append(np.linalg.norm(scale * (coef - TRUE_ALPHA))
                                  / np.linalg.norm(scale * TRUE_ALPHA))
    ols, gls = np.mean(errors["ols"]), np.mean(errors["gls"])
    assert gls < 0.6 * ols, errors


def test_methods_differ_in_their_variance_model(trace):
    powers = {m: SizeModel.fit(trace, "probe", m, form="paper").se_m.variance.power
              for m in ("ols", "wls", "gls")}
    assert powers["ols"] == 0.0
    assert powers["wls"] == 2.0
    # noise sd ∝ mean, so variance ∝ mean²: the estimated power is near 2
    assert 1.6 < powers["gls"] < 2.4


def test_probe_features_predict_nearly_as_well_as_actual(trace):
    from jobsize.models.evaluation import Scores, in_sample_pairs
    probe = Scores.of(in_sample_pairs(SizeModel.fit(trace, "probe", form="paper"), trace))
    actual = Scores.of(in_sample_pairs(SizeModel.fit(trace, "actual", form="paper"), trace))
    assert probe.r2["S"] > 0.95 and abs(probe.r2["S"] - actual.r2["S"]) < 0.01


def test_prediction_intervals_cover_held_out_jobs_at_their_level(model):
    fresh = linear_trace(4000, seed=99, uber=0.0)
    pred = model.predict_frame(fresh)
    actual = fresh["map_time_ms"].to_numpy(float) / 1000
    inside = (pred["SE_m_low_s"] <= actual) & (actual <= pred["SE_m_high_s"])
    level = model.level
    assert level - 0.03 < inside.mean() < level + 0.03
    # the variance model makes the coverage hold for large jobs too (OLS's: about 0.7 here)
    assert inside[actual > 1000].mean() > level - 0.05
    has_r = fresh["n_reduces"].to_numpy() > 0
    actual_r = fresh["reduce_time_ms"].to_numpy(float)[has_r] / 1000
    inside_r = ((pred["SE_r_low_s"][has_r] <= actual_r) & (actual_r <= pred["SE_r_high_s"][has_r]))
    assert level - 0.03 < inside_r.mean() < level + 0.04


# -- edge cases ---------------------------------------------------------------------------------


def test_fewer_jobs_than_coefficients_is_a_clear_error(trace):
    few = trace[~trace["uberized"]].iloc[:7]
    with pytest.raises(ModelError, match=r"SE_m \(eq 6\): 7 usable jobs, but the model has 7 "
                                         r"coefficients; at least 8 jobs are needed"):
        SizeModel.fit(few, form="paper")


def test_too_few_reduce_jobs_is_an_error_but_none_means_no_eq7(trace):
    normal = trace[~trace["uberized"]]
    few_reduces = pd.concat([normal[normal["n_reduces"] == 0].iloc[:30],
                             normal[normal["n_reduces"] > 0].iloc[:5]])
    with pytest.raises(ModelError, match=r"SE_r \(eq 7\): 5 usable jobs"):
        SizeModel.fit(few_reduces, form="paper")
    assert SizeModel.fit(few_reduces, partial=True, form="paper").se_r is None


def test_map_only_history_fits_eq6_and_predicts_map_only_jobs(trace):
    map_only = trace[(trace["n_reduces"] == 0) & ~trace["uberized"]]
    m = SizeModel.fit(map_only, form="paper")
    assert m.se_r is None and "no eq 7" in m.training["note"]
    p = m.predict_one(job_values(as_job(map_only.iloc[0])))
    assert p.SE_r == 0.0 and p.SE_r_interval == (0.0, 0.0) and p.SE_m > 0
    with_reduces = trace[(trace["n_reduces"] > 0) & ~trace["uberized"]].iloc[0]
    with pytest.raises(ModelError, match="no eq 7"):
        m.predict_one(job_values(as_job(with_reduces)))


def test_map_only_jobs_stay_out_of_eq7(trace):
    base = SizeModel.fit(trace, form="paper")
    spoiled = trace.copy()
    map_only = spoiled["n_reduces"] == 0
    spoiled.loc[map_only, "reduce_time_ms"] = 10**9  # would wreck eq 7 if it entered the fit
    m = SizeModel.fit(spoiled, form="paper")
    assert m.se_r.stats.n == base.se_r.stats.n == int(
        ((trace["n_reduces"] > 0) & ~trace["uberized"]).sum())
    np.testing.assert_allclose(m.se_r.coef, base.se_r.coef, rtol=1e-10)


def test_failed_jobs_do_not_train(trace):
    spoiled = trace.copy()
    rows = spoiled.index[:50]
    spoiled.loc[rows, "state"] = "FAILED"
    spoiled.loc[rows, "map_time_ms"] = 10**9
    clean = SizeModel.fit(trace.drop(index=rows), form="paper")
    np.testing.assert_allclose(SizeModel.fit(spoiled, form="paper").se_m.coef, clean.se_m.coef,
                               rtol=1e-10)


def test_empty_map_output_mor_zero_fits_and_predicts(trace):
    t = trace.copy()
    rows = t.index[::7]
    for col in ("map_output_records", "probe_map_output_records", "map_output_bytes",
                "probe_map_output_bytes"):
        t.loc[rows, col] = 0
    m = SizeModel.fit(t, form="paper")
    pred = m.predict_frame(t)
    assert np.isfinite(pred["SE_m_s"]).all() and np.isfinite(pred["S_mb_s"]).all()


def test_collinear_column_is_dropped_and_reported(trace):
    t = trace.copy()
    t["n_reduces"] = np.where(t["n_reduces"] > 0, 1, 0)  # N_r aliased with the intercept
    t["probe_map_output_bytes"] = t["probe_map_output_records"] * 80  # MO = 80·MOR
    t["probe_reduce_input_records"] = t["probe_map_output_records"]
    m = SizeModel.fit(t, form="paper")
    table_m = m.se_m.coefficient_table().set_index("term")
    assert table_m.loc["MOR", "aliased"] and table_m.loc["MOR", "coef"] == 0
    assert not table_m.loc["MO", "aliased"]
    table_r = m.se_r.coefficient_table().set_index("term")
    assert table_r.loc["N_r", "aliased"] and np.isnan(table_r.loc["N_r", "std_err"])
    pred = m.predict_frame(t)
    assert np.isfinite(pred["S_mb_s"]).all()
    actual = t["map_time_ms"].to_numpy(float) / 1000
    assert np.corrcoef(actual, pred["SE_m_s"])[0, 1] > 0.9


def test_never_probed_jobs_are_skipped_and_named_when_none_remain(trace):
    t = trace.copy()
    t.loc[t.index[:100], "probe_fraction"] = pd.NA
    m = SizeModel.fit(t, form="paper")
    assert m.training["skipped"] == int((~t["uberized"].iloc[:100]).sum())
    t["probe_map_function_ms"] = pd.NA
    with pytest.raises(ModelError, match="column 'probe_map_function_ms' is null in"):
        SizeModel.fit(t, form="paper")


def test_bad_values_name_the_column_and_the_job(trace):
    t = trace.copy()
    t.loc[5, "map_input_bytes"] = -1
    with pytest.raises(SchemaError, match=r"column 'map_input_bytes': row 5 \(job job_\d+_0006\)"):
        SizeModel.fit(t, form="paper")
    t = trace.copy()
    t.loc[3, "probe_fraction"] = 1.5
    with pytest.raises(SchemaError, match=r"'probe_fraction'.*1.5 is not in \(0, 1\]"):
        SizeModel.fit(t, form="paper")


def test_a_job_missing_a_model_input_is_named(model, trace):
    job = job_values(as_job(trace[~trace["uberized"]].iloc[0]))
    del job["probe_map_output_records"]
    with pytest.raises(InputError, match="missing 'probe_map_output_records', needed by eq 6"):
        model.predict_one(job)
    frame = trace.copy()
    frame.loc[frame.index[~frame["uberized"]][2], "probe_map_function_ms"] = pd.NA
    with pytest.raises(InputError, match="column 'probe_map_function_ms' is null; eq 6"):
        model.predict_frame(frame)
    assert model.predict_frame(frame, errors="nan")["SE_m_s"].isna().sum() == 1


def test_uber_jobs_without_an_input_size_get_the_historical_mean_task_time(model, trace):
    uber = trace[trace["uberized"]]
    per_task = (uber["map_time_ms"] / uber["n_maps"] / 1000).mean()
    p = model.predict_one({"n_maps": 4.0, "n_reduces": 0.0, "uberized": 1.0,
                           "am_memory_mb": 2048.0, "am_vcores": 1.0})
    assert p.uber and p.SE_m == pytest.approx(4 * per_task, rel=1e-12)
    assert p.APB.memory == pytest.approx(2048.0) and p.minE == pytest.approx(p.SE_m)
    assert any("mean task time" in note for note in p.notes)


def test_the_uber_decision_is_the_jobs_configuration_with_hadoops_defaults(model):
    small = {"n_maps": 3.0, "n_reduces": 1.0, "map_input_bytes": 1e6}
    # uber mode is off by default in Hadoop: not uber → needs the probe columns it lacks
    with pytest.raises(InputError, match="probe_fraction"):
        model.predict_one(small, {})
    assert model.predict_one(small, {"mapreduce.job.ubertask.enable": "true"}).uber
    with pytest.raises(InputError):  # a limit the job exceeds
        model.predict_one(small, {"mapreduce.job.ubertask.enable": "true",
                                  "mapreduce.job.ubertask.maxbytes": "1000"})


def test_eq7_is_fitted_on_the_jobs_own_counters_and_fed_the_probes():
    trace = linear_trace(600, seed=5, uber=0.05)
    model = SizeModel.fit(trace, form="tasks")
    own = SizeModel.fit(trace, "actual", form="tasks")
    assert model.eq7_fit == "actual" and model.features == "probe"
    np.testing.assert_array_equal(model.se_r.coef, own.se_r.coef)
    # predictions read the probe: eq 7's row in probe features with the predicted SE_m
    job = job_values(as_job(trace[~trace["uberized"] & (trace["n_reduces"] > 0)].iloc[0]))
    se_m = model.se_m.predict_one(model._row(job, "SE_m"))[0]
    want = model.se_r.predict_one(model._row(job, "SE_r", se_m))[0]
    assert model.predict_one(job).SE_r == pytest.approx(want)
    # the paper's way stays selectable, and is the paper's form's default
    on_probe = SizeModel.fit(trace, form="tasks", eq7_fit="probe")
    assert on_probe.eq7_fit is None and not np.allclose(on_probe.se_r.coef, own.se_r.coef)
    assert SizeModel.fit(trace, form="paper").eq7_fit is None
    with pytest.raises(ConfigError, match="eq 7 of a model of actual features"):
        SizeModel.fit(trace, "actual", form="tasks", eq7_fit="probe")


def test_eq7_learns_online_from_the_jobs_own_counters():
    trace = linear_trace(900, seed=6, uber=0.05)
    online = SizeModel.fit(trace.iloc[:300], "probe", "ols", form="tasks")
    for _, row in trace.iloc[300:].iterrows():
        online.observe(job_values(as_job(row)))
    batch = SizeModel.fit(trace, "probe", "ols", form="tasks")
    assert online.se_r.stats.n == batch.se_r.stats.n
    np.testing.assert_allclose(online.se_r.coef, batch.se_r.coef, rtol=1e-8)
    # a job without its own reduce counters cannot teach eq 7
    row = as_job(trace[~trace["uberized"] & (trace["n_reduces"] > 0)].iloc[0])
    with pytest.raises(InputError, match="'reduce_input_records', needed by eq 7"):
        online.observe(job_values({**row, "reduce_input_records": None}))
