"""Bigram count: how often each pair of adjacent words occurs within a line.

``map`` emits ``first second\\t1`` for each adjacent pair of words (lower-cased letters and
digits, as word count); ``combine`` and ``reduce`` sum. The key space is far larger than the
vocabulary, so the combiner saves less than in word count and the reduce sees many keys.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import records, run, sum_values

_WORD = re.compile(r"[a-z0-9]+")


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    findall = _WORD.findall
    for line in records():
        words = findall(line.lower())
        for first, second in itertools.pairwise(words):
            write(f"{first} {second}\t1\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": sum_values, "reduce": sum_values})
