"""Size sources for FSPY, SRPT and FSP: probe costs, a fitted model on probe records learning
online, and the measured error distribution by size decile."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from jobsize.models.synthetic import linear_trace

from jobsize.bundled import REFERENCE_TRACE, datasets_dir
from jobsize.errors import ConfigError, InputError
from jobsize.predictor import SizePredictor
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import Simulation
from jobsize.sim.predicted import (
    ErrorDistributionSizes,
    ModelSizes,
    ProbeCost,
    WithProbe,
    parse_size_source,
)
from jobsize.sim.schedulers.fspy import FSPY
from jobsize.sim.size_sources import ExactSizes, LognormalSizes
from jobsize.sim.workload import from_task_lists, make_jobs


def workload_of(records: pd.DataFrame):
    """A simulator workload whose jobs carry ``records`` (synthetic, for mechanics only): each
    job's SE_m and SE_r spread evenly over its tasks."""
    n = len(records)
    n_m = records["n_maps"].to_numpy(int)
    n_r = records["n_reduces"].to_numpy(int)
    se_m = records["map_time_ms"].to_numpy(float) / 1000
    se_r = records["reduce_time_ms"].to_numpy(float) / 1000
    submit = records["submit_time_ms"].to_numpy(float)
    jobs = make_jobs(n, job_id=records["job_id"].to_numpy(), submit_s=(submit - submit[0]) / 1000,
                     map_mb=records["map_memory_mb"].to_numpy(int),
                     reduce_mb=records["reduce_memory_mb"].to_numpy(int),
                     reduce_vcores=records["reduce_vcores"].to_numpy(int),
                     uber=records["uberized"].to_numpy(bool))
    for col in records.columns:
        if col not in jobs.columns:
            jobs[col] = records[col].to_numpy()
    maps = [[se_m[j] / n_m[j]] * n_m[j] for j in range(n)]
    reds = [[se_r[j] / n_r[j]] * n_r[j] if n_r[j] else [] for j in range(n)]
    return from_task_lists("synthetic", jobs, maps, reds)


@pytest.fixture(scope="module")
def history():
    records = linear_trace(160, seed=3, map_only=0.3, uber=0.1)
    records["n_maps"] = np.minimum(records["n_maps"], 40)  # keep the simulations small
    return records


def test_probe_cost_recorded_modelled_and_uber() -> None:
    jobs = make_jobs(3, uber=[False, False, True])
    jobs["probe_wall_ms"] = [2500.0, np.nan, np.nan]
    w = from_task_lists("probe", jobs, [[10.0] * 4, [10.0] * 4, [1.0]], [[6.0] * 2, [], []])
    cost = ProbeCost(startup_s=5.0)  # Algorithm 1's fraction
    # job 0: recorded 2.5 s; job 1: 5 s + (40 s of maps) / max(4, 0); job 2: uber, no probe
    assert cost.durations(w).tolist() == [2.5, 15.0, 0.0]
    assert cost.modeled(w)[0] == pytest.approx(5.0 + 52.0 / 4)
    assert ProbeCost(use_recorded=False).durations(w)[0] == pytest.approx(18.0)
    # a budget, as `jobsize probe --max-fraction 0.01` samples: at least 128 KiB of the input
    budget = ProbeCost(startup_s=5.0, use_recorded=False, max_fraction=0.01)
    assert budget.durations(w)[1] == pytest.approx(5.0 + 40.0 * 0.01)  # input unknown
    w.jobs["map_input_bytes"] = [1 << 30, 1 << 20, 0]
    assert budget.fractions(w)[:2].tolist() == [0.01, 0.125]  # 1 GiB; 1 MiB: 128 KiB of it
    del w.jobs["map_input_bytes"]
    delayed = WithProbe(ExactSizes(), cost).estimate(w)
    assert delayed.known_after_s.tolist() == [2.5, 15.0, 0.0]
    assert delayed.size_mb_s.tolist() == ExactSizes().estimate(w).size_mb_s.tolist()


def _pairs(n: int = 100) -> pd.DataFrame:
    """Reference pairs whose ratio predicted/actual is (decile + 1) for SE_m and 1/(decile + 1)
    for SE_r, so a draw is identified by its value."""
    s = np.arange(1, n + 1, dtype=float) * 1000
    decile = np.arange(n) * 10 // n
    se_m = np.full(n, 10.0)
    se_r = np.full(n, 4.0)
    return pd.DataFrame({"S_mb_s": s, "SE_m_s": se_m, "SE_m_pred_s": se_m * (decile + 1),
                         "SE_r_s": se_r, "SE_r_pred_s": se_r / (decile + 1),
                         "n_reduces": np.ones(n)})


def test_error_distribution_by_size_decile() -> None:
    src = ErrorDistributionSizes(_pairs(), seed=4, label="hand")
    n = 20
    jobs = make_jobs(n)
    # job j has j + 1 maps of 10 s: sizes rise with j, two jobs per decile
    w = from_task_lists("deciles", jobs, [[10.0] * (j + 1) for j in range(n)],
                        [[5.0] if j % 2 else [] for j in range(n)])
    est = src.estimate(w)
    ratio_m = est.map_time_s / w.map_work_s()
    assert ratio_m.tolist() == [j // 2 + 1 for j in range(n)]
    with_r = w.n_reduces > 0
    ratio_r = est.reduce_time_s[with_r] / w.reduce_work_s()[with_r]
    assert ratio_r.tolist() == pytest.approx([1 / (j // 2 + 1) for j in range(n) if j % 2])
    assert "hand (100 jobs) by size decile" in src.name
    # modelled probe latency: 5 s + the job's work / max(N_m, N_r)
    assert est.known_after_s[0] == pytest.approx(5.0 + 10.0)


def test_error_distribution_needs_pairs() -> None:
    with pytest.raises(InputError, match="at least 10"):
        ErrorDistributionSizes(_pairs(5))
    with pytest.raises(InputError, match="lack column"):
        ErrorDistributionSizes(_pairs().drop(columns=["SE_r_pred_s"]))


def test_model_sizes_learn_online_from_finished_jobs(history) -> None:
    model = SizePredictor().fit(history.iloc[:80])
    w = workload_of(history.iloc[80:].reset_index(drop=True))
    source = ModelSizes(model)
    sizer = source.online(w)
    probed = int(np.flatnonzero(~w.jobs["uber"].to_numpy(bool))[-1])
    before = sizer.predict(probed)
    for j in range(probed):
        sizer.observe(j)
    after = sizer.predict(probed)
    assert sizer.observed == probed
    assert before != after  # the refitted coefficients move the prediction
    # FSPY reports every finished job to the model; the caller's model is left untouched
    coef = model.model_.se_m.coef_list[:]
    pol = FSPY(source)
    Simulation(w, Cluster.homogeneous(8, 8192, 8), pol).run()
    assert pol.sizer.observed == w.n_jobs
    assert model.model_.se_m.coef_list == coef


def test_model_sizes_static_estimates_follow_the_trace_timeline(history) -> None:
    model = SizePredictor().fit(history.iloc[:80])
    w = workload_of(history.iloc[80:].reset_index(drop=True))
    frozen = ModelSizes(model, learn=False).estimate(w)
    learning = ModelSizes(model).estimate(w)
    probed = ~w.jobs["uber"].to_numpy(bool)
    # a job's prediction learned from exactly the jobs that finished before its probe ended
    submit = w.jobs["submit_time_ms"].to_numpy(float)
    finish = w.jobs["finish_time_ms"].to_numpy(float)
    k = int(np.flatnonzero(probed)[len(np.flatnonzero(probed)) // 2])
    at = min(submit[k] + learning.known_after_s[k] * 1000, finish[k])
    replay = ModelSizes(model).online(w)
    for j in np.argsort(finish, kind="stable"):
        if finish[j] < at:
            replay.observe(int(j))
    assert 0 < replay.observed < w.n_jobs
    assert replay.predict(k)[0] == pytest.approx(learning.map_time_s[k])
    assert not np.allclose(frozen.map_time_s[probed], learning.map_time_s[probed])
    # a probed job is known once its probe has run; an uber one at submission
    assert (learning.known_after_s[~probed] == 0).all()
    assert (learning.known_after_s[probed] > 0).all()


def test_model_sizes_need_probe_records() -> None:
    w = from_task_lists("swim-like", make_jobs(2), [[1.0], [2.0]], [[], []])
    with pytest.raises(InputError, match="no probe records"):
        ModelSizes(SizePredictor().fit(linear_trace(60, seed=1))).estimate(w)


def test_size_source_specs(tmp_path, history) -> None:
    assert isinstance(parse_size_source("exact"), ExactSizes)
    lognormal = parse_size_source("lognormal:0.5", seed=3)
    assert isinstance(lognormal, LognormalSizes) and lognormal.seed == 3
    assert isinstance(parse_size_source("exact+probe"), WithProbe)
    path = tmp_path / "model.json"
    SizePredictor().fit(history).save(path)
    assert parse_size_source(f"model:{path}").name == "model(model.json, online)"
    for bad in ("exactly", "lognormal:x", "model:", "median"):
        with pytest.raises(ConfigError):
            parse_size_source(bad)


def test_error_distribution_of_the_reference_trace() -> None:
    trace = datasets_dir() / REFERENCE_TRACE
    if not trace.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{trace} is missing")
        pytest.skip(f"no bundled reference trace at {trace}")
    src = ErrorDistributionSizes.from_trace(trace)
    ratios = src.ratios()
    assert src.jobs >= 100 and set(ratios["decile"]) == set(range(10))
    # measured prequentially, the model is right to within a factor 2 for most jobs
    assert np.median(np.abs(np.log(ratios["ratio_SE_m"]))) < np.log(2)


def test_error_distribution_draws_belong_to_the_job() -> None:
    pairs = _pairs(200)
    pairs["SE_m_pred_s"] = pairs["SE_m_s"] * np.linspace(0.5, 2.0, 200)  # a ratio per row
    src = ErrorDistributionSizes(pairs, seed=1, label="hand")
    n = 40
    jobs = make_jobs(n)
    # every job the same size: all in every decile pool, so only the draw tells them apart
    w = from_task_lists("same", jobs, [[10.0, 10.0]] * n, [[]] * n)

    def ratios(a: int, b: int) -> np.ndarray:
        seg = w.segment(a, b)
        return src.estimate(seg).map_time_s / seg.map_work_s()

    assert not np.allclose(ratios(0, 20), ratios(20, 40))


def test_sources_give_quantiles_of_the_actual_size(history) -> None:
    w = workload_of(history.iloc[80:].reset_index(drop=True))
    exact = ExactSizes().estimate(w)
    assert (exact.quantile(0.9) == exact.size_mb_s).all()
    lognormal = LognormalSizes(0.5, seed=1).estimate(w)
    # the actual size is the estimate over exp(σZ): its median is the estimate
    assert np.allclose(lognormal.quantile(0.5), lognormal.size_mb_s)
    assert (lognormal.quantile(0.95) > lognormal.quantile(0.05)).all()
    # nearest probability the source has
    assert (lognormal.quantile(0.94) == lognormal.quantile(0.95)).all()
    with pytest.raises(ConfigError, match="probability"):
        lognormal.quantile(1.0)
    model = SizePredictor().fit(history.iloc[:80])
    est = ModelSizes(model, learn=False).estimate(w)
    probed = ~w.jobs["uber"].to_numpy(bool)
    low, mid, high = (est.quantile(p)[probed] for p in (0.05, 0.5, 0.95))
    assert (low <= mid).all() and (mid <= high).all() and (low < high).any()
    errors = ErrorDistributionSizes(_pairs(), seed=4, label="hand").estimate(w)
    assert (errors.quantile(0.05) <= errors.quantile(0.95)).all()


def test_a_source_without_quantiles_says_so() -> None:
    from jobsize.sim.size_sources import SizeEstimates

    bare = SizeEstimates(np.ones(2), np.ones(2), np.ones(2), np.zeros(2), "hand")
    with pytest.raises(ConfigError, match="gives no quantiles"):
        bare.quantile(0.5)
