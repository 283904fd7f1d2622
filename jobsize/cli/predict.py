"""``jobsize predict``: predict one job's size with a fitted model, printed as JSON.

    jobsize predict --model MODEL.json --job JOB.json [--cluster-memory-mb MB]
                    [--cluster-vcores N]

JOB.json is one JSON object: the job's conf values and its probe record, keyed by job-record
column names or Hadoop's names (``mapreduce.job.maps``, ``mapreduce.map.memory.mb``, ...). Values
may sit at the top level or in nested ``"conf"``, ``"job"`` and ``"probe"`` objects, merged over
the top level in that order. ``--job -`` reads standard input.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from jobsize.cli._options import hidden_alias, positive_number, require
from jobsize.errors import InputError, ParseError
from jobsize.models.resources import PAPER_CLUSTER, Resources


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="predict one job's size (SE_m, SE_r, S, minE, APB, intervals) as JSON",
        description="Predict a job's size with a model from `jobsize fit -o`. JOB.json holds the "
        "job's conf values and its probe record (flat, or in \"conf\"/\"job\"/\"probe\" "
        "objects). Prints SE_m and SE_r (s), S (MB·s, vcore·s), minE (s), APB (MB, vcores) and "
        "prediction intervals as JSON.",
    )
    parser.add_argument("--model", metavar="MODEL.json",
                        help="model file written by `jobsize fit -o` (required)")
    hidden_alias(parser, "-m", dest="model")
    require(parser, "model", "--model")
    parser.add_argument("--job", "-j", required=True, metavar="JOB.json",
                        help="the job: conf values plus probe record; - for standard input")
    parser.add_argument("--cluster-memory-mb", type=positive_number, default=PAPER_CLUSTER.memory,
                        metavar="MB", help="cluster memory CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.memory:g}, the paper's 8 × 8 GB)")
    parser.add_argument("--cluster-vcores", type=positive_number, default=PAPER_CLUSTER.vcores,
                        metavar="N", help="cluster vcores CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.vcores:g}, the paper's 8 × 8)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobsize.predictor import predict

    source = "<stdin>" if args.job == "-" else args.job
    job = read_job(args.job)
    cluster = Resources(args.cluster_memory_mb, args.cluster_vcores)
    try:
        prediction = predict(args.model, job, cluster)
    except InputError as exc:
        if exc.source is None:  # a problem with the job's values: name the job file
            raise InputError(exc.reason, source=source, where=exc.where) from None
        raise
    print(json.dumps(_finite(prediction.to_dict()), indent=2))
    return 0


def read_job(path: str) -> dict[str, Any]:
    """The job mapping from a JSON file (``-``: standard input); sections merged."""
    source = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", source=source) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON ({exc.msg})", source=source,
                         where=f"line {exc.lineno} column {exc.colno}") from None
    if not isinstance(doc, dict):
        raise InputError(f"expected a JSON object, found {type(doc).__name__}", source=source,
                         where="$")
    from jobsize.models.job import flatten

    return flatten(doc, source)


def _finite(value: Any) -> Any:
    """Unbounded interval ends (no spread known yet) become null in JSON."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
