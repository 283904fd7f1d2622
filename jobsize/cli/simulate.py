"""``jobsize simulate``: run schedulers on a workload and write per-job results, a summary per
RCP group and figures; the FSPY paper's experiment (``--reproduce fspy``); the load-normalised
fluid experiment of the size-based scheduling literature (``--load``)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.bundled import BUNDLED_WORKLOADS, DEFAULT_WORKLOAD
from jobsize.cli import _ltyarn_dress, _slot_reproductions
from jobsize.cli._options import (
    SLOT_CLUSTER,
    YARN_CLUSTER,
    add_output,
    cluster_spec,
    count_or_all,
    hidden_alias,
    locality_spec,
    stragglers_spec,
)
from jobsize.errors import ConfigError
from jobsize.progress import progress_bar

#: The schedulers of the YARN model, as `jobsize.sim.schedulers` registers them (listed here so
#: that `--help` need not import the simulator; a test holds the two lists together).
SCHEDULER_NAMES = ("fifo", "fair", "drf", "fair+preemption", "drf+preemption", "fair+reserve",
                   "drf+reserve", "capacity", "srpt", "fspy", "fspy+ps", "hfsp", "hfsp+kill",
                   "ltyarn", "dress", "rasooli")
#: Schedulers of MRv1 slots: Hadoop 1's, DynamicMR and its parts, MROrder's orders.
SLOT_SCHEDULER_NAMES = ("mrv1-fifo", "mrv1-fair", "dynamicmr", "dynamicmr+fifo", "pd-dhsa",
                        "pd-dhsa+fifo", "pi-dhsa", "pi-dhsa+fifo", "mrorder", "mrorder+tct",
                        "mrorder+fti", "mrorder+pnj", "mk_jr", "mk_tct_jr", "tct")
def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate", help="run schedulers on a workload in the simulator",
        description="Simulate schedulers (FIFO, Fair, Capacity, SRPT, ...) on a workload cut "
        "into overlapping segments; write per-job results, a summary per RCP group and figures.")
    p.add_argument("--workload", default=DEFAULT_WORKLOAD, metavar="W",
                   help="SWIM .tsv, Rumen .json, SLS .json, jobsize trace .parquet (with its "
                   ".tasks.parquet), synthetic[:N] (FB-2009 size bins), or a bundled workload "
                   f"by name: {', '.join(BUNDLED_WORKLOADS)} (default {DEFAULT_WORKLOAD}, "
                   "SWIM's day of Facebook's 2009 jobs)")
    p.add_argument("--format", choices=("swim", "rumen", "sls", "sls-synth", "trace", "synthetic"),
                   help="workload format (default: from the file name)")
    p.add_argument("--schedulers", default=None,
                   help=f"comma-separated: {', '.join(SCHEDULER_NAMES)} (MRv1 slot "
                   f"schedulers, for --cluster-model slots: {', '.join(SLOT_SCHEDULER_NAMES)}; "
                   "fluid model: fifo, ps, srpt, srpt+ps, fsp, fsp+ps, las); "
                   "default fifo,fair (with --load: fifo,ps,srpt,fsp,fsp+ps,las)")
    p.add_argument("--cluster-model", dest="cluster_model", choices=("yarn", "slots", "fluid"),
                   default="yarn",
                   help="YARN containers (default), MRv1 slots, or the fluid job-level model")
    hidden_alias(p, "--model", dest="cluster_model", choices=("yarn", "slots", "fluid"))
    p.add_argument("--cluster", default=None, metavar="NODES×MEM×VCORES",
                   help=f"nodes, e.g. {YARN_CLUSTER} (the paper's, the default) or "
                   f"4x8192x8+2x16g×16; with --cluster-model slots NODES×MAPS×REDUCES (default "
                   f"{SLOT_CLUSTER}: Hadoop 1's two map and two reduce slots per TaskTracker)")
    p.add_argument("--segments", default="200/50", metavar="SIZE/OVERLAP",
                   help="jobs per segment and overlap (default 200/50)")
    p.add_argument("--slice", metavar="START:STOP",
                   help="only the workload's jobs START to STOP-1 in submission order, the "
                   "first submitted at time 0 (e.g. 1000:1600); default all. Not with --load "
                   "or --reproduce other than fspy")
    p.add_argument("--seeds", default="0", help="comma-separated seeds of the size error "
                   "(and of the SWIM cost model's noise), or a range A-B; default 0")
    p.add_argument("--sigma", default="0", metavar="σ[,σ...]",
                   help="lognormal σ of size-based schedulers' size estimates (0 = exact); "
                   "several, comma-separated, run one after the other")
    p.add_argument("--fair-baseline", choices=("reserve", "plain"), default="reserve",
                   help="the Fair every result is held against (fair slowdown, ratios): with "
                   "node reservations as Hadoop's FairScheduler (default), or plain")
    p.add_argument("--capacity-queues", metavar="SPEC",
                   help="capacity queues name:capacity[:max[:fifo|fair]],... (jobs' queue "
                   "column picks the queue; unknown queues use 'default')")
    p.add_argument("--slowstart", type=float, default=0.05,
                   help="reduce slow-start: fraction of maps done before reduces start (0.05)")
    p.add_argument("--am-startup", type=float, default=0.0, metavar="S",
                   help="seconds from AM launch until it requests tasks (default 0)")
    p.add_argument("--am-startup-per-am", type=float, default=0.0, metavar="S",
                   help="seconds each AM still starting adds to a new AM's start-up (AM JVMs "
                   "starting together share the machine; default 0)")
    p.add_argument("--max-am-share", type=float, default=0.5,
                   help="largest share of the cluster AMs may hold (default 0.5)")
    p.add_argument("--locality", metavar="REPLICAS[/REMOTE_S]", type=locality_spec,
                   help="place each map's block on REPLICAS random nodes; a map run elsewhere "
                   "reads it for REMOTE_S seconds more (default 5), e.g. 3/5 (default: no "
                   "locality; what delay scheduling and DynamicMR's pre-scheduling act on)")
    p.add_argument("--stragglers", metavar="P[/LO-HI]", type=stragglers_spec,
                   help="each task attempt runs LO-HI times slower with probability P (default "
                   "3-6), e.g. 0.05/3-6 (default: none; what speculation and SEPB act on)")
    cost = p.add_argument_group("SWIM cost model")
    cost.add_argument("--block-mb", type=float, default=64, help="HDFS block (MB), default 64")
    cost.add_argument("--reduce-mb-per-task", type=float, default=1024,
                      help="shuffle bytes per reduce (MB), default 1024")
    cost.add_argument("--map-mbps", type=float, default=8, help="map read rate MB/s (8)")
    cost.add_argument("--shuffle-mbps", type=float, default=32, help="shuffle MB/s (32)")
    cost.add_argument("--reduce-mbps", type=float, default=16, help="reduce MB/s (16)")
    cost.add_argument("--task-overhead", type=float, default=3.0,
                      help="fixed seconds per task (3)")
    cost.add_argument("--noise", type=float, default=0.3,
                      help="lognormal σ of per-task duration noise (0.3)")
    rcp = p.add_argument_group("RCP groups (eq 11)")
    rcp.add_argument("--rcp-groups", default=None, metavar="HOW",
                     help="paper (α, β fitted to the FSPY paper's Fig 5; the default), "
                     "quantiles[:K] (K groups of equal size by load, 7 by default), or fixed "
                     "(--rcp-alpha, --rcp-beta; implied when either is given)")
    rcp.add_argument("--rcp-alpha", type=float, default=None, help="α of eq 11 (fixed: 2)")
    rcp.add_argument("--rcp-beta", type=float, default=None, help="β of eq 11 (fixed: 5)")
    run_on = p.add_argument_group("where the simulations run")
    run_on.add_argument("--parallel", type=count_or_all, default=1, metavar="N",
                        help="parallel simulations (joblib; -1 = all cores; with a Dask or "
                        "Ray cluster, every worker unless N is given)")
    hidden_alias(p, "--jobs", dest="parallel", type=count_or_all)
    run_on.add_argument("--backend", help="loky (default), threading, dask or ray "
                        "(pip install 'jobsize[dask]' / 'jobsize[ray]')")
    run_on.add_argument("--scheduler-address", metavar="ADDRESS",
                        help="the Dask scheduler (tcp://host:8786) or Ray cluster "
                        "(ray://host:10001) to run on; without it a local one is started")
    fluid = p.add_argument_group("the load-normalised fluid experiment (schedsim's)")
    fluid.add_argument("--load", type=float, metavar="L",
                       help="replay the whole SWIM trace on the fluid model with job sizes "
                       "from its bytes, m + (1 + d/n)·s + r, scaled to offer load L (e.g. "
                       "0.9); needs --cluster-model fluid")
    fluid.add_argument("--d-over-n", type=float, default=4.0, metavar="D",
                       help="disk over network bandwidth of the sizes above (default 4)")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    add_output(p, metavar="DIR", help="output directory", type=Path, old=("--out",))
    _add_reproduction_arguments(p)
    _ltyarn_dress.add_arguments(p)
    _slot_reproductions.add_arguments(p)
    p.set_defaults(func=run)


def _cost_model(args: argparse.Namespace, seed: int):
    from jobsize.sim.costmodel import CostModel, MiB

    return CostModel(block_bytes=int(args.block_mb * MiB),
                     bytes_per_reduce=int(args.reduce_mb_per_task * MiB),
                     map_read_bps=args.map_mbps * MiB, shuffle_bps=args.shuffle_mbps * MiB,
                     reduce_bps=args.reduce_mbps * MiB, map_overhead_s=args.task_overhead,
                     reduce_overhead_s=args.task_overhead, noise_sigma=args.noise, seed=seed)


def _seeds(text: str) -> tuple[int, ...]:
    seeds: list[int] = []
    try:
        for part in (s.strip() for s in text.split(",")):
            if not part:
                continue
            first, dash, last = part.partition("-")
            if dash and first:
                seeds.extend(range(int(first), int(last) + 1))
            else:
                seeds.append(int(part))
    except ValueError:
        raise ConfigError(f"--seeds {text!r}: expected integers like 0,1,2 or 0-9") from None
    if not seeds:
        raise ConfigError("--seeds: at least one seed")
    return tuple(dict.fromkeys(seeds))


def _sigmas(text: str) -> tuple[float, ...]:
    try:
        sigmas = tuple(float(s) for s in str(text).split(",") if s.strip())
    except ValueError:
        raise ConfigError(f"--sigma {text!r}: expected numbers like 0.5 or 0,0.5,1") from None
    if not sigmas or any(not (s >= 0 and s < float("inf")) for s in sigmas):
        raise ConfigError(f"--sigma {text!r}: expected non-negative numbers")
    return tuple(dict.fromkeys(sigmas))


def _rcp_method(args: argparse.Namespace) -> tuple[str, float, float]:
    from jobsize.sim.rcp_groups import FIXED_ALPHA, FIXED_BETA

    fixed = args.rcp_alpha is not None or args.rcp_beta is not None
    method = args.rcp_groups or ("fixed" if fixed else "paper")
    if fixed and method != "fixed":
        raise ConfigError(f"--rcp-alpha/--rcp-beta set a fixed RCP; --rcp-groups {method} "
                          "does not use them")
    return (method, FIXED_ALPHA if args.rcp_alpha is None else args.rcp_alpha,
            FIXED_BETA if args.rcp_beta is None else args.rcp_beta)


def _size_sources(args: argparse.Namespace, seeds: tuple[int, ...]):
    """One size source per seed from ``--size-source``, or None (``--sigma`` decides)."""
    if not args.size_source:
        return None
    if any(_sigmas(args.sigma)):
        raise ConfigError("--size-source and --sigma both set the size estimates; give one")
    from jobsize.sim.predicted import ProbeCost, parse_size_source

    probe = ProbeCost(startup_s=args.probe_startup)
    return {s: parse_size_source(args.size_source, seed=s, probe=probe, reference=args.reference)
            for s in seeds}


def _slice(args: argparse.Namespace, workload):
    """``--slice START:STOP``: that slice of the workload, as a workload of its own."""
    if not getattr(args, "slice", None):
        return workload
    start, sep, stop = args.slice.partition(":")
    try:
        first, last = int(start or 0), int(stop) if stop else workload.n_jobs
    except ValueError:
        first = last = -1
    if not sep or first < 0 or last <= first:
        raise ConfigError("--slice: expected START:STOP with 0 <= START < STOP, "
                          f"got {args.slice!r}")
    if first >= workload.n_jobs:
        raise ConfigError(f"--slice {args.slice}: the workload has {workload.n_jobs} jobs")
    return workload.segment(first, last)


def _names(args: argparse.Namespace, default: str) -> tuple[str, ...]:
    return tuple(s.strip().lower() for s in (args.schedulers or default).split(",")
                 if s.strip())


def run(args: argparse.Namespace) -> int:
    if getattr(args, "slice", None) and (args.load is not None or getattr(
            args, "reproduce", None) not in (None, "fspy")):
        raise ConfigError("--slice cuts the workload of a sweep or of --reproduce fspy; "
                          "not with --load or --reproduce " + str(args.reproduce or ""))
    if getattr(args, "reproduce", None) in _slot_reproductions.REPRODUCTIONS:
        seeds = _seeds(args.seeds)
        return _slot_reproductions.run_reproduction(args, cost_model=_cost_model(args, seeds[0]),
                                                    seed=seeds[0])
    if getattr(args, "reproduce", None) in _ltyarn_dress.REPRODUCTIONS:
        seeds = _seeds(args.seeds)
        return _ltyarn_dress.run_reproduction(args, seeds=seeds,
                                              cost_model=_cost_model(args, seeds[0]))
    if getattr(args, "reproduce", None):
        return _run_reproduction(args)
    if args.load is not None:
        return _run_fluid_experiment(args)
    from jobsize.sim.backends import parallel_backend
    from jobsize.sim.cluster import Cluster
    from jobsize.sim.fluid import POLICIES
    from jobsize.sim.load import load_workload
    from jobsize.sim.metrics import Segmentation
    from jobsize.sim.schedulers import SCHEDULERS
    from jobsize.sim.sweep import SweepConfig, n_runs

    seeds = _seeds(args.seeds)
    sigmas = _sigmas(args.sigma)
    names = _names(args, "fifo,fair")
    known = POLICIES if args.cluster_model == "fluid" else SCHEDULERS
    for name in names:
        if name not in known:
            raise ConfigError(f"--schedulers: unknown {name!r} for the {args.cluster_model} model; "
                              f"known: {', '.join(known)}")
    sources = _size_sources(args, seeds)
    method, alpha, beta = _rcp_method(args)
    scheduler_options = _ltyarn_dress.scheduler_options(args)
    cluster = Cluster.parse(cluster_spec(args), slots=args.cluster_model == "slots")
    workload = _slice(args, load_workload(args.workload, args.format,
                                          cost_model=_cost_model(args, seeds[0]), seed=seeds[0]))
    workload.check_fits(cluster)
    configs = [SweepConfig(
        schedulers=names, seeds=seeds, sigma=sigma,
        model=args.cluster_model,
        segmentation=Segmentation.parse(args.segments), capacity_queues=args.capacity_queues,
        sim_options=_sim_options(args, seeds[0]) if args.cluster_model != "fluid" else {},
        fair_baseline=args.fair_baseline, rcp_groups=method, rcp_alpha=alpha, rcp_beta=beta,
        size_sources=sources, scheduler_options=scheduler_options) for sigma in sigmas]
    total = sum(n_runs(workload, c) for c in configs)
    with parallel_backend(args.backend, args.parallel, args.scheduler_address) as n_jobs, \
            progress_bar("simulating", total=total) as advance:
        frames = _sweeps(workload, cluster, configs, n_jobs, advance)
    return _write_sweep(args, workload, cluster, configs, frames)


def _sim_options(args: argparse.Namespace, seed: int) -> dict[str, object]:
    """The YARN/slot model's options: slow-start, AMs, and block locality and stragglers."""
    from jobsize.sim.locality import BlockLocality
    from jobsize.sim.stragglers import Stragglers

    options: dict[str, object] = {"slowstart": args.slowstart, "am_startup_s": args.am_startup,
                                  "am_startup_per_am_s": args.am_startup_per_am,
                                  "max_am_share": args.max_am_share}
    if args.locality:
        replicas, remote_s = args.locality
        options["locality"] = BlockLocality(replicas, remote_s, seed=seed)
    if args.stragglers:
        probability, lo, hi = args.stragglers
        options["stragglers"] = Stragglers(probability, (lo, hi), seed=seed)
    return options


def _sweeps(workload, cluster, configs, n_jobs: int, advance) -> list:
    from jobsize.sim.sweep import run_sweep

    frames = []
    for config in configs:
        per_job = run_sweep(workload, cluster, config, n_jobs=n_jobs, advance=advance)
        per_job.insert(0, "sigma", config.sigma)
        frames.append(per_job)
    return frames


def _write_sweep(args, workload, cluster, configs, frames) -> int:
    import pandas as pd

    from jobsize.sim.figures import Caption, write_figures
    from jobsize.sim.metrics import summarize

    per_job = pd.concat(frames, ignore_index=True)
    summaries = []
    for sigma, frame in zip((c.sigma for c in configs), frames, strict=True):
        s = summarize(frame)
        s.insert(0, "sigma", sigma)
        summaries.append(s)
    summary = pd.concat(summaries, ignore_index=True)
    config = configs[0]
    grouping = config.grouping(workload, cluster)
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    _write_parquet(per_job, out / "jobs.parquet")
    _write_parquet(summary, out / "summary.parquet")
    text = _markdown(summary, per_job, workload.name, cluster, configs, grouping)
    atomic_write_text(out / "summary.md", text)
    if not args.no_figures:
        base = config.baseline()
        for sigma, frame, s in zip((c.sigma for c in configs), frames, summaries, strict=True):
            where = out if len(configs) == 1 else out / f"sigma-{sigma:g}"
            where.mkdir(parents=True, exist_ok=True)
            caption = Caption(Path(workload.name).name, cluster.describe(),
                              _sizes_text(config, sigma), base.description, grouping.describe())
            write_figures(frame, s.drop(columns="sigma"), where, caption=caption,
                          baseline=base.scheduler, flagged=grouping.flagged())
    print(text)
    return 0


def _write_parquet(frame, path: Path) -> None:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    with atomic_write(path) as handle:
        pq.write_table(table, handle)


def _sizes_text(config, sigma: float) -> str:
    from jobsize.sim.predicted import describe_source

    if config.size_sources:
        return describe_source(next(iter(config.size_sources.values())))
    return "exact" if not sigma else f"lognormal σ={sigma:g}"


def _table(frame, cols: list[str], flagged: set[int] | None = None) -> str:
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame[cols].itertuples(index=False):
        cells = [("–" if v != v else f"{v:.4g}") if isinstance(v, float) else str(v)
                 for v in row]
        if flagged is not None and "rcp_group" in cols and row[cols.index("rcp_group")] in flagged:
            cells[cols.index("rcp_group")] += " †"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _markdown(summary, per_job, name: str, cluster, configs, grouping) -> str:
    config = configs[0]
    base = config.baseline()
    buf = io.StringIO()
    buf.write(f"# Simulation of {name}\n\n")
    model = "slots (the YARN model on MRv1 map and reduce slots)" if cluster.slots else config.model
    buf.write(f"- cluster: {cluster.describe()}\n- model: {model}\n")
    for key in ("locality", "stragglers"):
        if key in config.sim_options:
            buf.write(f"- {key}: {config.sim_options[key].describe()}\n")
    buf.write(f"- segments: {config.segmentation.size} jobs overlapping by "
              f"{config.segmentation.overlap}\n")
    units = ("S in slot·s, CR the cluster's slots" if cluster.slots
             else "S in memory MB·s, CR the cluster's memory")
    buf.write(f"- {grouping.describe()}; {units}\n")
    buf.write(f"- Fair baseline (fair slowdown): {base.label()}\n")
    sizes = ", ".join(_sizes_text(c, c.sigma) for c in configs)
    buf.write(f"- size estimates: {sizes}; seeds {', '.join(map(str, config.seeds))}\n\n")
    cols = ["rcp_group", "scheduler", "segments", "jobs", "mean_response_s",
            "median_response_s", "mean_slowdown", "max_slowdown", "mean_fair_slowdown",
            "max_fair_slowdown", "share_fair_slowdown_le_1"]
    flagged = set(grouping.flagged())
    for c in configs:
        part = summary[summary["sigma"] == c.sigma]
        if len(configs) > 1:
            buf.write(f"## σ = {c.sigma:g}\n\n")
        buf.write(_table(part, cols, flagged) + "\n")
    if len(config.seeds) > 1:
        runs = (per_job.groupby(["sigma", "scheduler", "seed"])["response_s"].mean()
                .rename("mean_response_s").reset_index())
        spread = (runs.groupby(["sigma", "scheduler"])["mean_response_s"]
                  .agg(runs="size", mean="mean", std="std", min="min", max="max")
                  .reset_index())
        buf.write("## Mean response per seed: spread over the seeds\n\n")
        buf.write(_table(spread, ["sigma", "scheduler", "runs", "mean", "std", "min", "max"]))
    if flagged:
        buf.write("\n† fewer than 3 segments in the group: read its numbers as anecdotes.\n")
    return buf.getvalue()


def _run_fluid_experiment(args: argparse.Namespace) -> int:
    """``jobsize simulate --cluster-model fluid --load L``."""
    import pandas as pd

    from jobsize.sim import fluid_experiment as fx
    from jobsize.sim.backends import parallel_backend
    from jobsize.sim.fluid import POLICIES
    from jobsize.sim.load import load_workload

    if args.cluster_model != "fluid":
        raise ConfigError("--load replays the trace on the fluid model; add --cluster-model "
                          "fluid")
    seeds, sigmas = _seeds(args.seeds), _sigmas(args.sigma)
    names = _names(args, "fifo,ps,srpt,fsp,fsp+ps,las")
    for name in names:
        if name not in POLICIES:
            raise ConfigError(f"--schedulers: unknown {name!r} for the fluid model; known: "
                              f"{', '.join(POLICIES)}")
    workload = load_workload(args.workload, args.format, cost_model=_cost_model(args, seeds[0]),
                             seed=seeds[0])
    total = len(fx.runs(names, sigmas, seeds))
    with parallel_backend(args.backend, args.parallel, args.scheduler_address) as n_jobs, \
            progress_bar("simulating", total=total) as advance:
        per_job = fx.run_experiment(workload, names, sigmas, seeds, d_over_n=args.d_over_n,
                                    load=args.load, n_jobs=n_jobs, advance=advance)
    runs, summary = fx.per_seed(per_job), fx.summarize(per_job)
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    _write_parquet(per_job, out / "jobs.parquet")
    _write_parquet(runs, out / "runs.parquet")
    _write_parquet(summary, out / "summary.parquet")
    buf = io.StringIO()
    buf.write(f"# Fluid experiment on {Path(workload.name).name}\n\n")
    buf.write(f"- {workload.n_jobs} jobs replayed as one on a server of rate 1; sizes "
              f"m + (1 + d/n)·s + r from the trace's bytes with d/n = {args.d_over_n:g}, "
              f"scaled to load {args.load:g} over the last submission time\n")
    buf.write("- size-based policies see each size × exp(σ·Z), one Z per job and seed; FIFO, "
              "PS, LAS and σ = 0 run once\n")
    buf.write(f"- σ: {', '.join(f'{s:g}' for s in sigmas)}; seeds "
              f"{', '.join(map(str, seeds))}\n\n")
    buf.write("## Mean sojourn time: over the runs (seeds)\n\n")
    buf.write(_table(summary, ["sigma", "scheduler", "runs", "mean", "std", "min", "max"]))
    buf.write("\n## Mean sojourn time of every run\n\n")
    wide = runs.pivot_table(index=["sigma", "scheduler"], columns="seed",
                            values="mean_response_s").reset_index()
    wide.columns = [c if isinstance(c, str) else f"seed {c}" for c in wide.columns]
    buf.write(_table(pd.DataFrame(wide), list(wide.columns)))
    text = buf.getvalue()
    atomic_write_text(out / "summary.md", text)
    if not args.no_figures:
        from jobsize.sim.figures import sojourn_by_sigma

        sojourn_by_sigma(summary, out / "mean_sojourn_by_sigma.png",
                         workload=Path(workload.name).name, load=args.load,
                         d_over_n=args.d_over_n)
    print(text)
    return 0


def _add_reproduction_arguments(parser: argparse.ArgumentParser) -> None:
    """The size sources' and the FSPY reproduction's options of ``jobsize simulate``."""
    from jobsize.sim.reproduce import COMPARED, FOCUS_GROUP

    g = parser.add_argument_group("size sources and the FSPY reproduction (--reproduce fspy)")
    g.add_argument("--reproduce", choices=("fspy", *_ltyarn_dress.REPRODUCTIONS,
                                           *_slot_reproductions.REPRODUCTIONS),
                   help="run the FSPY paper's §IV-C experiment: Fair, FSPY and --compare on "
                   "every segment; Figs 5-10 as PNGs and report.md (ltyarn: Tang's §5.6 "
                   "macro-benchmark with --workload's first 100 arrivals; dress: the DRESS "
                   "paper's settings, and --workload's segments on --cluster; mrorder, "
                   "dynamicmr, rasooli: Tang's chapters 3 and 4 and Rasooli-Down on MRv1 slots, "
                   "their own workloads plus --workload as a SWIM trace)")
    g.add_argument("--size-source", metavar="SPEC",
                   help="sizes of the size-based schedulers (FSPY, SRPT, fluid FSP; with "
                   "--reproduce mrorder|rasooli the predicted sizes run beside exact ones): "
                   "errors[:TRACE] (prediction errors measured prequentially on the reference "
                   "trace, by size decile; the reproductions' default), exact, exact+probe, "
                   "lognormal:σ, model:MODEL.json (default without --reproduce: --sigma)")
    g.add_argument("--reference", metavar="TRACE",
                   help="reference trace of the error distribution (default: the bundled one)")
    g.add_argument("--probe-startup", type=float, default=5.0, metavar="S",
                   help="fixed seconds of a modelled probe, before its share of the job's "
                   "work (default 5)")
    g.add_argument("--probe-share", type=float, default=0.1,
                   help="FSPY's probing-queue share of the cluster (default 0.1)")
    g.add_argument("--compare", default=",".join(COMPARED),
                   help="schedulers beside Fair and FSPY: fspy+ps, hfsp, hfsp+kill, srpt, "
                   "fair-plain, fair+reserve "
                   f"(default {','.join(COMPARED)})")
    g.add_argument("--rcp-group", type=int, default=FOCUS_GROUP,
                   help="RCP group of the per-job figures (default 6)")


def _run_reproduction(args: argparse.Namespace) -> int:
    """``jobsize simulate --reproduce fspy``."""
    import time

    from jobsize.sim.backends import parallel_backend
    from jobsize.sim.cluster import Cluster
    from jobsize.sim.load import load_workload
    from jobsize.sim.metrics import Segmentation
    from jobsize.sim.predicted import ProbeCost, parse_size_source
    from jobsize.sim.reproduce import n_tasks, reproduce, write_report

    seed = _seeds(args.seeds)[0]
    cluster = Cluster.parse(cluster_spec(args))
    workload = _slice(args, load_workload(args.workload, args.format,
                                          cost_model=_cost_model(args, seed), seed=seed))
    workload.check_fits(cluster)
    probe = ProbeCost(startup_s=args.probe_startup)
    source = parse_size_source(args.size_source or "errors", seed=seed, probe=probe,
                               reference=args.reference)
    compare = tuple(s.strip().lower() for s in args.compare.split(",") if s.strip())
    names = ("fair", "fspy", *compare)
    segmentation = Segmentation.parse(args.segments)
    method, alpha, beta = _rcp_method(args)
    options = {"slowstart": args.slowstart, "am_startup_s": args.am_startup,
               "am_startup_per_am_s": args.am_startup_per_am, "max_am_share": args.max_am_share}
    t0 = time.perf_counter()
    with parallel_backend(args.backend, args.parallel, args.scheduler_address) as n_jobs, \
            progress_bar("reproducing", total=n_tasks(workload, names, segmentation)) \
            as advance:
        rep = reproduce(workload, cluster, size_source=source, schedulers=names,
                        segmentation=segmentation, rcp_groups=method, rcp_alpha=alpha,
                        rcp_beta=beta, sim_options=options, probe_share=args.probe_share,
                        baseline=args.fair_baseline, n_jobs=n_jobs, advance=advance)
    rep.meta["elapsed_s"] = time.perf_counter() - t0
    write_report(rep, args.output, group=args.rcp_group, figures=not args.no_figures)
    print((args.output / "report.md").read_text())
    return 0

