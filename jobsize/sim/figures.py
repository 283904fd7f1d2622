"""Figures of a sweep (matplotlib, Agg backend), drawn as a paper would print them.

- Every scheduler has one colour and one line style in every figure (:data:`STYLES`; a
  scheduler not listed gets a fixed one derived from its name).
- Curves that coincide are all drawn — each in its own line style, so a dashed curve over a
  solid one shows both — and the legend says which equals which.
- Mean response times are bars on a linear axis; ECDFs of quantities spanning decades use a
  logarithmic x axis, and then the legend prints each scheduler's mean and its ratio to the
  Fair baseline's, so no gap has to be read off a log scale.
- Every figure has a title, and a caption naming the workload, the cluster, the size source
  and the Fair baseline (:class:`Caption`). RCP groups resting on fewer than three segments
  are marked † (:mod:`jobsize.sim.rcp_groups`).
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write
from jobsize.sim.metrics import ecdf

_C = {"blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728",
      "purple": "#9467bd", "brown": "#8c564b", "pink": "#e377c2", "grey": "#7f7f7f",
      "olive": "#bcbd22", "cyan": "#17becf", "black": "#000000"}
#: scheduler -> (colour, line style, marker), the same in every figure
STYLES: dict[str, tuple[str, str, str]] = {
    "fair+reserve": (_C["blue"], "-", "o"),
    "fair": (_C["cyan"], "--", "v"),
    "fair-plain": (_C["cyan"], ":", "^"),
    "drf+reserve": (_C["black"], "-", "^"),
    "drf": (_C["black"], "--", "v"),
    "fair+preemption": (_C["blue"], ":", "x"),
    "drf+preemption": (_C["black"], ":", "x"),
    "fifo": (_C["grey"], "-", "s"),
    "capacity": (_C["brown"], "-", "D"),
    "srpt": (_C["green"], "-", "^"),
    "fspy": (_C["orange"], "-", "o"),
    "fspy+ps": (_C["purple"], "--", "s"),
    "hfsp": (_C["red"], "-.", "D"),
    "hfsp+kill": (_C["pink"], ":", "P"),
    # the fluid model
    "ps": (_C["blue"], "-", "o"),
    "fsp": (_C["orange"], "-", "o"),
    "fspe": (_C["orange"], "-", "o"),
    "fsp+ps": (_C["purple"], "--", "s"),
    "psbs": (_C["purple"], "--", "s"),
    "srpt+ps": (_C["olive"], "--", "^"),
    "las": (_C["brown"], "-.", "D"),
}
_SPARE = [_C["olive"], _C["pink"], _C["brown"], _C["black"], _C["grey"]]
_SPARE_LINES = ["-", "--", "-.", ":"]


def style(name: str) -> dict[str, str]:
    """Colour, line style and marker of scheduler ``name`` (fixed across figures)."""
    if name in STYLES:
        colour, line, marker = STYLES[name]
    else:
        h = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "little")
        colour, line, marker = (_SPARE[h % len(_SPARE)], _SPARE_LINES[(h // 7) % 4],
                                "osD^vP"[(h // 29) % 6])
    return {"color": colour, "linestyle": line, "marker": marker}


@dataclass(frozen=True)
class Caption:
    """What every figure's caption names."""

    workload: str
    cluster: str
    size_source: str
    baseline: str  # the Fair baseline, as reports name it
    note: str = ""

    def text(self) -> str:
        parts = [f"Workload: {self.workload}", f"cluster: {self.cluster}",
                 f"size source: {self.size_source}", f"Fair baseline: {self.baseline}"]
        if self.note:
            parts.append(self.note)
        return textwrap.fill("; ".join(parts) + ".", 110)


def _finish(fig: plt.Figure, ax: plt.Axes, title: str, caption: Caption | None) -> None:
    ax.set_title(title)
    if caption is not None:
        fig.text(0.01, -0.02, caption.text(), ha="left", va="top", fontsize=7.5)


def save(fig: plt.Figure, path: Path) -> Path:
    """Write ``fig`` as PNG atomically and close it."""
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def group_label(group: object, flagged: Sequence[int] = ()) -> str:
    """An RCP group's tick label; † when it rests on fewer than three segments."""
    return f"{group}†" if group in flagged else str(group)


def mean_response_by_rcp(summary: pd.DataFrame, path: Path, *, caption: Caption | None = None,
                         flagged: Sequence[int] = (), title: str | None = None) -> Path:
    """Grouped bars on a linear axis: mean response time per RCP group, one bar per
    scheduler."""
    table = summary.pivot(index="rcp_group", columns="scheduler", values="mean_response_s")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(len(table.columns), 1)
    x = np.arange(len(table.index))
    for k, name in enumerate(table.columns):
        st = style(str(name))
        ax.bar(x + k * width - 0.4 + width / 2, table[name].to_numpy(), width, label=str(name),
               color=st["color"], edgecolor="black", linewidth=0.4,
               hatch={"-": "", "--": "//", "-.": "..", ":": "xx"}[st["linestyle"]])
    ax.set_xticks(x, [group_label(g, flagged) for g in table.index])
    ax.set_xlabel("RCP group" + (" († fewer than 3 segments)" if flagged else ""))
    ax.set_ylabel("mean response time (s)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    _finish(fig, ax, title or "Mean response time per RCP group", caption)
    return save(fig, path)


def _identical(curves: dict[str, np.ndarray]) -> dict[str, str]:
    """Scheduler -> the earlier scheduler whose curve it equals."""
    same: dict[str, str] = {}
    names = list(curves)
    for i, a in enumerate(names):
        for b in names[:i]:
            if b not in same and np.array_equal(curves[a], curves[b]):
                same[a] = b
                break
    return same


def ecdf_plot(per_job: pd.DataFrame, column: str, label: str, path: Path, log: bool = True,
              *, caption: Caption | None = None, baseline: str | None = None,
              title: str | None = None) -> Path:
    """One ECDF curve per scheduler of ``column``; with ``log``, the legend gives each
    scheduler's mean and its ratio to the ``baseline`` scheduler's mean."""
    curves = {str(name): np.sort(grp[column].to_numpy(dtype=float))
              for name, grp in per_job.groupby("scheduler", sort=True)}
    curves = {k: v[np.isfinite(v)] for k, v in curves.items()}
    same = _identical(curves)
    base = curves.get(baseline or "")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, values in curves.items():
        if not len(values):
            continue
        x, f = ecdf(values)
        text = name
        if log:
            mean = float(values.mean())
            text += f": mean {mean:.3g}"
            if base is not None and len(base) and name != baseline:
                text += f", {mean / float(base.mean()):.2f}× {baseline}'s"
        if name in same:
            text += f" (identical to {same[name]})"
        st = style(name)
        ax.step(x, f, where="post", label=text, color=st["color"], linestyle=st["linestyle"],
                linewidth=1.6 if name not in same else 2.2,
                marker=st["marker"] if name in same else None,
                markevery=max(len(x) // 12, 1), markersize=4)
    if log:
        ax.set_xscale("log")
    ax.set_xlabel(label + (" (log scale)" if log else ""))
    ax.set_ylabel("ECDF")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _finish(fig, ax, title or f"ECDF of {label}", caption)
    return save(fig, path)


def write_figures(per_job: pd.DataFrame, summary: pd.DataFrame, out: Path, *,
                  caption: Caption | None = None, baseline: str | None = None,
                  flagged: Sequence[int] = ()) -> list[Path]:
    """The sweep's figures: mean response per RCP group and the ECDFs of response time,
    common slowdown and (the baseline excluded) fair slowdown."""
    paths = [mean_response_by_rcp(summary, out / "mean_response_by_rcp.png", caption=caption,
                                  flagged=flagged),
             ecdf_plot(per_job, "response_s", "response time (s)", out / "ecdf_response.png",
                       caption=caption, baseline=baseline, title="ECDF of response times"),
             ecdf_plot(per_job, "slowdown", "common slowdown", out / "ecdf_slowdown.png",
                       caption=caption, baseline=baseline,
                       title="ECDF of the common slowdown (response / response alone)")]
    others = per_job[per_job["scheduler"] != baseline] if baseline else per_job
    if others["fair_slowdown"].notna().any():
        paths.append(ecdf_plot(others, "fair_slowdown", "fair slowdown",
                               out / "ecdf_fair_slowdown.png", caption=caption,
                               title=f"ECDF of the fair slowdown (response / response under "
                                     f"{baseline or 'Fair'})"))
    return paths


def sojourn_by_sigma(summary: pd.DataFrame, path: Path, *, workload: str, load: float,
                     d_over_n: float) -> Path:
    """The fluid experiment: mean sojourn time against σ per policy on linear axes, the bars
    spanning the seeds' smallest to largest mean."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, grp in summary.groupby("scheduler", sort=True):
        grp = grp.sort_values("sigma")
        st = style(str(name))
        y = grp["mean"].to_numpy(float)
        err = np.vstack([y - grp["min"].to_numpy(float), grp["max"].to_numpy(float) - y])
        ax.errorbar(grp["sigma"].to_numpy(float), y, yerr=err, label=str(name), capsize=3,
                    color=st["color"], linestyle=st["linestyle"], marker=st["marker"])
    ax.set_xlabel("σ of the lognormal size error")
    ax.set_ylabel("mean sojourn time (s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    caption = Caption(workload, "one fluid server of rate 1",
                      f"sizes from bytes, d/n = {d_over_n:g}, load {load:g}; estimates × "
                      "exp(σ·Z)", "PS", "bars: smallest to largest mean over the seeds")
    _finish(fig, ax, "Mean sojourn time against the size error", caption)
    return save(fig, path)
