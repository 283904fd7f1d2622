"""Word count: the number of occurrences of each word (lower-cased letters and digits).

``map`` emits ``word\\t1`` per word; ``combine`` and ``reduce`` sum the counts of a word, so
the same program serves as the combiner. Without the combiner every word occurrence crosses the
shuffle (shuffle-heavy); with it a map task ships one line per distinct word (map-heavy).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import records, run, sum_values

_WORD = re.compile(r"[a-z0-9]+")


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    findall = _WORD.findall
    for line in records():
        for word in findall(line.lower()):
            write(f"{word}\t1\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": sum_values, "reduce": sum_values})
