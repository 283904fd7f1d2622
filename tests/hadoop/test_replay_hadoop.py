"""A SWIM plan replayed on a mini cluster started with Hadoop's FairScheduler, and the
simulator run on what it measured."""

from __future__ import annotations

import numpy as np
import pytest
import requests
from jobsize.hadoop.replay import ReplayJob, replay

from jobsize.sim.cluster import Cluster
from jobsize.sim.fidelity import (
    Constants,
    Setting,
    compare,
    measured_response_s,
    simulated_response_s,
)

pytestmark = pytest.mark.hadoop

PLAN = [
    ReplayJob("swim-shuffle", 0.0, "prod", reduces=2, input_bytes=2_000_000,
              shuffle_ratio=1.5, output_ratio=0.1),
    ReplayJob("swim-maponly", 1.0, "adhoc", reduces=0, input_bytes=50_000,
              shuffle_ratio=0.0, output_ratio=3.0),
]


def test_the_resource_manager_runs_the_scheduler_asked_for(fair_cluster):
    info = requests.get(f"{fair_cluster.rm_web}/ws/v1/cluster/scheduler", timeout=10,
                        headers={"Accept": "application/json"}).json()
    assert info["scheduler"]["schedulerInfo"]["type"] == "fairScheduler"
    assert fair_cluster.scheduler == "fair"


def test_replayed_jobs_move_the_bytes_the_plan_asks_and_the_model_replays_them(fair_cluster,
                                                                                tmp_path):
    jobs, tasks = replay(fair_cluster, PLAN, tmp_path)
    jobs = jobs.set_index("job_name")
    assert list(jobs["state"]) == ["SUCCEEDED", "SUCCEEDED"]
    shuffle = jobs.loc["swim-shuffle"]
    assert shuffle["n_reduces"] == 2 and shuffle["map_input_bytes"] == 2_000_000
    # SwimWork pays its ratios in 100-byte records: within one record per map
    assert shuffle["map_output_bytes"] == pytest.approx(3_000_000, abs=100 * int(shuffle["n_maps"]))
    assert shuffle["reduce_output_bytes"] == pytest.approx(
        0.1 * shuffle["reduce_shuffle_bytes"], rel=0.05)
    maponly = jobs.loc["swim-maponly"]
    assert maponly["n_reduces"] == 0
    assert maponly["reduce_output_bytes"] == pytest.approx(150_000, rel=0.02)
    assert {q.rsplit(".", 1)[-1] for q in jobs["queue"]} == {"prod", "adhoc"}

    jobs = jobs.reset_index()
    cluster = Cluster.homogeneous(fair_cluster.nodemanagers, fair_cluster.nm_memory_mb,
                                  fair_cluster.nm_vcores)
    frame = compare(measured_response_s(jobs),
                    simulated_response_s(jobs, tasks, cluster, Setting("fair"), Constants()))
    assert len(frame) == 2
    # without the cluster's fixed costs the model can only be early, never late
    assert np.isfinite(frame["error"]).all() and (frame["error"] < 0).all()
