"""Figures of a sweep (matplotlib, Agg backend): mean response per RCP group and scheduler,
ECDFs of response time, common slowdown and fair slowdown."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write
from jobsize.sim.metrics import ecdf


def _save(fig: plt.Figure, path: Path) -> Path:
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def mean_response_by_rcp(summary: pd.DataFrame, path: Path) -> Path:
    """Grouped bars: mean response time per RCP group, one bar per scheduler."""
    table = summary.pivot(index="rcp_group", columns="scheduler", values="mean_response_s")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(len(table.columns), 1)
    x = np.arange(len(table.index))
    for k, name in enumerate(table.columns):
        ax.bar(x + k * width - 0.4 + width / 2, table[name].to_numpy(), width, label=name)
    ax.set_xticks(x, [str(g) for g in table.index])
    ax.set_xlabel("RCP group")
    ax.set_ylabel("mean response time (s)")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title("Mean response time per RCP group")
    return _save(fig, path)


def ecdf_plot(per_job: pd.DataFrame, column: str, label: str, path: Path,
              log: bool = True) -> Path:
    """One ECDF curve per scheduler of ``column``."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, grp in per_job.groupby("scheduler"):
        x, f = ecdf(grp[column].to_numpy(dtype=float))
        if len(x):
            ax.step(x, f, where="post", label=str(name))
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(label)
    ax.set_ylabel("ECDF")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, path)


def write_figures(per_job: pd.DataFrame, summary: pd.DataFrame, out: Path) -> list[Path]:
    paths = [mean_response_by_rcp(summary, out / "mean_response_by_rcp.png"),
             ecdf_plot(per_job, "response_s", "response time (s)", out / "ecdf_response.png"),
             ecdf_plot(per_job, "slowdown", "common slowdown", out / "ecdf_slowdown.png")]
    if per_job["fair_slowdown"].notna().any():
        paths.append(ecdf_plot(per_job, "fair_slowdown", "fair slowdown",
                               out / "ecdf_fair_slowdown.png"))
    return paths
