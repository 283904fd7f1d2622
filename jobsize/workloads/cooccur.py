"""Word co-occurrence, the "pairs" design: how often word b follows word a within a window.

``map [WINDOW]`` emits ``a b\\t1`` for every word ``b`` among the ``WINDOW`` (default 4) words
after ``a`` in the same line; ``combine`` and ``reduce`` sum. The map output is several times
the input — the job that shows how map output, not input, drives shuffle and reduce cost.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, int_arg, records, run, sum_values

_WORD = re.compile(r"[a-z0-9]+")


def mapper(args: Sequence[str]) -> None:
    window = int_arg(args, 0, "WINDOW", 4)
    if window < 1:
        raise UsageError(f"WINDOW must be at least 1, got {window}")
    write = sys.stdout.write
    findall = _WORD.findall
    for line in records():
        words = findall(line.lower())
        for i, first in enumerate(words):
            for second in words[i + 1 : i + 1 + window]:
                write(f"{first} {second}\t1\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": sum_values, "reduce": sum_values})
