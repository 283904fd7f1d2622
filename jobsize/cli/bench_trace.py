"""``jobsize bench-trace``: measure a reference trace of jobs drawn like Facebook's 2009 workload.

    jobsize bench-trace --jobs N --seed S -o DIR [--split-size BYTES] [--map-scale K]
                        [--workloads NAME,...] [--parallel W] [--input-cache BYTES] [--dry-run]
                        [--engine local|hadoop [--cluster DIR] [--java-examples [NAME,...]]]

Each job is generated, probed, run on the local engine (or the Hadoop mini cluster) and recorded
from its own .jhist into DIR/trace.parquet. Run the same command again to resume after an
interruption, or with a larger ``--jobs`` to extend the trace: the draw depends only on the seed.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter

from rich.console import Console
from rich.table import Table

from jobsize.benchtrace import BenchTrace, Distribution, JobOutcome, summarize
from jobsize.benchtrace.draw import Draw
from jobsize.benchtrace.java import JAVA_KINDS, PREFIX
from jobsize.benchtrace.runner import ENGINES, INPUT_BUDGET
from jobsize.cli._options import add_cluster, add_parallel, byte_size, count, name_list
from jobsize.progress import progress_bar
from jobsize.workloads import HELD_OUT, WORKLOADS, is_workload


def _names(text: str) -> tuple[str, ...]:
    return name_list(text, lambda n: is_workload(n) or n in JAVA_KINDS,
                     "workload", f"choose from {', '.join(sorted(WORKLOADS))}, the held-out "
                     f"{', '.join(sorted(HELD_OUT))}, a drawn kind drawn-<seed>-<index> or "
                     f"Hadoop's Java examples {', '.join(sorted(JAVA_KINDS))}")


def _java_names(text: str) -> tuple[str, ...]:
    """``all`` or Java example programs, with or without their ``java:`` prefix."""
    if text.strip() == "all":
        return tuple(sorted(JAVA_KINDS))
    full = ",".join(n if n.strip().startswith(PREFIX) else PREFIX + n.strip()
                    for n in text.split(",") if n.strip())
    return name_list(full, lambda n: n in JAVA_KINDS, "Java example",
                     f"choose from {', '.join(sorted(k[len(PREFIX):] for k in JAVA_KINDS))} "
                     "or all")


def register(subparsers: argparse._SubParsersAction) -> None:
    defaults = Distribution()
    parser = subparsers.add_parser(
        "bench-trace",
        help="measure a reference trace: draw jobs like FB-2009, probe and run them locally",
        description="Draw N jobs (workload, input size, N_r) from a distribution shaped like "
        "Facebook's 2009 MapReduce workload, scaled to this machine; generate each input, probe "
        "the job (one map and one reduce over a sample), run it on the local engine, and append "
        "its record, read back from its .jhist, to DIR/trace.parquet. Uber jobs are run in uber "
        "mode and not probed. Rerun the same command to resume. With --engine hadoop the jobs "
        "and their probes (real uber jobs) run on the Hadoop mini cluster instead.",
    )
    parser.add_argument("--jobs", "-n", type=count(1), required=True, metavar="N",
                        help="jobs in the trace (the first N draws of the seed)")
    parser.add_argument("--seed", type=count(0), required=True, metavar="S",
                        help="seed of the draw, the inputs and the probes' samples")
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="trace directory: trace.parquet, history/, bench-trace.json")
    parser.add_argument("--split-size", type=byte_size, default=defaults.split_bytes,
                        metavar="BYTES", help="block and split size of every job "
                        f"(default: {defaults.split_bytes // 1024}K)")
    parser.add_argument("--split-sizes", type=_byte_sizes, default=(), metavar="BYTES,...",
                        help="each job draws its block and split size from these (e.g. "
                        "256K,512K,768K) instead of --split-size")
    parser.add_argument("--partial-splits", action="store_true",
                        help="fill each job's last split to a random fraction, as files of "
                        "any length are (default: whole splits)")
    parser.add_argument("--map-scale", type=count(1), default=defaults.map_scale, metavar="K",
                        help="a job runs ceil(FB-2009 map count / K) maps "
                        f"(default: {defaults.map_scale})")
    parser.add_argument("--workloads", type=_names, default=defaults.workloads,
                        metavar="NAME,...", help="workloads to draw from (default: every "
                        "reference workload; held-out workloads only when named)")
    add_parallel(parser, help="engine process pool size (default: the free cores over "
                 "the two a streaming task keeps busy, at least 1)")
    parser.add_argument("--input-cache", type=byte_size, default=INPUT_BUDGET,
                        metavar="BYTES", help="generated input kept for later jobs "
                        f"(default: {INPUT_BUDGET >> 30}G)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the draw per FB-2009 bin and run nothing")
    hadoop = parser.add_argument_group("Hadoop")
    hadoop.add_argument("--engine", choices=ENGINES, default="local",
                        help="where the drawn jobs run: the local engine (default) or the "
                        "Hadoop mini cluster of `jobsize hadoop up`, their probes as real uber "
                        "jobs there too; records come from the cluster's history")
    add_cluster(hadoop)
    hadoop.add_argument("--java-examples", type=_java_names, nargs="?", const="all",
                        default=(), metavar="NAME,...",
                        help="also draw Hadoop's Java examples (all, or e.g. "
                        "wordcount,terasort), as java:NAME beside the workloads; they run, "
                        "unprobed, with --engine hadoop only")
    parser.set_defaults(func=run)


def _byte_sizes(text: str) -> tuple[int, ...]:
    sizes = tuple(byte_size(part) for part in text.split(",") if part.strip())
    if not sizes:
        raise argparse.ArgumentTypeError(f"expected sizes like 256K,512K,1M, got {text!r}")
    return sizes


def run(args: argparse.Namespace) -> int:
    from jobsize.errors import ConfigError

    if args.engine != "hadoop":
        for flag, value in (("--cluster", args.cluster), ("--java-examples",
                                                          args.java_examples or None)):
            if value is not None:
                raise ConfigError("needs --engine hadoop", where=flag)
    java = args.java_examples
    if isinstance(java, str):  # argparse passes a default or const string through untyped
        java = _java_names(java)
    dist = Distribution(split_bytes=args.split_size, map_scale=args.map_scale,
                        workloads=tuple(args.workloads) + tuple(java),
                        split_sizes=args.split_sizes, partial_splits=args.partial_splits)
    bench = BenchTrace(args.output, args.seed, dist, workers=args.parallel,
                       input_budget=args.input_cache, engine=args.engine,
                       cluster=args.cluster)
    draws = bench.plan(args.jobs)
    console = Console()
    if args.dry_run:
        console.print(plan_table(draws, dist))
        return 0
    pending = bench.pending(draws)
    if not pending:
        console.print(f"{bench.dir.trace}: all {len(draws)} jobs are recorded", highlight=False)
        return 0
    if len(pending) < len(draws):
        console.print(f"resuming: {len(draws) - len(pending)} of {len(draws)} jobs already "
                      "recorded", highlight=False)
    with progress_bar("bench-trace jobs", total=len(pending)) as advance:
        def report(outcome: JobOutcome) -> None:
            print(job_line(outcome, len(draws)), flush=True)
            advance()

        bench.run(pending, on_job=report)
    records = bench.dir.records()
    console.print(f"{bench.dir.trace}: {len(records)} jobs "
                  f"({int(records['uberized'].fillna(False).sum())} uber, "
                  f"{int((records['n_reduces'] == 0).sum())} map-only)", highlight=False)
    return 0


def job_line(o: JobOutcome, total: int) -> str:
    """One line per measured job, for logs of long runs."""
    r = o.record
    se_m, se_r = (r.get("map_time_ms") or 0) / 1000, (r.get("reduce_time_ms") or 0) / 1000
    probe = ("uber, not probed" if r.get("uberized") else
             "Java, not probed" if str(r.get("job_type")).startswith(PREFIX) else
             f"probe failed: {o.probe_error}" if o.probe_error else
             f"f_p {r['probe_fraction']:.4f}")
    return (f"[{o.draw.index + 1}/{total}] {r['job_type']} {r['job_id']} {r['state']}: "
            f"N_m {r['n_maps']} N_r {r['n_reduces']} SE_m {se_m:.2f}s SE_r {se_r:.2f}s; {probe}; "
            f"wall {o.wall_s:.1f}s (+{o.generate_s:.1f}s input); load {r['host_load_1m']:.2f}")


def plan_table(draws: list[Draw], dist: Distribution) -> Table:
    """The draw per FB-2009 bin: jobs, map-only jobs and maps against the bin's share."""
    n = max(1, len(draws))
    splits = ", ".join(str(b) for b in dist.split_sizes) or str(dist.split_bytes)
    partial = " (last split partial)" if dist.partial_splits else ""
    table = Table(title=f"{len(draws)} jobs: FB-2009 bins scaled by 1/{dist.map_scale}, "
                  f"{splits} bytes per map{partial}", title_justify="left")
    for name in ("FB-2009 maps", "share", "local maps", "jobs", "drawn", "map-only", "maps"):
        table.add_column(name, justify="left" if name == "FB-2009 maps" else "right")
    for s in summarize(draws, dist):
        table.add_row(s.bin.label, f"{100 * s.bin.share:.1f}%",
                      f"{s.local_maps[0]}-{s.local_maps[1]}", str(s.jobs),
                      f"{100 * s.jobs / n:.1f}%", str(s.map_only), str(s.maps))
    one_map = sum(d.n_maps == 1 for d in draws)
    map_only = sum(d.map_only for d in draws)
    table.caption = (f"map-only {map_only} ({100 * map_only / n:.1f}%); one-map jobs "
                     f"{one_map}; total maps {sum(d.n_maps for d in draws)}, input "
                     f"{_mib(sum(d.input_bytes for d in draws))}; workloads: "
                     + ", ".join(f"{k} {v}" for k, v in
                                 sorted(Counter(d.workload for d in draws).items())))
    table.caption_justify = "left"
    return table


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{math.ceil(n / 1024)} KiB"
