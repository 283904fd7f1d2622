"""The seed papers' reproductions: their workloads, metrics, and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.cli import main
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.reproductions import dynamicmr, mrorder, rasooli
from jobsize.sim.reproductions.report import KNOWLEDGE, PURDUE, benchmark_jobs
from jobsize.sim.schedulers import FIFO
from jobsize.sim.size_sources import LognormalSizes
from jobsize.sim.workload import from_task_lists, make_jobs


def test_facebook_sw_follows_table_3_3() -> None:
    w = mrorder.facebook_sw(1, seed=0)
    assert w.n_jobs == 50
    maps = np.sort(w.n_maps)
    assert (maps[:29] <= 25).all() and maps[-3:].tolist() == [1200, 2400, 4800]
    reds = w.n_reduces / w.n_maps
    big = w.n_maps >= 100
    assert set(np.round(reds[big], 2)) <= {0.05, 0.25}
    # one map time and one reduce time per job (MREstimator's job description)
    for j in range(w.n_jobs):
        assert len(set(w.map_s[w.map_off[j]:w.map_off[j + 1]])) == 1
    assert mrorder.facebook_sw(3, seed=0).n_jobs == 150


def test_offline_orders_against_the_unoptimised_one_on_exact_and_predicted_sizes() -> None:
    out = mrorder.offline(mrorder.testbed(10, seed=0), LognormalSizes(1.0, seed=0))
    assert set(out) == {("arrival", "none"), ("unoptimised", "none")} | {
        (order, knowledge) for order in mrorder.ORDERED for knowledge in KNOWLEDGE}
    assert out["mk_jr", "exact"][0] < out["unoptimised", "none"][0]  # Johnson beats its reverse
    assert out["tct", "exact"][1] < out["unoptimised", "none"][1]
    # the predicted sizes reach the orderings: wrong sizes, another order, another makespan
    assert out["mk_jr", "predicted"] != out["mk_jr", "exact"]


def test_compressed_swim_arrivals_reach_the_load(shared) -> None:
    from jobsize.sim.costmodel import read_swim_workload

    swim = read_swim_workload(str(shared / "swim" /
                                  "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"))
    w = mrorder.compressed(swim, 50, load=0.9)
    span = w.submit_s()[-1]
    busiest = max(w.map_work_s().sum() / 57, w.reduce_work_s().sum() / 19)
    assert busiest / span == pytest.approx(0.9)


def test_purdue_benchmark_jobs() -> None:
    w = benchmark_jobs(["Sort", "Grep"])
    assert w.n_maps.tolist() == [320, 480] and w.n_reduces.tolist() == [200, 120]
    assert w.map_s[0] == PURDUE["Sort"][2] and w.reduce_s[-1] == PURDUE["Grep"][3]


def test_rasooli_metrics_by_hand() -> None:
    """1 map slot; user a (min share 1) runs two 10 s maps, then user b (min share 2) one.
    a holds its min share until 20 s; b has demand and no slot for 20 s of the 30: its
    dissatisfaction 1·(2 − 0)/2 = 1 two thirds of the time. Fairness (one priority level):
    on [0, 20) A_a = 0, A_b = −2, mean −1: distance 2; then b is alone: 0."""
    jobs = make_jobs(2, queue=np.array(["a", "b"]))
    w = from_task_lists("m", jobs, [[10.0, 10.0], [10.0]], [[], []])
    res = simulate(w, Cluster.mrv1(1, 1, 1), FIFO(), record=True,
                   locality=BlockLocality(replication=1))
    m = rasooli.metrics(w, res, {"a": (1, 1), "b": (2, 1)})
    assert m["mean_completion_s"] == 25.0
    assert m["dissatisfaction"] == pytest.approx(20 / 30)
    assert m["fairness"] == pytest.approx(2 * 20 / 30)
    assert m["locality_pct"] == 100.0


def test_rasooli_benchmarks_mix_their_job_types() -> None:
    w = rasooli.benchmark("W3", 1, seed=0)
    kinds = w.jobs["job_id"].str.rsplit("-", n=1).str[0].value_counts()
    assert w.n_jobs == 100 and set(kinds.index) == set(rasooli.TYPES)
    assert kinds["small"] > kinds["large"]  # BM3,1: smaller jobs arrive more often
    assert set(w.jobs["queue"]) <= set(rasooli.EXP1_USERS)


def test_dynamicmr_experiments_are_laid_out() -> None:
    rows = dynamicmr.experiments(None, seeds=(0,), swim_jobs=10)
    kinds = {r[0] for r in rows}
    assert kinds == {"configurations", "borrowing", "sepb", "prescheduling", "dynamicmr"}
    row = next(r for r in rows if r[0] == "configurations" and r[2] == "11/1"
               and r[3] == "pi-dhsa" and r[1] == "Sort")
    out = dynamicmr._one(row)
    t_m, t_r = PURDUE["Sort"][2:]
    # DHSA on one job: ⌈N_M/108⌉ map waves and ⌈N_R/108⌉ reduce waves (tasks ±10 %)
    assert out["makespan_s"] == pytest.approx(3 * t_m + 2 * t_r, rel=0.25)


def test_cli_reproduce_rasooli(tmp_path, capsys) -> None:
    assert main(["--quiet", "simulate", "--reproduce", "rasooli", "--replications", "1",
                 "-o", str(tmp_path)]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "Beside the paper" in text and "BM3,3" in text
    assert (tmp_path / "summary.csv").exists()
    assert "jobsize simulate --reproduce rasooli --workload FB-2009 --replications 1" in text
    assert "FB-2009 first 200" in text  # the bundled SWIM day, the default workload
    # by default the predicted sizes are jobsize's measured errors
    assert "- MyALG predicted: prequential errors of reference.parquet" in text
    assert "| exact sizes | predicted sizes |" in text


def test_cli_reproduce_rasooli_on_another_size_source(tmp_path, capsys) -> None:
    assert main(["--quiet", "simulate", "--reproduce", "rasooli", "--replications", "1",
                 "--size-source", "lognormal:2", "-o", str(tmp_path)]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "--replications 1 --size-source lognormal:2 -o" in text
    assert "- MyALG predicted: lognormal(σ=2" in text
    runs = pd.read_csv(tmp_path / "runs.csv")
    mine = runs[runs.scheduler.isin(["MyALG", "MyALG predicted"])].pivot_table(
        index=["benchmark", "seed"], columns="scheduler", values="mean_completion_s")
    assert (mine["MyALG"] != mine["MyALG predicted"]).any()  # the sizes reached the LP


def test_size_source_of_a_reproduction_without_sizes_is_one_line(tmp_path, capsys) -> None:
    assert main(["simulate", "--reproduce", "dynamicmr", "--size-source", "exact",
                 "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--size-source" in err and "dynamicmr" in err and err.strip().count("\n") == 0
    assert not (tmp_path / "report.md").exists()


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["mrorder", "dynamicmr"])
def test_cli_reproduce_the_thesis(paper, tmp_path) -> None:
    assert main(["--quiet", "simulate", "--reproduce", paper, "--replications", "1",
                 "-o", str(tmp_path)]) == 0
    assert "Beside the thesis" in (tmp_path / "report.md").read_text()
