"""Simulator speed on the SWIM Facebook days.

Fluid model: FB-2009 (5,894 jobs) under each policy, in jobs per second, beside a closed-form
numpy FIFO of the same jobs. YARN model: the FB-2009 day (427,900 tasks at 64 MB blocks) under
Fair and FIFO (goal ≤ 10 s under Fair) and the FB-2010 day (16.6 M tasks; goal ≤ 30 s), in
tasks per second, beside a heap-only replay of the same tasks measured in the same run: the
tasks in job order on as many container slots as the cluster has, each one popping the earliest
free slot from a heap and pushing its finish — a discrete-event replay with no scheduling
decisions, the floor a Python event loop cannot go below. FIFO and Fair run in the compiled
core (jobsize.sim.native; its one-time compilation is timed apart, before the runs); Fair also
runs in the Python loop in the same run, as a second baseline, and the two must give the same
per-job times. FSPY on the FB-2009 day on the paper's cluster, beside Fair in the same run and
the same Python loop (goal ≤ 2× Fair's time; benchmarks/sim_fspy.py).

    python benchmarks/sim.py [--quick]    # --quick skips the FB-2010 day
"""

from __future__ import annotations

import argparse
import heapq
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row, shared_root
from sim_fspy import fspy_rows

from jobsize.sim.cluster import Cluster
from jobsize.sim.costmodel import read_swim_workload
from jobsize.sim.eventloop import simulate
from jobsize.sim.fluid import POLICIES, simulate_fluid
from jobsize.sim.schedulers import FIFO, Fair
from jobsize.sim.sweep import fluid_sizes
from jobsize.sim.workload import Workload, from_task_lists, make_jobs


def heap_replay(workload: Workload, slots: int) -> float:
    """Seconds to replay every task on ``slots`` identical slots with one heap."""
    durations = np.concatenate([workload.map_s, workload.reduce_s]).tolist()
    t0 = time.perf_counter()
    free = [0.0] * slots
    push, pop = heapq.heappush, heapq.heappop
    for d in durations:
        push(free, pop(free) + d)
    return time.perf_counter() - t0


def fifo_closed_form(arrival: np.ndarray, size: np.ndarray) -> float:
    t0 = time.perf_counter()
    done = np.empty_like(size)
    t = -np.inf
    for i, (a, s) in enumerate(zip(arrival.tolist(), size.tolist(), strict=True)):
        t = max(t, a) + s
        done[i] = t
    return time.perf_counter() - t0


def yarn_rows(label: str, workload: Workload, cluster: Cluster, goal_s: float) -> None:
    slots = cluster.total[0] // 1024
    base = heap_replay(workload, slots)
    n = workload.n_tasks
    runs = {}
    for policy, native in ((Fair(), True), (FIFO(), True), (Fair(), False)):
        t0 = time.perf_counter()
        res = simulate(workload, cluster, policy, native=native)
        wall = time.perf_counter() - t0
        core = res.meta.get("core", "python loop")
        runs[policy.name, native] = (res, wall)
        goal = f"goal ≤ {goal_s:g} s: {'met' if wall <= goal_s else 'MISSED'} ({wall:.1f} s)" \
            if policy.name == "fair" and native else f"({wall:.1f} s)"
        row(f"yarn {label} {policy.describe()} ({core}) tasks/s", n / wall, "tasks/s", n / base,
            "heap-only replay", goal)
        print(f"    {res.events} events, mean response {res.jobs.response_s.mean():.1f} s",
              flush=True)
    (fast, fast_s), (loop, loop_s) = runs["fair", True], runs["fair", False]
    same = fast.jobs.equals(loop.jobs) and fast.events == loop.events
    row(f"yarn {label} fair compiled core s", fast_s, "s", loop_s, "python loop",
        f"same per-job times: {'yes' if same else 'NO'}")


def warm_core() -> None:
    """Compile the core (or load it from numba's cache) before anything is timed."""
    t0 = time.perf_counter()
    simulate(from_task_lists("warm-up", make_jobs(1), [[1.0]], [[1.0]]),
             Cluster.parse("1x4g×4"), FIFO())
    print(f"compiled core ready in {time.perf_counter() - t0:.1f} s (once per install; "
          "numba caches it)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the FB-2010 day")
    args = parser.parse_args()
    swim = shared_root() / "swim"
    fb09 = read_swim_workload(str(swim / "FB-2009_samples_24_times_1hr_0.tsv"))
    print(f"FB-2009: {fb09.n_jobs} jobs, {fb09.n_tasks} tasks")
    paper = Cluster.parse("8x8g×8")
    size = fluid_sizes(fb09, paper)
    arrival = fb09.submit_s()
    base = min(fifo_closed_form(arrival, size) for _ in range(3))
    for name in POLICIES:
        if name in ("fspe", "psbs"):
            continue  # aliases
        t0 = time.perf_counter()
        simulate_fluid(arrival, size, name)
        wall = time.perf_counter() - t0
        row(f"fluid FB-2009 {name} jobs/s", fb09.n_jobs / wall, "jobs/s", fb09.n_jobs / base,
            "closed-form FIFO loop")
    warm_core()
    yarn_rows("FB-2009 16x8g×8", fb09, Cluster.parse("16x8g×8"), 10.0)
    fspy_rows(fb09, paper, "FB-2009 8x8g×8")
    if args.quick:
        return
    fb10 = read_swim_workload(str(swim / "FB-2010_samples_24_times_1hr_0.tsv"))
    print(f"FB-2010: {fb10.n_jobs} jobs, {fb10.n_tasks} tasks")
    yarn_rows("FB-2010 500x8g×8", fb10, Cluster.parse("500x8g×8"), 30.0)


if __name__ == "__main__":
    main()
