"""eq 6's ``N_m·ΔPO`` term: each map's start-up moves with the probe's own start-up, the
seconds the probe took beyond its functions, centred on the history's median."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jobsize.models import scaling
from jobsize.models.design import design_matrix, design_row, terms
from jobsize.models.job import job_values
from jobsize.models.modelfile import load_model, save_model
from jobsize.models.size_model import SizeModel
from models_helpers import as_job, kept_in_the_model_file

from jobsize.errors import ModelFileError
from jobsize.schema import read_trace

TERM = "N_m·ΔPO"


@pytest.fixture(scope="module")
def hadoop() -> tuple[pd.DataFrame, SizeModel]:
    trace = read_trace("hadoop-trace")
    return trace, SizeModel.fit(trace, form="tasks")


def _probe_job(wall_ms: float, map_ms: float, reduce_ms: float, combine_ms: float
               ) -> dict[str, float]:
    return {"n_maps": 12.0, "n_reduces": 2.0, "map_input_bytes": 12e6, "probe_fraction": 1 / 12,
            "probe_map_output_bytes": 1e5, "probe_map_output_records": 1e4,
            "probe_reduce_input_records": 1e4, "probe_reduce_output_bytes": 1e4,
            "probe_map_function_ms": map_ms, "probe_reduce_function_ms": reduce_ms,
            "probe_combine_function_ms": combine_ms, "probe_combine_input_records": 1e4,
            "probe_wall_ms": wall_ms}


@given(wall=st.floats(0, 1e6), functions=st.lists(st.floats(0, 1e5), min_size=3, max_size=3))
def test_the_probes_start_up_is_its_wall_time_beyond_its_functions(wall, functions):
    job = _probe_job(wall, *functions)
    one = scaling.probe_one(job)["PO"]
    batch = scaling.probe({k: np.array([v]) for k, v in job.items()}, "tasks")["PO"][0]
    assert one == pytest.approx(max(wall - sum(functions), 0.0) / 1e3, rel=1e-9, abs=1e-12)
    assert batch == pytest.approx(one, rel=1e-9, abs=1e-12)


def test_without_a_wall_time_or_a_median_the_term_is_nothing():
    job = _probe_job(math.nan, 100.0, 50.0, 0.0)
    assert math.isnan(scaling.probe_one(job)["PO"])
    i = terms("SE_m", "tasks").index(TERM)
    assert design_row(job, "SE_m", "probe", form="tasks", overhead=3.0)[i] == 0.0
    known = {**job, "probe_wall_ms": 5150.0}  # 5 s beyond its functions
    assert design_row(known, "SE_m", "probe", form="tasks")[i] == 0.0  # no median: none
    assert design_row(known, "SE_m", "probe", form="tasks", overhead=3.0)[i] == \
        pytest.approx(12 * 2.0)
    batch = design_matrix({k: np.array([v]) for k, v in known.items()}, "SE_m", "probe",
                          form="tasks", overhead=3.0)
    assert batch[0, i] == pytest.approx(12 * 2.0)
    assert TERM not in terms("SE_m", "paper")


def test_the_hadoop_trace_charges_a_slower_start_to_every_map(hadoop):
    """The trace's maps each take longer where its probes started slower: the term's
    coefficient is positive, and a job whose probe took 5 s more is predicted about
    coefficient × N_m × 5 s more."""
    trace, model = hadoop
    assert 1.0 < model.probe_overhead < 30.0
    coef = model.se_m.coef[list(model.se_m.terms).index(TERM)]
    assert coef > 0
    rows = np.flatnonzero((trace["n_maps"].to_numpy(float) >= 8)
                          & np.isfinite(trace["probe_wall_ms"].to_numpy(float))
                          & ~trace["uberized"].fillna(False).to_numpy(bool))
    job = as_job(trace.iloc[rows[0]])
    del job["job_name"]  # no recurring application's correction on top
    base = model.predict_one(job_values(job), job)
    slower = {**job, "probe_wall_ms": float(job["probe_wall_ms"]) + 5000.0}
    moved = model.predict_one(job_values(slower), slower)
    assert moved.SE_m - base.SE_m == pytest.approx(coef * job["n_maps"] * 5.0, rel=1e-6)


def test_a_history_without_probe_wall_times_fits_as_before(hadoop):
    trace, _ = hadoop
    blind = trace.assign(probe_wall_ms=pd.NA)
    model = SizeModel.fit(blind, form="tasks")
    assert math.isnan(model.probe_overhead)
    assert model.se_m.coef[list(model.se_m.terms).index(TERM)] == 0.0
    frame = model.predict_frame(blind, errors="nan")
    assert np.isfinite(frame["SE_m_s"].to_numpy(float)).sum() > 200


def test_the_median_is_kept_in_the_model_file(hadoop, tmp_path):
    trace, model = hadoop
    kept_in_the_model_file(model, trace, tmp_path / "m.json", "probe_overhead")
    blind = SizeModel.fit(trace.assign(probe_wall_ms=pd.NA), form="tasks")
    path = save_model(blind, tmp_path / "blind.json")
    assert json.loads(path.read_text())["probe_overhead"] is None
    assert math.isnan(load_model(path).probe_overhead)


def test_a_file_from_before_the_term_is_refused_with_what_to_do(hadoop, tmp_path):
    _, model = hadoop
    path = save_model(model, tmp_path / "m.json")
    doc = json.loads(path.read_text())
    doc["models"]["SE_m"]["terms"].remove(TERM)
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=r"\$\.models\.SE_m\.terms: written before eq 6 "
                                             r"had its N_m·ΔPO term: refit the model"):
        load_model(path)


def test_one_job_and_the_batch_charge_the_term_alike(hadoop):
    """The batch path (predict_frame) and the one-job path (predict_one) both centre PO on the
    model's P̄: jobs whose probe started far from the median are predicted alike."""
    trace, model = hadoop
    frame = trace.assign(job_name=None)  # no recurring application's correction on top
    batch = model.predict_frame(frame, errors="nan")
    po = scaling.probe({c: pd.to_numeric(frame[c], errors="coerce").to_numpy(float)
                        for c in frame.columns if c.startswith(("probe_", "n_", "map_"))},
                       "tasks")["PO"]
    far = np.flatnonzero(np.isfinite(batch["SE_m_s"].to_numpy(float))
                         & (np.abs(po - model.probe_overhead) > 1.0)
                         & ~frame["uberized"].fillna(False).to_numpy(bool))
    assert len(far) >= 10
    for i in far[:10]:
        job = as_job(frame.iloc[i])
        del job["job_name"]
        one = model.predict_one(job_values(job), job)
        assert one.SE_m == pytest.approx(batch["SE_m_s"].iloc[i], rel=1e-9)
