import math

import numpy as np
import pytest
from jobsize.models.design import (
    design_matrix,
    design_row,
    input_columns,
    terms,
    training_columns,
    xlogx,
)
from jobsize.models.job import job_values
from models_helpers import as_job

from jobsize.errors import ConfigError
from jobsize.schema import MODEL_INPUTS


def test_terms_are_eq6_and_the_rebuilt_eq7():
    assert terms("SE_m") == ("const", "N_m", "MI", "MFE", "MO", "MOR", "MOR·log MOR")
    assert terms("SE_r") == ("const", "N_r", "MO", "RFE", "RO", "RIR", "RIR·log RIR", "SE_m")


@pytest.mark.parametrize("phase", ["SE_m", "SE_r"])
@pytest.mark.parametrize("features", ["probe", "actual"])
def test_the_paper_form_reads_exactly_the_schema_model_inputs(phase, features):
    assert input_columns(phase, features, "paper") == MODEL_INPUTS[(phase, features)]
    assert "map_time_ms" in training_columns("SE_r", features, "paper")


def test_unknown_phase_feature_set_or_form_is_a_config_error():
    with pytest.raises(ConfigError, match="feature set 'counters'"):
        input_columns("SE_m", "counters")
    with pytest.raises(ConfigError, match="unknown model 'SE_x'"):
        terms("SE_x")
    with pytest.raises(ConfigError, match="form 'exact'"):
        terms("SE_m", "exact")


def _job(**over):
    job = {"n_maps": 10.0, "n_reduces": 2.0, "map_input_bytes": 6.4e8, "map_function_ms": 4000.0,
           "map_output_bytes": 2e8, "map_output_records": 1e6, "reduce_function_ms": 3000.0,
           "reduce_output_bytes": 5e7, "reduce_input_records": 8e5, "probe_fraction": 0.1}
    for name, actual in [("map_function_ms", "probe_map_function_ms"),
                         ("map_output_bytes", "probe_map_output_bytes"),
                         ("map_output_records", "probe_map_output_records"),
                         ("reduce_function_ms", "probe_reduce_function_ms"),
                         ("reduce_output_bytes", "probe_reduce_output_bytes"),
                         ("reduce_input_records", "probe_reduce_input_records")]:
        job[actual] = job[name] * job["probe_fraction"]
    job.update(over)
    return job


def test_eq8_scales_probe_counters_to_the_whole_job():
    job = _job()
    probe = design_row(job, "SE_m", "probe")
    actual = design_row(job, "SE_m", "actual")
    assert probe == pytest.approx(actual, rel=1e-12)
    # N_m and MI come from the job itself, not divided by f_p
    assert probe[1] == 10.0 and probe[2] == 6.4e8
    # MFE in seconds: 4000 ms of the whole job
    assert probe[3] == pytest.approx(4.0)
    r = design_row(job, "SE_r", "probe", se_m=123.0)
    assert r == pytest.approx(design_row(job, "SE_r", "actual", se_m=123.0), rel=1e-12)
    assert r[-1] == 123.0 and len(r) == 8


def test_log_of_zero_output_is_defined_as_zero():
    job = _job(map_output_records=0.0, probe_map_output_records=0.0)
    row = design_row(job, "SE_m", "probe")
    assert row[5] == 0.0 and row[6] == 0.0
    assert np.array_equal(xlogx(np.array([0.0, 1.0, math.e])), [0.0, 0.0, math.e])
    cols = {k: np.array([v]) for k, v in job.items()}
    assert np.isfinite(design_matrix(cols, "SE_m", "probe")).all()


def test_one_job_row_equals_the_batch_design_matrix(trace):
    rows = trace.iloc[:200]
    cols = {c: rows[c].to_numpy(dtype=float, na_value=np.nan) for c in rows.columns
            if c in {*input_columns("SE_m", "probe"), *input_columns("SE_r", "probe")}}
    usable = np.isfinite(np.column_stack(list(cols.values()))).all(axis=1)
    se_m = np.arange(len(rows), dtype=float)
    xm = design_matrix(cols, "SE_m", "probe")
    xr = design_matrix(cols, "SE_r", "probe", se_m=se_m)
    checked = 0
    for i in np.flatnonzero(usable):
        values = job_values(as_job(rows.iloc[i]))
        assert design_row(values, "SE_m", "probe") == pytest.approx(xm[i].tolist(), rel=1e-12)
        assert design_row(values, "SE_r", "probe", se_m=se_m[i]) == pytest.approx(
            xr[i].tolist(), rel=1e-12)
        checked += 1
    assert checked > 150
