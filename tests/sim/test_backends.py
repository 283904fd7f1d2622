"""Sweeps on a Dask cluster on loopback (a LocalCluster the sweep starts, or one it is given
the address of), and on Ray where it is installed (slow)."""

from __future__ import annotations

import joblib
import pandas as pd
import pytest
from joblib import delayed, register_parallel_backend
from joblib._parallel_backends import ThreadingBackend

from jobsize.cli import main
from jobsize.sim.backends import ordered_results, parallel_backend
from jobsize.sim.cluster import Cluster
from jobsize.sim.metrics import Segmentation
from jobsize.sim.sweep import SweepConfig, run_sweep
from jobsize.sim.synthetic_workload import SyntheticFB2009

distributed = pytest.importorskip("dask.distributed")

KEY = ["segment", "scheduler", "seed", "job_id"]


def _sweep(n_jobs: int = 1) -> pd.DataFrame:
    w = SyntheticFB2009(n_jobs=24, seed=3).generate()
    config = SweepConfig(schedulers=("fifo", "srpt"), seeds=(0, 1), sigma=0.5,
                         segmentation=Segmentation(12, 4))
    out = run_sweep(w, Cluster.parse("2x8g×8"), config, n_jobs=n_jobs)
    return out.sort_values(KEY).reset_index(drop=True)


# Starting a local Dask cluster of two worker processes takes seconds. The default run still
# covers the same path — ``--backend dask`` starting a local cluster through parallel_backend and
# matching the serial sweep — in docs/simulator/distributed-sweeps.md's block (tests/test_docs.py),
# and a cluster reached by its address in test_cli_on_a_dask_scheduler_address below.
@pytest.mark.slow
def test_sweep_on_a_local_dask_cluster_matches_serial() -> None:
    serial = _sweep()
    with parallel_backend("dask", workers=2) as n_jobs:
        assert n_jobs == -1  # every worker of the cluster
        on_dask = _sweep(n_jobs)
    pd.testing.assert_frame_equal(serial, on_dask)


def test_cli_on_a_dask_scheduler_address(tmp_path, capsys) -> None:
    args = ["simulate", "--workload", "synthetic:24", "--schedulers", "fifo,srpt", "--sigma",
            "0.5", "--seeds", "0,1", "--segments", "12/4", "--cluster", "2x8g×8",
            "--no-figures"]
    assert main([*args, "-o", str(tmp_path / "serial")]) == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        assert main([*args, "--backend", "dask", "--scheduler-address",
                     cluster.scheduler_address, "-o", str(tmp_path / "dask")]) == 0
    serial = pd.read_parquet(tmp_path / "serial" / "jobs.parquet").sort_values(KEY)
    on_dask = pd.read_parquet(tmp_path / "dask" / "jobs.parquet").sort_values(KEY)
    pd.testing.assert_frame_equal(serial.reset_index(drop=True), on_dask.reset_index(drop=True))
    # nothing but the sweep's own outputs on disk
    assert sorted(p.name for p in (tmp_path / "dask").iterdir()) == [
        "jobs.parquet", "summary.md", "summary.parquet"]


def test_backend_mistakes_are_one_line_errors(tmp_path, capsys) -> None:
    base = ["simulate", "--workload", "synthetic:5", "-o", str(tmp_path)]
    assert main([*base, "--scheduler-address", "tcp://127.0.0.1:8786"]) == 2
    assert "--scheduler-address is for --backend dask or ray" in capsys.readouterr().err
    assert main([*base, "--backend", "spark"]) == 2
    assert "--backend 'spark': expected one of" in capsys.readouterr().err


class _NoStreaming(ThreadingBackend):
    """A backend that, like Ray's, cannot hand results back one by one."""

    supports_return_generator = False


def test_a_backend_that_cannot_stream_results_runs_the_sweep() -> None:
    register_parallel_backend("no-streaming", _NoStreaming)
    serial = _sweep()
    with joblib.parallel_config(backend="no-streaming"):
        assert list(ordered_results((delayed(abs)(-k) for k in range(3)), 2)) == [0, 1, 2]
        pd.testing.assert_frame_equal(serial, _sweep(2))


@pytest.mark.slow
def test_cli_on_a_local_ray(tmp_path, capsys) -> None:
    pytest.importorskip("ray")
    args = ["simulate", "--workload", "synthetic:24", "--schedulers", "fifo,srpt", "--sigma",
            "0.5", "--seeds", "0,1", "--segments", "12/4", "--cluster", "2x8g×8",
            "--no-figures"]
    assert main([*args, "-o", str(tmp_path / "serial")]) == 0
    assert main([*args, "--backend", "ray", "--parallel", "2", "-o", str(tmp_path / "ray")]) == 0
    serial = pd.read_parquet(tmp_path / "serial" / "jobs.parquet").sort_values(KEY)
    on_ray = pd.read_parquet(tmp_path / "ray" / "jobs.parquet").sort_values(KEY)
    pd.testing.assert_frame_equal(serial.reset_index(drop=True), on_ray.reset_index(drop=True))


@pytest.mark.slow
def test_sweep_on_a_local_ray_matches_serial() -> None:
    pytest.importorskip("ray")
    serial = _sweep()
    with parallel_backend("ray", workers=2) as n_jobs:
        on_ray = _sweep(n_jobs)
    pd.testing.assert_frame_equal(serial, on_ray)
