"""Word-count throughput of the local engine against a plain ``mapper | sort | reducer`` pipeline.

Both run the same streaming word-count mapper and reducer (Python programs) over the same
generated Zipf-like text in the same run; the pipeline is the shell's, with ``LC_ALL=C sort``.
The engine adds what a MapReduce job needs — splits, N_m maps and N_r reduces on a process pool,
partitioning, spills, the shuffle and merge, counters and the .jhist history — and gains from
running tasks in parallel on the machine's cores. Wall-clock throughput depends on what else the
machine is doing, so the CPU time both spend (processes and their children) is printed too.

    python benchmarks/engine.py [--mb 40] [--maps 8] [--reduces 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from common import row

from jobsize.engine import JobSpec, LocalEngine

MAPPER = """
import sys
write = sys.stdout.write
for line in sys.stdin:
    for word in line.split():
        write(word + "\\t1\\n")
"""

REDUCER = """
import sys
current, total = None, 0
for line in sys.stdin:
    key, _, value = line.rstrip("\\n").partition("\\t")
    if key != current:
        if current is not None:
            sys.stdout.write(f"{current}\\t{total}\\n")
        current, total = key, 0
    total += int(value)
if current is not None:
    sys.stdout.write(f"{current}\\t{total}\\n")
"""


def zipf_text(path: Path, megabytes: float, seed: int = 1) -> Path:
    """Lines of 10 Zipf-distributed words (exponent 1.2) until ``megabytes`` of text."""
    rng = np.random.default_rng(seed)
    target = int(megabytes * 1e6)
    with open(path, "w") as out:
        written = 0
        while written < target:
            words = np.char.add("w", rng.zipf(1.2, 100_000).astype(str))
            block = "\n".join(" ".join(words[i:i + 10]) for i in range(0, len(words), 10))
            out.write(block + "\n")
            written += len(block) + 1
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=40.0, help="input size in MB")
    parser.add_argument("--maps", type=int, default=8)
    parser.add_argument("--reduces", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jobsize-bench-") as tmp:
        root = Path(tmp)
        text = zipf_text(root / "text.txt", args.mb)
        size_mb = text.stat().st_size / 1e6
        for name, source in (("map.py", MAPPER), ("reduce.py", REDUCER)):
            (root / name).write_text(textwrap.dedent(source).lstrip())
        mapper = (sys.executable, "-S", str(root / "map.py"))
        reducer = (sys.executable, "-S", str(root / "reduce.py"))
        pipeline = (f"{shlex.join(mapper)} < {shlex.quote(str(text))} | LC_ALL=C sort | "
                    f"{shlex.join(reducer)} > {shlex.quote(str(root / 'pipe.out'))}")

        def shell() -> None:
            subprocess.run(["sh", "-c", pipeline], check=True, env={**os.environ, "LC_ALL": "C"})

        def job() -> None:
            # a fresh pool each time, so its workers' CPU is counted when it closes
            with LocalEngine() as engine:
                engine.run(JobSpec(inputs=text, output=root / "out", mapper=mapper,
                                   reducer=reducer, n_maps=args.maps, n_reduces=args.reduces,
                                   overwrite=True), history_dir=root / "history")

        (t_engine, cpu_engine), (t_shell, cpu_shell) = _measure([job, shell], args.repeat)
        engine_counts = _counts(sorted((root / "out").glob("part-*")))
        assert engine_counts == _counts([root / "pipe.out"]), "engine and pipeline disagree"
        print(f"word count of {size_mb:.1f} MB of Zipf text; engine: {args.maps} maps, "
              f"{args.reduces} reduces, {os.cpu_count()} workers; best of {args.repeat}; "
              f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M')}")
        row("engine word count throughput (wall)", size_mb / t_engine, "MB/s",
            size_mb / t_shell, "mapper | sort | reducer", "higher is better")
        row("engine word count per CPU second", size_mb / cpu_engine, "MB/cpu-s",
            size_mb / cpu_shell, "mapper | sort | reducer", "higher is better")


def _measure(fns: list, repeat: int) -> list[tuple[float, float]]:
    """Best wall time and least CPU time (this process and its waited-for children) of each
    function over ``repeat`` rounds, taking turns so a change of load hits both alike."""
    walls: list[list[float]] = [[] for _ in fns]
    cpus: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            before = _cpu()
            t0 = time.perf_counter()
            fn()
            walls[i].append(time.perf_counter() - t0)
            cpus[i].append(_cpu() - before)
    return [(min(w), min(c)) for w, c in zip(walls, cpus, strict=True)]


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _counts(paths: list[Path]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            word, _, n = line.partition("\t")
            counts[word] = int(n)
    return counts


if __name__ == "__main__":
    main()
