"""``jobsize sample``: draw a probing job's sample of a job's input (Algorithm 1).

    jobsize sample INPUT... --maps N --reduces R [--max-splits K] [--seed S]
                   [--split-size BYTES] -o SAMPLE

Writes the sampled records to SAMPLE and the sample's metadata (f_p achieved, bytes read, the
splits chosen, the seed) to SAMPLE.json, as one atomic commit. INPUT is a local file or
directory, or a WebHDFS URL (``webhdfs://nn:9870/path``, ``http://nn:9870/webhdfs/v1/path``).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jobsize.atomic import commit_together, prepare
from jobsize.errors import InputError
from jobsize.progress import progress_bar
from jobsize.sampler.sampling import DEFAULT_MAX_SPLITS, plan, sample
from jobsize.sampler.splits import input_splits, total_bytes
from jobsize.schema import uber_eligible

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def byte_size(text: str) -> int:
    """``65536``, ``64K``, ``64M``, ``1G`` (binary units; a trailing ``B``/``iB`` is allowed)."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", text, flags=re.IGNORECASE)
    if not match or int(match.group(1)) < 1:
        raise argparse.ArgumentTypeError(f"not a positive byte size: {text!r} (e.g. 64M)")
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


def _count(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sample",
        help="sample a job's input for its probing job (Algorithm 1)",
        description="Draw the probing job's sample of a job's input: f_p = 1/max(N_m, N_r) of "
        "it, from at most K randomly chosen splits, whole records only, reading only the "
        "sampled bytes. Writes SAMPLE and its metadata as SAMPLE.json.",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="local file or directory, or a WebHDFS URL")
    parser.add_argument("--maps", "-m", dest="n_maps", type=_count(1), required=True,
                        metavar="N", help="the job's number of map tasks N_m")
    parser.add_argument("--reduces", "-r", dest="n_reduces", type=_count(0), required=True,
                        metavar="R", help="the job's number of reduce tasks N_r (0: map-only)")
    parser.add_argument("--max-splits", type=_count(1), default=DEFAULT_MAX_SPLITS, metavar="K",
                        help=f"most splits to sample from (default {DEFAULT_MAX_SPLITS})")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="random seed (default: a fresh one, recorded in SAMPLE.json)")
    parser.add_argument("--split-size", type=byte_size, default=None, metavar="BYTES",
                        help="split size, e.g. 128M (default 64M for local files, the HDFS "
                        "block size for WebHDFS)")
    parser.add_argument("--recursive", action="store_true",
                        help="include files in subdirectories of input directories")
    add_webhdfs_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="SAMPLE",
                        help="where to write the sample (metadata goes to SAMPLE.json)")
    parser.set_defaults(func=run)


def add_webhdfs_arguments(parser: argparse.ArgumentParser) -> None:
    """How to authenticate to WebHDFS inputs (``sample`` and ``probe``)."""
    parser.add_argument("--user", default=None,
                        help="WebHDFS user.name (default $HADOOP_USER_NAME or the login name)")
    parser.add_argument("--delegation", default=None, metavar="TOKEN",
                        help="WebHDFS delegation token")
    parser.add_argument("--kerberos", action="store_true",
                        help="WebHDFS with SPNEGO authentication from your Kerberos ticket "
                        "(needs pip install 'jobsize[kerberos]')")


def webhdfs_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``jobsize.sampler.splits.input_splits`` options of :func:`add_webhdfs_arguments`."""
    options: dict[str, Any] = {"user": args.user, "delegation": args.delegation}
    if args.kerberos:
        from jobsize.collectors.rest import spnego_auth
        options["auth"] = spnego_auth()
    return options


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.is_dir():
        raise InputError("is a directory, expected a file name for the sample", source=out)
    prepare(out, out.with_name(out.name + ".json"))
    splits = input_splits(args.inputs, args.split_size, recursive=args.recursive,
                          **webhdfs_options(args))
    n_chosen = plan(len(splits), args.n_maps, args.n_reduces, args.max_splits).n_chosen
    with progress_bar("sampling", total=n_chosen) as advance:
        result = sample(splits, args.n_maps, args.n_reduces, args.max_splits, args.seed,
                        progress=advance)
    meta = {"inputs": list(args.inputs), **result.metadata()}
    meta_path = out.with_name(out.name + ".json")
    text = (json.dumps(meta, indent=2) + "\n").encode()
    try:
        # one commit: a sample never sits beside another sample's f_p
        commit_together([(out, lambda handle: handle.write(result.data)),
                         (meta_path, lambda handle: handle.write(text))])
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror or exc})", source=out) from None
    print(f"{out}: {len(result.data)} bytes of whole records from "
          f"{len(result.splits_chosen)} of {result.n_splits} splits; "
          f"f_p = {result.fraction:.6g} (target {result.target_fraction:.6g}); "
          f"read {result.bytes_read} of {result.input_bytes} bytes; seed {result.seed}; "
          f"metadata in {meta_path}")
    if not result.data and result.input_bytes:
        print("jobsize: warning: no record starts in the sampled ranges, so the sample is "
              "empty and cannot be probed; try another seed")
    if uber_eligible(args.n_maps, args.n_reduces, total_bytes(splits)):
        print("jobsize: note: with Hadoop's default limits this job runs in uber mode and "
              "is not probed; its size comes from history")
    return 0
