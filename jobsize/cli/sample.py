"""``jobsize sample``: draw a probing job's sample of a job's input (Algorithm 1).

    jobsize sample INPUT... --maps N --reduces R [--max-fraction F] [--min-sample BYTES]
                   [--max-splits K] [--seed S] [--split-size BYTES] -o SAMPLE

Writes the sampled records to SAMPLE and the sample's metadata (f_p achieved, bytes read, the
splits chosen, the seed) to SAMPLE.json, as one atomic commit. INPUT is a local file or
directory, or a WebHDFS URL (``webhdfs://nn:9870/path``, ``http://nn:9870/webhdfs/v1/path``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jobsize.cli._options import (
    add_output,
    add_sample_budget,
    add_task_counts,
    add_webhdfs_arguments,
    byte_size,
    count,
    sample_budget,
    webhdfs_options,
)
from jobsize.sampler.sampling import DEFAULT_MAX_SPLITS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sample",
        help="sample a job's input for its probing job (Algorithm 1)",
        description="Draw the probing job's sample of a job's input: f_p = 1/max(N_m, N_r) of "
        "it (at most --max-fraction of it, never less than --min-sample), from at most K "
        "randomly chosen splits, whole records only, reading only the sampled bytes. Writes "
        "SAMPLE and its metadata as SAMPLE.json.",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="local file or directory, or a WebHDFS URL")
    add_task_counts(parser, reduces_default=None)
    add_sample_budget(parser)
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
    from jobsize.atomic import commit_together, prepare
    from jobsize.errors import InputError
    from jobsize.progress import progress_bar
    from jobsize.sampler.sampling import plan, sample
    from jobsize.sampler.splits import input_splits, total_bytes

    out = Path(args.output)
    if out.is_dir():
        raise InputError("is a directory, expected a file name for the sample", source=out)
    prepare(out, out.with_name(out.name + ".json"))
    splits = input_splits(args.inputs, args.split_size, recursive=args.recursive,
                          **webhdfs_options(args))
    budget = sample_budget(args)
    n_chosen = plan(len(splits), args.n_maps, args.n_reduces, args.max_splits,
                    budget["max_fraction"], total_bytes(splits), budget["min_bytes"]).n_chosen
    with progress_bar("sampling", total=n_chosen) as advance:
        result = sample(splits, args.n_maps, args.n_reduces, args.max_splits, args.seed,
                        progress=advance, **budget)
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
    return 0
