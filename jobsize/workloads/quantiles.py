"""Quantiles per key over CSV: count, minimum, median, 90th and 99th percentile, maximum.

``map [KEY_COLUMN [VALUE_COLUMN]]`` (0-based, default 2 and 6: region and price of the sales
table) emits ``key\\tvalue``; ``reduce`` sorts each key's values and writes
``key\\tcount\\tmin\\tp50\\tp90\\tp99\\tmax`` with nearest-rank percentiles (the smallest value
with at least q·n values at or below it). A holistic aggregate: no combiner can shrink it, every
record crosses the shuffle, and the reduce sorts whole groups — a reduce-heavy job whose few
hot keys make the reduces unequal.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

from jobsize.workloads.csvtable import column_arg
from jobsize.workloads.streaming import count, grouped, records, run

LEVELS = (0.5, 0.9, 0.99)


def mapper(args: Sequence[str]) -> None:
    key_column = column_arg(args, 0, "KEY_COLUMN", 2)
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
            float(fields[value_column])
        except ValueError:
            malformed += 1
            continue
        write(f"{fields[key_column]}\t{fields[value_column]}\n")
    count("MALFORMED_RECORDS", malformed)


def nearest_rank(ordered: Sequence[float], level: float) -> float:
    """The nearest-rank quantile of sorted values."""
    return ordered[max(math.ceil(level * len(ordered)), 1) - 1]


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        ordered = sorted(map(float, values))
        cuts = "\t".join(repr(nearest_rank(ordered, q)) for q in LEVELS)
        write(f"{key}\t{len(ordered)}\t{ordered[0]!r}\t{cuts}\t{ordered[-1]!r}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
