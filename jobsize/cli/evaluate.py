"""``jobsize evaluate``: size predictions for job kinds no history holds, probe → predict → run.

    jobsize evaluate -o DIR [--jobs-per-kind N] [--kinds NAME,... | --drawn N [--kind-seed K]
                     [--java-share F]]
                     [--scale X] [--seed S] [--model MODEL.json] [--trace TRACE] [--level L]
                     [-D KEY=VALUE]... [--parallel N] [--input-cache BYTES] [--dry-run]
                     [--engine local|hadoop [--cluster DIR]]

Runs the held-out workloads' jobs — the hand-written development set, or with ``--drawn N`` N
kinds drawn fresh from the space of cost shapes — through the path a user takes: probe,
predict, run. Writes DIR/heldout.parquet (+ its task table), DIR/report.md (per kind and
overall, and leave one kind out over the reference and held-out traces pooled) and
DIR/leave-one-kind-out.parquet. Rerun the same command to resume; with a larger
--jobs-per-kind it extends the evaluation. With --engine hadoop the probes and the jobs run on
the Hadoop mini cluster of ``jobsize hadoop up``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING

from jobsize.cli._options import (
    add_cluster,
    add_output,
    add_parallel,
    add_uber_sizing,
    byte_size,
    containers,
    count,
    fraction,
    level,
    name_list,
    positive_number,
    property_pair,
    share,
)

if TYPE_CHECKING:
    from rich.console import Console


def _kinds(text: str) -> tuple[str, ...]:
    from jobsize.workloads import HELD_OUT, is_workload

    return name_list(text, is_workload, "job kind",
                     f"the held-out kinds are {', '.join(sorted(HELD_OUT))}; drawn kinds are "
                     "named drawn-<seed>-<index>")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="held-out evaluation: probe, predict and run job kinds no trace holds; report",
        description="Run the held-out job kinds — cost shapes the reference workloads lack, "
        "never used for fitting; the hand-written ones are the development set, --drawn N "
        "draws N fresh kinds from the space of cost shapes — through the user's path: probe "
        "each job as `jobsize probe` "
        "does, predict it with `jobsize.predict` as `jobsize predict` does, run it as `jobsize "
        "run` does and record it from its .jhist. Writes DIR/heldout.parquet and DIR/report.md: "
        "R² of SE_m, SE_r and S, errors of S, interval coverage and probe cost per kind, and "
        "the same for leave one kind out over the reference and held-out traces pooled. Rerun "
        "the same command to resume.",
    )
    add_output(parser, metavar="DIR",
               help="evaluation directory: heldout.parquet, report.md, model.json, jobs/")
    parser.add_argument("--jobs-per-kind", type=count(1), default=8, metavar="N",
                        help="jobs of each kind (default: 8)")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--kinds", type=_kinds, default=None, metavar="NAME,...",
                        help="job kinds to run (default: every hand-written held-out kind, "
                        "the development set)")
    chosen.add_argument("--drawn", type=count(1), default=None, metavar="N",
                        help="run N kinds drawn from the space of cost shapes instead "
                        "(drawn-K-0 ... drawn-K-<N-1>; the report lists their parameters)")
    parser.add_argument("--java-share", type=share, default=0.0, metavar="F",
                        help="with --drawn and --engine hadoop: each drawn kind is a Java job "
                        "(drawn-K-i-java: the same costs in Java, run in the task's JVM) with "
                        "chance F, the others Streaming programs (default: 0)")
    parser.add_argument("--kind-seed", type=count(0), default=None, metavar="K",
                        help="seed the --drawn kinds are drawn with (default: --seed); pick "
                        "one no earlier run has shown for kinds nobody has looked at")
    parser.add_argument("--scale", type=positive_number, default=1.0, metavar="X",
                        help="input sizes are log-uniform in 0.5-150 MiB times X (default: 1)")
    parser.add_argument("--seed", type=count(0), default=1, metavar="S",
                        help="seed of the plan, the inputs and the probes' samples "
                        "(default: 1)")
    parser.add_argument("--model", metavar="MODEL.json", default=None,
                        help="predict with this model file (default: the model `jobsize fit "
                        "--level L` fits on TRACE, kept as DIR/model.json)")
    parser.add_argument("--trace", metavar="TRACE", default=None,
                        help="trace or bundled history to fit the default model on and to pool "
                        "for leave-one-kind-out (default: the bundled history, the reference "
                        "trace and the local draws; on Hadoop: hadoop-history)")
    parser.add_argument("--level", type=level, default=0.90, metavar="L",
                        help="interval level of the default model (default: 0.90, the level "
                        "the report scores)")
    parser.add_argument("-D", dest="properties", type=property_pair, action="append",
                        default=[], metavar="KEY=VALUE",
                        help="a job property given to probe, predict and run alike "
                        "(repeatable; default: none, the configuration's defaults)")
    parser.add_argument("--max-fraction", type=fraction, default=None, metavar="F",
                        help="cap each probe's sample at this fraction of the job's input, as "
                        "`jobsize probe --max-fraction` does (default: Algorithm 1's "
                        "1/max(N_m, N_r), uncapped)")
    add_uber_sizing(parser)
    add_parallel(parser, help="engine process pool size (default: the engine's default)")
    parser.add_argument("--input-cache", type=byte_size, default=None, metavar="BYTES",
                        help="generated input kept for later jobs (default: 2G)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (kinds, sizes, maps, reduces) and run nothing")
    parser.add_argument("--engine", choices=("local", "hadoop"), default="local",
                        help="where the probes and the jobs run: the local engine (default) or "
                        "the Hadoop mini cluster of `jobsize hadoop up` (each probe a real uber "
                        "job on its probing queue, each job a Hadoop Streaming job, records "
                        "from the cluster's history); fit the model on a trace of the same "
                        "engine (--trace)")
    add_cluster(parser, when="with --engine hadoop: ")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rich.console import Console

    from jobsize.bundled import HADOOP_HISTORY, default_trace
    from jobsize.errors import ConfigError
    from jobsize.heldout import HeldOutTrace, evaluation_model, write_report
    from jobsize.progress import progress_bar

    conf = dict(args.properties)
    if args.cluster is not None and args.engine != "hadoop":
        raise ConfigError("needs --engine hadoop", where="--cluster")
    design = _design(args, conf)
    console = Console()
    if args.dry_run:
        _print_plan(console, design, args.seed)
        return 0
    reference = Path(args.trace or (HADOOP_HISTORY if args.engine == "hadoop"
                                    else default_trace()))
    options = {} if args.input_cache is None else {"input_budget": args.input_cache}
    model = evaluation_model(args.output, args.model, trace=reference, level=args.level)
    _warn_seen(console, design.kinds, model.model_.training.get("trace"))
    trace = HeldOutTrace(args.output, args.seed, design, model, workers=args.parallel,
                         containers=containers(conf), engine=args.engine,
                         cluster=args.cluster, **options)
    draws = trace.plan()
    pending = trace.pending(draws)
    if len(pending) < len(draws):
        console.print(f"resuming: {len(draws) - len(pending)} of {len(draws)} jobs already "
                      "recorded", highlight=False)
    if pending:
        with progress_bar("evaluate jobs", total=len(pending)) as advance:
            def report(outcome):  # one line per job, for logs of long runs
                print(job_line(outcome, len(draws)), flush=True)
                advance()

            trace.run(pending, on_job=report)
    path = write_report(trace, reference)
    console.print(f"{trace.dir.trace}: {len(trace.dir.records())} jobs; report in {path}",
                  highlight=False, soft_wrap=True)
    return 0


def _warn_seen(console: Console, kinds: tuple[str, ...], trace: str | None) -> None:
    """Say so where kinds to evaluate are in the trace the model was fitted on (its
    ``training["trace"]``; nothing to say where the model does not name one, or it is not
    here): their scores are then not a new kind's (a draw whose seed a history holds)."""
    from jobsize.errors import JobsizeError
    from jobsize.schema import read_trace

    if not trace:
        return
    try:
        fitted = read_trace(trace)
    except JobsizeError:
        return
    seen = sorted(set(kinds) & set(fitted["job_type"].dropna()))
    if seen:
        console.print(f"warning: {len(seen)} of these kinds are in {trace} ({', '.join(seen[:3])}"
                      f"{', …' if len(seen) > 3 else ''}): the model has seen them, so their "
                      "scores are not a new kind's", style="yellow", highlight=False)


def _design(args: argparse.Namespace, conf: dict[str, str]):
    """The plan the options ask for: the hand-written kinds, named kinds or drawn ones."""
    from jobsize.errors import ConfigError
    from jobsize.heldout import Design

    options = dict(jobs_per_kind=args.jobs_per_kind, scale=args.scale, conf=conf,
                   max_fraction=args.max_fraction, probe_uber=args.probe_uber)
    if args.java_share and (args.drawn is None or args.engine != "hadoop"):
        raise ConfigError("Java kinds are drawn (--drawn N) and run on a Hadoop cluster "
                          "(--engine hadoop): the local engine runs programs",
                          where="--java-share")
    if args.drawn is not None:
        seed = args.seed if args.kind_seed is None else args.kind_seed
        return Design.drawn(args.drawn, seed, java_share=args.java_share, **options)
    if args.kind_seed is not None:
        raise ConfigError("--kind-seed seeds the kinds of --drawn N; give --drawn too")
    return Design(**({"kinds": args.kinds} if args.kinds else {}), **options)


def _print_plan(console, design, seed: int) -> None:
    """Per kind: its jobs, input sizes, maps and reduces (and a drawn kind's shape)."""
    from jobsize.workloads import workload

    draws = [design.draw(seed, i) for i in range(design.jobs)]
    by_kind = Counter(d.workload for d in draws)
    for kind in design.kinds:
        mine = [d for d in draws if d.workload == kind]
        shape = f" — {workload(kind).profile}" if design.kind_seed is not None else ""
        console.print(f"{kind}: {by_kind[kind]} jobs, "
                      f"{min(d.input_bytes for d in mine) / 2**20:.2f}-"
                      f"{max(d.input_bytes for d in mine) / 2**20:.1f} MiB, "
                      f"{min(d.n_maps for d in mine)}-{max(d.n_maps for d in mine)} maps, "
                      f"{min(d.n_reduces for d in mine)}-{max(d.n_reduces for d in mine)} "
                      f"reduces{shape}", highlight=False, soft_wrap=True)


def job_line(outcome, total: int) -> str:
    """One line per evaluated job: actual and predicted sizes, probe time, load."""
    r = outcome.record
    se_m, se_r = (r.get("map_time_ms") or 0) / 1000, (r.get("reduce_time_ms") or 0) / 1000
    predicted = (f"predicted SE_m {r['SE_m_pred_s']:.2f}s SE_r {r['SE_r_pred_s']:.2f}s"
                 if r.get("predict_error") is None else f"not predicted: {r['predict_error']}")
    probe = ("probe planned uber" if r.get("probe_planned_uber") else
             f"probe failed: {r['probe_error']}" if r.get("probe_error") else
             f"probe {r['probe_s']:.1f}s")
    return (f"[{outcome.draw.index + 1}/{total}] {r['job_type']} {r['job_id']} {r['state']}: "
            f"N_m {r['n_maps']} N_r {r['n_reduces']} SE_m {se_m:.2f}s SE_r {se_r:.2f}s; "
            f"{predicted}; {probe}; wall {outcome.wall_s:.1f}s (+{outcome.generate_s:.1f}s "
            f"input); load {r['host_load_1m']:.2f}")
