"""Rasooli and Down's adaptive heterogeneity-aware scheduler (CASCON 2011), reproduced.

**Cluster** (Table 3, partly unreadable): six resources, 100 Mbit/s between them. R1, R4, R5
store on a slow unit (4 GB at 40 Mbit/s), R2, R3, R6 on a fast one (4 TB); R6's CPU runs at
4.2 GHz, the others' (read as) 5 GHz; R4-R6 have 8 slots; R1-R3's slot count is unreadable —
taken as 4. As node speed classes: a map reads its block, so map speed follows the storage
(fast 2, slow 1), times the CPU ratio; a reduce computes, so reduce speed is the CPU ratio
(R6: 0.84). Half of each node's slots map, half reduce. Blocks of 64 MB have 3 replicas; a
remote map reads its block over the network for 5.1 s more (64 MB at 100 Mbit/s).

**Jobs** (Gridmix's Loadgen, §7): small (1 map, 1 reduce), I/O-heavy (10 maps, 1 reduce),
CPU-heavy (1 map, 10 reduces), large (10, 10); tasks take 20 s at speed 1 (±10 %; the paper
gives no times). Workloads (Table 4): W1 I/O-intensive {small, I/O-heavy}, W2 CPU-intensive
{small, CPU-heavy}, W3 mixed {all}; benchmarks (Table 5): BM_i,1 smaller jobs arrive more
often (rates 3:1, or 4:2:2:1 for W3), BM_i,2 equally, BM_i,3 larger more often (1:3,
1:2:2:4). 100 jobs per run, Poisson arrivals at ``LOAD`` of the busier phase's capacity (the
paper gives no rate), each job from one of Table 1's six users at random (min shares 50, 20,
40, 30, 0, 0 slots; priorities 3, 2, 3, 2, 1, 2 — more than this cluster's 36 slots, as in the
paper's example). ``replications`` runs per benchmark (the paper: 30), 95 % confidence
intervals.

**Schedulers**: FIFO and the Fair Scheduler (pools per user with Table 1's min shares and the
priorities as weights, delay scheduling) of Hadoop 1.x, and the adaptive scheduler
(:class:`~jobsize.sim.schedulers.rasooli.RasooliDown`); as ablations, FAIR and the adaptive
scheduler without the min shares (priorities kept), which isolates the class routing.
The adaptive scheduler runs on exact execution times and, as ``MyALG predicted``, on jobsize's
predictions (:func:`~jobsize.sim.reproductions.report.predicted_source`: each job's estimate
known once its probe has run, the job classified then).
**Metrics** (§5; the formulas are lost
from the text — the reading of :func:`metrics`): mean completion time, min-share
dissatisfaction and fairness averaged over time, locality (share of maps node-local).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import delayed

from jobsize.sim.backends import ordered_results
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.locality import BlockLocality
from jobsize.sim.reproductions.report import predicted_source, provenance, table, write
from jobsize.sim.schedulers.mrv1 import HadoopMRv1
from jobsize.sim.schedulers.rasooli import EXP1_USERS, RasooliDown
from jobsize.sim.size_sources import SizeSource
from jobsize.sim.workload import Workload, from_task_lists, make_jobs

CLUSTER = Cluster.parse("1x2x2+2x2x2@2/1+2x4x4+1x4x4@1.68/0.84", slots=True)
LOCALITY = BlockLocality(replication=3, remote_s=5.1)
TASK_S = 20.0
LOAD = 0.9
#: (maps, reduces) of the Loadgen job types
TYPES = {"small": (1, 1), "io-heavy": (10, 1), "cpu-heavy": (1, 10), "large": (10, 10)}
WORKLOADS = {"W1": ("small", "io-heavy"), "W2": ("small", "cpu-heavy"),
             "W3": ("small", "io-heavy", "cpu-heavy", "large")}
#: relative arrival rates per benchmark, in the workload's type order
RATES = {1: {2: (3, 1), 4: (4, 2, 2, 1)}, 2: {2: (1, 1), 4: (1, 1, 1, 1)},
         3: {2: (1, 3), 4: (1, 2, 2, 4)}}
#: Table 6 (fairness) and Table 7 (locality, %): 95 % intervals per benchmark
PAPER_FAIRNESS = {
    "BM1,1": ((14.88, 15.05), (11.59, 11.65), (14.68, 16.08)),
    "BM1,2": ((14.93, 15.00), (11.57, 11.72), (12.68, 14.60)),
    "BM1,3": ((14.63, 15.26), (11.59, 11.76), (17.23, 17.65)),
    "BM2,1": ((14.77, 15.22), (11.63, 11.98), (11.99, 12.34)),
    "BM2,2": ((14.83, 15.09), (11.81, 12.12), (13.99, 14.36)),
    "BM2,3": ((14.42, 15.73), (11.81, 11.94), (17.37, 17.72)),
    "BM3,1": ((14.94, 15.37), (11.47, 12.71), (14.11, 15.05)),
    "BM3,2": ((14.73, 15.62), (11.72, 12.46), (14.41, 14.98)),
    "BM3,3": ((15.00, 15.44), (11.89, 12.07), (12.11, 13.31)),
}
PAPER_LOCALITY = {
    "BM1,1": ((96.60, 98.03), (98.12, 99.08), (98.62, 99.98)),
    "BM1,2": ((47.39, 57.81), (89.84, 91.76), (93.82, 95.38)),
    "BM1,3": ((62.93, 65.07), (71.43, 74.57), (66.44, 71.55)),
    "BM2,1": ((90.38, 94.42), (97.12, 98.08), (98.56, 99.87)),
    "BM2,2": ((68.65, 82.15), (93.93, 96.87), (91.78, 95.42)),
    "BM2,3": ((78.73, 84.07), (94.14, 97.86), (93.78, 97.42)),
    "BM3,1": ((73.48, 86.92), (78.77, 83.63), (99.12, 100.00)),
    "BM3,2": ((92.36, 95.24), (81.27, 87.13), (95.11, 99.69)),
    "BM3,3": ((79.23, 88.37), (78.02, 86.37), (66.86, 76.73)),
}
SCHEDULERS = ("FIFO", "FAIR", "MyALG")
#: the adaptive scheduler on jobsize's predicted execution times
PREDICTED = "MyALG predicted"
#: ablations: the same without Table 1's min shares (priorities kept)
ABLATIONS = ("FAIR no min share", "MyALG no min share")
NO_MIN_SHARE = {u: (0.0, prio) for u, (_, prio) in EXP1_USERS.items()}


def benchmark(workload: str, bm: int, seed: int, n_jobs: int = 100) -> Workload:
    """Benchmark BM_{workload, bm}: ``n_jobs`` Loadgen jobs (see the module docstring)."""
    types = WORKLOADS[workload]
    rates = np.asarray(RATES[bm][len(types)], float)
    share = rates / rates.sum()
    rng = np.random.default_rng((seed, int(workload[1]), bm))
    kinds = rng.choice(len(types), n_jobs, p=share)
    m_cap = (CLUSTER.capacity[:, 0] * CLUSTER.speed[:, 0]).sum()  # type: ignore[index]
    r_cap = (CLUSTER.capacity[:, 1] * CLUSTER.speed[:, 1]).sum()  # type: ignore[index]
    work_m = sum(s * TYPES[t][0] for s, t in zip(share, types, strict=True)) * TASK_S
    work_r = sum(s * TYPES[t][1] for s, t in zip(share, types, strict=True)) * TASK_S
    gap = max(work_m / m_cap, work_r / r_cap) / LOAD
    gaps = rng.exponential(gap, n_jobs)
    users = rng.choice(list(EXP1_USERS), n_jobs)
    maps, reds = [], []
    for k in kinds:
        n_m, n_r = TYPES[types[k]]
        maps.append(TASK_S * np.exp(0.1 * rng.standard_normal(n_m)))
        reds.append(TASK_S * np.exp(0.1 * rng.standard_normal(n_r)))
    jobs = make_jobs(n_jobs, job_id=[f"{types[k]}-{i}" for i, k in enumerate(kinds)],
                     submit_s=np.cumsum(gaps) - gaps[0], queue=users)
    return from_task_lists(f"BM{workload[1]},{bm}", jobs, maps, reds)


def schedulers(predicted: SizeSource | None = None) -> dict[str, Callable[[], object]]:
    return {"FIFO": lambda: HadoopMRv1("fifo", name="fifo"),
            "FAIR": lambda: HadoopMRv1("fair", pools=dict(EXP1_USERS), name="fair"),
            "MyALG": lambda: RasooliDown(users=dict(EXP1_USERS)),
            PREDICTED: lambda: RasooliDown(predicted_source(predicted), users=dict(EXP1_USERS)),
            "FAIR no min share": lambda: HadoopMRv1("fair", pools=dict(NO_MIN_SHARE),
                                                    name="fair"),
            "MyALG no min share": lambda: RasooliDown(users=dict(NO_MIN_SHARE))}


def metrics(w: Workload, res, users: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Mean completion time; min-share dissatisfaction and fairness averaged over time from the
    first arrival to the last completion; locality.

    AssignedSlots(U, t): U's running attempts; Demand(U, t): U's tasks not yet started (of
    jobs submitted by t). Dissatisfaction(U, t) = priority · (min share − assigned) / min share
    while U has demand and is below its min share. Fairness(t) = Σ over priority levels p of
    Σ over users of p with jobs in the system of |A(U, t) − mean_p A|, A = assigned − min share.
    """
    att = res.attempts
    jobs = res.jobs
    names = w.jobs["queue"].astype(str).to_numpy()
    user_ids = {u: k for k, u in enumerate(dict.fromkeys(names))}
    uj = np.array([user_ids[u] for u in names])
    n_users = len(user_ids)
    share = np.array([users.get(u, (0, 1))[0] for u in user_ids], float)
    prio = np.array([users.get(u, (0, 1))[1] for u in user_ids], float)
    t0, t1 = float(jobs.submit_s.min()), float(jobs.finish_s.max())
    # step changes: (time, user, Δassigned, Δdemand, Δpresent)
    ev = [(att.start_s.to_numpy(), uj[att.job], 1, 0, 0), (att.end_s.to_numpy(), uj[att.job],
                                                           -1, 0, 0)]
    first = att.groupby(["job", "kind", "task"]).start_s.min().reset_index()
    ev.append((first.start_s.to_numpy(), uj[first.job], 0, -1, 0))
    n_tasks = (w.n_maps + w.n_reduces).astype(float)
    ev.append((jobs.submit_s.to_numpy(), uj, 0, n_tasks, 1))
    ev.append((jobs.finish_s.to_numpy(), uj, 0, 0, -1))
    times = np.concatenate([e[0] for e in ev])
    user = np.concatenate([e[1] for e in ev])
    d_as = np.concatenate([np.broadcast_to(e[2], len(e[0])) for e in ev]).astype(float)
    d_de = np.concatenate([np.broadcast_to(e[3], len(e[0])) for e in ev]).astype(float)
    d_pr = np.concatenate([np.broadcast_to(e[4], len(e[0])) for e in ev]).astype(float)
    grid = np.unique(np.clip(times, t0, t1))
    idx = np.searchsorted(grid, np.clip(times, t0, t1))
    shape = (len(grid), n_users)
    assigned, demand, present = (np.zeros(shape) for _ in range(3))
    np.add.at(assigned, (idx, user), d_as)
    np.add.at(demand, (idx, user), d_de)
    np.add.at(present, (idx, user), d_pr)
    assigned, demand, present = (np.cumsum(a, axis=0) for a in (assigned, demand, present))
    with np.errstate(divide="ignore", invalid="ignore"):
        short = (demand > 0.5) & (assigned < share) & (share > 0)
        dis = np.where(short, prio * (share - assigned) / share, 0.0).sum(axis=1)
    a = assigned - share
    fair = np.zeros(len(grid))
    for p in np.unique(prio):
        cols = prio == p
        here = (present[:, cols] > 0.5)
        count = here.sum(axis=1)
        mean = np.where(count > 0, (a[:, cols] * here).sum(axis=1) / np.maximum(count, 1), 0)
        fair += (np.abs(a[:, cols] - mean[:, None]) * here).sum(axis=1)
    dt = np.diff(grid)
    span = max(t1 - t0, 1e-9)
    launched = jobs.local_maps.sum() + jobs.remote_maps.sum()
    return {"mean_completion_s": float(jobs.response_s.mean()),
            "dissatisfaction": float((dis[:-1] * dt).sum() / span),
            "fairness": float((fair[:-1] * dt).sum() / span),
            "locality_pct": float(100 * jobs.local_maps.sum() / launched) if launched else np.nan}


def _one(workload: str, bm: int, seed: int, name: str,
         predicted: SizeSource | None = None) -> dict[str, object]:
    w = benchmark(workload, bm, seed)
    res = simulate(w, CLUSTER, schedulers(predicted)[name](), locality=LOCALITY, record=True)
    return {"benchmark": f"BM{workload[1]},{bm}", "seed": seed, "scheduler": name,
            **metrics(w, res, EXP1_USERS)}


def _swim(swim: Workload, n: int, name: str,
          predicted: SizeSource | None = None) -> dict[str, object]:
    w = swim.segment(0, n)
    rng = np.random.default_rng(0)
    w.jobs["queue"] = rng.choice(list(EXP1_USERS), w.n_jobs)
    res = simulate(w, CLUSTER, schedulers(predicted)[name](), locality=LOCALITY, record=True)
    return {"benchmark": f"FB-2009 first {n}", "seed": 0, "scheduler": name,
            **metrics(w, res, EXP1_USERS)}


@dataclass
class Result:
    runs: pd.DataFrame
    meta: dict[str, object] = field(default_factory=dict)


def _tasks(swim: Workload | None, replications: int, swim_jobs: int,
           predicted: SizeSource | None = None) -> list:
    names = (*SCHEDULERS, PREDICTED)
    tasks = [delayed(_one)(wl, bm, seed, name, predicted) for wl in WORKLOADS
             for bm in (1, 2, 3) for seed in range(replications) for name in (*names, *ABLATIONS)]
    if swim is not None:
        tasks += [delayed(_swim)(swim, min(swim_jobs, swim.n_jobs), name, predicted)
                  for name in names]
    return tasks


def run(swim: Workload | None = None, *, replications: int = 10, swim_jobs: int = 200,
        n_jobs: int = 1, advance: Callable[..., None] | None = None,
        predicted: SizeSource | None = None) -> Result:
    """Every benchmark under every scheduler; ``predicted``: the size source of ``MyALG
    predicted`` (:func:`predicted_source`'s default if None)."""
    t0 = time.perf_counter()
    source = predicted_source(predicted)
    rows = []
    for row in ordered_results(_tasks(swim, replications, swim_jobs, source), n_jobs):
        rows.append(row)
        if advance is not None:
            advance(1)
    return Result(pd.DataFrame(rows), {"elapsed_s": time.perf_counter() - t0,
                                       "replications": replications, "predicted": source.name})


def n_tasks(swim: Workload | None, replications: int = 10, swim_jobs: int = 200,
            predicted: SizeSource | None = None) -> int:
    """How many joblib tasks :func:`run` runs (a progress bar's total)."""
    return len(_tasks(swim, replications, swim_jobs))


# ---------------------------------------------------------------------------------------------
# the report


def _ci(values: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    values = np.asarray(values, float)
    m = values.mean()
    if len(values) < 2:
        return m, m
    h = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return m - h, m + h


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark and scheduler: mean and 95 % interval of each metric."""
    rows = []
    for (bm, name), g in runs.groupby(["benchmark", "scheduler"], sort=False):
        row: dict[str, object] = {"benchmark": bm, "scheduler": name, "runs": len(g)}
        for m in ("mean_completion_s", "dissatisfaction", "fairness", "locality_pct"):
            lo, hi = _ci(g[m].to_numpy())
            row[m] = float(g[m].mean())
            row[f"{m}_ci"] = f"({lo:.3g}, {hi:.3g})"
        rows.append(row)
    return pd.DataFrame(rows)


def report(result: Result, command: str) -> str:
    runs = result.runs
    s = summary(runs)
    buf = io.StringIO()
    w = buf.write
    w("# Rasooli and Down's adaptive scheduler reproduced\n\n")
    w(provenance(command, float(result.meta["elapsed_s"])))  # type: ignore[arg-type]
    w(f"- cluster: {CLUSTER.describe()} (speeds: map/reduce), {LOCALITY.describe()}\n")
    w(f"- {result.meta['replications']} runs of 100 Loadgen jobs per benchmark, Poisson "
      f"arrivals at load {LOAD:g}, tasks {TASK_S:g} s at speed 1\n")
    w(f"- {PREDICTED}: {result.meta.get('predicted', 'predicted sizes')}\n\n")
    for metric, title in (("mean_completion_s", "Mean completion time, s (Figs 7-9)"),
                          ("dissatisfaction", "Min-share dissatisfaction (Figs 4-6)"),
                          ("fairness", "Fairness (Table 6; lower is fairer)"),
                          ("locality_pct", "Locality, % of maps node-local (Table 7)")):
        wide = s.pivot(index="benchmark", columns="scheduler", values=metric)
        cis = s.pivot(index="benchmark", columns="scheduler", values=f"{metric}_ci")
        frame = wide[[c for c in (*SCHEDULERS, PREDICTED, *ABLATIONS) if c in wide]
                     ].reset_index()
        for name in SCHEDULERS:
            frame[f"{name} 95 % CI"] = cis.loc[frame.benchmark, name].to_numpy()
        w(f"## {title}\n\n" + table(frame, digits=4) + "\n")
    w("## Beside the paper\n\n")
    w(_beside(s))
    return buf.getvalue()


def _beside(s: pd.DataFrame) -> str:
    bms = s[s.benchmark.str.startswith("BM")]
    wide = {m: bms.pivot(index="benchmark", columns="scheduler", values=m)
            for m in ("mean_completion_s", "dissatisfaction", "fairness", "locality_pct")}
    mct = wide["mean_completion_s"]
    exact, predicted = (_claims(wide, alg) for alg in ("MyALG", PREDICTED))
    ablation = [b for b in mct.index if "MyALG no min share" in mct
                and mct.loc[b, "MyALG no min share"] < mct.loc[b, "FAIR no min share"]]
    lines = ["| measure | paper | exact sizes | predicted sizes |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {p[2]} |" for (a, b, c), p in zip(exact, predicted,
                                                                      strict=True)]
    lines.append(f"| without min shares, MyALG's routing beats FAIR's mean completion time "
                 f"(ablation) | – | {len(ablation)} of {len(mct)}: "
                 f"{', '.join(ablation) or 'none'} | |")
    return "\n".join(lines) + "\n\nThe paper's fairness and dissatisfaction are in its own " \
        "units (the formulas are lost); compare orderings, not values. It reports no mean " \
        "completion times in numbers, only that MyALG's is the lowest everywhere.\n"


def _claims(wide: dict[str, pd.DataFrame], alg: str) -> list[tuple[str, str, str]]:
    """(measure, the paper's claim, this run's) with the adaptive scheduler run as ``alg``."""
    main = ["FIFO", "FAIR", alg]
    mct, dis = wide["mean_completion_s"], wide["dissatisfaction"]
    fair, loc = wide["fairness"], wide["locality_pct"]
    best_mct = [b for b in mct.index if mct.loc[b, main].astype(float).idxmin() == alg]
    best_dis = [b for b in dis.index if dis.loc[b, main].astype(float).idxmin() == alg]
    fair_first = [b for b in fair.index if fair.loc[b, main].astype(float).idxmin() == "FAIR"]
    rows = [("MyALG has the lowest mean completion time", "all 9 benchmarks",
             f"{len(best_mct)} of {len(mct)}: {', '.join(best_mct) or 'none'}"),
            ("MyALG has the lowest dissatisfaction", "all 9 benchmarks",
             f"{len(best_dis)} of {len(dis)}: {', '.join(best_dis) or 'none'}"),
            ("FAIR is the fairest", "all 9 benchmarks (Table 6)",
             f"{len(fair_first)} of {len(fair)}")]
    for b in mct.index:
        pf, pl = PAPER_FAIRNESS.get(b), PAPER_LOCALITY.get(b)
        if pf is None or pl is None:
            continue
        rows.append((f"{b}: fairness FIFO / FAIR / MyALG",
                     " / ".join(f"{lo:g}-{hi:g}" for lo, hi in pf),
                     " / ".join(f"{fair.loc[b, n]:.2f}" for n in main)))
        rows.append((f"{b}: locality % FIFO / FAIR / MyALG",
                     " / ".join(f"{lo:g}-{hi:g}" for lo, hi in pl),
                     " / ".join(f"{loc.loc[b, n]:.1f}" for n in main)))
    return rows


def write_report(result: Result, out: Path, command: str) -> Path:
    return write(out, report(result, command), {"runs": result.runs,
                                                "summary": summary(result.runs)})

