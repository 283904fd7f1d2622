"""The fluid model beside a peer simulator in the same run: bigfootproject/schedsim (the
simulator of Dell'Amico, Carra and Michiardi's size-based scheduling studies), on the SWIM
Facebook days, policy by policy.

Both simulate one rate-1 server fed the same jobs — SWIM's arrivals, sizes from the trace's
bytes as ``jobsize.sim.sweep.fluid_sizes`` makes them, exact size estimates — and the time of
each is its best of ``--repeat`` runs, the two run in turn. Printed per policy: this
simulator's seconds against schedsim's (goal: ratio ≤ 1), and the largest difference between
the two's completion times, a check that both simulated the same thing.

schedsim is not part of this project: give its checkout (``git clone
https://github.com/bigfootproject/schedsim``). It imports ``blist``, which no longer builds on
current Pythons; its three containers are supplied from ``sortedcontainers`` (``sortedlist``,
``sorteddict``) and ``list`` (``blist``), which keeps its algorithms as written.

    python benchmarks/sim_peer.py --schedsim DIR [--workload FB-2009|FB-2010] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row

from jobsize.sim.cluster import Cluster
from jobsize.sim.fluid import simulate_fluid
from jobsize.sim.load import load_workload
from jobsize.sim.sweep import fluid_sizes

#: This simulator's fluid policies and schedsim's scheduler classes for the same discipline.
PAIRS = {"fifo": "FIFO", "ps": "PS", "srpt": "SRPT", "srpt+ps": "SRPT_plus_PS",
         "fsp": "FSP", "fsp+ps": "FSP_plus_PS", "las": "LAS"}


def _schedsim(directory: Path) -> types.ModuleType:
    from sortedcontainers import SortedDict, SortedList

    shim = types.ModuleType("blist")
    shim.blist, shim.sorteddict, shim.sortedlist = list, SortedDict, SortedList
    sys.modules.setdefault("blist", shim)
    sys.path.insert(0, str(directory))
    import simulator  # schedsim's

    return simulator


def _theirs(simulator, jobs: list[tuple[int, float, float]], name: str) -> dict[int, float]:
    factory = getattr(simulator.schedulers, name)
    return {jobid: t for t, jobid in simulator.simulator(jobs, factory)}


def _best_of_both(mine, theirs, repeat: int) -> tuple[float, object, float, object]:
    """Best wall times of two functions run in turn ``repeat`` times, so that both see the
    same machine (it is shared and its load drifts)."""
    best = [float("inf"), float("inf")]
    out: list[object] = [None, None]
    for _ in range(repeat):
        for k, fn in enumerate((mine, theirs)):
            t0 = time.perf_counter()
            out[k] = fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best[0], out[0], best[1], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schedsim", type=Path, required=True, help="a schedsim checkout")
    parser.add_argument("--workload", default="FB-2009")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    simulator = _schedsim(args.schedsim)
    workload = load_workload(args.workload)
    arrival = workload.submit_s()
    size = fluid_sizes(workload, Cluster.parse("8x8g×8"))
    jobs = [(i, float(t), float(s)) for i, (t, s) in enumerate(zip(arrival, size, strict=True))]
    print(f"{workload.name}: {len(jobs)} jobs on one rate-1 server, exact sizes; best of "
          f"{args.repeat}")
    for ours, theirs in PAIRS.items():
        mine_s, result, peer_s, done = _best_of_both(
            lambda o=ours: simulate_fluid(arrival, size, o),
            lambda t=theirs: _theirs(simulator, jobs, t), args.repeat)
        peer = np.array([done[i] for i in range(len(jobs))])
        gap = float(np.max(np.abs(result.completion - peer)))
        row(f"fluid {ours} (schedsim {theirs}) s", mine_s, "s", peer_s, "schedsim",
            f"goal: ratio ≤ 1; completions differ by ≤ {gap:.3g} s")


if __name__ == "__main__":
    main()
