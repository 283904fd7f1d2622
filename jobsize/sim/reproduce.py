"""The FSPY paper's §IV-C experiment, end to end, on a SWIM workload (FB-2009 by default).

The workload is cut into 200-job segments overlapping by 50; each segment is its own workload,
run under Fair and FSPY (and HFSP, SRPT and FSPY with PSBS-style late jobs for comparison) on
the paper's cluster (8 nodes × 8 GB × 8 vcores). Each segment's resource competition pressure
(RCP, eq 11) puts it in an RCP group. The outputs are the paper's Figures 5-10:

- Fig 5: segments per RCP group;
- Fig 6: mean response time per RCP group, and the Fair/FSPY ratio of the means;
- Fig 7: ECDF of response times in one RCP group (6);
- Fig 8: ECDF of the common slowdown (response / response alone on the cluster);
- Fig 9: ECDF of the fair slowdown (response / response under Fair, same segment);
- Fig 10: each job's response under FSPY against under Fair;

and a markdown report that puts beside the paper's numbers what this run measured: the
Fair/FSPY mean-response ratio per RCP group (paper: about 10× at heavy load), the share of jobs
with fair slowdown ≤ 1 (paper: more than 75 %) and the largest fair slowdown (paper: about 1.7),
the common slowdown (paper, RCP 6: 95 % of FSPY's jobs below 4, Fair's below 65 %; maxima
about 5 and 10), and whether PSBS-style late jobs lower FSPY's largest fair slowdown.

Sizes reach FSPY and SRPT through a size source (:mod:`jobsize.sim.predicted`); SWIM jobs carry
no probe record, so by default they get the prediction errors measured prequentially on the
reference trace by size decile, known once the (modelled) probe has run. The report names the
source. Simulations run through joblib, one task per (segment, scheduler), like
:mod:`jobsize.sim.sweep`; metrics and figures come from :mod:`jobsize.sim.metrics` and
:mod:`jobsize.sim.figures`.

Library use::

    from jobsize.sim.reproduce import reproduce, write_report
    rep = reproduce(workload, Cluster.parse("8x8g×8"), size_source=source)
    write_report(rep, Path("out"))

CLI: ``jobsize simulate --reproduce fspy --workload FB-2009.tsv --out DIR``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from joblib import delayed

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.errors import ConfigError
from jobsize.sim.backends import ordered_results
from jobsize.sim.baseline import DEFAULT_BASELINE, FairBaseline, fair_baseline
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.metrics import Segmentation, add_slowdowns, alone_times, summarize
from jobsize.sim.policy import Policy
from jobsize.sim.predicted import ProbeCost, describe_source
from jobsize.sim.rcp_groups import FIXED_ALPHA, FIXED_BETA, RcpGrouping, segment_grouping
from jobsize.sim.schedulers import SRPT, Fair, make_scheduler
from jobsize.sim.schedulers.fspy import FSPY
from jobsize.sim.schedulers.hfsp import HFSP
from jobsize.sim.size_sources import SizeSource
from jobsize.sim.workload import Workload

if TYPE_CHECKING:
    from jobsize.sim.figures import Caption

#: The paper's numbers (§IV-C) that the report puts beside the measured ones.
PAPER = {
    "mean_response_ratio_heavy": 10.0,  # "outperforms Fair scheduler by 10x" under heavy load
    "share_fair_slowdown_le_1": 0.75,  # "more than 75 %" (RCP 6)
    "share_fair_slowdown_lt_1_5": 0.98,  # "more than 98 % ... less than 1.5"
    "max_fair_slowdown": 1.7,  # "approximates 1.7"
    "fspy_share_slowdown_lt_4": 0.95,  # common slowdown: "exceeds 95 %" under FSPY
    "fair_share_slowdown_lt_4": 0.65,  # "less than 65 %" under Fair
    "fspy_max_slowdown": 5.0,
    "fair_max_slowdown": 10.0,
}
#: Schedulers of the comparison, by report name.
COMPARED = ("fspy+ps", "hfsp", "srpt")
FOCUS_GROUP = 6


def make_policy(name: str, source: SizeSource, probe_share: float = 0.1,
                baseline: str = DEFAULT_BASELINE) -> Policy:
    """A fresh scheduler of the reproduction: fair (the Fair baseline ``baseline`` of
    :mod:`jobsize.sim.baseline`), fair-plain, fair+reserve, fspy, fspy+ps (PSBS-style), hfsp,
    hfsp+kill or srpt; size-based ones on ``source``."""
    fair = fair_baseline(baseline)
    factories: dict[str, Callable[[], Policy]] = {
        "fair": lambda: make_scheduler(fair.scheduler),
        "fair-plain": lambda: Fair("memory"),
        "fair+reserve": lambda: make_scheduler("fair+reserve"),
        "fspy": lambda: FSPY(source, probe_share=probe_share),
        "fspy+ps": lambda: FSPY(source, probe_share=probe_share, late="ps"),
        "hfsp": lambda: HFSP(),
        "hfsp+kill": lambda: HFSP(preemption="kill"),
        "srpt": lambda: SRPT(source),
    }
    if name not in factories:
        raise ConfigError(f"reproduction scheduler {name!r}: expected one of "
                          f"{', '.join(factories)}")
    return factories[name]()


@dataclass
class Reproduction:
    """Per-job results of every (segment, scheduler), with RCP and both slowdowns."""

    per_job: pd.DataFrame
    segments: pd.DataFrame  # segment, first_job, jobs, rcp, rcp_group
    workload: str
    cluster: str
    size_source: str
    schedulers: tuple[str, ...]
    grouping: RcpGrouping
    baseline: FairBaseline = field(default_factory=fair_baseline)
    wall_s: dict[str, float] = field(default_factory=dict)  # simulation time per scheduler
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def summary(self) -> pd.DataFrame:
        return summarize(self.per_job)


def _one(seg: Workload, cluster: Cluster, index: int, name: str, policy: Policy,
         options: dict[str, float]) -> tuple[pd.DataFrame, float]:
    res = simulate(seg, cluster, policy, **options)  # type: ignore[arg-type]
    out = res.jobs[["job_id", "submit_s", "finish_s", "response_s"]].copy()
    out.insert(0, "segment", index)
    out.insert(1, "scheduler", name)
    out.insert(2, "seed", 0)
    out["policy"] = res.policy
    return out, res.wall_s


def reproduce(workload: Workload, cluster: Cluster, *, size_source: SizeSource,
              schedulers: Sequence[str] = ("fair", "fspy", *COMPARED),
              segmentation: Segmentation | None = None, rcp_groups: str = "paper",
              rcp_alpha: float = FIXED_ALPHA, rcp_beta: float = FIXED_BETA,
              sim_options: dict[str, float] | None = None, probe_share: float = 0.1,
              baseline: str = DEFAULT_BASELINE, n_jobs: int = 1,
              advance: Callable[..., None] | None = None) -> Reproduction:
    """Run every segment of ``workload`` under ``schedulers`` (``fair``, the Fair baseline
    ``baseline`` of the fair slowdown, is always among them); group the segments by
    ``rcp_groups`` (:mod:`jobsize.sim.rcp_groups`)."""
    segmentation = segmentation or Segmentation()
    options = dict(sim_options or {})
    names = tuple(dict.fromkeys(["fair", "fspy", *schedulers]))
    for name in names:
        make_policy(name, size_source, probe_share, baseline)  # fail before any work
    windows = segmentation.windows(workload.n_jobs)
    segments = [workload.segment(a, b) for a, b in windows]
    tasks = [delayed(_one)(seg, cluster, i, name,
                           make_policy(name, size_source, probe_share, baseline), options)
             for i, seg in enumerate(segments) for name in names]
    covered, alone_tasks, ranges = 0, [], []
    for a, b in windows:  # every job once, alone on the cluster (common slowdown)
        lo = max(a, covered)
        if lo < b:
            alone_tasks.append(delayed(alone_times)(workload.segment(lo, b), cluster, **options))
            ranges.append((lo, b))
            covered = b
    alone = np.full(workload.n_jobs, np.nan)
    results, wall = [], dict.fromkeys(names, 0.0)
    for k, out in enumerate(ordered_results(
            [*alone_tasks, *tasks], n_jobs)):
        if k < len(alone_tasks):
            lo, hi = ranges[k]
            alone[lo:hi] = out
        else:
            frame, seconds = out
            results.append(frame)
            wall[frame["scheduler"].iloc[0]] += seconds
        if advance is not None:
            advance(1)
    per_job = pd.concat(results, ignore_index=True)
    pos = {jid: k for k, jid in enumerate(workload.jobs["job_id"].astype(str))}
    per_job["alone_s"] = alone[per_job["job_id"].astype(str).map(pos).to_numpy()]
    grouping = segment_grouping(workload, cluster, segmentation, rcp_groups, rcp_alpha,
                                rcp_beta)
    groups = pd.array(grouping.group, dtype="Float64").astype("Int64")
    seg_frame = pd.DataFrame({"segment": np.arange(len(segments)),
                              "first_job": [a for a, _ in windows],
                              "jobs": [b - a for a, b in windows], "rcp": grouping.rcp,
                              "rcp_group": groups})
    per_job["rcp"] = grouping.rcp[per_job["segment"].to_numpy()]
    per_job["rcp_group"] = groups[per_job["segment"].to_numpy()]
    per_job["first_job"] = seg_frame["first_job"].to_numpy()[per_job["segment"].to_numpy()]
    per_job = add_slowdowns(per_job, "fair")
    probe = getattr(size_source, "probe", None)
    meta = dict(workload.meta)
    meta["probe"] = (probe.describe(workload) if isinstance(probe, ProbeCost)
                     else "none: sizes are known at submission")
    meta["fair_baseline"] = fair_baseline(baseline).label()
    return Reproduction(per_job=per_job, segments=seg_frame, workload=workload.name,
                        cluster=cluster.describe(), size_source=describe_source(size_source),
                        schedulers=names, grouping=grouping, baseline=fair_baseline(baseline),
                        wall_s=wall, meta=meta)


def n_tasks(workload: Workload, schedulers: Sequence[str],
            segmentation: Segmentation | None = None) -> int:
    """How many joblib tasks :func:`reproduce` runs (a progress bar's total)."""
    windows = (segmentation or Segmentation()).windows(workload.n_jobs)
    names = dict.fromkeys(["fair", "fspy", *schedulers])
    covered, alone = 0, 0
    for a, b in windows:
        if max(a, covered) < b:
            alone += 1
            covered = b
    return len(windows) * len(names) + alone


# ---------------------------------------------------------------------------------------------
# The numbers beside the paper's


def focus_group(rep: Reproduction, wanted: int = FOCUS_GROUP) -> int:
    """The RCP group the per-job figures show: ``wanted`` if it has segments, else the
    nearest one that has."""
    groups = rep.segments["rcp_group"].dropna().astype(int).unique().tolist()
    if not groups:
        raise ConfigError("no segment has an RCP (empty or instantaneous workload)")
    return wanted if wanted in groups else min(groups, key=lambda g: (abs(g - wanted), -g))


def response_ratios(rep: Reproduction, scheduler: str = "fspy") -> pd.DataFrame:
    """Per RCP group: segments, Fair's and ``scheduler``'s mean response, Fair/scheduler."""
    per = rep.per_job
    table = per[per["scheduler"].isin(["fair", scheduler])].pivot_table(
        index="rcp_group", columns="scheduler", values="response_s", aggfunc="mean")
    counts = rep.segments.groupby("rcp_group")["segment"].count()
    out = pd.DataFrame({"segments": counts.reindex(table.index).to_numpy(),
                        "fair_mean_s": table["fair"].to_numpy(),
                        f"{scheduler}_mean_s": table[scheduler].to_numpy()},
                       index=table.index)
    out["ratio"] = out["fair_mean_s"] / out[f"{scheduler}_mean_s"]
    return out


def fairness(rep: Reproduction, group: int | None = None) -> pd.DataFrame:
    """Per scheduler: shares of fair slowdown ≤ 1 and < 1.5, its maximum; share of common
    slowdown < 4 and its maximum (one RCP group, or all)."""
    per = rep.per_job if group is None else rep.per_job[rep.per_job["rcp_group"] == group]
    rows = []
    for name, g in per.groupby("scheduler", sort=False):
        fs, sd = g["fair_slowdown"].to_numpy(float), g["slowdown"].to_numpy(float)
        rows.append({"scheduler": name, "jobs": len(g),
                     "share_fair_slowdown_le_1": float(np.mean(fs <= 1 + 1e-9)),
                     "share_fair_slowdown_lt_1_5": float(np.mean(fs < 1.5)),
                     "max_fair_slowdown": float(np.nanmax(fs)),
                     "share_slowdown_lt_4": float(np.mean(sd < 4)),
                     "max_slowdown": float(np.nanmax(sd))})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# Figures and report


def write_report(rep: Reproduction, out: Path, *, group: int = FOCUS_GROUP,
                 figures: bool = True) -> list[Path]:
    """Write jobs.parquet, summary.parquet, the figures and report.md into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [_parquet(rep.per_job, out / "jobs.parquet"),
             _parquet(rep.summary, out / "summary.parquet"),
             _parquet(rep.segments, out / "segments.parquet")]
    g = focus_group(rep, group)
    figs = write_figures(rep, out, g) if figures else []
    atomic_write_text(out / "report.md",
                      report_markdown(rep, g, wanted=group, figures=[f.name for f in figs]))
    return [*paths, *figs, out / "report.md"]


def write_figures(rep: Reproduction, out: Path, group: int) -> list[Path]:
    """The equivalents of the paper's Figures 5-10. In figures the schedulers keep their
    registry names (the baseline ``fair`` is drawn as the scheduler it runs, e.g.
    ``fair+reserve``), so their colours and line styles are those of every other figure."""
    from jobsize.sim import figures

    names = {"fair": rep.baseline.scheduler}
    if rep.baseline.scheduler != "fair":  # else fair-plain is a second run of the baseline
        names["fair-plain"] = "fair"
    per = rep.per_job.assign(scheduler=rep.per_job["scheduler"].replace(names))
    summary = rep.summary.assign(scheduler=rep.summary["scheduler"].replace(names))
    base = rep.baseline.scheduler
    flagged = rep.grouping.flagged()
    caption = figures.Caption(Path(rep.workload).name, rep.cluster, rep.size_source,
                              rep.baseline.label().replace("`", ""),
                              note=rep.grouping.describe())
    tag = figures.group_label(group, flagged)
    in_group = per[per["rcp_group"] == group]
    pair = in_group[in_group["scheduler"].isin([base, "fspy"])]
    return [
        _segments_figure(rep, out / "fig5_segments_per_rcp.png", caption),
        figures.mean_response_by_rcp(summary, out / "fig6_mean_response_by_rcp.png",
                                     caption=caption, flagged=flagged,
                                     title="Fig 6: mean response time per RCP group"),
        figures.ecdf_plot(in_group, "response_s", "response time (s)",
                          out / f"fig7_ecdf_response_rcp{group}.png", caption=caption,
                          baseline=base, title=f"Fig 7: ECDF of response times, RCP {tag}"),
        figures.ecdf_plot(in_group, "slowdown", "common slowdown",
                          out / f"fig8_ecdf_slowdown_rcp{group}.png", caption=caption,
                          baseline=base, title=f"Fig 8: ECDF of the common slowdown, RCP {tag}"),
        figures.ecdf_plot(in_group[in_group["scheduler"] != base], "fair_slowdown",
                          "fair slowdown", out / f"fig9_ecdf_fair_slowdown_rcp{group}.png",
                          caption=caption,
                          title=f"Fig 9: ECDF of the fair slowdown (vs {base}), RCP {tag}"),
        _scatter(pair, base, tag, out / f"fig10_fspy_vs_fair_rcp{group}.png", caption),
    ]


def _segments_figure(rep: Reproduction, path: Path, caption: Caption) -> Path:
    import matplotlib.pyplot as plt

    from jobsize.sim import figures

    counts = rep.segments.groupby("rcp_group")["segment"].count()
    flagged = rep.grouping.flagged()
    fig, ax = plt.subplots(figsize=(6, 4))
    bars = ax.bar([figures.group_label(g, flagged) for g in counts.index], counts.to_numpy(),
                  color="#7f7f7f", edgecolor="black", linewidth=0.4)
    for bar, g in zip(bars, counts.index, strict=True):
        if g in flagged:
            bar.set_hatch("//")
            bar.set_facecolor("white")
    ax.bar_label(bars, fontsize=8)
    ax.set_xlabel("RCP group" + (" († hatched: fewer than 3 segments)" if flagged else ""))
    ax.set_ylabel("segments")
    ax.set_title(f"Fig 5: trace segments per RCP group ({len(rep.segments)} segments)")
    fig.text(0.01, -0.02, caption.text(), ha="left", va="top", fontsize=7.5)
    return figures.save(fig, path)


def _scatter(pair: pd.DataFrame, base: str, tag: str, path: Path, caption: Caption) -> Path:
    """Each job's response under FSPY against under the baseline, log-log with the diagonal;
    the title prints the ratio of the means and the share of jobs below the diagonal."""
    import matplotlib.pyplot as plt

    from jobsize.sim import figures

    wide = pair.pivot_table(index=["segment", "job_id"], columns="scheduler",
                            values="response_s")
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    title = f"Fig 10: FSPY vs {base}, RCP {tag}"
    if {base, "fspy"} <= set(wide.columns):
        x, y = wide[base].to_numpy(), wide["fspy"].to_numpy()
        ax.scatter(x, y, s=6, alpha=0.5, color=figures.style("fspy")["color"])
        lo = max(min(np.nanmin(x), np.nanmin(y)), 1e-3)
        hi = max(np.nanmax(x), np.nanmax(y))
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
        title += (f"\nmean FSPY / mean {base} = {np.nanmean(y) / np.nanmean(x):.2f}; "
                  f"{100 * np.mean(y < x):.0f} % of jobs below the diagonal")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"response under {base} (s, log scale)")
    ax.set_ylabel("response under FSPY (s, log scale)")
    ax.set_title(title, fontsize=10)
    fig.text(0.01, -0.02, caption.text(), ha="left", va="top", fontsize=7.5)
    return figures.save(fig, path)


def _parquet(frame: pd.DataFrame, path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with atomic_write(path) as handle:
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), handle)
    return path


def _fmt(value: object, digits: int = 3) -> str:
    if isinstance(value, float | np.floating):
        return "–" if not math.isfinite(float(value)) else f"{float(value):.{digits}g}"
    return str(value)


def _pct(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{100 * value:.1f} %"


def _table(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def report_markdown(rep: Reproduction, group: int, wanted: int = FOCUS_GROUP,
                    figures: Sequence[str] = ()) -> str:
    """The markdown report (see the module docstring), naming the ``figures`` written."""
    buf = io.StringIO()
    w = buf.write
    n_seg = len(rep.segments)
    w(f"# FSPY §IV-C reproduction on {Path(rep.workload).name}\n\n")
    w(f"- workload: `{rep.workload}`, {n_seg} segments of up to "
      f"{int(rep.segments['jobs'].max())} jobs (first jobs "
      f"{', '.join(map(str, rep.segments['first_job'].head(3)))}, …)\n")
    cost = rep.meta.get("cost_model")
    if isinstance(cost, dict):
        w("- SWIM cost model: " + ", ".join(f"{k}={v}" for k, v in cost.items()) + "\n")
    w(f"- cluster: {rep.cluster}\n")
    w(f"- {rep.grouping.describe()}; S in memory MB·s (eq 5), CR the cluster's memory\n")
    w(f"- size source of FSPY and SRPT: {rep.size_source}\n")
    if "probe" in rep.meta:
        w(f"- FSPY's probes (one AM-sized container in the probing queue): {rep.meta['probe']}"
          "; SRPT uses the estimates from submission\n")
    w(f"- schedulers: {', '.join(rep.schedulers)} (fspy+ps: FSPY whose late jobs share, "
      "PSBS-style; HFSP trains on its own tasks; fair-plain: Fair without node "
      "reservations; fair+reserve: Fair with them)\n")
    if "fair_baseline" in rep.meta:
        w(f"- fair: {rep.meta['fair_baseline']} — the baseline of the fair slowdown\n")
    if group != wanted:
        w(f"- no segment has RCP group {wanted}; the per-job figures show group {group}\n")
    w("\n## Fig 5: segments per RCP group\n\n")
    flagged = rep.grouping.flagged()
    mark = lambda g: f"{g} †" if g in flagged else str(g)  # noqa: E731
    counts = rep.segments.groupby("rcp_group")["segment"].count().reset_index()
    counts.columns = ["rcp_group", "segments"]
    counts["rcp_group"] = counts["rcp_group"].map(mark)
    w(_table(counts))
    if flagged:
        w("\n† fewer than 3 segments: the group's numbers rest on one or two segments.\n")
    w("\n## Fig 6: mean response time per RCP group\n\n")
    table = rep.summary.pivot(index="rcp_group", columns="scheduler",
                              values="mean_response_s").reset_index()
    ratios = response_ratios(rep)
    table["fair/fspy"] = ratios["ratio"].reindex(table["rcp_group"]).to_numpy()
    table["rcp_group"] = table["rcp_group"].map(mark)
    w(_table(table))
    w("\nThe paper: about equal for RCP ≤ 3, FSPY far ahead from RCP 6 (about 10× under heavy "
      "load).\n")
    w("\n## Beside the paper\n\n")
    heavy = ratios[ratios.index >= 6]
    fs_group = fairness(rep, group).set_index("scheduler")
    fs_all = fairness(rep).set_index("scheduler")
    rows = [
        ("Fair/FSPY mean response, heavy load (RCP ≥ 6)", "about 10×",
         ", ".join(f"RCP {mark(g)}: {r:.2f}×" for g, r in heavy["ratio"].items())
         or "no segment"),
        (f"jobs with fair slowdown ≤ 1 (RCP {group})", "> 75 %",
         _pct(fs_group.loc["fspy", "share_fair_slowdown_le_1"])),
        (f"jobs with fair slowdown < 1.5 (RCP {group})", "> 98 %",
         _pct(fs_group.loc["fspy", "share_fair_slowdown_lt_1_5"])),
        (f"largest fair slowdown (RCP {group})", "about 1.7",
         _fmt(fs_group.loc["fspy", "max_fair_slowdown"])),
        ("largest fair slowdown (all segments)", "–",
         _fmt(fs_all.loc["fspy", "max_fair_slowdown"])),
        (f"FSPY jobs with common slowdown < 4 (RCP {group})", "> 95 %",
         _pct(fs_group.loc["fspy", "share_slowdown_lt_4"])),
        (f"Fair jobs with common slowdown < 4 (RCP {group})", "< 65 %",
         _pct(fs_group.loc["fair", "share_slowdown_lt_4"])),
        (f"largest common slowdown FSPY / Fair (RCP {group})", "about 5 / 10",
         f"{_fmt(fs_group.loc['fspy', 'max_slowdown'])} / "
         f"{_fmt(fs_group.loc['fair', 'max_slowdown'])}"),
    ]
    w("| measure | paper | this run |\n|---|---|---|\n")
    for r in rows:
        w(f"| {r[0]} | {r[1]} | {r[2]} |\n")
    w(f"\n## Figs 7-9: fairness per scheduler (RCP {group})\n\n")
    w(_table(fs_group.reset_index()))
    w("\nAll segments:\n\n")
    w(_table(fs_all.reset_index()))
    if "fspy+ps" in fs_all.index:
        a, b = fs_all.loc["fspy", "max_fair_slowdown"], fs_all.loc["fspy+ps", "max_fair_slowdown"]
        verdict = "lowers" if b < a else "does not lower"
        w(f"\n## PSBS-style late jobs\n\nLetting FSPY's late jobs share instead of running one "
          f"at a time {verdict} its largest fair slowdown: {_fmt(b)} with sharing against "
          f"{_fmt(a)} (all segments; RCP {group}: "
          f"{_fmt(fs_group.loc['fspy+ps', 'max_fair_slowdown'])} against "
          f"{_fmt(fs_group.loc['fspy', 'max_fair_slowdown'])}).\n")
    w("\n## Simulation time\n\n| scheduler | seconds (all segments) | ÷ Fair |\n|---|---|---|\n")
    base = rep.wall_s.get("fair") or math.nan
    for name, s in rep.wall_s.items():
        w(f"| {name} | {s:.2f} | {s / base:.2f} |\n")
    w("\nPlain FIFO and Fair (one queue, no reservations or preemption) run in the simulator's "
      "compiled core, the others in its Python loop.\n")
    if figures:
        w(f"\nFigures: {', '.join(figures)}.\n")
    return buf.getvalue()
