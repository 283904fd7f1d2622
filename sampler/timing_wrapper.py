#!/usr/bin/env python3
"""Time a Hadoop Streaming mapper or reducer and report it as a streaming counter.

Shipped with a probing job (``-files timing_wrapper.py``) and run on a cluster node with only
the standard library::

    python3 timing_wrapper.py --counter jobsize,MAP_FUNCTION_MILLIS -- python3 wc.py map

The command inherits stdin, stdout and stderr, so records flow to and from it untouched. When it
exits, the wall time from its start to its exit — the map (reduce) function time, MFE (RFE) — is
written to stderr as ``reporter:counter:<group>,<counter>,<milliseconds>``, which Hadoop
Streaming adds to the job's counters. The wrapper exits with the command's status.

``--startup-counter GROUP,NAME`` first runs the command once over no input (stdin empty, its
output and messages discarded) and reports that run's time — the function's start-up, what a
task pays whatever its input — when it succeeds. ``--runs-counter GROUP,NAME`` adds 1 per
invocation: wrapped around a combiner, which Hadoop starts afresh at every spill, it counts the
combiner's runs. ``--overhead-counter GROUP,NAME`` reports, at exit, the wrapper's own time:
its process's life (from its start as the kernel recorded it, where ``/proc`` tells; else from
its first statement) less the timed run — the interpreter's start, the start-up run, the
reports. The job the probe stands for runs its functions unwrapped and never pays it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

_FIRST_NS = time.perf_counter_ns()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="timing_wrapper.py",
        description="Run a streaming command and report its run time as a Hadoop counter.")
    parser.add_argument("--counter", required=True, metavar="GROUP,NAME",
                        help="counter group and name, e.g. jobsize,MAP_FUNCTION_MILLIS")
    parser.add_argument("--startup-counter", metavar="GROUP,NAME", default=None,
                        help="also run the command once over no input first and report its "
                        "time under this counter")
    parser.add_argument("--runs-counter", metavar="GROUP,NAME", default=None,
                        help="add 1 to this counter per invocation")
    parser.add_argument("--overhead-counter", metavar="GROUP,NAME", default=None,
                        help="report the wrapper's own time (its life less the timed run) "
                        "under this counter")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the mapper or reducer command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    given = (args.counter, args.startup_counter, args.runs_counter, args.overhead_counter)
    timed, startup, runs, overhead = parsed = [_counter(c) for c in given]
    if not command or any(c is not None and p is None
                          for c, p in zip(given, parsed, strict=True)):
        parser.error("need --counter GROUP,NAME (every counter as GROUP,NAME) and a command "
                     "after --")
    if runs:
        _report(runs, 1)
    if startup:
        try:
            started = time.perf_counter_ns()
            empty = subprocess.call(command, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if empty == 0:
                _report(startup, (time.perf_counter_ns() - started) // 1_000_000)
        except OSError:
            pass  # the real run below reports it
    started = time.perf_counter_ns()
    try:
        status = subprocess.call(command)
    except OSError as exc:
        print(f"timing_wrapper.py: cannot run {command[0]}: {exc.strerror or exc}",
              file=sys.stderr)
        return 127
    run_ns = time.perf_counter_ns() - started
    _report(timed, run_ns // 1_000_000)
    if overhead:
        _report(overhead, max(_life_ns() - run_ns, 0) // 1_000_000)
    if status < 0:  # killed by a signal: report it the way a shell would
        return 128 - status
    return status


def _life_ns() -> int:
    """Nanoseconds since this process started: from the kernel's record of its start (Linux,
    to a clock tick, rounded to the tick's middle), else since the wrapper's first statement."""
    first = time.perf_counter_ns() - _FIRST_NS
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rpartition(")")[2].split()[19])  # field 22, starttime
        tick_ns = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
        life = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - ticks * tick_ns - tick_ns // 2
    except (OSError, ValueError, IndexError, AttributeError):
        return first
    return life if life >= first else first


def _counter(text: str | None) -> tuple[str, str] | None:
    """``(group, name)`` of a ``GROUP,NAME`` option; None when absent or malformed."""
    group, sep, name = (text or "").partition(",")
    return (group, name) if sep and group and name and "," not in name else None


def _report(counter: tuple[str, str], value: int) -> None:
    sys.stderr.write(f"reporter:counter:{counter[0]},{counter[1]},{value}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
