"""Run a workload's programs as a real streaming pipeline: map | sort | (combine) | sort | reduce.

Every stage is a separate process. Map outputs are partitioned by a hash of the key, sorted by
the system ``sort`` in the C locale (byte order, as Hadoop compares Text keys), passed through
the combiner when asked, merged per partition, sorted again and fed to one reducer process per
partition — the data flow of Hadoop Streaming, without the engine under test elsewhere.
"""

from __future__ import annotations

import os
import subprocess
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jobsize.workloads import Workload


@dataclass
class JobRun:
    """What a pipeline run produced: map outputs and one output per reduce partition."""

    map_outputs: list[bytes]
    reduce_outputs: list[bytes]
    reduce_inputs: list[bytes] = field(default_factory=list)  # what each reduce was shuffled
    stderr: list[bytes] = field(default_factory=list)

    def lines(self) -> list[str]:
        """All output lines of the job (reduce outputs, or map outputs when map-only)."""
        parts = self.reduce_outputs if self.reduce_outputs else self.map_outputs
        return [line for part in parts for line in part.decode().splitlines()]

    def counter(self, name: str) -> int:
        """Sum of a streaming counter reported on the tasks' stderr."""
        total = 0
        for err in self.stderr:
            for line in err.decode().splitlines():
                prefix = "reporter:counter:jobsize.workloads,"
                if line.startswith(prefix + name + ","):
                    total += int(line.rsplit(",", 1)[1])
        return total


def _stage(
    argv: Sequence[str], data: bytes, env: dict[str, str] | None = None
) -> tuple[bytes, bytes]:
    done = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"{argv} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return done.stdout, done.stderr


def sort_lines(data: bytes) -> bytes:
    """The system sort in byte order."""
    return _stage(["sort"], data, {**os.environ, "LC_ALL": "C"})[0]


def splits(data: bytes, n: int) -> list[bytes]:
    """``data`` cut into ``n`` line-aligned pieces (fewer if it has fewer lines)."""
    lines = data.splitlines(keepends=True)
    size = -(-len(lines) // n) if lines else 1
    return [b"".join(lines[i : i + size]) for i in range(0, len(lines), size)] or [b""]


def partition(data: bytes, n: int) -> list[bytes]:
    parts: list[list[bytes]] = [[] for _ in range(n)]
    for line in data.splitlines(keepends=True):
        parts[zlib.crc32(line.split(b"\t", 1)[0].rstrip(b"\n")) % n].append(line)
    return [b"".join(p) for p in parts]


def run_job(workload: Workload, inputs: Sequence[Path], *, combine: bool = True,
            n_splits: int = 2, n_reduces: int = 2) -> JobRun:
    """Run ``workload`` over ``inputs`` as Hadoop Streaming would, one process per task."""
    run = JobRun([], [])
    buckets: list[list[bytes]] = [[] for _ in range(n_reduces)]
    for path in inputs:
        env = {**os.environ, "mapreduce_map_input_file": str(path), "map_input_file": str(path)}
        for piece in splits(path.read_bytes(), n_splits):
            out, err = _stage(workload.mapper, piece, env)
            run.map_outputs.append(out)
            run.stderr.append(err)
            if workload.reducer is None:
                continue
            for r, part in enumerate(partition(out, n_reduces)):
                if combine and workload.combiner is not None and part:
                    part, err = _stage(workload.combiner, sort_lines(part))
                    run.stderr.append(err)
                buckets[r].append(part)
    if workload.reducer is not None:
        for bucket in buckets:
            run.reduce_inputs.append(sort_lines(b"".join(bucket)))
            out, err = _stage(workload.reducer, run.reduce_inputs[-1])
            run.reduce_outputs.append(out)
            run.stderr.append(err)
    return run


@pytest.fixture(scope="session")
def job_runner():
    """``run_job(workload, inputs, combine=True, n_splits=2, n_reduces=2) -> JobRun``."""
    return run_job


@pytest.fixture(scope="session")
def inputs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workload-inputs")
