"""Metrics (§IV-C), sweeps and the ``jobsize simulate`` command."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from jobsize.cli import main
from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.metrics import Segmentation, alone_times, ecdf, rcp
from jobsize.sim.sweep import SweepConfig, n_runs, run_sweep
from jobsize.sim.synthetic_workload import SyntheticFB2009
from jobsize.sim.workload import from_task_lists, make_jobs


def test_segments_of_200_overlapping_by_50() -> None:
    seg = Segmentation.parse("200/50")
    wins = seg.windows(5894)
    assert wins[0] == (0, 200) and wins[1] == (150, 350)
    assert all(b - a == 200 for a, b in wins)
    assert wins[-1][1] <= 5894 and wins[-1][1] + 150 > 5894
    assert len(wins) == 38
    assert Segmentation().windows(20) == [(0, 20)]
    with pytest.raises(ConfigError):
        Segmentation.parse("50/50")


def test_rcp_is_eq_11() -> None:
    # two jobs of 10 maps × 100 s at 1024 MB: ΣS = 2·1024·1000 MB·s; gaps 100 + 100 s
    jobs = make_jobs(2, submit_s=np.array([0.0, 100.0]))
    w = from_task_lists("rcp", jobs, [[100.0] * 10] * 2, [[], []])
    w.first_gap_s = 100.0
    cluster = Cluster.homogeneous(2, 4096, 4)
    load = 2 * 1024 * 1000 / (200 * 8192)
    assert rcp(w, cluster) == pytest.approx(2 * math.log(load) + 5)
    assert rcp(w, cluster, alpha=1, beta=0) == pytest.approx(math.log(load))
    # slot mode: 2000 slot·s over 200 s on 2 nodes × (2 map + 1 reduce) slots
    slots = Cluster.mrv1(2, 2, 1)
    assert rcp(w, slots, alpha=1, beta=0) == pytest.approx(math.log(2000 / (200 * 6)))


def test_alone_time_and_ecdf() -> None:
    jobs = make_jobs(1, am_mb=1024)
    w = from_task_lists("alone", jobs, [[4.0] * 6], [[2.0]])
    # one node with 4 containers: AM + 3 maps, 2 waves of maps, then the reduce
    assert alone_times(w, Cluster.homogeneous(1, 4096, 4)).tolist() == [4 + 4 + 2]
    x, f = ecdf(np.array([3.0, 1.0, np.nan, 2.0]))
    assert x.tolist() == [1, 2, 3] and f.tolist() == pytest.approx([1 / 3, 2 / 3, 1])


def test_sweep_pairs_fair_slowdown_and_parallel_matches_serial() -> None:
    w = SyntheticFB2009(n_jobs=24, mean_gap_s=5.0, seed=2).generate()
    # shorten the heavy-tailed synthetic tasks so the test stays quick
    w.map_s[:] = np.minimum(w.map_s, 30.0)
    w.reduce_s[:] = np.minimum(w.reduce_s, 60.0)
    w.reduce_tail_s[:] = w.reduce_s
    cluster = Cluster.parse("4x8g×8")
    config = SweepConfig(schedulers=("fifo", "srpt"), seeds=(0, 1), sigma=0.5,
                         segmentation=Segmentation(12, 4))
    serial = run_sweep(w, cluster, config)
    ticks = []
    parallel = run_sweep(w, cluster, config, n_jobs=2, advance=ticks.append)
    assert len(ticks) == n_runs(w, config)
    key = ["segment", "scheduler", "seed", "job_id"]
    pd.testing.assert_frame_equal(serial.sort_values(key).reset_index(drop=True),
                                  parallel.sort_values(key).reset_index(drop=True))
    # fair slowdown of the Fair run itself is 1; fair is added although not asked for
    fair = serial[serial.scheduler == "fair"]
    assert (fair.fair_slowdown == 1).all()
    assert set(serial.scheduler) == {"fifo", "srpt", "fair"}
    assert set(serial[serial.scheduler == "srpt"].seed) == {0, 1}
    assert (serial.slowdown >= 1 - 1e-9).all()
    assert serial.groupby("segment").rcp.nunique().eq(1).all()


def test_fluid_sweep() -> None:
    w = SyntheticFB2009(n_jobs=30, seed=4).generate()
    config = SweepConfig(schedulers=("fifo", "srpt", "fsp"), model="fluid", fair_name="ps",
                         segmentation=Segmentation(15, 5))
    out = run_sweep(w, Cluster.parse("4x8g×8"), config)
    assert (out[out.scheduler == "ps"].fair_slowdown == 1).all()
    assert out.response_s.gt(0).all()


def test_cli_simulate(shared, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    status = main(["simulate", "--workload",
                   str(shared / "swim" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"),
                   "--schedulers", "fifo,fair,srpt", "--segments", "20/5",
                   "--cluster", "2x8g×8", "-o", str(out)])
    assert status == 0
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert set(jobs.scheduler) == {"fifo", "fair", "srpt"}
    assert jobs.segment.nunique() == 3
    summary = pd.read_parquet(out / "summary.parquet")
    assert {"rcp_group", "mean_response_s", "max_fair_slowdown"} <= set(summary.columns)
    for name in ("mean_response_by_rcp", "ecdf_response", "ecdf_slowdown",
                 "ecdf_fair_slowdown"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert "RCP = 2·ln" in (out / "summary.md").read_text()
    assert main(["simulate", "--workload", "synthetic:5", "--schedulers", "nope",
                 "-o", str(out)]) == 2
    assert "unknown 'nope'" in capsys.readouterr().err
    assert main(["simulate", "--workload", str(tmp_path / "none.tsv"), "-o",
                 str(out)]) == 2


def test_cli_simulate_runs_the_size_based_schedulers_by_name(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    status = main(["simulate", "--workload", "synthetic:40", "--schedulers",
                   "fair,fspy,hfsp,fair+reserve", "--segments", "20/5", "--cluster", "2x8g×8",
                   "--no-figures", "-o", str(out)])
    assert status == 0
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert set(jobs.scheduler) == {"fair", "fspy", "hfsp", "fair+reserve"}
    assert (jobs[jobs.scheduler == "fair"].fair_slowdown == 1).all()
    assert "| fspy |" in capsys.readouterr().out


def test_sweep_size_sources_replace_sigma() -> None:
    from jobsize.sim.size_sources import ExactSizes, LognormalSizes

    w = SyntheticFB2009(n_jobs=30, seed=5).generate()
    cluster = Cluster.parse("2x8g×8")
    seg = Segmentation(30, 10)
    for model, names in (("yarn", ("fair", "srpt")), ("fluid", ("ps", "srpt"))):
        fair = "ps" if model == "fluid" else "fair"
        exact = run_sweep(w, cluster, SweepConfig(schedulers=names, model=model,
                                                  fair_name=fair, segmentation=seg))
        given = run_sweep(w, cluster, SweepConfig(schedulers=names, model=model, fair_name=fair,
                                                  segmentation=seg,
                                                  size_sources={0: ExactSizes()}))
        pd.testing.assert_frame_equal(exact, given)
        noisy = run_sweep(w, cluster, SweepConfig(schedulers=names, model=model, fair_name=fair,
                                                  segmentation=seg,
                                                  size_sources={0: LognormalSizes(2.0, 0)}))
        srpt = noisy.scheduler == "srpt"
        assert not np.allclose(noisy[srpt].response_s, exact[srpt].response_s)
        assert np.allclose(noisy[~srpt].response_s, exact[~srpt].response_s)


def test_cli_simulate_size_source(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["simulate", "--workload", "synthetic:30", "--schedulers", "fair,srpt",
                 "--size-source", "lognormal:0.5", "--segments", "30/10", "--cluster",
                 "2x8g×8", "--no-figures", "-o", str(out)]) == 0
    assert "size estimates: lognormal" in (out / "summary.md").read_text()
    assert main(["simulate", "--workload", "synthetic:30", "--sigma", "0.5", "--size-source",
                 "exact", "-o", str(out)]) == 2
    assert "give one" in capsys.readouterr().err
