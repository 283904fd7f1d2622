"""``jobsize run``: run a streaming job on the local MapReduce engine, or on the Hadoop mini
cluster, and keep its history.

    jobsize run --input INPUT... --mapper CMD [--reducer CMD] [--combiner CMD] [--maps N]
                [--reduces R] --history DIR -o OUTDIR [--split-size BYTES] [-D KEY=VALUE]...
    jobsize run --engine hadoop [--cluster DIR] --input INPUT... --mapper CMD ... -o OUTDIR
                [--history DIR]
    jobsize run --engine hadoop --example PROGRAM (--input PATH... | --generate BYTES)
                -o OUTDIR [--maps N] [--reduces R] [--history DIR]
    jobsize run --engine hadoop --example PROGRAM ARG...

Writes the job's output to OUTDIR (``part-NNNNN`` files and ``_SUCCESS``, as Hadoop does) and its
history to DIR as ``<job_id>.jhist`` and ``<job_id>_conf.xml``; prints the job record as JSON.
On Hadoop the history is the cluster's own (its done directory), copied to DIR under the same
names when ``--history`` is given, and the record is read from it by the same collector.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jobsize.cli._options import (
    add_cluster,
    add_job_arguments,
    add_output,
    add_parallel,
    byte_size,
    containers,
    job_properties,
    map_hint,
    reducer_of,
)

ENGINES = ("local", "hadoop")
#: The block size Hadoop's local file system gives every file (``fs.local.block.size``): on
#: the mini cluster's file system the split size, as HDFS's ``dfs.blocksize`` is on HDFS.
LOCAL_BLOCK_KEY = "fs.local.block.size"
MIN_SPLIT_KEY = "mapreduce.input.fileinputformat.split.minsize"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a streaming job on the local MapReduce engine (or on Hadoop)",
        description="Run a Hadoop-Streaming-style job on this machine (N_m maps and N_r "
        "reduces on a process pool) and write its history as Hadoop does: "
        "<job_id>.jhist and <job_id>_conf.xml. Without --reducer and with --reduces > 0 the "
        "sorted map output is written unchanged (Hadoop's identity reduce). With --engine "
        "hadoop the same job is submitted to the mini cluster of `jobsize hadoop up` (Hadoop "
        "Streaming, the same commands) and its record is read from the cluster's history; "
        "--example runs one of Hadoop's own Java examples there instead.",
    )
    add_job_arguments(parser, reduces_default=1, required=False)
    parser.add_argument("--history", default=None, metavar="DIR",
                        help="directory for the job's .jhist and _conf.xml (required on the "
                        "local engine; on Hadoop the cluster's history is copied there)")
    add_output(parser, required=False, metavar="OUTDIR",
               help="output directory (must not exist unless --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace OUTDIR")
    add_parallel(parser, help="worker processes of the engine (default: the cores the "
                 "machine's load leaves free, over the two a streaming task keeps busy)")
    hadoop = parser.add_argument_group("Hadoop")
    hadoop.add_argument("--engine", choices=ENGINES, default="local",
                        help="where the job runs: jobsize's local engine (default) or the "
                        "Hadoop mini cluster (`jobsize hadoop up`)")
    add_cluster(hadoop)
    hadoop.add_argument(
        "--example", nargs="+", default=None, metavar=("PROGRAM", "ARG"),
        help="run one of Hadoop's examples (wordcount, grep, sort, terasort, join, "
        "secondarysort, multifilewc, wordmean, wordmedian, wordstandarddeviation, "
        "aggregatewordcount, aggregatewordhist) instead of a streaming job. Followed by its "
        "own arguments, they are passed as `hadoop jar hadoop-mapreduce-examples.jar PROGRAM "
        "ARG...` takes them; alone, jobsize builds them from --input (or --generate), -o and "
        "--reduces. -D properties are Hadoop's generic options either way")
    hadoop.add_argument("--generate", type=byte_size, default=None, metavar="BYTES",
                        help="with --example PROGRAM: first make BYTES of its input as Hadoop "
                        "does (randomtextwriter, randomwriter or teragen in --maps maps, "
                        "default 1) into --input DIR, default OUTDIR.input")
    hadoop.add_argument("--pattern", default=None, metavar="REGEX",
                        help="grep's regular expression (default: words starting with 'un')")
    hadoop.add_argument("--seed", type=int, default=0,
                        help="seed of the inputs jobsize writes itself (secondarysort, join)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check(args)
    if args.engine == "hadoop":
        return run_hadoop(args)
    return run_local(args)


def check(args: argparse.Namespace) -> None:
    """Which options go together; one line naming the option otherwise."""
    from jobsize.errors import ConfigError

    hadoop_only = [flag for flag, value in (
        ("--example", args.example), ("--generate", args.generate),
        ("--pattern", args.pattern), ("--cluster", args.cluster)) if value is not None]
    if args.engine == "local" and hadoop_only:
        raise ConfigError("needs --engine hadoop", where=hadoop_only[0])
    if args.example is None:
        for flag, value in (("--input", args.inputs), ("--mapper", args.mapper),
                            ("-o/--output", args.output)):
            if value is None:
                raise ConfigError("required (or --engine hadoop --example PROGRAM)",
                                  where=flag)
        if args.engine == "local" and args.history is None:
            raise ConfigError("required on the local engine", where="--history")
        return
    program, extra = args.example[0], args.example[1:]
    from jobsize.hadoop.examples import GENERATORS, example

    for flag, value in (("--mapper", args.mapper), ("--reducer", args.reducer),
                        ("--combiner", args.combiner)):
        if value is not None:
            raise ConfigError("a streaming option; --example runs a Java program",
                              where=flag)
    if extra:
        for flag, value in (("--input", args.inputs), ("-o/--output", args.output),
                            ("--generate", args.generate), ("--pattern", args.pattern)):
            if value is not None:
                raise ConfigError(f"not with the program's own arguments ({' '.join(extra)}):"
                                  f" give one or the other", where=flag)
        if program not in GENERATORS:
            example(program)
        return
    if program in GENERATORS:
        raise ConfigError(f"{program} is a generator: give its arguments (e.g. --example "
                          f"{program} OUTDIR), or --generate BYTES with an example",
                          where="--example")
    ex = example(program)
    if args.output is None:
        raise ConfigError("required with --example PROGRAM (or give the program's own "
                          "arguments after it)", where="-o/--output")
    if args.inputs is None and args.generate is None:
        raise ConfigError(f"{program} needs an input: --input PATH, or --generate BYTES to "
                          f"make one ({ex.input_kind})", where="--input")
    if args.generate is not None and args.inputs is not None and len(args.inputs) != 1:
        raise ConfigError("with --generate, one directory to generate into", where="--input")
    if args.pattern is not None and program != "grep":
        raise ConfigError(f"grep's option; {program} takes no pattern", where="--pattern")


def run_local(args: argparse.Namespace) -> int:
    from jobsize.engine import JobSpec, LocalEngine
    from jobsize.engine.appmaster import warn_if_oversubscribed
    from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES, compute_splits, input_files
    from jobsize.javatask import refuse_local
    from jobsize.progress import progress_bar

    conf = job_properties(args)
    split = args.split_size or DEFAULT_BLOCK_BYTES
    spec = JobSpec(
        inputs=tuple(args.inputs), output=args.output, mapper=args.mapper,
        reducer=reducer_of(args), combiner=args.combiner, n_maps=map_hint(args),
        n_reduces=args.n_reduces, split_bytes=split, name=args.name or "streamjob",
        queue=args.queue or "default", containers=containers(conf), conf=conf,
        overwrite=args.overwrite)
    refuse_local(spec.mapper, spec.combiner, spec.reducer, where="the job")
    tasks = len(compute_splits(input_files(spec.inputs), spec.n_maps, split)) + spec.n_reduces
    with LocalEngine(args.parallel) as engine, progress_bar("tasks", total=tasks) as advance:
        warn_if_oversubscribed(engine.workers)
        result = engine.run(spec, history_dir=args.history, progress=advance)
    _print({"job_id": result.job_id, "state": result.state,
            "history": str(result.history_path), "conf": str(result.conf_path),
            "output": str(result.output_dir), "record": result.record()})
    return 0


# --- Hadoop -----------------------------------------------------------------------------------


def streaming_conf(args: argparse.Namespace, split_bytes: int) -> dict[str, str]:
    """The streaming job's configuration on the mini cluster: the map hint, the block size of
    the cluster's (local) file system as the split size, name and queue, then ``-D``."""
    conf = {"mapreduce.job.maps": str(map_hint(args)), LOCAL_BLOCK_KEY: str(split_bytes),
            "dfs.blocksize": str(split_bytes)}
    if args.queue:
        conf["mapreduce.job.queuename"] = args.queue
    conf.update(job_properties(args))
    containers(conf)  # sizes given with -D must be positive integers
    return conf


def expected_maps(inputs: list[str], conf: Mapping[str, str], split_bytes: int) -> int:
    """N_m as jobsize's split computation gives it for the job Hadoop Streaming submits (the
    ``mapred`` FileInputFormat: the hint, the block size, the minimum split size)."""
    from jobsize.engine.inputformat import compute_splits, input_files
    from jobsize.errors import ConfigError

    try:
        min_split = max(1, int(conf.get(MIN_SPLIT_KEY, "1")))
    except ValueError:
        raise ConfigError(f"{MIN_SPLIT_KEY} must be an integer, got {conf[MIN_SPLIT_KEY]!r}",
                          where="-D") from None
    hint = int(conf["mapreduce.job.maps"])
    return len(compute_splits(input_files(inputs), hint, split_bytes, min_split))


def run_hadoop(args: argparse.Namespace) -> int:
    from jobsize.hadoop import find
    from jobsize.hadoop.client import HadoopClient

    cluster = find(args.cluster)
    client = HadoopClient(cluster)
    if args.example is not None:
        return run_example(args, client)
    from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES
    from jobsize.progress import progress_bar

    split = args.split_size or DEFAULT_BLOCK_BYTES
    conf = streaming_conf(args, split)
    n_maps = expected_maps(args.inputs, conf, split)
    output = _fresh_output(args.output, args.overwrite)
    with progress_bar(f"Hadoop streaming job ({n_maps} maps, {args.n_reduces} reduces)"):
        job = client.streaming(inputs=args.inputs, output=str(output), mapper=args.mapper,
                               reducer=reducer_of(args), combiner=args.combiner,
                               n_reduces=args.n_reduces, conf=conf,
                               name=args.name or "streamjob")
    shown = _job(job, args.history)
    _print(shown)
    _fail_unless_succeeded([shown])
    return 0


def run_example(args: argparse.Namespace, client: Any) -> int:
    from jobsize.hadoop import examples
    from jobsize.progress import progress_bar

    program, extra = args.example[0], args.example[1:]
    conf = {**examples.CLIENT_POLL, **dict(args.properties)}
    if args.name:
        conf.setdefault("mapreduce.job.name", args.name)
    if args.queue:
        conf["mapreduce.job.queuename"] = args.queue
    if args.split_size:
        conf[LOCAL_BLOCK_KEY] = str(args.split_size)
    if args.n_maps and args.generate is None:
        conf["mapreduce.job.maps"] = str(args.n_maps)
    if extra:
        with progress_bar(f"Hadoop example {program}"):
            submission = client.example(program, extra, conf=conf)
        shown = [_job(job, args.history) for job in submission.jobs]
        _print({"program": program, "args": extra, "jobs": shown})
        _fail_unless_succeeded(shown, submission.returncode, submission.log)
        return 0
    ex = examples.example(program)
    output = _fresh_output(args.output, args.overwrite)
    generated: list[dict[str, Any]] = []
    inputs = list(args.inputs or [])
    if args.generate is not None:
        target = Path(inputs[0]) if inputs else output.with_name(output.name + ".input")
        with progress_bar(f"generating {args.generate} bytes of {ex.input_kind} input"):
            inputs, jobs = examples.generate(client, ex.input_kind, target, args.generate,
                                             maps=args.n_maps or 1, seed=args.seed)
        generated = [_job(job, args.history) for job in jobs]
    work = output.with_name(f".{output.name}.client")
    work.mkdir(parents=True, exist_ok=True)
    try:
        with progress_bar(f"Hadoop example {program}"):
            submission = examples.run_example(
                client, program, inputs, output, reduces=args.n_reduces, conf=conf,
                pattern=args.pattern or examples.GREP_PATTERN, cwd=work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    shown = [_job(job, args.history) for job in submission.jobs]
    _print({"program": program, "input": [str(p) for p in inputs], "output": str(output),
            "generated": generated, "jobs": shown})
    _fail_unless_succeeded(shown, submission.returncode, submission.log)
    return 0


def _fresh_output(output: str, overwrite: bool) -> Path:
    """OUTDIR, absolute; removed first with --overwrite (Hadoop refuses an existing one)."""
    from jobsize.errors import ConfigError

    path = Path(output).resolve()
    if path.exists():
        if not overwrite:
            raise ConfigError("output directory exists (use --overwrite to replace it)",
                              source=path)
        shutil.rmtree(path)
    return path


def copy_history(job: Any, directory: str | Path) -> tuple[Path, Path]:
    """Copy a cluster job's .jhist and _conf.xml into ``directory`` under the local engine's
    names, ``<job_id>.jhist`` and ``<job_id>_conf.xml`` (``jobsize collect jhist`` reads
    either)."""
    where = Path(directory)
    where.mkdir(parents=True, exist_ok=True)
    jhist, conf = where / f"{job.job_id}.jhist", where / f"{job.job_id}_conf.xml"
    shutil.copyfile(job.history_path, jhist)
    shutil.copyfile(job.conf_path, conf)
    return jhist, conf


def _job(job: Any, history: str | None) -> dict[str, Any]:
    """A cluster job as ``jobsize run`` prints a job."""
    jhist, conf = ((job.history_path, job.conf_path) if history is None
                   else copy_history(job, history))
    from jobsize.collectors.jhist import read_jhist

    return {"job_id": job.job_id, "state": job.state, "history": str(jhist),
            "conf": str(conf), "output": job.output_dir,
            "record": read_jhist(jhist, conf).record}


def _fail_unless_succeeded(jobs: list[dict[str, Any]], returncode: int = 0,
                           log: str = "") -> None:
    from jobsize.errors import JobFailedError

    for job in jobs:
        if job["state"] != "SUCCEEDED":
            raise JobFailedError(f"{job['state']} (its history: {job['history']})",
                                 source=job["job_id"])
    if returncode != 0:
        said = " | ".join([line for line in log.splitlines() if line.strip()][-2:])[-300:]
        raise JobFailedError(f"the client exited with status {returncode}: {said}",
                             source="hadoop client")


def _print(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, default=_plain)
    print()


def _plain(value: Any) -> Any:
    """Numpy and pandas scalars in a record, as JSON."""
    if hasattr(value, "item"):
        return value.item()
    return str(value)
