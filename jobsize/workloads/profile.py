"""Measure the cost profile of each reference workload with a plain Unix pipeline.

``python -m jobsize.workloads.profile [--size BYTES] [--seed N] [NAME ...]`` generates each
workload's input, runs ``mapper < input | sort | combiner | sort | reducer`` as one task per
stage, and prints a table of where the work goes: CPU seconds per input MB of the map, the
combiner and the reduce (the programs' own CPU time, not the sort's), and the bytes of map
output, shuffle and job output per input byte. It shows the programs' costs independently of
any engine, which is how the profiles in the registry were checked.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jobsize.errors import JobFailedError, JobsizeError
from jobsize.workloads import WORKLOADS, Workload, workload

MB = 1_000_000


@dataclass(frozen=True)
class CostProfile:
    """Measured costs of one workload over one input (CPU in seconds, sizes in bytes)."""

    name: str
    input_bytes: int
    map_cpu_s: float
    map_output_bytes: int
    combine_cpu_s: float
    shuffle_bytes: int  # what the reduce reads: map output, after the combiner if any
    reduce_cpu_s: float
    output_bytes: int

    def per_mb(self, seconds: float) -> float:
        return seconds / (self.input_bytes / MB)

    def ratio(self, size: int) -> float:
        return size / self.input_bytes


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _stage(argv: Sequence[str], data: bytes, env: dict[str, str] | None = None
           ) -> tuple[bytes, float]:
    before = _children_cpu()
    done = subprocess.run(argv, input=data, capture_output=True, env=env)
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no stderr"]
        raise JobFailedError(f"{' '.join(argv)} exited {done.returncode}: {tail[0]}")
    return done.stdout, _children_cpu() - before


def _sorted(data: bytes) -> bytes:
    return _stage(["sort"], data, {**os.environ, "LC_ALL": "C"})[0]


def measure(job: Workload, directory: Path, size_bytes: int, seed: int = 1) -> CostProfile:
    """Generate ``job``'s input in ``directory`` and run its programs as one pipeline."""
    paths = job.generate(directory, size_bytes, seed)
    map_output, map_cpu = b"", 0.0
    for path in paths:
        env = {**os.environ, "mapreduce_map_input_file": str(path), "map_input_file": str(path)}
        out, cpu = _stage(job.mapper, path.read_bytes(), env)
        map_output += out
        map_cpu += cpu
    shuffle, combine_cpu, reduce_cpu, output = map_output, 0.0, 0.0, map_output
    if job.reducer is not None:
        if job.combiner is not None:
            shuffle, combine_cpu = _stage(job.combiner, _sorted(map_output))
        output, reduce_cpu = _stage(job.reducer, _sorted(shuffle))
    return CostProfile(
        name=job.name,
        input_bytes=sum(p.stat().st_size for p in paths),
        map_cpu_s=map_cpu,
        map_output_bytes=len(map_output),
        combine_cpu_s=combine_cpu,
        shuffle_bytes=len(shuffle) if job.reducer is not None else 0,
        reduce_cpu_s=reduce_cpu,
        output_bytes=len(output),
    )


HEADER = ("| workload | profile | map s/MB | combine s/MB | reduce s/MB | map out / in "
          "| shuffle / in | output / in |\n|---|---|---:|---:|---:|---:|---:|---:|")


def table_row(job: Workload, p: CostProfile) -> str:
    return (f"| {job.name} | {job.profile} | {p.per_mb(p.map_cpu_s):.3f} "
            f"| {p.per_mb(p.combine_cpu_s):.3f} | {p.per_mb(p.reduce_cpu_s):.3f} "
            f"| {p.ratio(p.map_output_bytes):.2f} | {p.ratio(p.shuffle_bytes):.3f} "
            f"| {p.ratio(p.output_bytes):.3f} |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jobsize.workloads.profile",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="workloads (default: all)")
    parser.add_argument("--size", type=int, default=10 * MB, help="input bytes (default 10 MB)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        jobs = [workload(n) for n in args.names] or list(WORKLOADS.values())
        print(HEADER)
        with tempfile.TemporaryDirectory(prefix="jobsize-profile-") as scratch:
            for job in jobs:
                profile = measure(job, Path(scratch) / job.name, args.size, args.seed)
                print(table_row(job, profile), flush=True)
    except JobsizeError as error:
        parser.exit(2, f"error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
