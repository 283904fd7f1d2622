"""How long each paper's reproduction takes: ``jobsize simulate --reproduce PAPER`` end to end.

Each of the six reproductions runs as a user runs it (a fresh process, the bundled FB-2009 day,
default settings and figures), its wall time held to the goal of 10 minutes. The baseline, timed
in the same run just before each reproduction, is the heap-only replay of the FB-2009 day's
427,900 tasks on 128 slots (``benchmarks/sim.py``'s floor of a Python event loop): the ratio
says how many such replays a reproduction costs, which stays put when the shared machine slows
down and the wall time does not.

    python benchmarks/reproduce.py [PAPER ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import best_of, row, shared_root
from sim import heap_replay

from jobsize.sim.costmodel import read_swim_workload

PAPERS = ("fspy", "mrorder", "dynamicmr", "ltyarn", "dress", "rasooli")
GOAL_S = 600.0


def reproduce_s(paper: str, out: Path) -> float:
    """Wall seconds of one reproduction in a fresh process."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jobsize", "--quiet", "simulate", "--reproduce",
                    paper, "-o", str(out)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("papers", nargs="*", metavar="PAPER",
                        help=f"of {', '.join(PAPERS)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.papers) - set(PAPERS))
    if unknown:
        parser.error(f"unknown paper {unknown[0]!r}: expected one of {', '.join(PAPERS)}")
    fb09 = read_swim_workload(str(shared_root() / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"))
    with tempfile.TemporaryDirectory(prefix="jobsize-reproduce-") as scratch:
        for paper in args.papers or PAPERS:
            base = best_of(lambda: heap_replay(fb09, 128))
            wall = reproduce_s(paper, Path(scratch) / paper)
            verdict = "met" if wall <= GOAL_S else "MISSED"
            row(f"--reproduce {paper} wall", wall, "s", base, "heap-only replay",
                f"goal ≤ {GOAL_S:g} s: {verdict}")


if __name__ == "__main__":
    main()
