"""Algorithm 1 against a full-scan reservoir sample, at f_p = 1 % of a ≥ 1 GiB text input.

Generates the input under a temporary directory (deleted afterwards), then times, in the same
run, (a) the sampler — 16 splits of 64 MiB, N_m = 16, N_r = 100, so f_p = 1/100 — and (b) a
uniform reservoir sample of as many lines as the sampler returned, drawn by scanning every line
(Algorithm L, with the skipped lines consumed in C by ``itertools.islice`` — about the fastest
full scan Python does). Both read the freshly written file from the page cache, which favours
the scan; on a cold disk or over WebHDFS the gap is larger.

Goals: sampler ≥ 20× faster (time ratio ≤ 0.05); bytes read ≤ 1.1 × f_p × input.

    python benchmarks/sampler.py [--size-mib 1024]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from itertools import islice
from pathlib import Path

import numpy as np

# This script is itself named sampler.py: take its directory off the path so that ``sampler``
# is the package, then put it back (at the end) for ``common``.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
from jobsize.sampler.sampling import sample  # noqa: E402
from jobsize.sampler.splits import local_splits  # noqa: E402

sys.path.append(str(_HERE))
from common import best_of, row  # noqa: E402

MIB = 1 << 20


def generate(path: Path, size: int, seed: int = 0) -> None:
    """Write ``size`` bytes of random lower-case text lines (mean ~60 bytes) to ``path``."""
    rng = np.random.default_rng(seed)
    block_size = 8 * MIB
    blocks = []
    for _ in range(16):
        block = rng.integers(ord("a"), ord("z") + 1, size=block_size, dtype=np.uint8)
        block[rng.random(block_size) < 1 / 6] = ord(" ")
        block[rng.random(block_size) < 1 / 60] = ord("\n")
        block[-1] = ord("\n")
        blocks.append(block.tobytes())
    with open(path, "wb") as handle:
        written = 0
        while written < size:
            block = blocks[int(rng.integers(len(blocks)))][: size - written]
            handle.write(block)
            written += len(block)


def reservoir(path: Path, k: int, seed: int) -> tuple[list[bytes], int]:
    """Algorithm L (Li 1994): a uniform sample of ``k`` lines in one pass over every line."""
    rng = np.random.default_rng(seed)
    with open(path, "rb", buffering=1 << 20) as handle:
        sample_ = list(islice(handle, k))
        w = math.exp(math.log(rng.random()) / k)
        while True:
            skip = int(math.log(rng.random()) / math.log(1 - w))
            line = next(islice(handle, skip, None), None)
            if line is None:
                break
            sample_[int(rng.integers(k))] = line
            w *= math.exp(math.log(rng.random()) / k)
        return sample_, handle.tell()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024, help="input size (default 1024)")
    args = parser.parse_args()
    size = args.size_mib * MIB
    n_maps, n_reduces, max_splits = 16, 100, 16
    with tempfile.TemporaryDirectory(prefix="jobsize-bench-sampler-") as tmp:
        path = Path(tmp) / "input.txt"
        generate(path, size)
        splits = local_splits(path, 64 * MIB)
        n_maps = len(splits)
        target = 1 / max(n_maps, n_reduces)
        result = sample(splits, n_maps, n_reduces, max_splits, seed=1)
        lines = result.data.count(b"\n")
        t_sample = best_of(lambda: sample(splits, n_maps, n_reduces, max_splits, seed=1), 5)
        scan_bytes = 0

        def scan() -> None:
            nonlocal scan_bytes
            scan_bytes = reservoir(path, lines, seed=1)[1]

        t_scan = best_of(scan, 2)
        print(f"input {size / MIB:.0f} MiB in {len(splits)} splits of 64 MiB; N_m = {n_maps}, "
              f"N_r = {n_reduces}, f_p target {target:.4g}, achieved {result.fraction:.5g}; "
              f"{len(result.splits_chosen)} splits sampled, {lines} lines")
        row("sampler time (Algorithm 1, seek)", t_sample, "s", t_scan,
            "reservoir full scan", "goal ratio <= 0.05 (>= 20x faster)")
        print(f"{'speed-up':<44} {t_scan / t_sample:>14.4g} x")
        row("sampler bytes read", result.bytes_read, "bytes", target * size,
            "f_p x input", "goal ratio <= 1.1")
        row("reservoir bytes read", scan_bytes, "bytes", target * size, "f_p x input")


if __name__ == "__main__":
    main()
