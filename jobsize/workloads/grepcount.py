"""Grep counting, as Hadoop's Grep example: how often each match of a regular expression occurs.

``map PATTERN`` emits ``match\\t1`` for every non-overlapping match in a line (the whole match,
group 0); ``combine`` and ``reduce`` sum the counts of each distinct match.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobsize.workloads.grep import compile_pattern
from jobsize.workloads.streaming import records, run, sum_values


def mapper(args: Sequence[str]) -> None:
    finditer = compile_pattern(args).finditer
    write = sys.stdout.write
    for line in records():
        for match in finditer(line):
            write(f"{match.group(0)}\t1\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": sum_values, "reduce": sum_values})
