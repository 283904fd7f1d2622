"""``jobsize hadoop replay``: a SWIM workload on the mini cluster under Hadoop's FIFO, Fair and
Capacity schedulers, and the same jobs in the simulator's YARN model.

    jobsize hadoop replay -o DIR [--workload FB-2009] [--start I] [--jobs N]
                          [--data-scale D] [--time-scale T] [--schedulers fifo,fair,capacity]
                          [--calibrate-on fifo] [--compare-only [--runs RUNS]]

For each scheduler the mini cluster is started with it (in DIR/cluster), the plan's jobs are
submitted at their times, and their histories become DIR/<scheduler>.parquet and its task
table; a run already there is kept (run the command again to resume). Then the YARN model
replays each run's attempts under the same scheduler on the same cluster shape, with its three
constants fitted to the ``--calibrate-on`` run, and DIR/fidelity.md, .json, .parquet and .png
report each job's error (simulated / measured − 1), the median and the 90th percentile.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from jobsize.cli._options import add_output, count, name_list, positive_number

SCHEDULERS = ("fifo", "fair", "capacity")
#: The default window of FB-2009: 60 jobs of the day's busier hours (they span 608 s of the
#: trace; the median 60-job window spans 709 s).
START = 2000


def add_arguments(actions: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = actions.add_parser(
        "replay", help="replay a SWIM workload on the cluster under FIFO, Fair and Capacity "
        "and check the simulator against it",
        description="Replay consecutive jobs of a SWIM trace, scaled to the mini cluster, under "
        "each of Hadoop's schedulers; then simulate the same jobs and report the error of "
        "each job's response time.")
    add_output(p, metavar="DIR", help="directory of the runs and the report (resumable)")
    p.add_argument("--workload", default="FB-2009", metavar="SWIM",
                   help="a SWIM workload file, or the bundled FB-2009 (default)")
    p.add_argument("--start", type=count(0), default=START, metavar="I",
                   help=f"index of the first job (default {START})")
    p.add_argument("--jobs", type=count(1), default=60, metavar="N",
                   help="consecutive jobs to replay (default 60)")
    p.add_argument("--data-scale", type=positive_number, default=600.0, metavar="D",
                   help="divide the trace's bytes by D (default 600)")
    p.add_argument("--time-scale", type=positive_number, default=0.5, metavar="T",
                   help="multiply the trace's gaps by T (default 0.5)")
    p.add_argument("--schedulers", default=",".join(SCHEDULERS),
                   type=lambda t: name_list(t, SCHEDULERS.__contains__, "scheduler",
                                            f"choose from {', '.join(SCHEDULERS)}"),
                   help="Hadoop schedulers to run under (default fifo,fair,capacity)")
    p.add_argument("--calibrate-on", choices=SCHEDULERS, default="fifo",
                   help="the run the simulator's constants are fitted to (default fifo)")
    p.add_argument("--compare-only", action="store_true",
                   help="only compare runs already made with the simulator")
    p.add_argument("--runs", metavar="RUNS",
                   help="with --compare-only: the directory holding the runs (default DIR; "
                   "the bundled runs are in datasets/hadoop-replay)")
    return p


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    if not args.compare_only:
        _run_on_cluster(args, out)
    runs = Path(args.runs) if args.compare_only and args.runs else out
    report = _compare(runs, out, args.schedulers, args.calibrate_on)
    print(report)
    return 0


def _plan(args: argparse.Namespace) -> list[Any]:
    from jobsize.collectors.swim import read_swim
    from jobsize.hadoop.replay import plan_from_swim

    return plan_from_swim(read_swim(args.workload), start=args.start, jobs=args.jobs,
                          data_scale=args.data_scale, time_scale=args.time_scale)


def _run_on_cluster(args: argparse.Namespace, out: Path) -> None:
    import os
    import time

    from jobsize.atomic import atomic_write_text
    from jobsize.benchtrace.tracedir import machine
    from jobsize.hadoop import down, up
    from jobsize.hadoop.replay import CLUSTER_RUNS, replay
    from jobsize.progress import progress_bar
    from jobsize.schema import write_trace_with_tasks

    plan = _plan(args)
    todo = [s for s in args.schedulers if not (out / f"{s}.parquet").exists()]
    for scheduler in todo:
        with progress_bar(f"{scheduler}: {len(plan)} jobs on the mini cluster"):
            started = time.time()
            rm_scheduler, queues, queue = CLUSTER_RUNS[scheduler]
            cluster = up(out / "cluster", scheduler=rm_scheduler, queues=queues)
            try:
                jobs, tasks = replay(cluster, plan, out / "work", queue=queue)
            finally:
                down(out / "cluster")
        write_trace_with_tasks(jobs, tasks, out / f"{scheduler}.parquet")
        meta = {"scheduler": scheduler, "workload": str(args.workload), "start": args.start,
                "jobs": args.jobs, "data_scale": args.data_scale,
                "time_scale": args.time_scale, "rm_scheduler": rm_scheduler, "queues": queues,
                "cluster": f"{cluster.nodemanagers}x{cluster.nm_memory_mb}x{cluster.nm_vcores}",
                "hadoop": cluster.hadoop_version, "machine": machine(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                "wall_s": round(time.time() - started, 1),
                "load_after": round(os.getloadavg()[0], 2)}
        atomic_write_text(out / f"{scheduler}.run.json", json.dumps(meta, indent=2) + "\n")
        print(f"{scheduler}: {len(jobs)} jobs in {meta['wall_s']:.0f} s", file=sys.stderr)


def read_run(where: Path, scheduler: str) -> tuple[Any, Any, dict[str, Any]]:
    """A run of ``where``: its job records, task attempts and how it was made."""
    from jobsize.errors import ConfigError
    from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path

    path = where / f"{scheduler}.parquet"
    if not path.exists():
        raise ConfigError(f"no {scheduler} run here (run without --compare-only first)",
                          source=path)
    return (read_trace(path), read_trace(tasks_path(path), columns=TASK_COLUMNS),
            json.loads((where / f"{scheduler}.run.json").read_text()))


def settings() -> dict[str, Any]:
    """What the simulator is told of each scheduler as the mini cluster runs it
    (:data:`CLUSTER_RUNS`)."""
    from jobsize.hadoop.replay import CLUSTER_RUNS
    from jobsize.sim.fidelity import Setting

    queues = ",".join(f"{name}:{float(pct) / 100:g}:1"
                      for name, pct in (q.split(":") for q in CLUSTER_RUNS["capacity"][1]
                                        .split(",")))
    # The CapacityScheduler's AM share is 0.5 (the mini cluster's maximum-am-resource-percent,
    # of each queue), the FairScheduler's maxAMShare 0.5 by default.
    return {"fifo": Setting("fifo", max_am_share=0.5),
            "fair": Setting("fair", max_am_share=0.5),
            "capacity": Setting("capacity", capacity_queues=queues, max_am_share=0.5)}


def _compare(where: Path, out: Path, schedulers: tuple[str, ...], calibrate_on: str) -> str:
    import pandas as pd

    from jobsize.atomic import atomic_write, atomic_write_text
    from jobsize.sim.cluster import Cluster
    from jobsize.sim.fidelity import (
        Constants,
        as_before,
        calibrate,
        compare,
        history_times,
        measured_response_s,
        simulated_response_s,
        summary,
        transplant,
    )

    runs = {s: read_run(where, s) for s in dict.fromkeys((calibrate_on, *schedulers))}
    meta = runs[calibrate_on][2]
    nodes, mem, vcores = (int(x) for x in meta["cluster"].split("x"))
    cluster = Cluster.homogeneous(nodes, mem, vcores)
    setting = settings()
    jobs, tasks, _ = runs[calibrate_on]
    constants, _ = calibrate(jobs, tasks, cluster, setting[calibrate_on])
    rows, frames = [], []
    base_jobs, base_tasks, _ = runs[calibrate_on]
    for s in schedulers:
        jobs, tasks, run_meta = runs[s]
        measured = measured_response_s(jobs)
        cases = [("its own", "none", tasks, Constants()),
                 ("its own", f"fitted on {calibrate_on}", tasks, constants)]
        if s != calibrate_on:
            cases.append((f"the {calibrate_on} run's", f"fitted on {calibrate_on}",
                          transplant(base_jobs, base_tasks, jobs), constants))
        for attempts, label, task_table, c in cases:
            frame = compare(measured, simulated_response_s(jobs, task_table, cluster,
                                                           setting[s], c))
            rows.append({"scheduler": s, "attempts": attempts, "constants": label,
                         **summary(frame), "load_after": run_meta["load_after"]})
            if label != "none" and attempts == "its own":
                frames.append(frame.assign(scheduler=s).reset_index())
        if s != calibrate_on:  # the baseline: each job takes as long as it took there
            frame = compare(measured, as_before(base_jobs, jobs))
            rows.append({"scheduler": s, "attempts": f"none: as long as under {calibrate_on}",
                         "constants": "-", **summary(frame),
                         "load_after": run_meta["load_after"]})
    table = pd.DataFrame(rows)
    per_job = pd.concat(frames, ignore_index=True)
    with atomic_write(out / "fidelity.parquet") as handle:
        per_job.to_parquet(handle, index=False)
    result = {"constants": constants.as_dict(), "calibrated_on": calibrate_on,
              "history_times": {s: history_times(*runs[s][:2]) for s in schedulers},
              "runs": {s: runs[s][2] for s in schedulers},
              "summary": table.to_dict(orient="records")}
    atomic_write_text(out / "fidelity.json", json.dumps(result, indent=2) + "\n")
    _figure(per_job, out / "fidelity.png")
    text = _markdown(table, constants, calibrate_on, result["history_times"])
    atomic_write_text(out / "fidelity.md", text)
    return text


def _markdown(table: Any, constants: Any, calibrate_on: str,
              times: dict[str, dict[str, float]]) -> str:
    lines = [f"Constants fitted on the {calibrate_on} run: AM start-up "
             f"{constants.am_startup_s:g} s plus {constants.am_startup_per_am_s:g} s per AM "
             f"starting beside it, task overhead {constants.task_overhead_s:g} s, commit "
             f"{constants.commit_s:g} s.", "",
             "| scheduler | attempts replayed | constants | jobs | median \\|error\\| | p90 "
             "\\|error\\| | median error | mean response measured / simulated (s) |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in table.itertuples():
        lines.append(f"| {r.scheduler} | {r.attempts} | {r.constants} | {r.jobs} | "
                     f"{r.median_abs_error:.1%} | {r.p90_abs_error:.1%} | {r.median_error:+.1%} "
                     f"| {r.mean_measured_s:.1f} / {r.mean_simulated_s:.1f} |")
    lines += ["", "What the histories show (medians, s): "
              + "; ".join(f"{s}: submit→launch {t['submit_to_launch_s']:g}, launch→first task "
                          f"{t['launch_to_first_task_s']:g}, last task→finish "
                          f"{t['last_task_to_finish_s']:g}" for s, t in times.items()), ""]
    return "\n".join(lines)


def _figure(per_job: Any, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from jobsize.sim.figures import save

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for s, group in per_job.groupby("scheduler", sort=False):
        ax.scatter(group["measured_s"], group["simulated_s"], s=14, label=s, alpha=0.8)
    lo = float(min(per_job["measured_s"].min(), per_job["simulated_s"].min())) * 0.8
    hi = float(max(per_job["measured_s"].max(), per_job["simulated_s"].max())) * 1.25
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    ax.fill_between([lo, hi], [lo * 0.8, hi * 0.8], [lo * 1.2, hi * 1.2], color="grey",
                    alpha=0.15, label="±20 %")
    ax.set(xscale="log", yscale="log", xlabel="response time on Hadoop (s)",
           ylabel="response time in the YARN model (s)",
           title="Each job: the mini cluster and the simulator")
    ax.legend()
    save(fig, path)
