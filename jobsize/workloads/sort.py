"""Sort: identity map and identity reduce; the framework's shuffle does all the work.

Each input line ``key\\tvalue`` passes through the map unchanged, is partitioned and sorted by
key, and passes through the reduce unchanged, so every reduce output is its partition's records
in key order. The job is almost pure shuffle: map output equals map input.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import records, run


def identity(args: Sequence[str]) -> None:
    """Copy each record to the output (the map, and the reduce)."""
    write = sys.stdout.write
    for line in records():
        write(line + "\n")


if __name__ == "__main__":
    run({"map": identity, "reduce": identity})
