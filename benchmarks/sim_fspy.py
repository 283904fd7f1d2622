"""FSPY's simulation time on the FB-2009 day against Fair's, measured in the same run.

The whole SWIM FB-2009 day (5,894 jobs, 427,900 tasks at 64 MB blocks) in the YARN model under
Fair and under FSPY — with exact sizes and zero-cost probes, and with exact sizes known only
after a modelled probe (which then holds a container in the probing queue) — on the paper's
cluster (8 nodes × 8 GB × 8 vcores) and on the 16-node cluster of benchmarks/sim.py. The goal:
FSPY within 2× Fair's time, Fair run in the same Python loop as FSPY (not in the compiled core,
which does not know FSPY's decisions). Each row prints FSPY's tasks per second beside Fair's.

    python benchmarks/sim_fspy.py [--cluster SPEC ...] [--repeat N]

``fspy_rows(workload, cluster)`` is what benchmarks/sim.py calls for its FSPY-vs-Fair row.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row, shared_root

from jobsize.sim.cluster import Cluster
from jobsize.sim.costmodel import read_swim_workload
from jobsize.sim.eventloop import simulate
from jobsize.sim.predicted import WithProbe
from jobsize.sim.schedulers import Fair
from jobsize.sim.schedulers.fspy import FSPY
from jobsize.sim.size_sources import ExactSizes
from jobsize.sim.workload import Workload

GOAL = 2.0


def _best(make, workload: Workload, cluster: Cluster, repeat: int) -> tuple[float, object]:
    best, res = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = simulate(workload, cluster, make(), native=False)
        best = min(best, time.perf_counter() - t0)
    return best, res


def fspy_rows(workload: Workload, cluster: Cluster, label: str = "FB-2009",
              repeat: int = 1) -> None:
    """Print FSPY's tasks/s beside Fair's on ``workload`` (the goal: ≤ 2× Fair's time)."""
    n = workload.n_tasks
    fair_s, fair = _best(lambda: Fair(), workload, cluster, repeat)
    print(f"    fair (python loop): {fair_s:.1f} s, "
          f"mean response {fair.jobs.response_s.mean():.1f} s", flush=True)
    for make in (lambda: FSPY(), lambda: FSPY(WithProbe(ExactSizes()))):
        wall, res = _best(make, workload, cluster, repeat)
        ratio = wall / fair_s
        goal = f"time {ratio:.2f}× Fair's, goal ≤ {GOAL:g}×: {'met' if ratio <= GOAL else 'MISSED'}"
        row(f"yarn {label} {res.policy} tasks/s", n / wall, "tasks/s", n / fair_s, "fair", goal)
        print(f"    {res.events} events, mean response {res.jobs.response_s.mean():.1f} s",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cluster", action="append",
                        help="cluster spec (repeatable; default 8x8g×8 and 16x8g×8)")
    parser.add_argument("--repeat", type=int, default=1, help="best of N runs (default 1)")
    args = parser.parse_args()
    swim = shared_root() / "swim"
    fb09 = read_swim_workload(str(swim / "FB-2009_samples_24_times_1hr_0.tsv"))
    print(f"FB-2009: {fb09.n_jobs} jobs, {fb09.n_tasks} tasks")
    for spec in args.cluster or ["8x8g×8", "16x8g×8"]:
        fspy_rows(fb09, Cluster.parse(spec), f"FB-2009 {spec}", args.repeat)


if __name__ == "__main__":
    main()
