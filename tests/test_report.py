"""``jobsize report``: predicted against actual SE_m, SE_r and S (the paper's Figs 2-4) and R²."""

from __future__ import annotations

import pandas as pd
import pytest
from jobsize.models.synthetic import linear_trace
from sklearn.metrics import r2_score

from jobsize.accuracy import accuracy
from jobsize.cli import main
from jobsize.errors import ModelError
from jobsize.predictor import SizePredictor
from jobsize.schema import write_trace


@pytest.fixture(scope="module")
def records():
    # a known linear process (synthetic, for the mechanics): the model should fit it well
    return linear_trace(120, seed=5, map_only=0.25)


def test_cli_writes_figures_and_scores(tmp_path, records, capsys) -> None:
    trace = write_trace(records, tmp_path / "trace.parquet")
    model = SizePredictor().fit(records.iloc[:80])
    model.save(tmp_path / "model.json")
    out = tmp_path / "out"
    assert main(["report", str(trace), "--model", str(tmp_path / "model.json"),
                 "-o", str(out)]) == 0
    for name in ("fig2_SE_m.png", "fig3_SE_r.png", "fig4_S.png", "pairs.parquet",
                 "accuracy.md"):
        assert (out / name).stat().st_size > 0
    pairs = pd.read_parquet(out / "pairs.parquet")
    assert len(pairs) == len(records)
    with_r = pairs["n_reduces"] > 0
    r2 = {"SE_m": r2_score(pairs["SE_m_s"], pairs["SE_m_pred_s"]),
          "SE_r": r2_score(pairs.loc[with_r, "SE_r_s"], pairs.loc[with_r, "SE_r_pred_s"]),
          "S": r2_score(pairs["S_mb_s"], pairs["S_pred_mb_s"])}
    text = (out / "accuracy.md").read_text()
    for name, value in r2.items():
        assert f"| {name} | " in text and f"{value:.3f}" in text
    assert r2["S"] > 0.8
    assert "model model.json" in capsys.readouterr().out


def test_prequential_without_a_model(records) -> None:
    report = accuracy(records, trace="t.parquet")
    assert report.mode.startswith("prequential")
    assert 0 < len(report.pairs) < len(records)  # the first jobs train the first fit
    in_sample = accuracy(records, SizePredictor().fit(records))
    # predicting jobs it has seen is easier than predicting the next one
    assert in_sample.r2["SE_m"] >= report.r2["SE_m"]


def test_bad_inputs(tmp_path, records, capsys) -> None:
    assert main(["report", str(tmp_path / "missing.parquet"), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.parquet" in err[0]
    trace = write_trace(records.iloc[:5], tmp_path / "tiny.parquet")
    assert main(["report", str(trace), "-o", str(tmp_path / "o")]) == 2
    assert "prequential predictions start after" in capsys.readouterr().err
    with pytest.raises(ModelError, match=r"tiny\.parquet"):
        accuracy(records.iloc[:5], trace=str(trace))
