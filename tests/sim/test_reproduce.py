"""The §IV-C reproduction: segments, RCP groups, Figs 5-10 and the report beside the paper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from jobsize.models.synthetic import linear_trace

from jobsize.cli import main
from jobsize.schema import write_trace
from jobsize.sim.cluster import Cluster
from jobsize.sim.costmodel import read_swim_workload
from jobsize.sim.metrics import Segmentation
from jobsize.sim.predicted import WithProbe
from jobsize.sim.reproduce import (
    fairness,
    focus_group,
    reproduce,
    response_ratios,
    write_report,
)
from jobsize.sim.size_sources import ExactSizes

FIRST50 = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
FIGURES = ("fig5_segments_per_rcp.png", "fig6_mean_response_by_rcp.png")


@pytest.fixture(scope="module")
def small(shared):
    return read_swim_workload(str(shared / "swim" / FIRST50))


def test_reproduction_on_a_small_workload(small, tmp_path) -> None:
    cluster = Cluster.parse("2x8g×8")
    rep = reproduce(small, cluster, size_source=WithProbe(ExactSizes()),
                    schedulers=("fair", "fspy", "fspy+ps", "hfsp", "srpt", "fair-plain"),
                    segmentation=Segmentation(20, 5))
    assert len(rep.segments) == len(Segmentation(20, 5).windows(50)) == 3
    per = rep.per_job
    assert set(per["scheduler"]) == {"fair", "fspy", "fspy+ps", "hfsp", "srpt", "fair-plain"}
    assert len(per) == 3 * 20 * 6
    # the baseline is Fair with node reservations, as Hadoop's
    assert set(per.loc[per["scheduler"] == "fair", "policy"]) == {"fair+reserve"}
    assert set(per.loc[per["scheduler"] == "fair-plain", "policy"]) == {"fair"}
    assert (per.loc[per["scheduler"] == "fair", "fair_slowdown"] == 1).all()
    assert (per["slowdown"] >= 1 - 1e-9).all()  # nobody beats running alone
    ratios = response_ratios(rep)
    for g, row in ratios.iterrows():
        seg = per[per["rcp_group"] == g]
        fair = seg.loc[seg["scheduler"] == "fair", "response_s"].mean()
        fspy = seg.loc[seg["scheduler"] == "fspy", "response_s"].mean()
        assert row["ratio"] == pytest.approx(fair / fspy)
    g = focus_group(rep, 6)
    assert g in set(rep.segments["rcp_group"])
    paths = write_report(rep, tmp_path, group=6)
    names = {p.name for p in paths}
    assert set(FIGURES) <= names and f"fig10_fspy_vs_fair_rcp{g}.png" in names
    text = (tmp_path / "report.md").read_text()
    row = fairness(rep, g).set_index("scheduler").loc["fspy"]
    assert f"{100 * row['share_fair_slowdown_le_1']:.1f} %" in text
    assert "size source of FSPY and SRPT: exact after probe" in text
    assert "probing queue): 5 s + (SE_m + SE_r)/max(N_m, N_r)" in text
    assert "PSBS-style late jobs" in text
    assert "fair: Fair (memory) with node reservations" in text
    assert f"fig10_fspy_vs_fair_rcp{g}.png" in text.split("Figures:")[1]
    assert pd.read_parquet(tmp_path / "jobs.parquet").shape[0] == len(per)


def test_cli_reproduce_with_a_measured_error_distribution(shared, tmp_path, capsys) -> None:
    # the errors come from a synthetic trace here (the mechanics); the report names it
    trace = write_trace(linear_trace(80, seed=2), tmp_path / "errors.parquet")
    workload = shared / "swim" / FIRST50
    assert main([
        "simulate", "--reproduce", "fspy", "--workload", str(workload), "--segments", "25/5",
        "--cluster", "2x8g×8", "--size-source", f"errors:{trace}", "--compare", "fspy+ps",
        "-o", str(tmp_path / "out"), "--no-figures"]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert "prequential errors of errors.parquet" in text
    assert "| fspy+ps |" in text and "hfsp" not in text.split("## Simulation time")[1]
    assert not list((tmp_path / "out").glob("*.png"))
    assert "Figures:" not in text  # the report names only figures it wrote
    assert "Beside the paper" in capsys.readouterr().out


@pytest.mark.slow
def test_fb2009_reproduction(shared, tmp_path) -> None:
    """The whole FB-2009 day, as ``jobsize simulate --reproduce fspy`` runs it."""
    w = read_swim_workload(str(shared / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"))
    rep = reproduce(w, Cluster.parse("8x8g×8"), size_source=WithProbe(ExactSizes()),
                    schedulers=("fair", "fspy", "fspy+ps"), n_jobs=2)
    assert len(rep.segments) == 38
    heavy = response_ratios(rep).query("index >= 6")
    assert len(heavy) and (heavy["ratio"] > 1).all()
    write_report(rep, tmp_path)
    assert np.isfinite(fairness(rep).set_index("scheduler").loc["fspy", "max_fair_slowdown"])


def test_plain_baseline_beside_the_reserving_fair(small, tmp_path) -> None:
    rep = reproduce(small, Cluster.parse("2x8g×8"), size_source=WithProbe(ExactSizes()),
                    schedulers=("fair", "fspy", "fair-plain", "fair+reserve"),
                    segmentation=Segmentation(20, 5), baseline="plain")
    per = rep.per_job
    assert set(per.loc[per["scheduler"] == "fair", "policy"]) == {"fair"}
    assert set(per.loc[per["scheduler"] == "fair+reserve", "policy"]) == {"fair+reserve"}
    paths = write_report(rep, tmp_path)
    assert "fair: Fair (memory) without node reservations (`fair`)" in (
        tmp_path / "report.md").read_text()
    assert any(p.name.startswith("fig7") for p in paths)
