"""Tang's thesis, chapter 3 (MROrder): job ordering for FIFO on MRv1 slots, reproduced.

Three experiments, on the thesis's cluster of 19 slaves × (3 map + 1 reduce slot) = 57 / 19:

1. **Offline, testbed workloads** (§3.3.6.1, Fig 3.4): 10, 20 and 30 jobs drawn at random from
   the Purdue benchmarks of Table 3.2, all submitted at once; tasks take their benchmark's mean
   time with a little noise (lognormal σ = 0.1). Makespan and total completion time of MK_JR,
   MK_TCT_JR and TCT against the *unoptimised* order of the thesis — the reverse of Johnson's
   order, the worst makespan (Theorem 3.2) — and against the arrival order.
2. **Offline, synthetic Facebook workloads** (§3.3.6.2, Fig 3.5): Table 3.3's SW of 50 jobs (and
   ×2, ×3), reduces 5 % or 25 % of the maps (each job one of the two at random), each job's
   map time drawn from LogNormal(9.9511, 1.6764) ms and its reduce time from
   LogNormal(12.375, 1.6262) ms — one per job, as MREstimator describes a job by its mean task
   times (drawing every task apart instead makes one task of hours decide the makespan
   whatever the order).
3. **Online** (§3.4.3, Table 3.4, Fig 3.9): MROrder with TP-ATI (Δt = 10 s) and TP-FTI
   (Δt = 230 s) against FIFO in arrival order — on the first 50-400 jobs of the SWIM FB-2009
   trace (sizes through the cost model; the thesis builds its online Facebook workloads from
   SWIM too), with the recorded submission times and with them compressed until the jobs'
   work fills ``COMPRESSED_LOAD`` of the busier slots (the recorded times load this small
   cluster 5-23 %, and without queueing there is nothing to reorder); and on the testbed jobs
   arriving as a Poisson process (mean gap 30 s; the thesis gives no rate).

Reduces start when all their job's maps are done (slow-start 1.0, the model of §3.3.1 that Fig
3.3 follows). Completion times are measured from submission (all 0 offline).

Every ordering runs twice: on the exact task times (the thesis's setting: MREstimator's
estimates taken as right) and on jobsize's predictions
(:func:`~jobsize.sim.reproductions.report.predicted_source`: the errors its models make, each
job's estimate known once its probe has run; a batch is ordered when its last estimate is
known). The baselines (arrival order, the unoptimised order, FIFO) need no sizes.
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
from jobsize.sim.reproductions.report import (
    KNOWLEDGE,
    PURDUE,
    benchmark_jobs,
    knowledge_sources,
    predicted_source,
    provenance,
    table,
    write,
)
from jobsize.sim.schedulers import FIFO
from jobsize.sim.schedulers.job_order import mk_jr, phase_loads
from jobsize.sim.schedulers.mrorder import MROrder
from jobsize.sim.size_sources import SizeSource
from jobsize.sim.workload import Workload, from_task_lists, make_jobs

CLUSTER = Cluster.mrv1(19, 3, 1)
#: offered load of the time-compressed SWIM segments (of the busier kind of slot)
COMPRESSED_LOAD = 0.9
#: Table 3.3: (sizes of the bin in the 50-job SW — a range or a list —, jobs in the SW)
FACEBOOK_SW: tuple[tuple[Sequence[int] | range, int], ...] = (
    (range(1, 26), 29), ((25, 30, 35, 40, 50), 5), ((60, 80, 90, 100), 4),
    ((120, 150, 180, 200), 4), ((250, 320, 400), 3), ((600, 800), 2), ((1200,), 1), ((2400,), 1),
    ((4800,), 1),
)
#: The thesis's headline numbers.
PAPER = {
    "testbed_mk_jr_makespan": "about 24 % (20 jobs) over the unoptimised order",
    "fb_mk_jr_makespan": "15-19 %",
    "fb_mk_tct_jr_makespan": "10-15 %",
    "fb_tct_ratio": "MK_TCT_JR's total completion time about 5× better than MK_JR's",
    "ati_pitct": {50: 44.31, 100: 28.30, 150: 14.13, 200: 10.83, 250: 123.74, 300: 186.29,
                  350: 89.7, 400: 56.91},
    "fti_pitct": {50: 41.91, 100: 14.81, 150: 9.28, 200: 6.98, 250: 24.08, 300: 19.49,
                  350: 13.11, 400: 9.81},
    "online_testbed": "makespan +11-31 %, total completion time ≤ +24 %",
    "online_fb": "makespan about +3 %, total completion time up to +176 %",
}
ORDERED = ("mk_jr", "mk_tct_jr", "tct")
#: the knowledge of a baseline that needs no sizes
NONE = "none"


def facebook_sw(scale: int = 1, seed: int = 0) -> Workload:
    """Table 3.3's synthetic workload of 50·``scale`` jobs, all submitted at 0."""
    rng = np.random.default_rng(seed)
    n_maps: list[int] = []
    for sizes, count in FACEBOOK_SW:
        n_maps += [int(rng.choice(list(sizes))) for _ in range(count * scale)]
    maps, reduces = [], []
    for m in n_maps:
        # one map and one reduce time per job, as MREstimator and HSim take their jobs
        r = max(1, round(m * rng.choice([0.05, 0.25])))
        maps.append(np.full(m, rng.lognormal(9.9511, 1.6764) / 1000))
        reduces.append(np.full(r, rng.lognormal(12.375, 1.6262) / 1000))
    order = rng.permutation(len(n_maps))  # arrival order: bins mixed
    jobs = make_jobs(len(n_maps), job_id=[f"sw{i}" for i in range(len(n_maps))])
    return from_task_lists(f"facebook-sw-{50 * scale}", jobs, [maps[i] for i in order],
                           [reduces[i] for i in order])


def testbed(n: int, seed: int, mean_gap_s: float | None = None) -> Workload:
    """``n`` Purdue benchmark jobs drawn at random (Poisson arrivals if ``mean_gap_s``)."""
    rng = np.random.default_rng(seed)
    names = list(rng.choice(list(PURDUE), n))
    submit = None
    if mean_gap_s is not None:
        gaps = rng.exponential(mean_gap_s, n)
        submit = np.cumsum(gaps) - gaps[0]
    return benchmark_jobs(names, submit_s=submit, noise=0.1, seed=seed + 1000,
                          name=f"testbed-{n}")


def compressed(swim: Workload, n: int, load: float = COMPRESSED_LOAD) -> Workload:
    """The first ``n`` jobs of ``swim`` with submission times scaled so that their work over
    the span of arrivals is ``load`` of the cluster's map (or reduce, if busier) slots."""
    w = swim.segment(0, n)
    span = float(w.submit_s()[-1])
    busiest = max(w.map_work_s().sum() / CLUSTER.total[0], w.reduce_work_s().sum()
                  / CLUSTER.total[1])
    factor = min(1.0, busiest / load / span) if span else 1.0
    w.jobs["submit_s"] = w.submit_s() * factor
    w.name = f"{w.name} (arrivals ×{factor:.3g})"
    return w


def reordered(w: Workload, order: Sequence[int]) -> Workload:
    """The jobs of ``w`` submitted at 0 in ``order`` (FIFO then runs them in that order)."""
    maps = [w.map_s[w.map_off[j]:w.map_off[j + 1]] for j in order]
    reds = [w.reduce_s[w.reduce_off[j]:w.reduce_off[j + 1]] for j in order]
    jobs = make_jobs(len(order), job_id=w.jobs["job_id"].to_numpy()[list(order)])
    return from_task_lists(w.name, jobs, maps, reds)


def _measure(w: Workload, policy) -> tuple[float, float]:
    res = simulate(w, CLUSTER, policy, slowstart=1.0)
    return float(res.jobs.finish_s.max()), float(res.jobs.response_s.sum())


Measured = dict[tuple[str, str], tuple[float, float]]


def offline(w: Workload, predicted: SizeSource) -> Measured:
    """(order, knowledge) -> (makespan, total completion time) of the arrival order, the
    unoptimised (reverse Johnson) order and the three orderings on each knowledge."""
    tm, tr = phase_loads(w.map_work_s(), w.reduce_work_s(), *CLUSTER.total)
    out = {("arrival", NONE): _measure(w, FIFO()),
           ("unoptimised", NONE): _measure(reordered(w, mk_jr(tm, tr)[::-1]), FIFO())}
    for knowledge, source in knowledge_sources(predicted).items():
        for name in ORDERED:
            out[name, knowledge] = _measure(w, MROrder(source, algorithm=name, trigger="batch",
                                                       sim_jobs=0, name=name))
    return out


def online(w: Workload, predicted: SizeSource) -> Measured:
    """FIFO in arrival order against MROrder's online policies on each knowledge."""
    out = {("fifo", NONE): _measure(w, FIFO())}
    for knowledge, source in knowledge_sources(predicted).items():
        out["ati-tct", knowledge] = _measure(w, MROrder(source, objective="tct"))
        out["fti-tct", knowledge] = _measure(w, MROrder(source, objective="tct", trigger="fti",
                                                        interval_s=230.0))
        out["ati-makespan", knowledge] = _measure(w, MROrder(source))
    return out


@dataclass
class Result:
    """Per-run measurements of the three experiments."""

    testbed: pd.DataFrame
    facebook: pd.DataFrame
    online: pd.DataFrame
    meta: dict[str, object] = field(default_factory=dict)


def _rows(kind: str, label: str, seed: int, measured: Measured) -> list:
    return [{"experiment": kind, "workload": label, "seed": seed, "order": k,
             "knowledge": knowledge, "makespan_s": m, "total_completion_s": t}
            for (k, knowledge), (m, t) in measured.items()]


def run(swim: Workload | None = None, *, seeds: Sequence[int] = (0, 1, 2, 3, 4),
        swim_sizes: Sequence[int] = (50, 100, 150, 200, 250, 300, 350, 400), n_jobs: int = 1,
        advance: Callable[..., None] | None = None,
        predicted: SizeSource | None = None) -> Result:
    """All three experiments; the SWIM part only with a ``swim`` workload. ``predicted``: the
    size source of the predicted knowledge (:func:`predicted_source`'s default if None)."""
    source = predicted_source(predicted)
    tasks = []
    for seed in seeds:
        for n in (10, 20, 30):
            tasks.append(("testbed", f"{n} jobs", seed, offline, (testbed, n, seed, None)))
            tasks.append(("online-testbed", f"{n} jobs", seed, online, (testbed, n, seed, 30.0)))
    for seed in seeds[:3]:
        for scale in (1, 2, 3):
            tasks.append(("facebook", f"SW {50 * scale}", seed, offline,
                          (facebook_sw, scale, seed)))
    if swim is not None:
        for n in swim_sizes:
            if n <= swim.n_jobs:
                tasks.append(("online-swim", f"{n} jobs", 0, online, (swim.segment, 0, n)))
                tasks.append(("online-swim-compressed", f"{n} jobs", 0, online,
                              (compressed, swim, n)))
    rows: list[dict] = []
    t0 = time.perf_counter()
    jobs = (delayed(_task)(kind, label, seed, fn, build, source)
            for kind, label, seed, fn, build in tasks)
    for out in ordered_results(jobs, n_jobs):
        rows += out
        if advance is not None:
            advance(1)
    frame = pd.DataFrame(rows)
    meta = {"elapsed_s": time.perf_counter() - t0, "swim": swim.name if swim else None,
            "tasks": len(tasks), "predicted": source.name}
    return Result(frame[frame.experiment == "testbed"].reset_index(drop=True),
                  frame[frame.experiment == "facebook"].reset_index(drop=True),
                  frame[frame.experiment.str.startswith("online")].reset_index(drop=True), meta)


def n_tasks(swim: Workload | None, seeds: Sequence[int] = (0, 1, 2, 3, 4),
            swim_sizes: Sequence[int] = (50, 100, 150, 200, 250, 300, 350, 400),
            predicted: SizeSource | None = None) -> int:
    """How many joblib tasks :func:`run` runs (a progress bar's total)."""
    n = 6 * len(seeds) + 3 * len(seeds[:3])
    return n + (2 * sum(s <= swim.n_jobs for s in swim_sizes) if swim is not None else 0)


def _task(kind: str, label: str, seed: int, fn, build, predicted: SizeSource) -> list:
    w = build[0](*build[1:])
    return _rows(kind, label, seed, fn(w, predicted))


# ---------------------------------------------------------------------------------------------
# the report


def speedups(frame: pd.DataFrame, base: str, metric: str,
             knowledge: str = "exact") -> pd.DataFrame:
    """Per workload: mean over seeds of base / order for ``metric``, one column per order (the
    orderings on ``knowledge``)."""
    frame = frame[frame.knowledge.isin((NONE, knowledge))]
    wide = frame.pivot_table(index=["workload", "seed"], columns="order", values=metric,
                             sort=False)
    ratio = wide.rdiv(wide[base], axis=0)
    out = ratio.groupby(level="workload", sort=False).mean()
    return out.reset_index()


def report(result: Result, command: str) -> str:
    buf = io.StringIO()
    w = buf.write
    w("# MROrder (Tang's thesis, chapter 3) reproduced\n\n")
    w(provenance(command, float(result.meta["elapsed_s"])))  # type: ignore[arg-type]
    w(f"- cluster: {CLUSTER.describe()} (the thesis's EC2 testbed: 19 slaves × 3/1 slots)\n")
    w("- reduces start when all maps of their job are done (slow-start 1.0, §3.3.1's model)\n")
    w(f"- sizes: exact, and predicted ({result.meta.get('predicted', 'predicted')})\n")
    w("- speedup = the baseline's makespan (or total completion time) ÷ the order's; the mean "
      "over seeds\n\n")
    for title, frame, note, bases in (
            ("Offline, testbed workloads (Fig 3.4)", result.testbed,
             "Jobs drawn from Table 3.2, all at 0", ("unoptimised", "arrival")),
            ("Offline, synthetic Facebook workloads (Fig 3.5)", result.facebook,
             "Table 3.3's SW", ("unoptimised",))):
        w(f"## {title}\n\n{note}; seeds {sorted(set(frame.seed))}.\n\n")
        for knowledge in KNOWLEDGE:
            for base in bases:
                for metric, label in (("makespan_s", "Makespan"),
                                      ("total_completion_s", "Total completion time")):
                    w(f"{label} speedup over the {base} order"
                      f"{' (reverse Johnson)' if base == 'unoptimised' else ' (not in the thesis)'}"
                      f", {knowledge} sizes:\n\n"
                      + table(speedups(frame, base, metric, knowledge)) + "\n")
    w("## Online (Table 3.4, Fig 3.9)\n\n")
    w("PITCT = FIFO's total completion time ÷ MROrder's − 1 (%); TP-ATI Δt = 10 s, TP-FTI "
      "Δt = 230 s, both ordering for the total completion time (SIM up to 7 jobs, else TCT).\n\n")
    pits = {k: _online_table(result.online, k) for k in KNOWLEDGE}
    for knowledge, pit in pits.items():
        w(f"With {knowledge} sizes:\n\n" + table(pit, digits=4) + "\n")
    w("## Beside the thesis\n\n")
    w(_beside(result, pits))
    return buf.getvalue()


def _online_table(on: pd.DataFrame, knowledge: str = "exact") -> pd.DataFrame:
    if on.empty:
        return pd.DataFrame()
    on = on[on.knowledge.isin((NONE, knowledge))]
    wide = on.pivot_table(index=["experiment", "workload", "seed"], columns="order",
                          values=["makespan_s", "total_completion_s"], sort=False)
    tct, mk = wide["total_completion_s"], wide["makespan_s"]
    out = pd.DataFrame({
        "ati_pitct_pct": 100 * (tct["fifo"] / tct["ati-tct"] - 1),
        "fti_pitct_pct": 100 * (tct["fifo"] / tct["fti-tct"] - 1),
        "ati_makespan_gain_pct": 100 * (mk["fifo"] / mk["ati-makespan"] - 1),
    }).groupby(level=["experiment", "workload"], sort=False).mean().reset_index()
    paper_ati, paper_fti = PAPER["ati_pitct"], PAPER["fti_pitct"]
    n = out["workload"].str.extract(r"(\d+)")[0].astype(int)
    swim = out["experiment"].str.startswith("online-swim")
    out["paper_ati_pitct_pct"] = [paper_ati.get(k, np.nan) if s else np.nan  # type: ignore[union-attr]
                                  for k, s in zip(n, swim, strict=True)]
    out["paper_fti_pitct_pct"] = [paper_fti.get(k, np.nan) if s else np.nan  # type: ignore[union-attr]
                                  for k, s in zip(n, swim, strict=True)]
    return out


def _measures(result: Result, knowledge: str, pit: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(measure, the thesis's number, this run's) of the headline claims on ``knowledge``."""
    tb = speedups(result.testbed, "unoptimised", "makespan_s", knowledge).set_index("workload")
    fb_mk = speedups(result.facebook, "unoptimised", "makespan_s", knowledge).set_index(
        "workload")
    facebook = result.facebook[result.facebook.knowledge == knowledge]
    fb_tct = facebook.pivot_table(index=["workload", "seed"], columns="order",
                                  values="total_completion_s", sort=False)
    ratio = (fb_tct["mk_jr"] / fb_tct["mk_tct_jr"]).groupby(level="workload", sort=False).mean()
    rows = [
        ("MK_JR makespan gain, testbed 20 jobs (Fig 3.4)", PAPER["testbed_mk_jr_makespan"],
         _pct(tb.loc["20 jobs", "mk_jr"])),
        ("MK_JR makespan gain, Facebook SW 50/100/150 (Fig 3.5)", PAPER["fb_mk_jr_makespan"],
         ", ".join(_pct(v) for v in fb_mk["mk_jr"])),
        ("MK_TCT_JR makespan gain, Facebook SW (Fig 3.5)", PAPER["fb_mk_tct_jr_makespan"],
         ", ".join(_pct(v) for v in fb_mk["mk_tct_jr"])),
        ("MK_JR ÷ MK_TCT_JR total completion time, Facebook SW", PAPER["fb_tct_ratio"],
         ", ".join(f"{v:.2f}×" for v in ratio)),
    ]
    if not pit.empty:
        tbo = pit[pit.experiment == "online-testbed"]
        rows.append(("MROrder online, testbed: makespan gain", PAPER["online_testbed"],
                     ", ".join(f"{x:.1f} %" for x in tbo["ati_makespan_gain_pct"])))
        for kind, label in (("online-swim", "recorded arrivals"),
                            ("online-swim-compressed", "compressed arrivals")):
            sw = pit[pit.experiment == kind]
            if not sw.empty:
                rows.append((f"MROrder online, SWIM FB-2009, {label}: mean makespan gain / "
                             "best PITCT (TP-ATI)", PAPER["online_fb"],
                             f"{sw['ati_makespan_gain_pct'].mean():.1f} % / "
                             f"{sw['ati_pitct_pct'].max():.1f} %"))
    return rows


def _beside(result: Result, pits: dict[str, pd.DataFrame]) -> str:
    exact, predicted = (_measures(result, k, pits[k]) for k in KNOWLEDGE)
    lines = ["| measure | thesis | exact sizes | predicted sizes |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {p[2]} |"
              for (a, b, c), p in zip(exact, predicted, strict=True)]
    return "\n".join(lines) + "\n"


def _pct(speedup: float) -> str:
    return f"{100 * (speedup - 1):.1f} %"


def write_report(result: Result, out: Path, command: str) -> Path:
    frames = {"testbed": result.testbed, "facebook": result.facebook, "online": result.online}
    return write(out, report(result, command), frames)
