"""Distinct: the distinct (user, page) pairs of an access log — ``SELECT DISTINCT user, path``.

``map`` emits ``user path\\t`` (key only) per request; ``combine`` keeps one line per distinct
key of its map task; ``reduce`` writes each distinct ``user path`` once. Lines not in the log
format are skipped and counted.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobsize.workloads.accesslog import parse
from jobsize.workloads.streaming import count, grouped, records, run


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        r = parse(line)
        if r is None:
            malformed += 1
            continue
        write(f"{r.user} {r.path}\t\n")
    count("MALFORMED_RECORDS", malformed)


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, _ in grouped():
        write(f"{key}\t\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, _ in grouped():
        write(f"{key}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
