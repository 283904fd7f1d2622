"""``jobsize run``: run a streaming job on the local MapReduce engine and keep its history.

    jobsize run --input INPUT... --mapper CMD [--reducer CMD] [--combiner CMD] --maps N
                [--reduces R] --history DIR -o OUTDIR [--split-size BYTES] [-D KEY=VALUE]...

Writes the job's output to OUTDIR (``part-NNNNN`` files and ``_SUCCESS``, as Hadoop does) and its
history to DIR as ``<job_id>.jhist`` and ``<job_id>_conf.xml``; prints the job record as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping

from jobsize.cli.sample import byte_size
from jobsize.engine import Containers, JobSpec, LocalEngine
from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES, compute_splits, input_files
from jobsize.errors import ConfigError
from jobsize.progress import progress_bar

#: -D keys that set container sizes, and the Containers field each sets.
CONTAINER_KEYS = {
    "mapreduce.map.memory.mb": "map_memory_mb",
    "mapreduce.map.cpu.vcores": "map_vcores",
    "mapreduce.reduce.memory.mb": "reduce_memory_mb",
    "mapreduce.reduce.cpu.vcores": "reduce_vcores",
    "yarn.app.mapreduce.am.resource.mb": "am_memory_mb",
    "yarn.app.mapreduce.am.resource.cpu-vcores": "am_vcores",
}


def count(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def property_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def containers(conf: Mapping[str, str]) -> Containers:
    """Container sizes from ``-D`` properties (Hadoop's keys), defaults elsewhere."""
    sizes = {}
    for key, name in CONTAINER_KEYS.items():
        if key in conf:
            try:
                sizes[name] = int(conf[key])
            except ValueError:
                raise ConfigError(f"{key} must be an integer, got {conf[key]!r}",
                                  where="-D") from None
            if sizes[name] < 1:
                raise ConfigError(f"{key} must be positive, got {sizes[name]}", where="-D")
    return Containers(**sizes)


def add_job_arguments(parser: argparse.ArgumentParser, *, reduces_default: int | None) -> None:
    """The options ``run`` and ``probe`` share: inputs, functions, task counts, properties."""
    parser.add_argument("--input", "-i", dest="inputs", nargs="+", required=True,
                        metavar="INPUT", help="input files or directories")
    parser.add_argument("--mapper", required=True, metavar="CMD",
                        help="map command (split like a shell would, e.g. 'python3 map.py')")
    parser.add_argument("--reducer", default=None, metavar="CMD",
                        help="reduce command; NONE or omitted: no reducer")
    parser.add_argument("--combiner", default=None, metavar="CMD", help="combine command")
    parser.add_argument("--maps", "-m", dest="n_maps", type=count(1), required=True,
                        metavar="N", help="number of map tasks N_m (Hadoop's hint: the "
                        "input is cut into total/N-byte splits, at most --split-size)")
    parser.add_argument("--reduces", "-r", dest="n_reduces", type=count(0),
                        default=reduces_default, required=reduces_default is None,
                        metavar="R", help="number of reduce tasks N_r (0: map-only)")
    parser.add_argument("--split-size", type=byte_size, default=None, metavar="BYTES",
                        help="largest split, e.g. 128M (default: the 64M block size)")
    parser.add_argument("-D", dest="properties", type=property_pair, action="append",
                        default=[], metavar="KEY=VALUE",
                        help="a job property, e.g. mapreduce.map.memory.mb=2048 (repeatable)")
    parser.add_argument("--name", default=None, help="job name")
    parser.add_argument("--queue", default=None, help="queue name")


def reducer_of(args: argparse.Namespace) -> str | None:
    return None if args.reducer in (None, "NONE") else args.reducer


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
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR",
                        help="output directory (must not exist unless --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace OUTDIR")
    parser.add_argument("--workers", type=count(1), default=None,
                        help="size of the process pool (default: the machine's cores)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    conf = dict(args.properties)
    split = args.split_size or DEFAULT_BLOCK_BYTES
    spec = JobSpec(
        inputs=tuple(args.inputs), output=args.output, mapper=args.mapper,
        reducer=reducer_of(args), combiner=args.combiner, n_maps=args.n_maps,
        n_reduces=args.n_reduces, split_bytes=split, name=args.name or "streamjob",
        queue=args.queue or "default", containers=containers(conf), conf=conf,
        overwrite=args.overwrite)
    tasks = len(compute_splits(input_files(spec.inputs), spec.n_maps, split)) + spec.n_reduces
    with LocalEngine(args.workers) as engine, progress_bar("tasks", total=tasks) as advance:
        result = engine.run(spec, history_dir=args.history, progress=advance)
    json.dump({"job_id": result.job_id, "state": result.state,
               "history": str(result.history_path), "conf": str(result.conf_path),
               "output": str(result.output_dir), "record": result.record()},
              sys.stdout, indent=2)
    print()
    return 0
