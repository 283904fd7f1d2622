"""``jobsize simulate``: run schedulers on a workload and write per-job results, a summary per
RCP group and figures."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.bundled import BUNDLED_WORKLOADS, DEFAULT_WORKLOAD
from jobsize.cli import _ltyarn_dress, _slot_reproductions
from jobsize.cli._options import add_output, hidden_alias
from jobsize.errors import ConfigError
from jobsize.progress import progress_bar


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
    p.add_argument("--schedulers", default="fifo,fair",
                   help="comma-separated: fifo, fair, drf, fair+preemption, drf+preemption, "
                   "fair+reserve, drf+reserve, capacity, srpt, fspy, fspy+ps, hfsp, hfsp+kill, "
                   "ltyarn, dress "
                   "(fluid model: fifo, ps, srpt, srpt+ps, fsp, fsp+ps, las); default fifo,fair")
    p.add_argument("--cluster-model", dest="cluster_model", choices=("yarn", "slots", "fluid"),
                   default="yarn",
                   help="YARN containers (default), MRv1 slots, or the fluid job-level model")
    hidden_alias(p, "--model", dest="cluster_model", choices=("yarn", "slots", "fluid"))
    p.add_argument("--cluster", default="8x8g×8", metavar="NODES×MEM×VCORES",
                   help="nodes, e.g. 8x8g×8 (the paper's) or 4x8192x8+2x16g×16; with "
                   "--cluster-model slots NODES×MAPS×REDUCES (default 8x8g×8)")
    p.add_argument("--segments", default="200/50", metavar="SIZE/OVERLAP",
                   help="jobs per segment and overlap (default 200/50)")
    p.add_argument("--seeds", default="0", help="comma-separated seeds of the size error "
                   "(and of the SWIM cost model's noise), default 0")
    p.add_argument("--sigma", type=float, default=0.0,
                   help="lognormal σ of size-based schedulers' size estimates (0 = exact)")
    p.add_argument("--capacity-queues", metavar="SPEC",
                   help="capacity queues name:capacity[:max[:fifo|fair]],... (jobs' queue "
                   "column picks the queue; unknown queues use 'default')")
    p.add_argument("--slowstart", type=float, default=0.05,
                   help="reduce slow-start: fraction of maps done before reduces start (0.05)")
    p.add_argument("--am-startup", type=float, default=0.0, metavar="S",
                   help="seconds from AM launch until it requests tasks (default 0)")
    p.add_argument("--max-am-share", type=float, default=0.5,
                   help="largest share of the cluster AMs may hold (default 0.5)")
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
    p.add_argument("--rcp-alpha", type=float, default=2.0, help="α of eq 11 (default 2)")
    p.add_argument("--rcp-beta", type=float, default=5.0, help="β of eq 11 (default 5)")
    p.add_argument("--parallel", type=int, default=1, metavar="N",
                   help="parallel simulations (joblib; -1 = all cores)")
    hidden_alias(p, "--jobs", dest="parallel", type=int)
    p.add_argument("--backend", help="joblib backend (loky, threading, dask, ray, ...)")
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
    try:
        seeds = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        raise ConfigError(f"--seeds {text!r}: expected integers like 0,1,2") from None
    if not seeds:
        raise ConfigError("--seeds: at least one seed")
    return seeds


def _size_sources(args: argparse.Namespace, seeds: tuple[int, ...]):
    """One size source per seed from ``--size-source``, or None (``--sigma`` decides)."""
    if not args.size_source:
        return None
    if args.sigma:
        raise ConfigError("--size-source and --sigma both set the size estimates; give one")
    from jobsize.sim.predicted import ProbeCost, parse_size_source

    probe = ProbeCost(startup_s=args.probe_startup)
    return {s: parse_size_source(args.size_source, seed=s, probe=probe, reference=args.reference)
            for s in seeds}


def run(args: argparse.Namespace) -> int:
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
    import contextlib

    import joblib

    from jobsize.sim.cluster import Cluster
    from jobsize.sim.figures import write_figures
    from jobsize.sim.fluid import POLICIES
    from jobsize.sim.load import load_workload
    from jobsize.sim.metrics import Segmentation, summarize
    from jobsize.sim.schedulers import SCHEDULERS
    from jobsize.sim.sweep import SweepConfig, n_runs, run_sweep

    seeds = _seeds(args.seeds)
    names = tuple(s.strip().lower() for s in args.schedulers.split(",") if s.strip())
    known = POLICIES if args.cluster_model == "fluid" else SCHEDULERS
    for name in names:
        if name not in known:
            raise ConfigError(f"--schedulers: unknown {name!r} for the {args.cluster_model} model; "
                              f"known: {', '.join(known)}")
    sources = _size_sources(args, seeds)
    scheduler_options = _ltyarn_dress.scheduler_options(args)
    cluster = Cluster.parse(args.cluster, slots=args.cluster_model == "slots")
    workload = load_workload(args.workload, args.format, cost_model=_cost_model(args, seeds[0]),
                             seed=seeds[0])
    workload.check_fits(cluster)
    config = SweepConfig(
        schedulers=names, seeds=seeds, sigma=args.sigma,
        model="fluid" if args.cluster_model == "fluid" else "yarn",
        segmentation=Segmentation.parse(args.segments), capacity_queues=args.capacity_queues,
        sim_options={"slowstart": args.slowstart, "am_startup_s": args.am_startup,
                     "max_am_share": args.max_am_share} if args.cluster_model != "fluid" else {},
        fair_name="ps" if args.cluster_model == "fluid" else "fair",
        rcp_alpha=args.rcp_alpha, rcp_beta=args.rcp_beta, size_sources=sources,
        scheduler_options=scheduler_options)
    backend = (joblib.parallel_config(backend=args.backend) if args.backend
               else contextlib.nullcontext())
    with backend, progress_bar("simulating", total=n_runs(workload, config)) as advance:
        per_job = run_sweep(workload, cluster, config, n_jobs=args.parallel, advance=advance)
    summary = summarize(per_job)
    out: Path = args.output
    out.mkdir(parents=True, exist_ok=True)
    _write_parquet(per_job, out / "jobs.parquet")
    _write_parquet(summary, out / "summary.parquet")
    atomic_write_text(out / "summary.md", _markdown(summary, workload.name, cluster, config))
    if not args.no_figures:
        write_figures(per_job, summary, out)
    print(_markdown(summary, workload.name, cluster, config))
    return 0


def _write_parquet(frame, path: Path) -> None:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    with atomic_write(path) as handle:
        pq.write_table(table, handle)


def _markdown(summary, name: str, cluster, config) -> str:
    from jobsize.sim.predicted import describe_source

    buf = io.StringIO()
    buf.write(f"# Simulation of {name}\n\n")
    buf.write(f"- cluster: {cluster.describe()}\n- model: {config.model}\n")
    buf.write(f"- segments: {config.segmentation.size} jobs overlapping by "
              f"{config.segmentation.overlap}\n")
    buf.write(f"- RCP = {config.rcp_alpha:g}·ln(ΣS / (ΣI·CR)) + {config.rcp_beta:g} "
              "(S in memory MB·s, CR = cluster memory)\n")
    if config.size_sources:
        sizes = describe_source(next(iter(config.size_sources.values())))
    else:
        sizes = "exact" if not config.sigma else f"lognormal σ={config.sigma:g}"
    buf.write(f"- size estimates: {sizes}, seeds {', '.join(map(str, config.seeds))}\n\n")
    cols = ["rcp_group", "scheduler", "segments", "jobs", "mean_response_s",
            "median_response_s", "mean_slowdown", "max_slowdown", "mean_fair_slowdown",
            "max_fair_slowdown", "share_fair_slowdown_le_1"]
    buf.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for row in summary[cols].itertuples(index=False):
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        buf.write("| " + " | ".join(cells) + " |\n")
    return buf.getvalue()


def _add_reproduction_arguments(parser: argparse.ArgumentParser) -> None:
    """The size sources' and the FSPY reproduction's options of ``jobsize simulate``."""
    from jobsize.sim.reproduce import BASELINES, COMPARED, FOCUS_GROUP

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
                   help="sizes of the size-based schedulers (FSPY, SRPT, fluid FSP): "
                   "errors[:TRACE] (prediction errors measured prequentially on the reference "
                   "trace, by size decile; the reproduction's default), exact, exact+probe, "
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
                   "fair-plain "
                   f"(default {','.join(COMPARED)})")
    g.add_argument("--fair-baseline", choices=tuple(BASELINES), default="reserve",
                   help="Fair with node reservations, as Hadoop's (default), or plain")
    g.add_argument("--rcp-group", type=int, default=FOCUS_GROUP,
                   help="RCP group of the per-job figures (default 6)")


def _run_reproduction(args: argparse.Namespace) -> int:
    """``jobsize simulate --reproduce fspy``."""
    import contextlib
    import time

    import joblib

    from jobsize.sim.cluster import Cluster
    from jobsize.sim.load import load_workload
    from jobsize.sim.metrics import Segmentation
    from jobsize.sim.predicted import ProbeCost, parse_size_source
    from jobsize.sim.reproduce import n_tasks, reproduce, write_report

    seed = _seeds(args.seeds)[0]
    cluster = Cluster.parse(args.cluster)
    workload = load_workload(args.workload, args.format, cost_model=_cost_model(args, seed),
                             seed=seed)
    workload.check_fits(cluster)
    probe = ProbeCost(startup_s=args.probe_startup)
    source = parse_size_source(args.size_source or "errors", seed=seed, probe=probe,
                               reference=args.reference)
    compare = tuple(s.strip().lower() for s in args.compare.split(",") if s.strip())
    names = ("fair", "fspy", *compare)
    segmentation = Segmentation.parse(args.segments)
    options = {"slowstart": args.slowstart, "am_startup_s": args.am_startup,
               "max_am_share": args.max_am_share}
    backend = (joblib.parallel_config(backend=args.backend) if args.backend
               else contextlib.nullcontext())
    t0 = time.perf_counter()
    with backend, progress_bar("reproducing", total=n_tasks(workload, names, segmentation)) \
            as advance:
        rep = reproduce(workload, cluster, size_source=source, schedulers=names,
                        segmentation=segmentation, rcp_alpha=args.rcp_alpha,
                        rcp_beta=args.rcp_beta, sim_options=options,
                        probe_share=args.probe_share, fair_baseline=args.fair_baseline,
                        n_jobs=args.parallel, advance=advance)
    rep.meta["elapsed_s"] = time.perf_counter() - t0
    write_report(rep, args.output, group=args.rcp_group, figures=not args.no_figures)
    print((args.output / "report.md").read_text())
    return 0

