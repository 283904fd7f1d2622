"""Figures: one colour and line style per scheduler everywhere, coinciding curves marked,
linear bars, ratios printed beside log axes, captions naming what was run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.sim import figures


@pytest.fixture
def drawn(monkeypatch):
    figs = []

    def keep(fig, path):
        figs.append(fig)
        return path

    monkeypatch.setattr(figures, "save", keep)
    return figs


def _per_job() -> pd.DataFrame:
    resp = {"fair+reserve": [10.0, 20.0, 40.0], "fspy": [5.0, 10.0, 20.0],
            "fspy+ps": [5.0, 10.0, 20.0]}
    rows = [{"scheduler": s, "job_id": f"j{k}", "segment": 0, "response_s": v,
             "rcp_group": 6} for s, vs in resp.items() for k, v in enumerate(vs)]
    return pd.DataFrame(rows)


CAPTION = figures.Caption("FB-2009.tsv", "8×8192×8", "exact", "Fair with reservations")


def test_styles_are_fixed_and_distinct() -> None:
    known = [figures.style(n) for n in ("fair+reserve", "fair", "fspy", "fspy+ps", "hfsp",
                                        "srpt", "fifo")]
    assert len({(s["color"], s["linestyle"]) for s in known}) == len(known)
    assert figures.style("fspy") == figures.style("fspy")
    assert figures.style("a-new-scheduler") == figures.style("a-new-scheduler")


def test_ecdf_marks_identical_curves_and_prints_ratios(drawn, tmp_path) -> None:
    figures.ecdf_plot(_per_job(), "response_s", "response time (s)", tmp_path / "x.png",
                      caption=CAPTION, baseline="fair+reserve", title="Fig 7")
    (fig,) = drawn
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["fair+reserve: mean 23.3",
                      "fspy: mean 11.7, 0.50× fair+reserve's",
                      "fspy+ps: mean 11.7, 0.50× fair+reserve's (identical to fspy)"]
    lines = {line.get_label().split(":")[0]: line for line in ax.get_lines()}
    assert lines["fspy"].get_color() == figures.style("fspy")["color"]
    assert lines["fspy"].get_linestyle() != lines["fspy+ps"].get_linestyle()
    assert ax.get_title() == "Fig 7"
    caption = " ".join(t.get_text() for t in fig.texts)
    for part in ("FB-2009.tsv", "8×8192×8", "size source: exact", "Fair with reservations"):
        assert part in caption


def test_mean_response_bars_are_linear_and_flag_thin_groups(drawn, tmp_path) -> None:
    summary = pd.DataFrame({"rcp_group": [5, 5, 6, 6], "scheduler": ["fair+reserve", "fspy"] * 2,
                            "mean_response_s": [10.0, 9.0, 100.0, 45.0]})
    figures.mean_response_by_rcp(summary, tmp_path / "x.png", caption=CAPTION, flagged=[6])
    ax = drawn[0].axes[0]
    assert ax.get_yscale() == "linear"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5", "6†"]
    bars = [p for p in ax.patches]
    assert bars[0].get_facecolor() != bars[2].get_facecolor()  # per scheduler, not group
    assert np.isclose(max(p.get_height() for p in bars), 100.0)
