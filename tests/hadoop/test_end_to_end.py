"""The whole loop on Hadoop, as a new user runs it from a shell:

    jobsize probe --hadoop → jobsize predict → jobsize run --engine hadoop
        → jobsize collect jhs → jobsize fit

Twelve jobs of four reference workloads at three sizes, each probed on the mini cluster (a real
uber job), predicted, then run there; the JobHistoryServer's history collected, every job
joined to its own probe by the identity both derived without being told, and the size models
fitted on it. Nothing is named by the user: no ``--name``, no ``-D``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.hadoop

KINDS = ("wordcount", "grepcount", "bigram", "distinct")
SIZES = (400_000, 900_000, 1_600_000)


def _jobsize(*args: str, cwd: Path, env: dict[str, str], out: Path | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "jobsize", "-q", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"jobsize {' '.join(args)}: {done.stderr.strip()}"
    if out is not None:
        out.write_text(done.stdout)
    return done.stdout


def _one(kind: str, size: int, where: Path, env: dict[str, str]) -> dict:
    from jobsize.workloads import WORKLOADS

    workload = WORKLOADS[kind]
    data = where / f"{kind}-{size}"
    workload.generate(str(data), size, size % 97)
    options = ["--input", data.name, "--mapper", f"python -m jobsize.workloads.{kind} map",
               "--maps", "4", "--reduces", "2", "--split-size", "256K"]
    if kind == "grepcount":
        options[3] += r" \b[a-z]*ni\b"
    if workload.reducer is not None:
        options += ["--reducer", f"python -m jobsize.workloads.{kind} reduce"]
    if workload.combiner is not None:
        options += ["--combiner", f"python -m jobsize.workloads.{kind} combine"]
    job = where / f"{data.name}.job.json"
    _jobsize("probe", *options, "--seed", "1", "--hadoop", cwd=where, env=env, out=job)
    prediction = json.loads(_jobsize("predict", "--model", "model.json", "--job", job.name,
                                     cwd=where, env=env))
    ran = json.loads(_jobsize("run", "--engine", "hadoop", *options, "-o", f"{data.name}.out",
                              cwd=where, env=env))
    return {"probe": json.loads(job.read_text()), "prediction": prediction, "run": ran}


@pytest.fixture(scope="module")
def loop(hadoop_cluster, tmp_path_factory):
    where = tmp_path_factory.mktemp("loop")
    env = {**os.environ, "JOBSIZE_HADOOP_DIR": hadoop_cluster.directory}
    _jobsize("fit", "-o", "model.json", cwd=where, env=env)
    with ThreadPoolExecutor(3) as pool:  # three jobs at a time, as users share a cluster
        runs = list(pool.map(lambda ks: _one(*ks, where, env),
                             [(k, s) for s in SIZES for k in KINDS]))
    report = _jobsize("collect", "jhs", hadoop_cluster.jhs_web, "-o", "history.parquet",
                      cwd=where, env={**env, "NO_COLOR": "1"})
    return where, runs, report


def test_each_probe_ran_as_an_uber_job_and_was_predicted(loop):
    _, runs, _ = loop
    for one in runs:
        assert one["probe"]["probe_job_id"].startswith("job_")
        assert one["prediction"]["SE_m_s"] > 0 and one["prediction"]["S"]["memory_mb_s"] > 0
        assert one["run"]["record"]["state"] == "SUCCEEDED"
        assert one["run"]["record"]["uberized"] is False


def test_collect_joins_every_job_to_its_own_probe_by_default(loop):
    where, runs, _ = loop
    # The session's cluster ran other tests' jobs too, as a user's cluster runs other users'.
    jobs = pd.read_parquet(where / "history.parquet").set_index("job_id")
    probes = pd.read_parquet(where / "history.probes.parquet").set_index("job_id")
    assert {one["run"]["job_id"] for one in runs} <= set(jobs.index)
    assert {one["probe"]["probe_job_id"] for one in runs} <= set(probes.index)
    for one in runs:
        job_id = one["run"]["job_id"]
        probe_id = one["probe"]["probe_job_id"]
        assert probes.loc[probe_id, "joined_job_id"] == job_id
        assert jobs.loc[job_id, "probe_input_bytes"] == one["probe"]["probe_input_bytes"]
        assert jobs.loc[job_id, "probe_map_output_records"] == one["probe"][
            "probe_map_output_records"]


def test_fit_on_the_collected_history(loop):
    where, runs, _ = loop
    env = {**os.environ}
    report = _jobsize("fit", "history.parquet", "-o", "hadoop-model.json", cwd=where, env=env)
    assert "R²" in report
    model = json.loads((where / "hadoop-model.json").read_text())
    jobs = pd.read_parquet(where / "history.parquet")
    assert model["training"]["jobs"] == len(jobs) >= len(runs)
