"""Tang's thesis §5.6, the LTYARN macro-benchmark, in the simulator.

Four queues with equal weights share a YARN cluster of 9 × 24 GB (the thesis's slaves), under
Static Partitioning (each queue its quarter, no lending: Capacity queues of 0.25 with max 0.25,
fair inside), MLRF (memoryless max-min: Hadoop's Fair) and LTRF (LTYARN, adaptive quantum);
LTRF with a fixed quantum of 600 s shows Fig 5.7's effect. The workloads are built like the
thesis's (§5.6 "Macro-Benchmark"), with what it does not say assumed and named:

- **facebook**: 100 jobs in Table 5.3's nine bins (maps / reduces / jobs), submitted at the
  times of the first 100 jobs of a SWIM Facebook 2009 trace; task times are assumed
  (lognormal, map mean 10 s and reduce mean 30 s, so the mean task is near the thesis's 11 s);
- **purdue**: WordCount, TeraSort, Grep, InvertedIndex, HistogramMovies, one every 3 min, each
  on 40 GB (320 maps of a 128 MB block), with the reduce counts and mean task times the thesis
  measured for these jobs in ch 3 (Table 3.2);
- **tpch**: Q1, Q9, Q12, Q17 five times each, round robin, each submitted when the previous one
  finished; one MapReduce job per query, shapes assumed (240-320 maps, 30-60 reduces);
- **spark**: two scripts, k-means and ALS, ten runs each, the next submitted 2 min after the
  previous one finished; a Spark application is modelled as its executors (assumed: 40 of 2 GB)
  held for the application's time (assumed: 90 s and 150 s).

Measured: sharing loss and benefit over time (eqs 5.3-5.5, :mod:`~.sharing`), per-workload
speedup over Static Partitioning (mean job response and workload span), and the facebook
queue's accumulated resources (normalized by the cluster) under a fixed and an adaptive
quantum. Runs repeat over seeds (bin order, task-time noise).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.policy import Policy
from jobsize.sim.reproductions.closed_loop import ClosedLoop
from jobsize.sim.reproductions.sharing import QueueMeter, sharing_curves
from jobsize.sim.schedulers import Capacity, CapacityQueue, Fair
from jobsize.sim.schedulers.ltyarn import LTYARN
from jobsize.sim.workload import Workload, from_task_lists, make_jobs

QUEUES = ("facebook", "purdue", "tpch", "spark")
CLUSTER = "9x24g×24"
#: Table 5.3: maps, reduces, jobs
FACEBOOK_BINS = ((1, 0, 38), (2, 0, 18), (10, 2, 14), (50, 0, 10), (100, 10, 6), (200, 0, 6),
                 (400, 0, 4), (400, 30, 2), (800, 60, 2))
#: (name, maps, reduces, mean map s, mean reduce s): 40 GB in 128 MB blocks = 320 maps; reduces
#: and mean task times as the thesis measured these jobs (Table 3.2)
PURDUE = (("wordcount", 320, 100, 22, 11), ("terasort", 320, 100, 10, 26),
          ("grep", 320, 120, 9, 11), ("invertedindex", 320, 100, 32, 23),
          ("histogram-movies", 320, 150, 6, 13))
#: assumed shapes of the TPC-H queries on 40 GB (name, maps, reduces, mean map s, mean
#: reduce s): the 30 GB lineitem table alone is 240 blocks of 128 MB
TPCH = (("q1", 240, 30, 15, 20), ("q9", 320, 60, 20, 40), ("q12", 280, 30, 15, 25),
        ("q17", 280, 40, 15, 30))
#: assumed Spark applications (name, executors, executor MB, seconds)
SPARK = (("kmeans", 40, 2048, 90.0), ("als", 40, 2048, 150.0))

#: What the thesis reports (§5.6.2-5.6.3), for the report.
PAPER = {
    "mlrf_mean_loss": -0.5,  # "≈ 0.5 on average", Fig 5.5(a)
    "ltrf_loss_free_after_s": 650.0,  # "no more sharing loss problem after 650 seconds"
    "speedup_mlrf": {"facebook": (1.14, 1.19), "purdue": (1.14, 1.19)},  # "14%-19%"
    "speedup_ltrf": {"facebook": (1.10, 1.23), "purdue": (1.10, 1.23)},  # "10%-23%"
    "mlrf_over_ltrf": {"facebook": 1.07, "spark": 1.02, "purdue": 1 / 1.08, "tpch": 1 / 1.10},
    "fixed_q600_fall": (1019.0, 630.0),  # normalized accumulated resource, 1439 s → 1450 s
}
POLICIES = ("static", "mlrf", "ltrf", "ltrf-q600")
#: task-time scales: as built, and every task twice as long (a congested cluster)
LOADS = (1.0, 2.0)


@dataclass(frozen=True)
class MacroBenchmark:
    """The four workloads (see the module docstring); ``facebook_submit_s``: the submission
    times of the facebook jobs (100 of them)."""

    facebook_submit_s: tuple[float, ...]
    seed: int = 0
    task_sigma: float = 0.3
    facebook_map_s: float = 10.0
    facebook_reduce_s: float = 30.0
    purdue_gap_s: float = 180.0
    spark_think_s: float = 120.0
    tpch_rounds: int = 5
    spark_runs: int = 10
    #: every task time × this (a heavier load for the same arrivals)
    time_scale: float = 1.0

    def build(self) -> tuple[Workload, dict[int, tuple[int, float]]]:
        """The workload and its chains: job → (predecessor, think time)."""
        n_fb = sum(b[2] for b in FACEBOOK_BINS)
        if len(self.facebook_submit_s) < n_fb:
            raise ConfigError(f"the facebook workload needs {n_fb} submission times, got "
                              f"{len(self.facebook_submit_s)}")
        rng = np.random.default_rng(self.seed)
        jobs: list[dict] = []
        bins = [b for b in FACEBOOK_BINS for _ in range(b[2])]
        order = rng.permutation(len(bins))
        t0 = self.facebook_submit_s[0]
        for k, b in enumerate(order):
            maps, reduces, _ = bins[b]
            jobs.append(self._job(rng, f"facebook{k}", "facebook", self.facebook_submit_s[k] - t0,
                                  maps, reduces, self.facebook_map_s, self.facebook_reduce_s))
        for k, (name, maps, reduces, m_s, r_s) in enumerate(PURDUE):
            jobs.append(self._job(rng, name, "purdue", k * self.purdue_gap_s, maps, reduces,
                                  m_s, r_s))
        chains: dict[str, tuple[str, float]] = {}
        previous = None
        for r in range(self.tpch_rounds):
            for name, maps, reduces, m_s, r_s in TPCH:
                jid = f"{name}-{r}"
                jobs.append(self._job(rng, jid, "tpch", 0.0, maps, reduces, m_s, r_s))
                if previous is not None:
                    chains[jid] = (previous, 0.0)
                previous = jid
        for name, executors, mb, seconds in SPARK:
            previous = None
            for r in range(self.spark_runs):
                jid = f"{name}-{r}"
                job = self._job(rng, jid, "spark", 0.0, executors, 0, seconds, 0.0, sigma=0.1)
                job["map_mb"] = mb
                jobs.append(job)
                if previous is not None:
                    chains[jid] = (previous, self.spark_think_s)
                previous = jid
        jobs.sort(key=lambda d: d["submit_s"])  # stable: chains keep their order
        frame = make_jobs(len(jobs), **{c: np.array([d[c] for d in jobs]) for c in
                                        ("job_id", "submit_s", "queue", "map_mb")})
        work = from_task_lists(f"ltyarn-macro(seed={self.seed})", frame,
                               [d["maps"] for d in jobs], [d["reduces"] for d in jobs])
        index = {jid: i for i, jid in enumerate(work.jobs["job_id"])}
        return work, {index[j]: (index[p], think) for j, (p, think) in chains.items()}

    def _job(self, rng: np.random.Generator, jid: str, queue: str, submit: float, maps: int,
             reduces: int, map_s: float, reduce_s: float, sigma: float | None = None) -> dict:
        s = self.task_sigma if sigma is None else sigma

        def durations(n: int, mean: float) -> np.ndarray:
            return self.time_scale * mean * rng.lognormal(-s * s / 2, s, n)  # mean-preserving

        return {"job_id": jid, "queue": queue, "submit_s": float(submit), "map_mb": 1024,
                "maps": durations(maps, map_s), "reduces": durations(reduces, reduce_s)}


def make_policy(name: str) -> Policy:
    """static, mlrf, ltrf or ltrf-q600 (see the module docstring)."""
    if name == "static":
        return Capacity([CapacityQueue(q, 0.25, 0.25, "fair") for q in QUEUES])
    if name == "mlrf":
        return Fair("memory")
    if name == "ltrf":
        return LTYARN()
    if name == "ltrf-q600":
        return LTYARN(quantum_s=600.0, adaptive=False)
    raise ConfigError(f"LTYARN reproduction policy {name!r}: expected one of "
                      f"{', '.join(POLICIES)}")


@dataclass
class Run:
    """One policy on one seed and load: per-job times and the queue notes."""

    policy: str
    seed: int
    load: float
    jobs: pd.DataFrame  # job_id, queue, released_s, finish_s, response_s
    notes: pd.DataFrame  # t, queue, held, demand, accumulated


def run_one(bench: MacroBenchmark, cluster: Cluster, policy: str) -> Run:
    work, chains = bench.build()
    meter = QueueMeter(make_policy(policy), QUEUES)
    loop = ClosedLoop(meter, chains)
    res = simulate(work, cluster, loop)
    released = np.array([loop.released[j] for j in range(work.n_jobs)])
    jobs = pd.DataFrame({"job_id": res.jobs["job_id"], "queue": work.jobs["queue"],
                         "released_s": released, "finish_s": res.jobs["finish_s"]})
    jobs["response_s"] = jobs["finish_s"] - jobs["released_s"]
    return Run(policy, bench.seed, bench.time_scale, jobs, meter.frame())


@dataclass
class Reproduction:
    runs: list[Run]
    cluster: Cluster
    workload: str
    seeds: tuple[int, ...]
    loads: tuple[float, ...]
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return float(self.cluster.total[0])

    def get(self, policy: str, seed: int, load: float) -> Run | None:
        return next((r for r in self.runs if (r.policy, r.seed, r.load) == (policy, seed, load)),
                    None)


def reproduce(facebook_submit_s: Sequence[float], *, seeds: Sequence[int] = (0,),
              loads: Sequence[float] = LOADS, cluster: Cluster | None = None,
              policies: Sequence[str] = POLICIES, n_jobs: int = 1,
              advance: Callable[..., None] | None = None,
              **bench_options: float) -> Reproduction:
    """Every policy on the macro-benchmark of every seed and load (joblib, one task per run)."""
    from joblib import delayed

    from jobsize.sim.backends import ordered_results

    cluster = cluster or Cluster.parse(CLUSTER)
    arrivals = tuple(float(t) for t in facebook_submit_s)
    benches = [MacroBenchmark(arrivals, seed=s, time_scale=x, **bench_options)  # type: ignore[arg-type]
               for x in loads for s in seeds]
    tasks = [delayed(run_one)(b, cluster, p) for b in benches for p in policies]
    runs = []
    for run in ordered_results(tasks, n_jobs):
        runs.append(run)
        if advance is not None:
            advance(1)
    return Reproduction(runs, cluster, "ltyarn-macro", tuple(seeds), tuple(loads))


# ---------------------------------------------------------------------------------------------
# measures


def curves(rep: Reproduction, run: Run, step: float = 5.0) -> pd.DataFrame:
    """β per queue, Ψ and Ω every ``step`` seconds until the run's last job finishes."""
    end = float(run.jobs["finish_s"].max())
    at = np.arange(0.0, end + step, step)
    shares = {q: rep.total / len(QUEUES) for q in QUEUES}
    return sharing_curves(run.notes, shares, at)


def loss_summary(rep: Reproduction, run: Run, tolerance: float = 0.01) -> dict[str, float]:
    """Mean Ω over the run, Ω at its end, and the time after which Ω stays above −tolerance
    (NaN if it never does before the end)."""
    c = curves(rep, run)
    loss = c["loss"].to_numpy()
    below = np.flatnonzero(loss < -tolerance)
    if len(below) == 0:
        free_after = 0.0
    elif below[-1] == len(loss) - 1:
        free_after = math.nan
    else:
        free_after = float(c["t"].iloc[below[-1] + 1])
    return {"mean_loss": float(loss.mean()), "final_loss": float(loss[-1]),
            "loss_free_after_s": free_after, "mean_benefit": float(c["benefit"].mean())}


def speedups(rep: Reproduction, seed: int, load: float) -> pd.DataFrame:
    """Per policy and queue: mean job response and workload span (first release to last
    finish), and both as speedups over Static Partitioning."""
    rows = []
    for run in (r for r in rep.runs if r.seed == seed and r.load == load):
        for q, g in run.jobs.groupby("queue"):
            rows.append({"policy": run.policy, "queue": q,
                         "mean_response_s": g["response_s"].mean(),
                         "span_s": g["finish_s"].max() - g["released_s"].min()})
    out = pd.DataFrame(rows)
    base = out[out["policy"] == "static"].set_index("queue")
    for col, what in (("speedup_response", "mean_response_s"), ("speedup_span", "span_s")):
        ref = base[what].reindex(out["queue"]).to_numpy()
        out[col] = ref / out[what]
    return out


def largest_fall(run: Run, queue: str, total: float, within_s: float = 11.0) -> tuple[float,
                                                                                        float]:
    """The largest fall of a queue's accumulated resources (normalized by the cluster) within
    ``within_s`` seconds: (before, after)."""
    notes = run.notes[run.notes["queue"] == queue]
    t = notes["t"].to_numpy(float)
    f = notes["accumulated"].to_numpy(float) / total
    best = (math.nan, math.nan)
    drop = 0.0
    hi = 0
    for i in range(len(t)):
        hi = max(hi, i)
        while hi + 1 < len(t) and t[hi + 1] <= t[i] + within_s:
            hi += 1
        k = i + int(np.argmin(f[i:hi + 1]))
        if f[i] - f[k] > drop:
            drop, best = f[i] - f[k], (float(f[i]), float(f[k]))
    return best


def summary(rep: Reproduction) -> pd.DataFrame:
    """One row per (load, policy, seed) with the loss measures, the speedups per queue and
    (LTRF) the largest fall of facebook's accumulated resources."""
    rows = []
    for load in rep.loads:
        for seed in rep.seeds:
            rows += _summary_rows(rep, seed, load)
    return pd.DataFrame(rows)


def _summary_rows(rep: Reproduction, seed: int, load: float) -> list[dict[str, object]]:
    rows = []
    sp = speedups(rep, seed, load).set_index(["policy", "queue"])
    for policy in POLICIES:
        run = rep.get(policy, seed, load)
        if run is None:
            continue
        row: dict[str, object] = {"load": load, "policy": policy, "seed": seed,
                                  **loss_summary(rep, run)}
        for q in QUEUES:
            row[f"speedup_response_{q}"] = sp.loc[(policy, q), "speedup_response"]
            row[f"speedup_span_{q}"] = sp.loc[(policy, q), "speedup_span"]
            row[f"mean_response_{q}"] = sp.loc[(policy, q), "mean_response_s"]
        if policy.startswith("ltrf"):
            before, after = largest_fall(run, "facebook", rep.total)
            row["fb_fall_before"], row["fb_fall_after"] = before, after
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------
# the report


def write_report(rep: Reproduction, out: Path, *, figures: bool = True) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    table = summary(rep)
    paths = [out / "summary.csv"]
    with atomic_write(paths[0]) as handle:
        handle.write(table.to_csv(index=False).encode())
    if figures:
        paths += _figures(rep, out)
    atomic_write_text(out / "report.md", report_markdown(rep, table))
    return [out / "report.md", *paths]


def _mean_range(values: pd.Series, fmt: str = "{:.2f}") -> str:
    v = values.dropna()
    if len(v) == 0:
        return "never"
    if len(v) == 1:
        return fmt.format(v.iloc[0])
    return f"{fmt.format(v.mean())} [{fmt.format(v.min())}, {fmt.format(v.max())}]"


def report_markdown(rep: Reproduction, table: pd.DataFrame) -> str:
    buf = io.StringIO()
    w = buf.write
    w("# LTYARN macro-benchmark (Tang's thesis §5.6) in the simulator\n\n")
    w(f"- cluster: {rep.cluster.describe()}; queues {', '.join(QUEUES)}, equal weights "
      f"(share {rep.total / len(QUEUES) / 1024:.0f} GB each)\n")
    w(f"- facebook submissions: {rep.meta.get('arrivals', 'given')}\n")
    w(f"- seeds: {', '.join(map(str, rep.seeds))}; values are mean [min, max] over seeds\n")
    w("- loads: task times as built (×1) and all doubled (×2, a congested cluster)\n")
    if "elapsed_s" in rep.meta:
        w(f"- simulated in {rep.meta['elapsed_s']:.0f} s\n")
    for load in rep.loads:
        rows = table[table["load"] == load]
        by = {p: g.reset_index(drop=True) for p, g in rows.groupby("policy")}
        w(f"\n## Task times ×{load:g}\n")
        _fairness_section(w, by)
        _performance_section(w, by)
        _quantum_section(w, by)
    w("\n## Where and why the numbers differ\n\n")
    w(_reading(table))
    w(_DIFFERENCES)
    return buf.getvalue()


def _reading(table: pd.DataFrame) -> str:
    """The sharing-loss findings of this run, in words."""
    lines = []
    for load, rows in table.groupby("load"):
        by = {p: g for p, g in rows.groupby("policy")}
        if "mlrf" not in by or "ltrf" not in by:
            continue
        m, lt = by["mlrf"]["mean_loss"].mean(), by["ltrf"]["mean_loss"].mean()
        tm = by["mlrf"]["loss_free_after_s"].mean()
        tl = by["ltrf"]["loss_free_after_s"].mean()
        lines.append(f"- Task times ×{load:g}: mean sharing loss {m:.3f} under MLRF (thesis ≈ "
                     f"−0.5) and {lt:.3f} under LTRF, which loses {'more' if lt < m else 'less'}"
                     f"; the loss is over after {tm:.0f} s under MLRF and {tl:.0f} s under LTRF "
                     "(thesis: never, and 650 s).\n")
    return "".join(lines)


def _fairness_section(w: Callable[[str], object], by: dict[str, pd.DataFrame]) -> None:
    w("\n### Fairness over time (Fig 5.5; eqs 5.3-5.5)\n\n")
    w("| measure | paper | ours |\n|---|---|---|\n")
    mlrf, ltrf, static = by.get("mlrf"), by.get("ltrf"), by.get("static")
    if mlrf is not None:
        w(f"| MLRF: mean sharing loss Ω over the run | ≈ {PAPER['mlrf_mean_loss']} | "
          f"{_mean_range(mlrf['mean_loss'], '{:.3f}')} |\n")
        w(f"| MLRF: sharing loss at the end | persists until the end | "
          f"{_mean_range(mlrf['final_loss'], '{:.3f}')} |\n")
        w(f"| MLRF: no sharing loss (Ω > −0.01) after | never | "
          f"{_mean_range(mlrf['loss_free_after_s'], '{:.0f} s')} |\n")
    if ltrf is not None:
        w(f"| LTRF: mean sharing loss Ω over the run | (not given; early only) | "
          f"{_mean_range(ltrf['mean_loss'], '{:.3f}')} |\n")
        w(f"| LTRF: no sharing loss (Ω > −0.01) after | {PAPER['ltrf_loss_free_after_s']:.0f} s "
          f"| {_mean_range(ltrf['loss_free_after_s'], '{:.0f} s')} |\n")
        w(f"| LTRF: sharing loss at the end | 0 | {_mean_range(ltrf['final_loss'], '{:.3f}')} |\n")
    if static is not None:
        w(f"| Static partitioning: mean Ω | 0 (by definition) | "
          f"{_mean_range(static['mean_loss'], '{:.3f}')} |\n")


def _performance_section(w: Callable[[str], object], by: dict[str, pd.DataFrame]) -> None:
    mlrf, ltrf = by.get("mlrf"), by.get("ltrf")
    if mlrf is None or ltrf is None or "static" not in by:
        return
    w("\n### Performance over Static Partitioning (Fig 5.6)\n\n")
    w("Speedup = Static Partitioning's time ÷ the policy's, per workload, of the mean job "
      "response (submission to finish) / of the workload's span (first submission to last "
      "finish); the thesis does not say which time it divides. Last two columns: MLRF's "
      "speedup ÷ LTRF's (> 1: MLRF faster).\n\n")
    w("| workload | paper MLRF | ours MLRF | paper LTRF | ours LTRF | paper MLRF÷LTRF | "
      "ours MLRF÷LTRF |\n|---|---|---|---|---|---|---|\n")
    for q in QUEUES:
        pm = PAPER["speedup_mlrf"].get(q)  # type: ignore[attr-defined]
        pl = PAPER["speedup_ltrf"].get(q)  # type: ignore[attr-defined]
        ratio = PAPER["mlrf_over_ltrf"][q]  # type: ignore[index]
        both = [f"{_mean_range(g[f'speedup_response_{q}'])} / "
                f"{_mean_range(g[f'speedup_span_{q}'])}" for g in (mlrf, ltrf)]
        ours = _mean_range(mlrf[f"speedup_response_{q}"] / ltrf[f"speedup_response_{q}"])
        w(f"| {q} | {_paper_range(pm)} | {both[0]} | {_paper_range(pl)} | {both[1]} | "
          f"{ratio:.2f} | {ours} |\n")


def _paper_range(pair: tuple[float, float] | None) -> str:
    return f"{pair[0]:.2f}-{pair[1]:.2f}" if pair else "≥ 1 (\"at least as fast\")"


def _quantum_section(w: Callable[[str], object], by: dict[str, pd.DataFrame]) -> None:
    fixed, adaptive = by.get("ltrf-q600"), by.get("ltrf")
    if fixed is None and adaptive is None:
        return
    w("\n### The time quantum (Fig 5.7)\n\n")
    w("Largest fall of the facebook queue's accumulated resources within 11 s (normalized by "
      "the cluster, in cluster-seconds).\n\n| quantum | paper | ours (before → after, per "
      "seed) |\n|---|---|---|\n")
    before, after = PAPER["fixed_q600_fall"]  # type: ignore[misc]
    for label, g, paper in (("fixed, 600 s", fixed,
                             f"{before:.0f} → {after:.0f} (−{before - after:.0f})"),
                            ("adaptive", adaptive, "smooth (no figure)")):
        if g is None:
            continue
        falls = [f"{b:.0f} → {a:.0f} (−{b - a:.0f})" if b == b else "none"
                 for b, a in zip(g["fb_fall_before"], g["fb_fall_after"], strict=True)]
        w(f"| {label} | {paper} | {'; '.join(falls)} |\n")


_DIFFERENCES = """\
- Memoryless max-min gives a queue at least min(d, S) as soon as containers are released (in
  the thesis's own Table 5.1 user A gets exactly min(d, S) every period under MLRF: β = 1), so
  by eq 5.3 MLRF loses only while a queue waits for others' containers to end. Here tasks turn
  over within seconds to minutes, so MLRF's loss stays near 0 rather than the thesis's
  persistent ≈ −0.5, which must come from longer waits in its YARN 2.2 cluster (containers
  handed out over node heartbeats, Spark executors and Hive stages holding containers) that
  the simulator does not model. LTRF's advantage on this measure cannot show; its own
  transient loss comes from paying back: a queue that lent (facebook) takes most of the
  cluster when it needs it (the thesis's Fig 5.4 shows the same at 204-260 s) and the others
  wait.
- Static Partitioning is not exactly β = 1: 1 GB tasks and 1.5 GB AMs do not fill a 54 GB
  quarter exactly, and a partition's new demand waits for its own containers to end.
- The workloads are built, not replayed: Table 5.3's bins and Table 3.2's Purdue jobs are the
  thesis's; the facebook arrivals come from the SWIM trace named above (the thesis used another
  sample of the same day); the task times of facebook jobs, the TPC-H query shapes and the
  Spark applications are assumptions. Absolute times are therefore not comparable; the
  comparison is of signs and rough sizes.
- A Spark application is its executors held for the whole application, and a Hive query one
  MapReduce job; stages, data locality, the network and disk contention are not simulated.
- The simulator does not preempt under any of the three policies (nor did the thesis's YARN
  2.2 by default); the sharing loss then comes from waiting for containers to be released.
- The quantum's reading: a running task's assumed time starts at its application's quantum at
  launch (§5.5.1.1's prose) rather than at the quantum of each later second (eq 5.15).
"""


def _figures(rep: Reproduction, out: Path) -> list[Path]:
    """Fig 5.5 (β per queue, Ω and Ψ; first seed, each load) and Fig 5.7 (facebook's
    accumulated resources under a fixed and an adaptive quantum)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seed = rep.seeds[0]
    paths = []
    for load in rep.loads:
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        for ax, policy in zip(axes[:2], ("mlrf", "ltrf"), strict=True):
            run = rep.get(policy, seed, load)
            if run is None:
                continue
            c = curves(rep, run)
            for q in QUEUES:
                ax.plot(c["t"], c[f"beta_{q}"], label=q)
            ax.axhline(1.0, color="grey", lw=0.8)
            ax.set_title(f"{policy.upper()}: fairness degree β")
            ax.set_xlabel("time (s)")
            ax.legend()
            axes[2].plot(c["t"], c["loss"], label=f"{policy.upper()} Ω")
            axes[2].plot(c["t"], c["benefit"], ls="--", label=f"{policy.upper()} Ψ")
        axes[2].set_title("sharing loss Ω and benefit Ψ")
        axes[2].set_xlabel("time (s)")
        axes[2].legend()
        fig.suptitle(f"task times ×{load:g}, seed {seed}")
        paths.append(_save(fig, out / f"fig5_5_sharing_x{load:g}.png"))
    fig, ax = plt.subplots(figsize=(8, 4))
    for policy in ("ltrf-q600", "ltrf"):
        run = rep.get(policy, seed, rep.loads[0])
        if run is None:
            continue
        n = run.notes[run.notes["queue"] == "facebook"]
        ax.plot(n["t"], n["accumulated"] / rep.total, label=policy)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("accumulated resources / cluster (s)")
    ax.set_title(f"facebook queue: fixed (600 s) and adaptive quantum (×{rep.loads[0]:g})")
    ax.legend()
    paths.append(_save(fig, out / "fig5_7_quantum.png"))
    return paths


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
