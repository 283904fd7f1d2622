"""The LTYARN and DRESS reproductions: closed-loop submission, the sharing measures of eqs
5.3-5.5 by hand, the workloads, the reports and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.cli import main
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.metrics import Segmentation
from jobsize.sim.reproductions import dress, ltyarn
from jobsize.sim.reproductions.closed_loop import ClosedLoop
from jobsize.sim.reproductions.sharing import QueueMeter, sharing_curves
from jobsize.sim.schedulers import FIFO, Fair
from jobsize.sim.schedulers.dress import DRESS
from jobsize.sim.workload import from_task_lists, make_jobs

FIRST50 = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"


def test_closed_loop_releases_after_the_predecessor_and_think_time() -> None:
    # job 1 follows job 0 after 5 s; job 2 follows job 1 at once, but not before its trace
    # time (40 s)
    jobs = make_jobs(3, submit_s=np.array([0.0, 0.0, 40.0]), am_mb=0, am_vcores=0)
    work = from_task_lists("chain", jobs, [[10.0], [10.0], [1.0]], [[], [], []])
    loop = ClosedLoop(FIFO(), {1: (0, 5.0), 2: (1, 0.0)})
    res = simulate(work, Cluster.homogeneous(1, 4096, 5), loop)
    assert loop.released == {0: 0.0, 1: 15.0, 2: 40.0}
    assert res.jobs["finish_s"].tolist() == [10.0, 25.0, 41.0]


def test_sharing_degrees_by_hand() -> None:
    """Two queues of 2 slots' share on 4 slots. A holds all 4 in [0, 10); B asks for 2 at 5
    and gets them in [10, 20). At 10: β_A = 40/20 = 2, β_B = 0/10 = 0; at 20: β_B = 20/30."""
    jobs = make_jobs(2, submit_s=np.array([0.0, 5.0]), queue=np.array(["A", "B"]))
    work = from_task_lists("hand", jobs, [[10.0] * 4, [10.0] * 2], [[], []])
    meter = QueueMeter(Fair(), ["A", "B"])
    simulate(work, Cluster.mrv1(1, 4, 0), meter)
    c = sharing_curves(meter.frame(), {"A": 2.0, "B": 2.0}, np.array([5.0, 10.0, 20.0]))
    assert c["beta_A"].tolist() == pytest.approx([2.0, 2.0, 2.0])
    assert c["beta_B"].tolist() == pytest.approx([1.0, 0.0, 2 / 3])  # 1: no demand yet
    assert c["loss"].tolist() == pytest.approx([0.0, -1.0, -1 / 3])
    assert c["benefit"].tolist() == pytest.approx([1.0, 1.0, 1.0])


def test_macro_benchmark_is_built_as_described() -> None:
    bench = ltyarn.MacroBenchmark(tuple(np.arange(100) * 30.0), seed=3)
    work, chains = bench.build()
    q = work.jobs["queue"].value_counts().to_dict()
    assert q == {"facebook": 100, "purdue": 5, "tpch": 20, "spark": 20}
    fb = work.jobs["queue"].to_numpy() == "facebook"
    bins = pd.Series(list(zip(work.n_maps[fb], work.n_reduces[fb], strict=True))).value_counts()
    assert {(m, r): n for (m, r), n in bins.items()} == {(m, r): n for m, r, n in
                                                         ltyarn.FACEBOOK_BINS}
    # TPC-H: one chain of 20; Spark: two chains of 10 with 2 min of thinking
    assert len(chains) == 19 + 2 * 9
    assert sorted({t for _, t in chains.values()}) == [0.0, 120.0]


def small_rep():
    return ltyarn.reproduce(np.arange(100) * 30.0, seeds=(0,), loads=(1.0,),
                            tpch_rounds=1, spark_runs=2)


def test_ltyarn_reproduction_report(tmp_path) -> None:
    rep = small_rep()
    table = ltyarn.summary(rep)
    assert set(table["policy"]) == set(ltyarn.POLICIES)
    static = table[table["policy"] == "static"].iloc[0]
    assert static["speedup_response_facebook"] == pytest.approx(1.0)
    assert abs(static["mean_loss"]) < 0.1  # a static partition neither gains nor loses much
    assert static["mean_benefit"] == 0.0  # it cannot get more than its share
    # Fig 5.7: a fixed 600 s quantum makes facebook's accumulated resources fall far more
    # within 11 s than the adaptive one
    fixed = table[table["policy"] == "ltrf-q600"].iloc[0]
    adaptive = table[table["policy"] == "ltrf"].iloc[0]
    fall = lambda row: row["fb_fall_before"] - row["fb_fall_after"]  # noqa: E731
    assert fall(fixed) > 5 * max(fall(adaptive), 1.0)
    paths = ltyarn.write_report(rep, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "Fig 5.5" in text and "Fig 5.6" in text and "Fig 5.7" in text
    assert "650 s" in text and {p.name for p in paths} >= {"report.md", "summary.csv",
                                                           "fig5_7_quantum.png"}


def test_hibench_like_small_jobs_are_small_for_dress() -> None:
    cluster = Cluster.parse(dress.CLUSTER)
    for setting in dress.SETTINGS:
        work, small = dress.HiBenchLike(setting, seed=1).build()
        demand = dress.declared_demand(work)
        assert (demand[small] <= 0.1 * cluster.total[0]).all()
        assert (demand[~small] > 0.1 * cluster.total[0]).all()
        if setting in dress.SMALL_IDS:
            assert (np.flatnonzero(small) + 1).tolist() == list(dress.SMALL_IDS[setting])
        assert np.diff(work.submit_s()).tolist() == [5.0] * 19
    pol = DRESS()
    work, small = dress.HiBenchLike("mixed-30", seed=1).build()
    simulate(work, cluster, pol)
    assert [c == 0 for c in pol.category] == small.tolist()


def test_dress_reproduction_report(tmp_path, shared) -> None:
    from jobsize.sim.costmodel import read_swim_workload

    trace = read_swim_workload(str(shared / "swim" / FIRST50))
    rep = dress.reproduce(seeds=(0,), settings=("mapreduce", "mixed-10"), trace=trace,
                          trace_cluster=Cluster.parse("2x8g×8"),
                          segmentation=Segmentation(20, 5))
    settings = dress.setting_summary(rep)
    mr = settings[settings["setting"] == "mapreduce"].iloc[0]
    assert mr["small_change"] < 0  # the small jobs finish sooner under DRESS
    assert mr["mean_wait_capacity"] > 0
    dress.write_report(rep, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "-25.7%" in text and "-76.1%" in text and FIRST50 in text
    assert len(dress.trace_summary(rep)) == 3


def test_cli_reproductions(tmp_path, shared, monkeypatch, capsys) -> None:
    first50 = str(shared / "swim" / FIRST50)
    out = tmp_path / "dress"
    assert main(["simulate", "--reproduce", "dress", "--workload", first50, "--segments",
                 "20/5", "--seeds", "0", "-o", str(out), "--quiet"]) == 0
    assert (out / "report.md").is_file() and (out / "trace_segments.csv").is_file()
    # the LTYARN macro-benchmark needs 100 facebook arrivals
    assert main(["simulate", "--reproduce", "ltyarn", "--workload", first50, "-o",
                 str(tmp_path / "x"), "--quiet"]) == 2
    assert "100 submission times" in capsys.readouterr().err
    monkeypatch.setattr(ltyarn, "LOADS", (1.0,))
    monkeypatch.setattr(ltyarn, "POLICIES", ("static", "ltrf"))
    out = tmp_path / "ltyarn"
    assert main(["simulate", "--reproduce", "ltyarn", "--workload", "synthetic:100", "-o",
                 str(out), "--quiet", "--no-figures"]) == 0
    assert "Task times ×1" in (out / "report.md").read_text()
