"""eq 7's wait term: what a reduce waits for the map waves still to run, and C, the map
containers a job gets, from the history — on known processes and on the Hadoop trace."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jobsize.models import waves
from jobsize.models.job import job_values
from jobsize.models.modelfile import load_model, save_model
from jobsize.models.size_model import SizeModel
from jobsize.models.waves import fit_map_slots, wave_factor, wave_factor_one
from models_helpers import as_job, kept_in_the_model_file

from jobsize.bundled import path as bundled_path
from jobsize.errors import ModelFileError
from jobsize.schema import read_trace


@given(n_m=st.integers(1, 5000), n_r=st.integers(0, 64),
       slots=st.sampled_from([0.0, *map(float, waves.MAP_SLOTS)]))
def test_one_jobs_wave_factor_equals_the_batch_one(n_m, n_r, slots):
    one = wave_factor_one(float(n_m), float(n_r), slots)
    batch = wave_factor(np.array([float(n_m)]), np.array([float(n_r)]), slots)[0]
    assert one == pytest.approx(batch, rel=1e-12, abs=0)
    assert one >= 0


def test_maps_in_one_wave_leave_nothing_to_wait_for():
    n_m = np.array([1.0, 6.0, 7.0, 8.0, 14.0, 700.0])
    n_r = np.ones_like(n_m)
    got = wave_factor(n_m, n_r, 7.0)
    assert got[:3].tolist() == [0.0, 0.0, 0.0]
    # 14 maps on 7 containers: the map phase lasts SE_m / 7, the reduce starts a map in
    assert got[4] == pytest.approx(1 / 7 - 1 / 14)
    assert np.all(np.diff(got) >= 0)
    assert wave_factor(n_m, n_r, 0.0).tolist() == [0.0] * 6


def test_at_most_half_the_containers_hold_waiting_reduces():
    # 20 reduces on 8 containers: MapReduce gives reduces at most half while maps are pending
    assert wave_factor_one(40.0, 20.0, 8.0) == pytest.approx(4 * (1 / 8 - 1 / 40))
    assert wave_factor_one(40.0, 2.0, 8.0) == pytest.approx(2 * (1 / 8 - 1 / 40))
    assert wave_factor_one(40.0, 5.0, 3.0) == pytest.approx(1 * (1 / 3 - 1 / 40))


def _history(slots: float, per_map: float = 0.0, seed: int = 3, jobs: int = 300):
    rng = np.random.default_rng(seed)
    n_m = rng.integers(1, 120, jobs).astype(float)
    n_r = rng.integers(1, 6, jobs).astype(float)
    se_m = n_m * rng.uniform(3, 12, jobs)
    y = (2.0 + 1.5 * n_r + 0.02 * se_m + per_map * n_m + se_m * wave_factor(n_m, n_r, slots)) \
        * rng.lognormal(0, 0.1, jobs)
    return n_m, n_r, se_m, y


def _ols(n_m, n_r, se_m, y):
    def fit(slots):
        x = np.column_stack([np.ones_like(y), n_r, se_m])
        if slots:
            x = np.column_stack([x, se_m * wave_factor(n_m, n_r, slots)])
        coef = np.linalg.lstsq(x, y, rcond=None)[0]
        return x @ coef, float(coef[-1]) if slots else 0.0
    return fit


@pytest.mark.parametrize("slots", [4.0, 7.0, 16.0])
def test_the_containers_of_a_history_with_waves_are_found(slots):
    n_m, n_r, se_m, y = _history(slots)
    assert fit_map_slots(n_m, n_r, y, _ols(n_m, n_r, se_m, y)) == slots


@pytest.mark.parametrize("seed", range(4))
def test_a_history_without_waves_gives_none_even_with_a_per_map_cost(seed):
    n_m, n_r, se_m, y = _history(0.0, seed=seed)
    assert fit_map_slots(n_m, n_r, y, _ols(n_m, n_r, se_m, y)) == 0.0
    n_m, n_r, se_m, y = _history(0.0, per_map=0.5, seed=seed)
    assert fit_map_slots(n_m, n_r, y, _ols(n_m, n_r, se_m, y)) == 0.0


# -- on the traces -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hadoop() -> tuple[pd.DataFrame, SizeModel]:
    trace = read_trace("hadoop-trace")
    return trace, SizeModel.fit(trace, form="tasks")


def test_the_hadoop_trace_shows_its_clusters_waves(hadoop):
    _, model = hadoop
    # two NodeManagers of 4 GB: 6-7 map containers beside the ApplicationMaster
    assert 6 <= model.map_slots <= 8
    coef = dict(zip(model.se_r.terms, model.se_r.coef_list, strict=True))
    assert waves.WAIT_COEF[0] <= coef["wait"] <= waves.WAIT_COEF[1]
    # the local engine's reduces start after the maps: no waves
    assert SizeModel.fit(read_trace("reference"), form="tasks").map_slots == 0.0


def test_the_formula_matches_the_waits_hadoop_recorded(hadoop):
    """Each reduce's wait, read from its task attempt (start to the job's last map), against
    SE_m·W with the history's C: the jobs of more maps than C, measured."""
    trace, model = hadoop
    tasks = pd.read_parquet(bundled_path("hadoop-trace.tasks.parquet"))
    tasks = tasks[tasks["status"] == "SUCCEEDED"]
    last_map = tasks[tasks["task_type"] == "MAP"].groupby("job_id")["finish_time_ms"].max()
    reduces = tasks[tasks["task_type"] == "REDUCE"].join(last_map.rename("last"), on="job_id")
    waited = ((reduces["last"] - reduces["start_time_ms"]).clip(lower=0)
              .groupby(reduces["job_id"]).sum().astype(float) / 1e3)
    jobs = trace.set_index("job_id").loc[waited.index]
    n_m, n_r = jobs["n_maps"].to_numpy(float), jobs["n_reduces"].to_numpy(float)
    formula = jobs["map_time_ms"].to_numpy(float) / 1e3 * wave_factor(n_m, n_r, model.map_slots)
    waves_ = formula > 0
    assert waves_.sum() >= 30
    ratio = waited.to_numpy()[waves_] / formula[waves_]
    assert 0.7 <= np.median(ratio) <= 1.4
    assert np.median(np.abs(np.log(ratio))) < 0.35
    # jobs whose maps ran in one wave waited (nearly) nothing
    assert np.median(waited.to_numpy()[(n_m <= model.map_slots - 2)]) < 0.5


def test_one_job_and_the_batch_predict_alike_with_waves(hadoop):
    trace, model = hadoop
    frame = model.predict_frame(trace, errors="nan")
    rows = np.flatnonzero((trace["n_maps"].to_numpy(float) > 2 * model.map_slots)
                          & (trace["n_reduces"].to_numpy(float) > 0)
                          & np.isfinite(frame["S_mb_s"].to_numpy()))
    assert len(rows) >= 5
    for i in rows[:5]:
        job = as_job(trace.iloc[i])
        one = model.predict_one(job_values(job), job)  # its name: the same corrections
        assert one.SE_r == pytest.approx(frame["SE_r_s"].iloc[i], rel=1e-9)
        assert one.S_interval[1].memory == pytest.approx(frame["S_high_mb_s"].iloc[i],
                                                              rel=1e-9)


def test_the_containers_are_kept_in_the_model_file(hadoop, tmp_path):
    trace, model = hadoop
    kept_in_the_model_file(model, trace, tmp_path / "m.json", "map_slots")


def test_a_file_from_before_the_wait_term_is_refused_with_what_to_do(hadoop, tmp_path):
    _, model = hadoop
    path = save_model(model, tmp_path / "m.json")
    doc = json.loads(path.read_text())
    doc["models"]["SE_r"]["terms"].remove("wait")
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=r"\$\.models\.SE_r\.terms: written before eq 7 "
                                             r"had its wait term: refit the model"):
        load_model(path)


def test_on_the_cpu_clock_there_is_no_wait_to_fit(hadoop):
    trace, _ = hadoop
    # a reduce waiting for maps burns no CPU
    assert SizeModel.fit(trace, form="tasks", clock="cpu").map_slots == 0.0


def test_a_model_without_eq7_still_predicts_a_batch(hadoop):
    """A history of map-only jobs (a cross-validation fold can be one) has no eq 7: the batch
    path predicts its jobs with reduces as before, with no reduce time, rather than failing."""
    trace, _ = hadoop
    map_only = trace[trace["n_reduces"] == 0]
    model = SizeModel.fit(map_only, form="tasks", partial=True)
    assert model.se_r is None
    frame = model.predict_frame(trace, errors="nan")
    assert len(frame) == len(trace)
