"""How long ``jobsize --help`` and ``jobsize CMD --help`` take, beside ``python -c pass``.

Each command line runs as a fresh process (what a user types), the best of ``--repeat`` runs is
kept, and the baseline — starting the same Python and doing nothing — is measured in the same
run, so the ratio says what jobsize adds to an interpreter's start-up on this machine whatever
its load. Goal: ``jobsize --help`` and ``jobsize predict --help`` within 0.3 s.

    python benchmarks/cli.py [--repeat 5] [--all]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from common import best_of, row

GOAL_S = 0.3
#: Command lines held to the goal; --all adds every other command's --help.
TIMED = (["--help"], ["predict", "--help"])


def _run(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (best kept)")
    parser.add_argument("--all", action="store_true", help="also every other command's --help")
    args = parser.parse_args()

    from jobsize.cli import COMMANDS

    lines = [list(argv) for argv in TIMED]
    if args.all:
        lines += [[name, "--help"] for name in COMMANDS if [name, "--help"] not in lines]
    baseline = best_of(lambda: _run([sys.executable, "-c", "pass"]), args.repeat)
    for argv in lines:
        seconds = best_of(lambda a=argv: _run([sys.executable, "-m", "jobsize", *a]),
                          args.repeat)
        goal = f"goal ≤ {GOAL_S} s: {'met' if seconds <= GOAL_S else 'MISSED'}" \
            if argv in [list(t) for t in TIMED] else ""
        row("jobsize " + " ".join(argv), seconds, "s", baseline, "python -c pass", goal)


if __name__ == "__main__":
    main()
