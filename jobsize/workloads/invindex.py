"""Inverted index: for each word, the documents it occurs in.

Input lines are ``doc_id\\ttext``. ``map`` emits ``word\\tdoc_id`` once per distinct word of a
document; ``reduce`` writes ``word\\tdocument count\\tdoc_id,doc_id,...`` with the ids sorted.
Every (word, document) pair crosses the shuffle and the output is about as large as the map
output — a shuffle- and output-heavy job.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import count, grouped, records, run

_WORD = re.compile(r"[a-z0-9]+")


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    findall = _WORD.findall
    malformed = 0
    for line in records():
        doc, tab, text = line.partition("\t")
        if not tab or not doc:
            malformed += 1
            continue
        for word in set(findall(text.lower())):
            write(f"{word}\t{doc}\n")
    count("MALFORMED_RECORDS", malformed)


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for word, docs in grouped():
        unique = sorted(set(docs))
        write(f"{word}\t{len(unique)}\t{','.join(unique)}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
