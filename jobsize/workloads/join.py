"""Reduce-side join of two CSV inputs on their key column: users ⋈ orders (inner join).

``map [LEFT_NAME]`` tells the inputs apart by the name of the file it reads, which Hadoop
Streaming passes in the ``mapreduce_map_input_file`` environment variable: a file whose name
starts with ``LEFT_NAME`` (default ``users``) holds left rows ``key,attributes...``; any other
file holds right rows ``id,key,attributes...`` (the key in the second column, as in the orders
table). The map emits ``key\\tL\\t<left attributes>`` or ``key\\tR\\t<right row without key>``.

``reduce`` meets both sides of a key — in any order, as the shuffle sorts keys only — and writes
one line per matching pair: ``key\\t<right fields>\\t<left fields>`` (tab-separated). Keys
present on one side only produce nothing. Every input row crosses the shuffle.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import count, grouped, input_file, records, run

LEFT, RIGHT = "L", "R"
TAB = "\t"


def mapper(args: Sequence[str]) -> None:
    left_name = args[0] if args else "users"
    # The variable may hold a URI (hdfs://.../users.csv): its last path segment is the name.
    name = os.path.basename(input_file().rstrip("/"))
    left = name.startswith(left_name)
    write = sys.stdout.write
    malformed = 0
    for line in records():
        fields = line.split(",")
        if len(fields) < 2 or not fields[0 if left else 1]:
            malformed += 1
        elif left:
            write(f"{fields[0]}\t{LEFT}\t{TAB.join(fields[1:])}\n")
        else:
            write(f"{fields[1]}\t{RIGHT}\t{TAB.join([fields[0], *fields[2:]])}\n")
    count("MALFORMED_RECORDS", malformed)


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        lefts: list[str] = []
        rights: list[str] = []
        for value in values:
            side, _, row = value.partition("\t")
            (lefts if side == LEFT else rights).append(row)
        for right in rights:
            for left in lefts:
                write(f"{key}\t{right}\t{left}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
