"""The load-normalised fluid experiment (schedsim's) and its CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.cli import main
from jobsize.errors import ConfigError
from jobsize.sim.costmodel import from_bytes
from jobsize.sim.fluid import completion_times
from jobsize.sim.fluid_experiment import byte_sizes, run_experiment, runs, summarize
from jobsize.sim.synthetic_workload import SyntheticFB2009

FIRST50 = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"


def _trace():
    # four jobs: input, shuffle, output bytes; the last submitted at 30 s; one of size 0
    return from_bytes("bytes", np.array(["a", "b", "c", "d"]), np.array([0.0, 10.0, 20.0, 30.0]),
                      np.array([100.0, 0.0, 50.0, 0.0]), np.array([10.0, 0.0, 0.0, 20.0]),
                      np.array([0.0, 0.0, 50.0, 0.0]))


def test_sizes_from_bytes_scaled_to_the_load() -> None:
    w = _trace()
    size = byte_sizes(w, d_over_n=4.0, load=0.5)
    raw = np.array([100 + 5 * 10, 0.0, 50 + 50, 5 * 20])  # m + (1 + d/n)·s + r
    assert size == pytest.approx(raw * 0.5 * 30.0 / raw.sum())
    assert size.sum() == pytest.approx(0.5 * 30.0)  # load × last submission time
    with pytest.raises(ConfigError, match="byte counts"):
        byte_sizes(SyntheticFB2009(n_jobs=5).generate(), 4.0, 0.9)


def test_runs_and_their_spread() -> None:
    w = _trace()
    assert runs(["fifo", "srpt"], [0.0, 1.0], [3, 4]) == [
        ("fifo", 0.0, 3), ("srpt", 0.0, 3), ("fifo", 1.0, 3), ("srpt", 1.0, 3), ("srpt", 1.0, 4)]
    per_job = run_experiment(w, ["fifo", "srpt"], [0.0, 1.0], [3, 4], load=0.5)
    size = byte_sizes(w, 4.0, 0.5)
    fifo = per_job[(per_job.scheduler == "fifo") & (per_job.sigma == 0)]
    want = completion_times(w.submit_s(), size, "fifo")
    assert fifo.finish_s.tolist() == pytest.approx(want)
    table = summarize(per_job).set_index(["sigma", "scheduler"])
    assert table.loc[(1.0, "srpt"), "runs"] == 2 and table.loc[(0.0, "srpt"), "runs"] == 1
    means = per_job[(per_job.sigma == 1) & (per_job.scheduler == "srpt")].groupby(
        "seed").response_s.mean()
    assert table.loc[(1.0, "srpt"), "mean"] == pytest.approx(means.mean())
    assert table.loc[(1.0, "srpt"), "std"] == pytest.approx(means.std(ddof=1))
    assert table.loc[(1.0, "srpt"), "max"] == pytest.approx(means.max())


def test_cli_fluid_experiment(shared, tmp_path, capsys) -> None:
    out = tmp_path / "fx"
    assert main(["simulate", "--cluster-model", "fluid", "--workload",
                 str(shared / "swim" / FIRST50), "--load", "0.9", "--d-over-n", "4",
                 "--sigma", "0,0.5,1", "--seeds", "0-2", "--schedulers", "fifo,ps,fsp,srpt",
                 "-o", str(out)]) == 0
    text = (out / "summary.md").read_text()
    assert "d/n = 4, scaled to load 0.9" in text
    summary = pd.read_parquet(out / "summary.parquet")
    assert set(summary.sigma) == {0.0, 0.5, 1.0}
    assert summary.set_index(["sigma", "scheduler"]).loc[(0.5, "fsp"), "runs"] == 3
    runs_ = pd.read_parquet(out / "runs.parquet")
    assert len(runs_) == 4 + 2 * (2 + 3 * 2)  # σ = 0: 4 runs; σ > 0: fifo, ps once each
    assert (out / "mean_sojourn_by_sigma.png").read_bytes()[:4] == b"\x89PNG"
    assert "| 0.5 | fsp | 3 |" in capsys.readouterr().out
    assert main(["simulate", "--workload", str(shared / "swim" / FIRST50), "--load", "0.9",
                 "-o", str(out)]) == 2
    assert "add --cluster-model fluid" in capsys.readouterr().err
