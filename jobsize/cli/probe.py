"""``jobsize probe``: the probing job of a job (paper §III-A) — run locally, or for a cluster.

    jobsize probe --input INPUT... --mapper CMD [--reducer CMD] [--maps N] --reduces R
                  [--max-splits K] [--seed S] [--split-size BYTES] [-D KEY=VALUE]... [--hadoop]

Draws the job's sample (Algorithm 1), runs the job's mapper and reducer over it as the split probe's
few small tasks in this process (uber mode) and prints the probe record (the job record's
``probe_*`` columns) as JSON. A job Hadoop would run in uber mode itself is probed too, so that
predict sizes it from its probe; ``--uber-from-history`` leaves it unprobed, to be sized from the
history's uber jobs as the paper does (the record says which). With ``--hadoop`` the sample is
written to a local directory and the commands that upload it and run the probe on a cluster
(``hadoop jar hadoop-streaming.jar``, uber mode, the probing queue) are printed instead; the probe
carries ``jobsize.probe.id`` (a new UUID unless ``-D jobsize.probe.id=...`` gives one), which the
job itself is then run with.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from jobsize.cli._options import (
    add_cluster,
    add_job_arguments,
    add_sample_budget,
    add_uber_sizing,
    add_webhdfs_arguments,
    containers,
    count,
    job_properties,
    map_hint,
    reducer_of,
    sample_budget,
    webhdfs_options,
)

DEFAULT_SAMPLE_DIR = "jobsize-probe-sample"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="probe a job: its functions over a sample, in two maps and two reduces",
        description="Run a job's probing job: its own mapper and reducer over a sample of "
        "f_p = 1/max(N_m, N_r) of its input (at most --max-fraction of it, never less than "
        "--min-sample), as two uneven maps (about 1/3 and 2/3 of the sample) and two uneven "
        "reduces (about 1/3 and 2/3 of the keys), plus one empty map and one empty reduce "
        "that time the functions' start-up, one task after another in one process (uber "
        "mode); print the probe record (MFE, RFE, MO, MOR, RIR, RO, wall time, f_p, the "
        "functions' start-ups; probe_map_tasks counts the two maps, probe_reduce_tasks the "
        "three reduces) as JSON. Without --reducer the job is map-only (--reduces 0).",
    )
    add_job_arguments(parser, reduces_default=None)
    add_sample_budget(parser)
    parser.add_argument("--max-splits", type=count(1), default=None, metavar="K",
                        help="sampledSplitsUpperBound: most splits to sample from")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random seed")
    add_webhdfs_arguments(parser)
    parser.add_argument("--history", default=None, metavar="DIR",
                        help="keep the probe's own .jhist and _conf.xml in DIR")
    add_uber_sizing(parser)
    parser.add_argument("--hadoop", action="store_true",
                        help="run the probe on Hadoop (the cluster `jobsize hadoop up` "
                        "started) as a real uber-mode job, and read its record from the "
                        "cluster's job history")
    add_cluster(parser, when="with --hadoop: ")
    parser.add_argument("--print-commands", action="store_true",
                        help="with --hadoop: write the sample locally and print the commands "
                        "that upload it and run the probe on another cluster, instead")
    parser.add_argument("--file", dest="files", action="append", default=[], metavar="PATH",
                        help="with --hadoop: a file to ship with the probe (-files), e.g. the "
                        "mapper's script (repeatable)")
    parser.add_argument("--sample-dir", default=None, metavar="DIR",
                        help=f"with --hadoop: directory for the sample (default: "
                        f"{DEFAULT_SAMPLE_DIR} with --print-commands, else a directory in "
                        f"the cluster's file system)")
    parser.add_argument("--hdfs-dir", default=None, metavar="PATH",
                        help="with --hadoop: HDFS directory to upload the sample to "
                        "(default /tmp/jobsize-probe/<seed>)")
    parser.add_argument("--probe-output", default=None, metavar="PATH",
                        help="with --hadoop: HDFS output directory of the probe "
                        "(default: the upload directory + '-out')")
    parser.set_defaults(func=run)


def _is_webhdfs(path: str) -> bool:
    from jobsize.sampler.webhdfs import is_webhdfs_url

    return is_webhdfs_url(path)


def job_splits(args: argparse.Namespace) -> Any:
    """The splits of the job the options describe, listed once: cut at --split-size (the
    64 MB block locally, each file's HDFS block size on WebHDFS), then at Hadoop's goal size
    for the ``--maps`` hint, as ``jobsize run`` and Hadoop Streaming cut them. Their number
    is the job's N_m."""
    from jobsize.sampler.splits import input_splits

    return input_splits(args.inputs, args.split_size,
                        **webhdfs_options(args)).for_maps(map_hint(args))


def probe_spec(args: argparse.Namespace, n_maps: int) -> Any:
    """The probe of the job the options describe, whose input has ``n_maps`` splits."""
    from jobsize.sampler.probespec import ProbeSpec
    from jobsize.sampler.sampling import DEFAULT_MAX_SPLITS

    conf = job_properties(args)
    if not any(_is_webhdfs(i) for i in args.inputs):  # the engine's block: the split size
        from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES

        conf.setdefault("dfs.blocksize", str(args.split_size or DEFAULT_BLOCK_BYTES))
    sizes = containers(conf)
    budget = sample_budget(args)
    return ProbeSpec(
        mapper=args.mapper, reducer=reducer_of(args), combiner=args.combiner,
        inputs=tuple(args.inputs), n_maps=n_maps, n_reduces=args.n_reduces,
        map_memory_mb=sizes.map_memory_mb, map_vcores=sizes.map_vcores,
        reduce_memory_mb=sizes.reduce_memory_mb, reduce_vcores=sizes.reduce_vcores,
        am_memory_mb=sizes.am_memory_mb, am_vcores=sizes.am_vcores,
        split_bytes=args.split_size,
        max_splits=args.max_splits or DEFAULT_MAX_SPLITS, seed=args.seed,
        max_fraction=budget["max_fraction"], min_sample_bytes=budget["min_bytes"],
        job_name=args.name or "job", conf=conf, files=tuple(args.files),
        **({"queue": args.queue} if args.queue else {}))


def run(args: argparse.Namespace) -> int:
    splits = job_splits(args)
    spec = probe_spec(args, len(splits))
    input_bytes = splits.total_bytes
    plan = spec.plan(input_bytes)
    probed = plan.probe or args.probe_uber
    if args.hadoop and args.print_commands:
        print(hadoop_commands(spec, splits, args) if probed else
              f"# {spec.job_name}: {plan.said(args.probe_uber)}; nothing to run")
        return 0
    # The job as `jobsize predict --job -` and jobsize.predict take it: its shape, its
    # configuration, whether it runs in uber mode, and its probe record (none for an uber job
    # with --uber-from-history).
    out: dict[str, Any] = {"job_name": spec.job_name, **spec.job_columns(),
                           "map_input_bytes": input_bytes, **plan.record(),
                           "reason": plan.said(args.probe_uber)}
    if probed and args.hadoop:
        out.update(probe_on_hadoop(spec, splits, args))
    elif probed:
        from jobsize.engine import LocalEngine, run_probe
        from jobsize.progress import progress_bar

        with LocalEngine(1) as engine, progress_bar("probing"):
            out.update(run_probe(spec, engine=engine, history_dir=args.history, splits=splits))
    out["conf"] = dict(spec.conf)
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


def probe_on_hadoop(spec: Any, splits: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The probe run on the mini cluster as a real uber-mode job
    (:func:`jobsize.hadoop.probe.probe_on_hadoop`)."""
    from jobsize.hadoop import find
    from jobsize.hadoop.client import HadoopClient
    from jobsize.hadoop.probe import probe_on_hadoop as run_it
    from jobsize.progress import progress_bar

    client = HadoopClient(find(args.cluster))
    with progress_bar("probing on Hadoop"):
        return run_it(spec, splits, client, directory=args.sample_dir)


def hadoop_commands(spec: Any, splits: Any, args: argparse.Namespace) -> str:
    """Write the sample of the job's ``splits`` locally as :func:`jobsize.hadoop.probe.
    write_sample` does (one file per input file, two for an uber job's warm map); return the
    upload command and the cluster probe command."""
    from jobsize.hadoop.probe import write_sample
    from jobsize.sampler.probespec import render_hadoop
    from jobsize.schema import PROBE_ID_KEY

    local = Path(args.sample_dir or DEFAULT_SAMPLE_DIR)
    sample, written = write_sample(spec, splits, local)
    hdfs = (args.hdfs_dir or f"/tmp/jobsize-probe/{sample.seed}").rstrip("/")
    paths = [f"{hdfs}/{p}" for p in written]
    upload = (f"hdfs dfs -mkdir -p {shlex.quote(hdfs)} && "
              f"hdfs dfs -put -f {shlex.quote(str(local))}/* {shlex.quote(hdfs)}/")
    probe_id = spec.conf[PROBE_ID_KEY]  # derived by job_properties unless given
    command = render_hadoop(spec, sample=paths, sample_bytes=len(sample.data),
                            output=args.probe_output or f"{hdfs}-out", fraction=sample.fraction,
                            probe_id=probe_id)
    return (f"# f_p = {sample.fraction:.6g}: {len(sample.data)} sample bytes of "
            f"{sample.input_bytes}, seed {sample.seed}\n"
            f"# run the job itself with -D {PROBE_ID_KEY}={probe_id} so that `jobsize collect` "
            f"joins this probe to it\n{upload}\n{command}")
