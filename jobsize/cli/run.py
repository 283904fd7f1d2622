"""``jobsize run``: run a streaming job on the local MapReduce engine and keep its history.

    jobsize run --input INPUT... --mapper CMD [--reducer CMD] [--combiner CMD] [--maps N]
                [--reduces R] --history DIR -o OUTDIR [--split-size BYTES] [-D KEY=VALUE]...

Writes the job's output to OUTDIR (``part-NNNNN`` files and ``_SUCCESS``, as Hadoop does) and its
history to DIR as ``<job_id>.jhist`` and ``<job_id>_conf.xml``; prints the job record as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from jobsize.cli._options import (
    add_job_arguments,
    add_output,
    add_parallel,
    containers,
    map_hint,
    reducer_of,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a streaming job on the local MapReduce engine",
        description="Run a Hadoop-Streaming-style job on this machine (N_m maps and N_r "
        "reduces on a process pool) and write its history as Hadoop does: "
        "<job_id>.jhist and <job_id>_conf.xml. Without --reducer and with --reduces > 0 the "
        "sorted map output is written unchanged (Hadoop's identity reduce).",
    )
    add_job_arguments(parser, reduces_default=1)
    parser.add_argument("--history", required=True, metavar="DIR",
                        help="directory for the job's .jhist and _conf.xml")
    add_output(parser, metavar="OUTDIR",
               help="output directory (must not exist unless --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace OUTDIR")
    add_parallel(parser, help="worker processes of the engine (default: the cores the "
                 "machine's load leaves free, over the two a streaming task keeps busy)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobsize.engine import JobSpec, LocalEngine
    from jobsize.engine.appmaster import warn_if_oversubscribed
    from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES, compute_splits, input_files
    from jobsize.progress import progress_bar

    conf = dict(args.properties)
    split = args.split_size or DEFAULT_BLOCK_BYTES
    spec = JobSpec(
        inputs=tuple(args.inputs), output=args.output, mapper=args.mapper,
        reducer=reducer_of(args), combiner=args.combiner, n_maps=map_hint(args),
        n_reduces=args.n_reduces, split_bytes=split, name=args.name or "streamjob",
        queue=args.queue or "default", containers=containers(conf), conf=conf,
        overwrite=args.overwrite)
    tasks = len(compute_splits(input_files(spec.inputs), spec.n_maps, split)) + spec.n_reduces
    with LocalEngine(args.parallel) as engine, progress_bar("tasks", total=tasks) as advance:
        warn_if_oversubscribed(engine.workers)
        result = engine.run(spec, history_dir=args.history, progress=advance)
    json.dump({"job_id": result.job_id, "state": result.state,
               "history": str(result.history_path), "conf": str(result.conf_path),
               "output": str(result.output_dir), "record": result.record()},
              sys.stdout, indent=2)
    print()
    return 0
