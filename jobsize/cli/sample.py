"""``jobsize sample``: draw a probing job's sample of a job's input (Algorithm 1).

    jobsize sample INPUT... --maps N --reduces R [--max-splits K] [--seed S]
                   [--split-size BYTES] -o SAMPLE

Writes the sampled records to SAMPLE and the sample's metadata (f_p achieved, bytes read, the
splits chosen, the seed) to SAMPLE.json, both atomically. INPUT is a local file or directory, or
a WebHDFS URL (``webhdfs://nn:9870/path``, ``http://nn:9870/webhdfs/v1/path``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jobsize.cli._options import (
    add_output,
    add_task_counts,
    add_webhdfs_arguments,
    byte_size,
    count,
    webhdfs_options,
)

#: ``sampledSplitsUpperBound``'s default (``jobsize.sampler.sampling.DEFAULT_MAX_SPLITS``).
DEFAULT_MAX_SPLITS = 10


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
    add_task_counts(parser, reduces_default=None)
    parser.add_argument("--max-splits", type=count(1), default=DEFAULT_MAX_SPLITS, metavar="K",
                        help=f"most splits to sample from (default {DEFAULT_MAX_SPLITS})")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="random seed (default: a fresh one, recorded in SAMPLE.json)")
    parser.add_argument("--split-size", type=byte_size, default=None, metavar="BYTES",
                        help="split size, e.g. 128M (default 64M for local files, the HDFS "
                        "block size for WebHDFS)")
    parser.add_argument("--recursive", action="store_true",
                        help="include files in subdirectories of input directories")
    add_webhdfs_arguments(parser)
    add_output(parser, metavar="SAMPLE",
               help="where to write the sample (metadata goes to SAMPLE.json)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from jobsize.atomic import atomic_write, atomic_write_text
    from jobsize.errors import InputError
    from jobsize.progress import progress_bar
    from jobsize.sampler.sampling import plan, sample
    from jobsize.sampler.splits import input_splits

    out = Path(args.output)
    if out.is_dir():
        raise InputError("is a directory, expected a file name for the sample", source=out)
    splits = input_splits(args.inputs, args.split_size, recursive=args.recursive,
                          **webhdfs_options(args))
    n_chosen = plan(len(splits), args.n_maps, args.n_reduces, args.max_splits).n_chosen
    with progress_bar("sampling", total=n_chosen) as advance:
        result = sample(splits, args.n_maps, args.n_reduces, args.max_splits, args.seed,
                        progress=advance)
    meta = {"inputs": list(args.inputs), **result.metadata()}
    meta_path = out.with_name(out.name + ".json")
    try:
        with atomic_write(out) as handle:
            handle.write(result.data)
        atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
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
    return 0
