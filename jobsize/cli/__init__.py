"""The ``jobsize`` command line.

Each module in this package is one command (or command group) and defines
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking the parsed
arguments and returning an exit status. Commands are discovered, so adding one touches no other
file. A :class:`jobsize.errors.JobsizeError` is printed as one line and exits 2; Ctrl-C exits
130 and SIGTERM 143, both after the run has unwound (temporary files removed, fetched jobs
saved).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys
import threading
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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a run unwinds as for Ctrl-C: temporary files
    are removed and what a collector fetched is saved."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return int(args.func(args) or 0)
    except JobsizeError as exc:
        print(f"jobsize: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("jobsize: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("jobsize: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
