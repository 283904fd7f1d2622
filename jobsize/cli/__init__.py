"""The ``jobsize`` command line.

Each module in this package is one command (or command group) and defines
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking the parsed
arguments and returning an exit status. Commands are discovered, so adding one touches no other
file. A :class:`jobsize.errors.JobsizeError` is printed as one line and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from jobsize import __version__
from jobsize.errors import JobsizeError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobsize",
        description="Predict Hadoop MapReduce job sizes from a probing run; "
        "evaluate size-based schedulers on them.",
    )
    parser.add_argument("--version", action="version", version=f"jobsize {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except JobsizeError as exc:
        print(f"jobsize: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("jobsize: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
