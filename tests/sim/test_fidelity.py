"""The YARN model against a cluster's run of the same jobs (jobsize.sim.fidelity)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.sim.cluster import Cluster
from jobsize.sim.fidelity import (
    Constants,
    Setting,
    calibrate,
    compare,
    history_times,
    measured_response_s,
    simulated_response_s,
    summary,
)

CLUSTER = Cluster.homogeneous(1, 4096, 4)  # three task containers beside one AM


def _run(seed: int = 0, n: int = 10) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run's tables as a cluster's histories give them: jobs arriving faster than one node
    serves them, attempts with recorded durations (finish and submit times filled in later)."""
    rng = np.random.default_rng(seed)
    jobs, tasks = [], []
    for j in range(n):
        job_id = f"job_1_{j:04d}"
        maps, reduces = int(rng.integers(1, 5)), int(rng.integers(0, 3))
        submit = 1_000_000 + (j // 2) * 8_000  # in pairs: two AMs start together
        jobs.append({"job_id": job_id, "submit_time_ms": submit, "launch_time_ms": submit + 500,
                     "finish_time_ms": pd.NA, "n_maps": maps, "n_reduces": reduces,
                     "queue": "prod" if j % 2 else "adhoc", "map_memory_mb": 1024,
                     "reduce_memory_mb": 1024, "am_memory_mb": 1024})
        for kind, count in (("MAP", maps), ("REDUCE", reduces)):
            for t in range(count):
                start = submit + 2_000
                dur = int(rng.integers(2_000, 12_000))
                tasks.append({"job_id": job_id, "task_id": f"task_{j}_{kind}_{t}",
                              "attempt_id": f"attempt_{j}_{kind}_{t}", "task_type": kind,
                              "status": "SUCCEEDED", "start_time_ms": start,
                              "finish_time_ms": start + dur,
                              "shuffle_finish_time_ms": pd.NA, "memory_mb": 1024,
                              "vcores": 1})
    return pd.DataFrame(jobs), pd.DataFrame(tasks)


def _measured(setting: Setting, truth: Constants, seed: int = 0
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run whose response times are the model's with ``truth``: the constants the fit must
    find."""
    jobs, tasks = _run(seed)
    simulated = simulated_response_s(jobs, tasks, CLUSTER, setting, truth)
    jobs["finish_time_ms"] = (jobs["submit_time_ms"]
                              + (simulated.reindex(jobs["job_id"]).to_numpy() * 1000).round()
                              ).astype("int64")
    return jobs, tasks


@pytest.mark.parametrize("setting, concurrent_ams", [
    (Setting("fifo"), False),  # the pair's second job waits for the first one's tasks anyway
    (Setting("fair"), True),
    (Setting("capacity", capacity_queues="prod:0.7,adhoc:0.3"), True)])
def test_calibration_finds_the_constants_the_run_was_made_with(setting, concurrent_ams):
    truth = Constants(am_startup_s=6.0, task_overhead_s=1.5, commit_s=2.0,
                      am_startup_per_am_s=2.0)
    jobs, tasks = _measured(setting, truth)
    found, score = calibrate(jobs, tasks, CLUSTER, setting)
    assert score < 1e-3
    if concurrent_ams:
        assert found == truth
    else:  # no two AMs start together: the per-AM start-up cannot show, the rest must
        assert (found.am_startup_s, found.task_overhead_s, found.commit_s) == (6.0, 1.5, 2.0)
    frame = compare(measured_response_s(jobs),
                    simulated_response_s(jobs, tasks, CLUSTER, setting, found))
    assert summary(frame)["median_abs_error"] < 1e-3


def test_without_the_constants_the_model_answers_early():
    setting = Setting("fifo")
    jobs, tasks = _measured(setting, Constants(8.0, 2.0, 1.0))
    frame = compare(measured_response_s(jobs),
                    simulated_response_s(jobs, tasks, CLUSTER, setting, Constants()))
    assert (frame["error"] < 0).all()
    s = summary(frame)
    assert s["jobs"] == 10 and s["median_error"] < -0.1
    assert s["mean_simulated_s"] < s["mean_measured_s"]


def test_task_overhead_delays_jobs_that_wait_for_containers_most():
    """The overhead holds each container longer: on a full node it delays later jobs by more
    than one overhead (they wait behind the earlier jobs' longer tasks)."""
    setting = Setting("fifo")
    jobs, tasks = _run()
    plain = simulated_response_s(jobs, tasks, CLUSTER, setting, Constants())
    slow = simulated_response_s(jobs, tasks, CLUSTER, setting, Constants(task_overhead_s=1.0))
    delay = (slow - plain).to_numpy()
    assert (delay >= 1.0 - 1e-9).all()
    assert delay[-1] > 1.0 + 1e-6


def test_history_times_are_the_medians_of_what_the_histories_show():
    jobs, tasks = _run(n=3)
    jobs["finish_time_ms"] = [1_020_000, 1_030_000, 1_040_000]
    last = tasks.groupby("job_id")["finish_time_ms"].max().to_numpy()
    times = history_times(jobs, tasks)
    assert times["submit_to_launch_s"] == 0.5
    assert times["launch_to_first_task_s"] == 1.5
    expected = np.median(jobs["finish_time_ms"].to_numpy() - last) / 1000
    assert times["last_task_to_finish_s"] == pytest.approx(expected, abs=0.01)


def test_a_run_predicted_from_another_run_of_the_same_jobs():
    """The other run's attempts, under this run's ids; a job it lacks is one line."""
    from jobsize.errors import SimulationError
    from jobsize.sim.fidelity import as_before, transplant

    jobs, tasks = _measured(Setting("fair"), Constants(4.0, 1.0, 1.0))
    other = jobs.assign(job_id=[f"job_2_{i:04d}" for i in range(len(jobs))],
                        job_name=[f"swim-{i}" for i in range(len(jobs))])
    jobs = jobs.assign(job_name=[f"swim-{i}" for i in range(len(jobs))])
    moved = transplant(jobs, tasks, other)
    assert set(moved["job_id"]) == set(other["job_id"])
    assert (moved["finish_time_ms"] - moved["start_time_ms"]).tolist() == \
        (tasks["finish_time_ms"] - tasks["start_time_ms"]).tolist()
    # replayed under the other run's ids, the model answers as for the original
    here = simulated_response_s(jobs, tasks, CLUSTER, Setting("fair"), Constants(4.0, 1.0, 1.0))
    there = simulated_response_s(other, moved, CLUSTER, Setting("fair"),
                                 Constants(4.0, 1.0, 1.0))
    assert there.to_numpy() == pytest.approx(here.to_numpy())
    baseline = as_before(jobs, other)
    assert baseline.index.tolist() == other["job_id"].tolist()
    assert baseline.to_numpy() == pytest.approx(measured_response_s(jobs).to_numpy())
    with pytest.raises(SimulationError, match="swim-0"):
        transplant(jobs, tasks, other.iloc[1:])
