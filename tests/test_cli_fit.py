"""`jobsize fit` and `jobsize predict` on a generated trace (synthetic test data, not measured)."""

import json

import numpy as np
import pandas as pd
import pytest
from jobsize.models.modelfile import load_model
from jobsize.models.synthetic import linear_trace

from jobsize.cli import main
from jobsize.schema import write_trace


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "synthetic.parquet"
    write_trace(linear_trace(600, seed=41, uber=0.05), path)
    return path


@pytest.fixture(scope="module")
def model_path(trace_path, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.json"
    assert main(["fit", str(trace_path), "--cv", "3", "-o", str(path)]) == 0
    return path


def _one_line_error(capsys, code, *needles):
    out = capsys.readouterr()
    assert code == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jobsize: error: "), out.err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_fit_prints_accuracy_beside_the_paper_and_saves_the_model(trace_path, tmp_path,
                                                                     capsys):
    out_path = tmp_path / "m.json"
    assert main(["fit", str(trace_path), "--cv", "3", "-o", str(out_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps to the terminal width
    for text in ("in-sample", "3-fold CV", "prequential", "paper", "0.942", "0.918", "0.970",
                 "R² SE_m", "R² SE_r", "median error", "small jobs", "eq 6: SE_m", "eq 7: SE_r",
                 "MOR·log(MOR/N_m)", "std err", "600 jobs from synthetic", "tasks form",
                 "S within ±25 %", "S off by 2× or more", "S in its 90 % interval",
                 f"model written to {out_path}"):
        assert text in out, text
    model = load_model(out_path)
    assert model.features == "probe" and model.method == "gls"
    evaluation = model.training["evaluation"]
    assert evaluation["folds"] == 3 and evaluation["in_sample"]["jobs"] == 600
    assert 0.9 < evaluation["prequential"]["r2"]["S"] <= 1


def test_fit_options_select_features_method_and_skip_cv(trace_path, capsys):
    assert main(["fit", str(trace_path), "--features", "actual", "--method", "ols",
                 "--cv", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "actual features, tasks form, wall clock, ols" in out and "fold CV" not in out
    assert "residual sd" in out and "∝ mean" not in out  # OLS: constant variance


def test_fit_says_what_eq7_was_fitted_on(trace_path, tmp_path, capsys):
    assert main(["fit", str(trace_path), "--cv", "0", "-o", str(tmp_path / "own.json")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "eq 7 fitted on the jobs' own counters, fed the probe's" in out
    assert "records' worth (κ, from the history)" in out
    assert load_model(tmp_path / "own.json").eq7_fit == "actual"
    assert main(["fit", str(trace_path), "--cv", "0", "--eq7-fit", "probe",
                 "-o", str(tmp_path / "probe.json")]) == 0
    assert "own counters" not in " ".join(capsys.readouterr().out.split())
    assert load_model(tmp_path / "probe.json").eq7_fit is None


def test_fit_cross_validates_by_group(trace_path, tmp_path, capsys):
    from jobsize.schema import read_trace

    trace = read_trace(trace_path)
    trace["queue"] = [f"q{i % 4}" for i in range(len(trace))]
    grouped = write_trace(trace, tmp_path / "grouped.parquet")
    assert main(["fit", str(grouped), "--cv-groups", "queue"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "CV by queue" in out and "fold CV" not in out
    _one_line_error(capsys, main(["fit", str(grouped), "--cv-groups", "team"]),
                    "no column 'team'")


def test_fit_without_a_trace_and_without_a_bundled_one_says_how(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JOBSIZE_DATASET", str(tmp_path / "none.parquet"))
    _one_line_error(capsys, main(["fit"]), "no measured reference trace is bundled",
                    "jobsize fit TRACE.parquet")


def test_fit_uses_the_bundled_trace_when_there_is_one(trace_path, monkeypatch, capsys):
    monkeypatch.setenv("JOBSIZE_DATASET", str(trace_path))
    assert main(["fit", "--cv", "0"]) == 0
    assert "synthetic.parquet: 600 jobs from synthetic" in " ".join(
        capsys.readouterr().out.split())


def test_fit_errors_are_one_line(tmp_path, capsys):
    _one_line_error(capsys, main(["fit", str(tmp_path / "missing.parquet")]), "no such file")
    few = tmp_path / "few.parquet"
    write_trace(linear_trace(6, seed=1), few)
    _one_line_error(capsys, main(["fit", str(few), "--cv", "0"]), "few.parquet",
                    "SE_m (eq 6)", "at least 11 jobs are needed")
    with pytest.raises(SystemExit) as exc:
        main(["fit", str(few), "--cv", "1"])
    assert exc.value.code == 2


def test_predict_prints_the_prediction_as_json(model_path, tmp_path, capsys):
    job = {"conf": {"mapreduce.job.maps": "40", "mapreduce.job.reduces": "4",
                    "mapreduce.map.memory.mb": "2048"},
           "map_input_bytes": 2_000_000_000,
           "probe": {"probe_fraction": 0.025, "probe_map_function_ms": 900,
                     "probe_map_output_bytes": 30_000_000, "probe_map_output_records": 300_000,
                     "probe_reduce_function_ms": 500, "probe_reduce_input_records": 200_000,
                     "probe_reduce_output_bytes": 5_000_000}}
    job_path = tmp_path / "job.json"
    job_path.write_text(json.dumps(job))
    assert main(["predict", "--model", str(model_path), "--job", str(job_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"SE_m_s", "SE_r_s", "S", "minE_s", "APB", "intervals", "uber",
                           "quantiles", "extrapolation", "notes"}
    assert result["uber"] is False and result["SE_m_s"] > 0 and result["SE_r_s"] > 0
    assert result["S"]["memory_mb_s"] == pytest.approx(
        2048 * result["SE_m_s"] + 1024 * result["SE_r_s"])
    low, high = result["intervals"]["SE_m_s"]
    assert low <= result["SE_m_s"] <= high
    assert main(["predict", "--model", str(model_path), "-j", str(job_path),
                 "--cluster-memory-mb", "8192", "--cluster-vcores", "8"]) == 0
    small = json.loads(capsys.readouterr().out)
    assert small["S"] == result["S"] and small["minE_s"] > result["minE_s"]


def test_predict_errors_are_one_line(model_path, tmp_path, capsys):
    job_path = tmp_path / "job.json"
    job_path.write_text('{"mapreduce.job.maps": "forty", "n_reduces": 1}')
    _one_line_error(capsys, main(["predict", "--model", str(model_path), "-j", str(job_path)]),
                    "job.json", "key 'mapreduce.job.maps'", "expected a number")
    job_path.write_text('{"n_maps": 40, "n_reduces": 1,')
    _one_line_error(capsys, main(["predict", "--model", str(model_path), "-j", str(job_path)]),
                    "job.json: line 1, column", "invalid JSON")
    job_path.write_text('{"n_maps": 40, "n_reduces": 2, "map_input_bytes": 1e10}')
    _one_line_error(capsys, main(["predict", "--model", str(model_path), "-j", str(job_path)]),
                    "missing 'probe_fraction'")
    damaged = tmp_path / "damaged.json"
    damaged.write_text(model_path.read_text()[:500])
    _one_line_error(capsys, main(["predict", "--model", str(damaged), "-j", str(job_path)]),
                    "damaged.json", "invalid JSON")
    doc = json.loads(model_path.read_text())
    doc["version"] = 99
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc))
    _one_line_error(capsys, main(["predict", "--model", str(other), "-j", str(job_path)]),
                    "other.json", "model format version 99")


def test_fit_on_a_history_too_short_for_prequential_scores(tmp_path, capsys):
    short = tmp_path / "short.parquet"
    write_trace(linear_trace(14, seed=3), short)  # every job falls in the warm-up
    assert main(["fit", str(short), "--cv", "0", "--calibrate", "none"]) == 0
    assert "prequential" in capsys.readouterr().out


def _unseen_kinds(n: int, seed: int, spread: float) -> pd.DataFrame:
    """Jobs of new kinds: the same synthetic costs, each kind's times off by its own factor
    (what a kind the history never saw looks like to the model)."""

    trace = linear_trace(n, seed=seed)
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 20, n)
    factor = np.exp(rng.normal(0, spread, 20))[kind]
    for column in ("map_time_ms", "reduce_time_ms"):
        trace[column] = np.round(trace[column] * factor)
    trace["job_type"] = [f"new-{k}" for k in kind]
    return trace


def test_fit_calibrates_on_jobs_of_unseen_kinds(trace_path, tmp_path, capsys):
    """--calibrate-with: the intervals come from the model's errors on kinds it never saw, so
    they cover jobs of further such kinds at about their level, where the history's own
    errors make them too narrow."""
    from jobsize.models.evaluation import in_sample_pairs

    unseen = write_trace(_unseen_kinds(400, seed=5, spread=0.3), tmp_path / "unseen.parquet")
    fresh = _unseen_kinds(600, seed=6, spread=0.3)
    covered = {}
    for how, extra in (("unseen", ["--calibrate-with", str(unseen)]), ("own", [])):
        path = tmp_path / f"{how}.json"
        assert main(["fit", str(trace_path), "--cv", "0", *extra, "-o", str(path)]) == 0
        model = load_model(path)
        pairs = in_sample_pairs(model, fresh)
        covered[how] = np.mean((pairs["S_low_mb_s"] <= pairs["S_mb_s"])
                               & (pairs["S_mb_s"] <= pairs["S_high_mb_s"]))
        if how == "unseen":
            assert model.training["calibration"] == {
                "by": "jobs of 20 kinds never fitted on", "jobs": 400, "probed_uber_jobs": 0}
            assert "400 out-of-sample errors (jobs of 20 kinds never fitted on)" in " ".join(
                capsys.readouterr().out.split())
    assert 0.82 <= covered["unseen"] <= 0.97, covered
    assert covered["own"] < 0.7, covered


def test_fit_refuses_calibration_jobs_of_kinds_it_was_fitted_on(trace_path, tmp_path, capsys):
    _one_line_error(capsys, main(["fit", str(trace_path), "--cv", "0", "--calibrate-with",
                                  str(trace_path)]),
                    "synthetic.parquet", "kinds the model was fitted on (synthetic)")
    _one_line_error(capsys, main(["fit", str(trace_path), "--cv", "0", "--calibrate", "none",
                                  "--calibrate-with", str(trace_path)]),
                    "--calibrate and --calibrate-with")


def test_fit_without_a_trace_fits_the_bundled_history(tmp_path, monkeypatch, capsys):
    """The main job: the reference trace and the local draws stacked, intervals calibrated by
    leaving one of its kinds out at a time, the model kept with where it came from."""
    import jobsize
    from jobsize.bundled import DEFAULT_HISTORY

    monkeypatch.delenv("JOBSIZE_DATASET", raising=False)
    monkeypatch.chdir(tmp_path)
    jobs = len(jobsize.read_trace(DEFAULT_HISTORY))
    assert main(["fit", "--cv", "0", "-o", "m.json"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"Size-model accuracy — history: {jobs} jobs" in out
    model = load_model(tmp_path / "m.json")
    assert model.training["trace"] == "history"
    assert model.training["calibration"]["by"] == "leave-one-job_type-out"
    assert model.probe_overhead > 0


def test_fit_of_the_bundled_trace_calibrates_on_the_bundled_draws():
    """Without a trace, the bundled reference trace's model is calibrated on the bundled
    draws of kinds it never saw, the Hadoop trace's on the draw run on Hadoop; another trace
    is calibrated on its own kinds."""
    from jobsize.bundled import CALIBRATION_TRACES, calibration_for, path, reference_trace

    if "JOBSIZE_DATASET" in __import__("os").environ:
        pytest.skip("JOBSIZE_DATASET names another reference trace")
    assert calibration_for(reference_trace()) == [path(n) for n in CALIBRATION_TRACES[
        "reference"]]
    for hadoop in (path("hadoop-trace"), "hadoop-trace"):  # a path or the bundled name
        assert calibration_for(hadoop) == [path("drawn-hadoop-20261201"),
                                           path("drawn-hadoop-uber-20261208")]
    assert calibration_for(path("heldout")) == []
