#!/usr/bin/env python3
"""Time a Hadoop Streaming mapper or reducer and report it as a streaming counter.

Shipped with a probing job (``-files timing_wrapper.py``) and run on a cluster node with only
the standard library::

    python3 timing_wrapper.py --counter jobsize,MAP_FUNCTION_MILLIS -- python3 wc.py map

The command inherits stdin, stdout and stderr, so records flow to and from it untouched. When it
exits, the wall time from its start to its exit — the map (reduce) function time, MFE (RFE) — is
written to stderr as ``reporter:counter:<group>,<counter>,<milliseconds>``, which Hadoop
Streaming adds to the job's counters. The wrapper exits with the command's status.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="timing_wrapper.py",
        description="Run a streaming command and report its run time as a Hadoop counter.")
    parser.add_argument("--counter", required=True, metavar="GROUP,NAME",
                        help="counter group and name, e.g. jobsize,MAP_FUNCTION_MILLIS")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the mapper or reducer command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    group, sep, name = args.counter.partition(",")
    if not (command and sep and group and name) or "," in name:
        parser.error("need --counter GROUP,NAME and a command after --")
    started = time.perf_counter_ns()
    try:
        status = subprocess.call(command)
    except OSError as exc:
        print(f"timing_wrapper.py: cannot run {command[0]}: {exc.strerror or exc}",
              file=sys.stderr)
        return 127
    millis = (time.perf_counter_ns() - started) // 1_000_000
    sys.stderr.write(f"reporter:counter:{group},{name},{millis}\n")
    sys.stderr.flush()
    if status < 0:  # killed by a signal: report it the way a shell would
        return 128 - status
    return status


if __name__ == "__main__":
    sys.exit(main())
