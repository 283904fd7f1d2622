"""Group-by aggregation over CSV: count, sum and average of a numeric column per key.

``map [KEY_COLUMN [VALUE_COLUMN]]`` (0-based, default 3 and 6: product and price of the sales
table) emits ``key\\t1\\t<value>``; ``combine`` adds partial counts and sums of a key into one
line of the same form; ``reduce`` writes ``key\\tcount\\tsum\\taverage``. Rows with too few
columns or a non-numeric value are skipped and counted (``MALFORMED_RECORDS``). An algebraic
aggregate: the combiner shrinks the shuffle to about one line per key and map task.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.csvtable import column_arg
from jobsize.workloads.streaming import count, grouped, records, run


def mapper(args: Sequence[str]) -> None:
    key_column = column_arg(args, 0, "KEY_COLUMN", 3)
    value_column = column_arg(args, 1, "VALUE_COLUMN", 6)
    needed = max(key_column, value_column) + 1
    write = sys.stdout.write
    malformed = 0
    for line in records():
        fields = line.split(",")
        if len(fields) < needed:
            malformed += 1
            continue
        try:
            value = float(fields[value_column])
        except ValueError:
            malformed += 1
            continue
        write(f"{fields[key_column]}\t1\t{value!r}\n")
    count("MALFORMED_RECORDS", malformed)


def _totals(values: Iterable[str]) -> tuple[int, float]:
    n, total = 0, 0.0
    for value in values:
        partial_count, _, partial_sum = value.partition("\t")
        n += int(partial_count)
        total += float(partial_sum)
    return n, total


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        n, total = _totals(values)
        write(f"{key}\t{n}\t{total!r}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        n, total = _totals(values)
        write(f"{key}\t{n}\t{total:.6f}\t{total / n:.6f}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
