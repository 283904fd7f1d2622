"""The committed replay runs (datasets/hadoop-replay): a SWIM window run on Hadoop's mini cluster
under FIFO, Fair and Capacity, and what the simulator's page says of the model against them."""

from __future__ import annotations

import json

import pytest

from jobsize.bundled import datasets_dir
from jobsize.cli.hadoop_replay import SCHEDULERS, read_run, settings
from jobsize.errors import SimulationError
from jobsize.sim.cluster import Cluster
from jobsize.sim.fidelity import (
    Setting,
    as_before,
    calibrate,
    compare,
    measured_response_s,
    simulated_response_s,
    summary,
    transplant,
)

RUNS = datasets_dir() / "hadoop-replay"
CLUSTER = Cluster.homogeneous(2, 4096, 4)


@pytest.fixture(scope="module")
def runs():
    return {name: read_run(RUNS, name) for name in SCHEDULERS}


@pytest.fixture(scope="module")
def fitted(runs):
    jobs, tasks, _ = runs["fifo"]
    return calibrate(jobs, tasks, CLUSTER, settings()["fifo"])[0]


def test_three_runs_of_the_same_sixty_jobs_all_succeeded(runs):
    names = None
    for name, (jobs, tasks, meta) in runs.items():
        assert len(jobs) == 60 and set(jobs["state"]) == {"SUCCEEDED"}
        assert set(tasks["job_id"]) == set(jobs["job_id"])
        assert (meta["scheduler"], meta["start"], meta["jobs"]) == (name, 2000, 60)
        assert meta["hadoop"] == "3.4.2" and meta["cluster"] == "2x4096x4"
        these = sorted(jobs["job_name"])
        assert names is None or these == names
        names = these
    assert runs["fair"][2]["rm_scheduler"] == "fair"
    assert runs["capacity"][2]["queues"] == "prod:70,adhoc:30"


def test_the_page_states_the_fifo_deadlock_the_model_reproduces(runs, fitted):
    """With no AM share limit (Hadoop's FifoScheduler) the model deadlocks as Hadoop did."""
    jobs, tasks, _ = runs["fifo"]
    first = jobs.loc[jobs["job_name"] == "swim-job2034", "job_id"].item()
    with pytest.raises(SimulationError, match=rf"26 jobs never finished \(first: {first}\)"):
        simulated_response_s(jobs, tasks, CLUSTER, Setting("fifo", max_am_share=1.0), fitted)
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    assert "26 jobs never finish, the first of them job 2034" in text


def test_the_page_states_the_errors_the_runs_give(runs, fitted):
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    for name in SCHEDULERS:
        jobs, tasks, _ = runs[name]
        s = summary(compare(measured_response_s(jobs),
                            simulated_response_s(jobs, tasks, CLUSTER, settings()[name],
                                                 fitted)))
        assert f"{name}: {100 * s['median_abs_error']:.1f} % at the median" in text


def test_the_page_states_the_predictions_from_the_fifo_run(runs, fitted):
    """Fair and Capacity predicted from the FIFO run's attempts, and the baseline."""
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    fifo_jobs, fifo_tasks, _ = runs["fifo"]
    predicted, baseline = [], []
    for name in ("fair", "capacity"):
        jobs, _, _ = runs[name]
        measured = measured_response_s(jobs)
        predicted.append(summary(compare(measured, simulated_response_s(
            jobs, transplant(fifo_jobs, fifo_tasks, jobs), CLUSTER, settings()[name],
            fitted)))["median_abs_error"])
        baseline.append(summary(compare(measured, as_before(fifo_jobs, jobs)))
                        ["median_abs_error"])
    assert (f"within {100 * predicted[0]:.1f} % under Fair and {100 * predicted[1]:.1f} % "
            "under Capacity") in text
    assert f"is {100 * baseline[0]:.1f} % and {100 * baseline[1]:.1f} % off" in text
    assert max(predicted) < 0.2 and all(p < b for p, b in zip(predicted, baseline, strict=True))


def test_the_page_states_the_fitted_constants(fitted):
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    assert (f"AM start-up {fitted.am_startup_s:g} s plus {fitted.am_startup_per_am_s:g} s per "
            f"AM starting beside it, task overhead {fitted.task_overhead_s:g} s, commit "
            f"{fitted.commit_s:g} s") in text


def test_the_page_states_what_one_constant_start_up_gives(runs, fitted):
    """The start-up per AM starting is what brings the 90th percentile down: without it the
    fit is one long start-up and the jobs that found the cluster idle come out far too slow."""
    from jobsize.sim.fidelity import GRID

    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    assert fitted.am_startup_per_am_s > 0
    grid = {**GRID, "am_startup_per_am_s": (0.0,),
            "am_startup_s": tuple(float(s) for s in range(0, 31, 2))}
    jobs, tasks, _ = runs["fifo"]
    constant, _ = calibrate(jobs, tasks, CLUSTER, settings()["fifo"], grid=grid)
    assert f"the best fit is {constant.am_startup_s:g} s" in text
    slow, p90 = [], []
    for name in SCHEDULERS:
        jobs, tasks, _ = runs[name]
        measured = measured_response_s(jobs)
        frame = compare(measured, simulated_response_s(jobs, tasks, CLUSTER, settings()[name],
                                                       constant))
        slow.append(frame.loc[frame["measured_s"] < 30, "error"].median())
        p90.append(summary(frame)["p90_abs_error"])
        with_it = summary(compare(measured, simulated_response_s(
            jobs, tasks, CLUSTER, settings()[name], fitted)))["p90_abs_error"]
        assert with_it < p90[-1] - 0.2
    assert f"made {100 * min(slow):.0f}-{100 * max(slow):.0f} % slow at the median" in text
    assert f"was then {100 * min(p90):.0f}-{100 * max(p90):.0f} %" in text


def test_the_command_compares_the_bundled_runs(tmp_path, capsys):
    """``jobsize hadoop replay --compare-only`` on the bundled runs: the report's files, and a
    directory without runs is one line."""
    from jobsize.cli import main

    out = tmp_path / "check"
    assert main(["hadoop", "replay", "--compare-only", "--runs", str(RUNS), "-o",
                 str(out)]) == 0
    report = capsys.readouterr().out
    assert "| fair | the fifo run's | fitted on fifo | 60 |" in report
    assert {p.name for p in out.iterdir()} == {"fidelity.md", "fidelity.json",
                                                "fidelity.parquet", "fidelity.png"}
    result = json.loads((out / "fidelity.json").read_text())
    assert result["calibrated_on"] == "fifo" and len(result["summary"]) == 10
    code = main(["hadoop", "replay", "--compare-only", "--runs", str(tmp_path / "none"),
                 "-o", str(tmp_path / "x")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no fifo run here" in err[0]
