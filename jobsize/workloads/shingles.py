"""Word shingles of every document: a map-only job whose output is several times its input.

``map [WIDTH]`` writes one line per ``WIDTH``-word shingle (default 3) of each document
(``doc<id>\\t<text>``): ``id\\tposition\\tw1 w2 w3``, words lower-cased, positions from 0. A
document of n words gives n - WIDTH + 1 lines each repeating its id and WIDTH words, so the
output is about four to five times the input: the job's cost is in writing it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, count, int_arg, records, run

_WORD = re.compile(r"[a-z0-9]+")


def mapper(args: Sequence[str]) -> None:
    width = int_arg(args, 0, "WIDTH", 3)
    if width < 1:
        raise UsageError(f"WIDTH must be at least 1, got {width}")
    write = sys.stdout.write
    malformed = 0
    for line in records():
        doc_id, sep, text = line.partition("\t")
        if not sep:
            malformed += 1
            continue
        words = _WORD.findall(text.lower())
        for i in range(len(words) - width + 1):
            write(f"{doc_id}\t{i}\t{' '.join(words[i : i + width])}\n")
    count("MALFORMED_RECORDS", malformed)


if __name__ == "__main__":
    run({"map": mapper})
