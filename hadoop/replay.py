"""A SWIM workload replayed on the mini cluster, as SWIM replays one on a real cluster.

A SWIM trace records, per job, its submission gap and three sizes: map input, shuffle and
output bytes. :func:`plan_from_swim` scales a run of consecutive jobs to the mini cluster —
bytes divided by ``data_scale`` (SWIM's own rule: the trace's cluster over this one's), gaps
multiplied by ``time_scale`` — and gives each job its reduces (one per ``reduce_bytes`` of
shuffle, as a cluster's users size them) and a queue (the smaller half of the jobs to
``adhoc``, the rest to ``default``: production and ad-hoc work, what capacity queues are for).

:func:`replay` writes each job's input (lines of text, its scaled size), hands the plan to the
Java client ``org.jobsize.hadoop.Replay`` — one JVM that submits every job at its time, without
waiting for the ones before, each a ``SwimWork`` job that turns its input into shuffle and its
shuffle into output at the trace's ratios — and collects the finished jobs' histories into a
job-record table and a task-attempt table, the form the simulator replays
(:func:`jobsize.sim.traces.read_local_workload`).
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from jobsize.hadoop.client import HadoopClient, generic_options, tail
from jobsize.hadoop.cluster import Cluster

from jobsize.atomic import atomic_write, atomic_write_text
from jobsize.errors import ConfigError, JobFailedError

REPLAY = "org.jobsize.hadoop.Replay"
#: Bytes of one line of a job's input (SwimWork pays its ratios per line read).
LINE = 100
#: The queues jobs are given, and the CapacityScheduler's capacities (percent) for them.
QUEUES = "prod:70,adhoc:30"
#: How each scheduler is run on the mini cluster: the ResourceManager's scheduler, its
#: capacity queues, and the queue of every job (None: the plan's, by size). FIFO is the
#: CapacityScheduler with one queue (FIFO inside, AMs held to half the cluster): Hadoop's
#: FifoScheduler limits no AM share, and on this workload its AMs took every container and none
#: of them got a task.
CLUSTER_RUNS: dict[str, tuple[str, str, str | None]] = {
    "fifo": ("capacity", "default:100", "default"),
    "fair": ("fair", QUEUES, None),
    "capacity": ("capacity", QUEUES, None),
}
#: Each job's containers: 1 GB each, so memory (what the Capacity and FIFO schedulers count)
#: and vcores (what the simulator's YARN model also counts) bind together — 4 a NodeManager.
JOB_CONF: Mapping[str, str] = {
    "yarn.app.mapreduce.am.resource.mb": "1024",
    "mapreduce.map.memory.mb": "1024",
    "mapreduce.reduce.memory.mb": "1024",
    "mapreduce.job.ubertask.enable": "false",
}


@dataclass(frozen=True)
class ReplayJob:
    """One job of the plan, scaled to the cluster."""

    name: str
    submit_s: float  # after the plan's first job
    queue: str
    reduces: int
    input_bytes: int
    shuffle_ratio: float  # shuffle bytes per input byte (0 for a map-only job)
    output_ratio: float  # output bytes per shuffle byte (map-only: per input byte)


def plan_from_swim(frame: pd.DataFrame, *, start: int = 0, jobs: int = 60,
                   data_scale: float = 300.0, time_scale: float = 0.5,
                   reduce_bytes: int = 64 << 20, max_reduces: int = 8,
                   max_input_bytes: int = 256 << 20) -> list[ReplayJob]:
    """Jobs ``start`` … ``start + jobs − 1`` of a SWIM table (:func:`read_swim`), scaled."""
    if jobs < 1 or start < 0 or start + jobs > len(frame):
        raise ConfigError(f"jobs {start}..{start + jobs - 1} are not in the trace's "
                          f"{len(frame)}", source="--start/--jobs")
    if data_scale <= 0 or time_scale <= 0:
        raise ConfigError("the data and time scales must be positive", source="--scale")
    rows = frame.iloc[start:start + jobs]
    submit = rows["submit_time_ms"].astype("float64").to_numpy() / 1000.0
    sizes = rows[["map_input_bytes", "reduce_shuffle_bytes", "reduce_output_bytes"]] \
        .astype("float64").to_numpy() / data_scale
    small = sizes.sum(axis=1) <= pd.Series(sizes.sum(axis=1)).median()
    plan = []
    for i, (name, (inp, shuffle, out)) in enumerate(zip(rows["job_id"].astype(str), sizes,
                                                        strict=True)):
        inp = min(max(inp, LINE), max_input_bytes)
        reduces = 0 if shuffle < 1 else min(max_reduces, max(1, math.ceil(shuffle / reduce_bytes)))
        plan.append(ReplayJob(
            name=f"swim-{name}", submit_s=round(float(submit[i] - submit[0]) * time_scale, 3),
            queue="adhoc" if small[i] else "prod", reduces=reduces,
            input_bytes=round(inp / LINE) * LINE,
            shuffle_ratio=float(shuffle / inp) if reduces else 0.0,
            output_ratio=float(out / shuffle if reduces else out / inp)))
    return plan


def write_input(path: Path, size: int) -> Path:
    """``size`` bytes of 100-byte lines at ``path``, unless a file of that size is there."""
    if path.is_file() and path.stat().st_size == size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    line = b"x" * (LINE - 1) + b"\n"
    block = line * (1 << 14)
    with atomic_write(path) as handle:
        left = size // LINE
        while left:
            n = min(left, 1 << 14)
            handle.write(block if n == 1 << 14 else line * n)
            left -= n
    return path


def plan_text(plan: Sequence[ReplayJob], inputs: Path, outputs: Path,
              queue: str | None = None) -> str:
    """The Java client's plan file; ``queue`` puts every job in one queue."""
    lines = ["name\tsubmit_s\tqueue\treduces\tshuffle_ratio\toutput_ratio\tinput\toutput"]
    for job in plan:
        ratio = job.shuffle_ratio if job.reduces else 1.0
        lines.append("\t".join(map(str, (
            job.name, job.submit_s, queue or job.queue, job.reduces, repr(ratio),
            repr(job.output_ratio), (inputs / f"{job.name}.txt").resolve(),
            (outputs / job.name).resolve()))))
    return "\n".join(lines) + "\n"


def replay(cluster: Cluster, plan: Sequence[ReplayJob], directory: str | Path, *,
           split_bytes: int = 16 << 20, queue: str | None = None,
           timeout_s: float | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run ``plan`` on ``cluster``; returns its job records and task attempts.

    Inputs are written under ``directory/inputs`` (kept: the next scheduler's run reads the
    same), outputs under ``directory/outputs`` (removed after), each job's ``.jhist`` and
    ``_conf.xml`` copied to ``directory/history``.
    """
    from jobsize.collectors.jhist import collect_jhist

    where = Path(directory)
    inputs, outputs, history = where / "inputs", where / "outputs", where / "history"
    for job in plan:
        write_input(inputs / f"{job.name}.txt", job.input_bytes)
    shutil.rmtree(outputs, ignore_errors=True)
    shutil.rmtree(history, ignore_errors=True)
    plan_file = where / "plan.tsv"
    atomic_write_text(plan_file, plan_text(plan, inputs, outputs, queue))
    conf = {**JOB_CONF, "mapreduce.input.fileinputformat.split.maxsize": str(split_bytes),
            "mapreduce.input.fileinputformat.split.minsize": str(split_bytes)}
    submission = HadoopClient(cluster).run(REPLAY, [*generic_options(conf), "--plan",
                                                    str(plan_file)], timeout_s=timeout_s)
    shutil.rmtree(outputs, ignore_errors=True)
    if len(submission.jobs) != len(plan):
        raise JobFailedError(f"{len(submission.jobs)} of {len(plan)} jobs were submitted "
                             f"(exit {submission.returncode}): {tail(submission.log)}",
                             source=str(plan_file))
    failed = [job.job_id for job in submission.jobs if job.state != "SUCCEEDED"]
    if failed:
        raise JobFailedError(f"{len(failed)} jobs did not succeed, the first {failed[0]}",
                             source=str(plan_file))
    history.mkdir(parents=True)
    for job in submission.jobs:
        shutil.copyfile(job.history_path, history / f"{job.job_id}.jhist")
        shutil.copyfile(job.conf_path, history / f"{job.job_id}_conf.xml")
    trace = collect_jhist([history])
    return trace.jobs, trace.tasks
