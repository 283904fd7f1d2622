"""Tang's thesis, chapter 4 (DynamicMR): dynamic slot allocation on Hadoop 1.x, reproduced.

The thesis's cluster: 9 slaves with 12 cores, one slot per core (10 map + 2 reduce slots for
DynamicMR). Jobs are the Purdue benchmarks with the task counts and mean task times of Table 3.2
(the same suite and testbed family as chapter 3; Table 4.5 gives only input sizes), tasks within
±10 % (lognormal σ = 0.1). Where stragglers and locality matter, 5 % of attempts run 3-6× slower
(:mod:`~jobsize.sim.stragglers`) and blocks have 3 replicas, a remote map reading its block for
5 s more (:mod:`~jobsize.sim.locality`); LATE may copy a task after 10 s (Hadoop's one-minute
lag would leave these 6-38 s tasks alone). Reduces are asked for at 5 % of the maps done
(Hadoop's slow-start default), except in experiments 1-2, single jobs whose reduces start when
their maps are done — the model of the thesis's wave formula ``⌈N_M/S_M⌉t_M + ⌈N_R/S_R⌉t_R``
(with slow-start 0.05 and reduces waiting in their slots, PI-DHSA sees both phases over-loaded
— Case 2 — and lends nothing, so the experiment would measure slow-start, not DHSA).

1. **Slot configurations** (Fig 4.10): one job (Sort, WordCount, Grep) on k map / (12 − k)
   reduce slots per node, k = 1..11: static Hadoop (HFS) against PI-DHSA and PD-DHSA; speedup
   over static Hadoop at 1/11.
2. **Borrowing limits** (Fig 4.11): Sort (320 maps, 200 reduces) on 10/2 slots, P_M and P_R
   varied from 0 to 100 %; speedup over P_M = P_R = 0.
3. **SEPB** (Fig 4.12): batches of 5, 10 and 20 jobs with stragglers, PI-DHSA on 10/2,
   percentageOfJobsCheckedForPendingTasks from 0 to 100 %; makespan speedup over 0 %.
4. **Slot PreScheduling** (Figs 4.13-4.14): Sort-like jobs of 16, 32 and 160 maps under HFS
   with delay scheduling, with and without PreScheduling: data locality and job time.
5. **DynamicMR** (Figs 4.15-4.16): PI-DHSA + SEPB + PreScheduling on 10/2 against Hadoop on
   6/6 slots — the thesis's "6/2" is read as 6 map / 6 reduce slots, its Fig 4.10 x-axis being
   k/(12 − k) — for each benchmark alone and for batches of 5, 10, 20 and 30 jobs, under HFS and
   FIFO; stragglers and locality on.
6. **Against YARN** (Fig 4.17): the same batches in the YARN model, one container per core
   (12 GB, 12 vcores per node; 1 GB tasks and 1.5 GB AMs) under Fair, which has no speculative
   execution here — with Hadoop's slow-start (reduces wait in their containers for the maps,
   and nothing ramps them down when maps starve, as the MapReduce AM would) and with reduces
   asked for after the maps — and, since the YARN model has no speculative execution, once
   more with neither side meeting stragglers. The thesis attributes DynamicMR's 2-9 % there to
   network contention from too many shuffling reduces in YARN; the simulator has no network,
   so that gain cannot appear here.
7. **SWIM FB-2009**: the trace's first ``swim_jobs`` jobs (recorded arrivals, sizes through the
   cost model) on 10/2, Hadoop against DynamicMR.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import delayed

from jobsize.sim.backends import ordered_results
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.reproductions.report import PURDUE, benchmark_jobs, provenance, table, write
from jobsize.sim.schedulers import Fair
from jobsize.sim.schedulers.dynamicmr import DynamicMR
from jobsize.sim.schedulers.mrv1 import HadoopMRv1
from jobsize.sim.speculation import Late
from jobsize.sim.stragglers import Stragglers
from jobsize.sim.workload import Workload

NODES, CORES = 9, 12
LATE = Late(lag_s=10.0)
STRAGGLERS = Stragglers(probability=0.05, slowdown=(3.0, 6.0))
LOCALITY = BlockLocality(replication=3, remote_s=5.0)
#: single-job wave experiments: reduces after the maps, the model of the thesis's wave formula
WAVES = {"slowstart": 1.0}
PAPER = {
    "static_spread": "about 1.8× between the best and worst static split (Sort)",
    "dhsa_worst": "about 2× over static Hadoop at 1/11; flat across splits",
    "borrow_pm": "about 29 % raising P_M (Sort)",
    "sepb": "3-10 %",
    "prescheduling": "locality +2-25 %, performance +2-25 %",
    "dynamicmr_single": "46-115 %",
    "dynamicmr_batch": "49-112 % (5/10/20/30 jobs)",
    "yarn": "single jobs inconclusive; batches +2-9 % (network contention)",
}


def slots(map_slots: int) -> Cluster:
    return Cluster.mrv1(NODES, map_slots, CORES - map_slots)


def _time(w: Workload, cluster: Cluster, policy, **options) -> dict[str, float]:
    res = simulate(w, cluster, policy, **options)
    jobs = res.jobs
    out = {"makespan_s": float(jobs.finish_s.max()), "mean_response_s":
           float(jobs.response_s.mean())}
    if "local_maps" in jobs:
        launched = jobs.local_maps.sum() + jobs.remote_maps.sum()
        out["locality"] = float(jobs.local_maps.sum() / launched) if launched else np.nan
    return out


def _static() -> HadoopMRv1:
    return HadoopMRv1("fair", speculation=None, name="hadoop")


def _dhsa(kind: str, **kw) -> DynamicMR:
    opts = {"sepb": None, "prescheduling": False, "speculation": LATE}
    opts.update(kw)
    return DynamicMR("fair", dhsa=kind, **opts)  # type: ignore[arg-type]


def batch(n: int, seed: int) -> Workload:
    rng = np.random.default_rng(seed)
    return benchmark_jobs(list(rng.choice(list(PURDUE), n)), noise=0.1, seed=seed,
                          name=f"batch-{n}")


def single(name: str) -> Workload:
    return benchmark_jobs([name], noise=0.1, seed=0, name=name)


def sort_like(n_maps: int) -> Workload:
    n_m, n_r, t_m, t_r = PURDUE["Sort"]
    from jobsize.sim.workload import from_task_lists, make_jobs

    return from_task_lists(f"sort-{n_maps}", make_jobs(1), [[t_m] * n_maps],
                           [[t_r] * max(1, round(n_maps * n_r / n_m))])


# ---------------------------------------------------------------------------------------------
# the experiments, as (experiment, label, variant, runner) rows


def _configurations() -> list[tuple]:
    rows = []
    for bench in ("Sort", "WordCount", "Grep"):
        for k in range(1, CORES):
            for name, make in (("hadoop", _static), ("pi-dhsa", lambda: _dhsa("pi")),
                               ("pd-dhsa", lambda: _dhsa("pd"))):
                rows.append(("configurations", bench, f"{k}/{CORES - k}", name,
                             (single, bench), slots(k), make, WAVES))
    return rows


def _borrowing() -> list[tuple]:
    rows = []
    for p_m in (0.0, 0.25, 0.5, 0.75, 1.0):
        for p_r in (0.0, 1.0):
            rows.append(("borrowing", "Sort", f"P_M={p_m:g}", f"P_R={p_r:g}", (single, "Sort"),
                         slots(10), lambda a=p_m, b=p_r: _dhsa("pi", borrow_map=a,
                                                               borrow_reduce=b), WAVES))
            rows.append(("borrowing", "Sort", f"P_R={p_m:g}", f"P_M={p_r:g}", (single, "Sort"),
                         slots(10), lambda a=p_m, b=p_r: _dhsa("pi", borrow_map=b,
                                                               borrow_reduce=a), WAVES))
    return rows


def _sepb(seeds: Sequence[int]) -> list[tuple]:
    rows = []
    for n in (5, 10, 20):
        for seed in seeds:
            for share in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
                rows.append(("sepb", f"{n} jobs", f"seed {seed}", f"{share:.0%}",
                             (batch, n, seed), slots(10),
                             lambda s=share: _dhsa("pi", sepb=s), {"stragglers": STRAGGLERS}))
    return rows


def _prescheduling(seeds: Sequence[int]) -> list[tuple]:
    rows = []
    for n in (16, 32, 160):
        for seed in seeds:
            loc = BlockLocality(replication=3, remote_s=5.0, seed=seed)
            for name, ps in (("delay scheduling", False), ("+ PreScheduling", True)):
                rows.append(("prescheduling", f"{n} maps", f"seed {seed}", name,
                             (sort_like, n), slots(10),
                             lambda p=ps: _dhsa("pi", prescheduling=p), {"locality": loc}))
    return rows


def _full(seeds: Sequence[int]) -> list[tuple]:
    opts = {"stragglers": STRAGGLERS, "locality": LOCALITY}
    rows = []
    workloads: list[tuple[str, str, tuple]] = [(b, "single", (single, b)) for b in PURDUE]
    for n in (5, 10, 20, 30):
        workloads += [(f"{n} jobs", f"seed {s}", (batch, n, s)) for s in seeds]
    yarn = Cluster.homogeneous(NODES, CORES * 1024, CORES)
    for label, variant, build in workloads:
        for order in ("fair", "fifo"):
            rows.append(("dynamicmr", label, variant, f"hadoop 6/6 {order}", build, slots(6),
                         lambda o=order: HadoopMRv1(o, speculation=LATE), opts))
            rows.append(("dynamicmr", label, variant, f"hadoop 10/2 {order}", build, slots(10),
                         lambda o=order: HadoopMRv1(o, speculation=LATE), opts))
            rows.append(("dynamicmr", label, variant, f"dynamicmr {order}", build, slots(10),
                         lambda o=order: DynamicMR(o, speculation=LATE), opts))
        rows.append(("dynamicmr", label, variant, "yarn fair", build, yarn,
                     lambda: Fair("memory"), {**opts, "max_am_share": 1.0}))
        rows.append(("dynamicmr", label, variant, "yarn fair, slow-start 1", build, yarn,
                     lambda: Fair("memory"), {**opts, "max_am_share": 1.0, "slowstart": 1.0}))
        # without stragglers, neither side needs speculation (our YARN model has none)
        calm = {"locality": LOCALITY}
        rows.append(("dynamicmr", label, variant, "dynamicmr fair, no stragglers", build,
                     slots(10), lambda: DynamicMR("fair", speculation=LATE), calm))
        rows.append(("dynamicmr", label, variant, "yarn fair, no stragglers", build, yarn,
                     lambda: Fair("memory"), {**calm, "max_am_share": 1.0}))
    return rows


def _swim(swim: Workload, n: int) -> list[tuple]:
    opts = {"stragglers": STRAGGLERS, "locality": LOCALITY}
    rows = []
    for order in ("fair", "fifo"):
        rows.append(("swim", f"FB-2009 first {n} jobs", "", f"hadoop 10/2 {order}",
                     (swim.segment, 0, n), slots(10),
                     lambda o=order: HadoopMRv1(o, speculation=LATE), opts))
        rows.append(("swim", f"FB-2009 first {n} jobs", "", f"dynamicmr {order}",
                     (swim.segment, 0, n), slots(10),
                     lambda o=order: DynamicMR(o, speculation=LATE), opts))
    return rows


def experiments(swim: Workload | None, seeds: Sequence[int], swim_jobs: int) -> list[tuple]:
    rows = _configurations() + _borrowing() + _sepb(seeds) + _prescheduling(seeds) + \
        _full(seeds)
    if swim is not None:
        rows += _swim(swim, min(swim_jobs, swim.n_jobs))
    return rows


def _one(row: tuple) -> dict[str, object]:
    experiment, label, variant, scheduler, build, cluster, make, opts = row
    w = build[0](*build[1:])
    measured = _time(w, cluster, make(), **opts)
    return {"experiment": experiment, "workload": label, "variant": variant,
            "scheduler": scheduler, **measured}


@dataclass
class Result:
    runs: pd.DataFrame
    meta: dict[str, object] = field(default_factory=dict)


def run(swim: Workload | None = None, *, seeds: Sequence[int] = (0, 1, 2, 3, 4),
        swim_jobs: int = 500, n_jobs: int = 1,
        advance: Callable[..., None] | None = None) -> Result:
    rows = experiments(swim, seeds, swim_jobs)
    t0 = time.perf_counter()
    out = []
    for rec in ordered_results((delayed(_one)(r) for r in rows), n_jobs):
        out.append(rec)
        if advance is not None:
            advance(1)
    return Result(pd.DataFrame(out), {"elapsed_s": time.perf_counter() - t0,
                                      "swim": swim.name if swim else None})


def n_tasks(swim: Workload | None, seeds: Sequence[int] = (0, 1, 2, 3, 4),
            swim_jobs: int = 500) -> int:
    return len(experiments(swim, seeds, swim_jobs))


# ---------------------------------------------------------------------------------------------
# the report


def report(result: Result, command: str) -> str:
    runs = result.runs
    buf = io.StringIO()
    w = buf.write
    w("# DynamicMR (Tang's thesis, chapter 4) reproduced\n\n")
    w(provenance(command, float(result.meta["elapsed_s"])))  # type: ignore[arg-type]
    w(f"- cluster: {NODES} slaves × {CORES} slots (10/2 for DynamicMR); Purdue jobs of Table "
      "3.2, tasks ±10 %\n")
    w(f"- stragglers: {STRAGGLERS.describe()}; locality: {LOCALITY.describe()}; LATE copies "
      f"after {LATE.lag_s:g} s (where the experiment says so)\n")
    w("- speedup = the baseline's time ÷ the scheduler's\n\n")
    sections = [_configurations_section, _borrowing_section, _sepb_section, _ps_section,
                _full_section, _swim_section]
    beside: list[tuple[str, str, str]] = []
    for section in sections:
        text, rows = section(runs)
        w(text)
        beside += rows
    w("\n## Beside the thesis\n\n| measure | thesis | this run |\n|---|---|---|\n")
    for a, b, c in beside:
        w(f"| {a} | {b} | {c} |\n")
    w("\nWhat the simulator does not model: network contention (the shuffle of many reduces "
      "at once, which the thesis blames for YARN's loss in Fig 4.17), memory of reduces in "
      "borrowed map slots (the slot weights are 1/1 here), disk contention between tasks on "
      "a node, and the JobTracker's heartbeat delays beyond a 3 s re-offer of idle slots.\n")
    return buf.getvalue()


def _configurations_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "configurations"]
    if r.empty:
        return "", []
    wide = r.pivot_table(index=["workload", "variant"], columns="scheduler",
                         values="makespan_s", sort=False)
    base = wide["hadoop"].groupby(level="workload", sort=False).transform("first")
    speed = wide.rdiv(base, axis=0).reset_index()
    text = "## 1. Slot configurations (Fig 4.10)\n\nSpeedup over static Hadoop at 1/11 " \
        "(one job):\n\n" + table(speed) + "\n"
    sort = speed[speed.workload == "Sort"]
    spread = sort["hadoop"].max() / sort["hadoop"].min()
    worst = sort.loc[sort.variant == "1/11", ["pi-dhsa", "pd-dhsa"]].iloc[0]
    flat = (sort["pi-dhsa"].max() / sort["pi-dhsa"].min())
    return text, [
        ("static Hadoop, best ÷ worst split (Sort)", PAPER["static_spread"], f"{spread:.2f}×"),
        ("DHSA over static at 1/11 (Sort); PI-DHSA best ÷ worst split", PAPER["dhsa_worst"],
         f"PI {worst['pi-dhsa']:.2f}×, PD {worst['pd-dhsa']:.2f}×; {flat:.2f}×"),
    ]


def _borrowing_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "borrowing"].copy()
    if r.empty:
        return "", []
    base = r.loc[(r.variant == "P_M=0") & (r.scheduler == "P_R=0"), "makespan_s"].iloc[0]
    r["speedup"] = base / r["makespan_s"]
    wide = r.pivot_table(index="variant", columns="scheduler", values="speedup", sort=False)
    text = "## 2. Borrowing limits, Sort on 10/2 (Fig 4.11)\n\nSpeedup over P_M = P_R = 0 " \
        "(rows: the swept percentage; columns: the fixed one):\n\n" + \
        table(wide.reset_index()) + "\n"
    gain = r.loc[(r.variant == "P_M=1") & (r.scheduler == "P_R=0"), "speedup"].iloc[0]
    return text, [("raising P_M 0 → 100 % with P_R = 0 (Sort)", PAPER["borrow_pm"],
                   f"{100 * (gain - 1):.0f} %")]


def _mean_speedup(r: pd.DataFrame, base: str, metric: str = "makespan_s") -> pd.DataFrame:
    wide = r.pivot_table(index=["workload", "variant"], columns="scheduler", values=metric,
                         sort=False)
    return wide.rdiv(wide[base], axis=0).groupby(level="workload", sort=False).mean()


def _sepb_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "sepb"]
    if r.empty:
        return "", []
    speed = _mean_speedup(r, "0%")
    text = "## 3. SEPB (Fig 4.12)\n\nMakespan speedup over percentageOfJobsChecked = 0 " \
        "(PI-DHSA, stragglers; mean over seeds):\n\n" + table(speed.reset_index()) + "\n"
    best = speed.drop(columns="0%").max(axis=1)
    return text, [("SEPB, best setting, 5/10/20 jobs", PAPER["sepb"],
                   ", ".join(f"{100 * (v - 1):.1f} %" for v in best))]


def _ps_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "prescheduling"]
    if r.empty:
        return "", []
    loc = r.pivot_table(index="workload", columns="scheduler", values="locality", sort=False)
    speed = _mean_speedup(r, "delay scheduling")
    frame = pd.DataFrame({"workload": loc.index,
                          "locality, delay scheduling": loc["delay scheduling"].to_numpy(),
                          "locality, + PreScheduling": loc["+ PreScheduling"].to_numpy(),
                          "speedup": speed.loc[loc.index, "+ PreScheduling"].to_numpy()})
    text = "## 4. Slot PreScheduling (Figs 4.13-4.14)\n\nMap locality (share of maps " \
        "node-local) and job-time speedup of PreScheduling on top of delay scheduling (mean " \
        "over replica placements):\n\n" + table(frame) + "\n"
    dl = 100 * (frame["locality, + PreScheduling"] - frame["locality, delay scheduling"])
    return text, [("PreScheduling: locality (points) / performance", PAPER["prescheduling"],
                   ", ".join(f"{a:+.1f} / {100 * (b - 1):+.1f} %"
                             for a, b in zip(dl, frame["speedup"], strict=True)))]


def _full_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "dynamicmr"]
    if r.empty:
        return "", []
    rows = []
    text = "## 5-6. DynamicMR against Hadoop and YARN (Figs 4.15-4.17)\n\n"
    for order in ("fair", "fifo"):
        cols = [f"hadoop 6/6 {order}", f"hadoop 10/2 {order}"] + (
            ["yarn fair", "yarn fair, slow-start 1"] if order == "fair" else [])
        wide = r.pivot_table(index=["workload", "variant"], columns="scheduler",
                             values="makespan_s", sort=False)
        speed = wide[cols].div(wide[f"dynamicmr {order}"], axis=0)  # baseline ÷ DynamicMR
        if order == "fair":
            speed["yarn fair, no stragglers"] = (wide["yarn fair, no stragglers"]
                                                 / wide["dynamicmr fair, no stragglers"])
        frame = speed.groupby(level="workload", sort=False).mean().reset_index()
        text += f"DynamicMR ({order}) speedup over each baseline (makespan; mean over " \
            "seeds):\n\n" + table(frame) + "\n"
        singles = frame[frame.workload.isin(list(PURDUE))][f"hadoop 6/6 {order}"]
        batches = frame[~frame.workload.isin(list(PURDUE))][f"hadoop 6/6 {order}"]
        if order == "fair":
            rows += [("DynamicMR over Hadoop 6/6, single jobs (HFS)", PAPER["dynamicmr_single"],
                      f"{100 * (singles.min() - 1):.0f} to {100 * (singles.max() - 1):.0f} %"),
                     ("DynamicMR over Hadoop 6/6, 5/10/20/30 jobs (HFS)",
                      PAPER["dynamicmr_batch"],
                      ", ".join(f"{100 * (v - 1):.0f} %" for v in batches))]
            for col in ("yarn fair", "yarn fair, slow-start 1", "yarn fair, no stragglers"):
                yarn = frame[col]
                rows.append((f"DynamicMR over YARN ({col}; 12 containers per node): single "
                             "jobs / batches", PAPER["yarn"],
                             f"{100 * (yarn[:len(singles)].min() - 1):.0f} to "
                             f"{100 * (yarn[:len(singles)].max() - 1):.0f} % / "
                             + ", ".join(f"{100 * (v - 1):.0f} %"
                                         for v in yarn[len(singles):])))
        else:
            rows.append(("DynamicMR over Hadoop 6/6 under FIFO, batches (Fig 4.16)",
                         "significant gains", ", ".join(f"{100 * (v - 1):.0f} %"
                                                        for v in batches)))
    return text, rows


def _swim_section(runs: pd.DataFrame) -> tuple[str, list]:
    r = runs[runs.experiment == "swim"]
    if r.empty:
        return "## 7. SWIM FB-2009\n\nNot run (no --workload given).\n\n", []
    text = f"## 7. SWIM FB-2009 on 10/2 slots\n\n{r.workload.iloc[0]}, recorded arrivals:\n\n" \
        + table(r[["scheduler", "makespan_s", "mean_response_s", "locality"]]) + "\n"
    return text, []


def write_report(result: Result, out: Path, command: str) -> Path:
    return write(out, report(result, command), {"runs": result.runs})
