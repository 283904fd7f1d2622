"""Character bigrams without a combiner: many tiny records for every line of text.

``map`` emits ``xy\\t1`` for every pair of adjacent letters inside a word (lower-cased), so a
line of about 70 characters becomes some 45 records of 5 bytes; ``reduce`` sums the counts of
each bigram. The key space is at most 26 × 26 = 676 keys, and with no combiner every record
crosses the shuffle: the cost is in emitting, sorting and merging records, not in their bytes.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import records, run, sum_values

_WORD = re.compile(r"[a-z]{2,}")


def bigrams(line: str) -> list[str]:
    """The letter bigrams of ``line``'s words, in order (a word of n letters has n - 1)."""
    out = []
    for word in _WORD.findall(line.lower()):
        out.extend(word[i : i + 2] for i in range(len(word) - 1))
    return out


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for line in records():
        for gram in bigrams(line):
            write(f"{gram}\t1\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": sum_values})
