"""The committed replay runs (datasets/hadoop-replay): a SWIM window run on Hadoop's mini cluster
under FIFO, Fair and Capacity, and what the simulator's page says of the model against them."""

from __future__ import annotations

import json

import pytest

from jobsize.bundled import datasets_dir
from jobsize.cli.hadoop_replay import SCHEDULERS, settings
from jobsize.errors import SimulationError
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path
from jobsize.sim.cluster import Cluster
from jobsize.sim.fidelity import (
    Setting,
    calibrate,
    compare,
    measured_response_s,
    simulated_response_s,
    summary,
)

RUNS = datasets_dir() / "hadoop-replay"
CLUSTER = Cluster.homogeneous(2, 4096, 4)


def _run(name: str):
    path = RUNS / f"{name}.parquet"
    return (read_trace(path), read_trace(tasks_path(path), columns=TASK_COLUMNS),
            json.loads((RUNS / f"{name}.run.json").read_text()))


@pytest.fixture(scope="module")
def runs():
    return {name: _run(name) for name in SCHEDULERS}


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
    """With no AM share limit (Hadoop's FifoScheduler) the model stops where Hadoop stopped."""
    jobs, tasks, _ = runs["fifo"]
    first = jobs.loc[jobs["job_name"] == "swim-job2016", "job_id"].item()
    with pytest.raises(SimulationError, match=rf"44 jobs never finished \(first: {first}\)"):
        simulated_response_s(jobs, tasks, CLUSTER, Setting("fifo", max_am_share=1.0), fitted)
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    assert "44 jobs never finish, the first of them job 2016" in text


def test_the_page_states_the_errors_the_runs_give(runs, fitted):
    text = " ".join((datasets_dir().parent / "docs" / "simulator" / "against-hadoop.md")
                    .read_text().split())
    for name in SCHEDULERS:
        jobs, tasks, _ = runs[name]
        s = summary(compare(measured_response_s(jobs),
                            simulated_response_s(jobs, tasks, CLUSTER, settings()[name],
                                                 fitted)))
        assert f"{name}: {100 * s['median_abs_error']:.1f} % at the median" in text
