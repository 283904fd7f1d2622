"""Top-k: the k orders of largest revenue (quantity × price) in the sales table.

``map [K]`` (default 100) keeps the map task's k best rows in a heap and emits them at the end
under the single key ``top``; ``reduce [K]`` merges them and writes
``rank\\trevenue\\trow``. Ties go to the smaller order id. The map does all the work and ships
almost nothing: one reduce suffices whatever the input size.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.csvtable import amount, cents
from jobsize.workloads.streaming import UsageError, count, grouped, int_arg, records, run

KEY = "top"


def _k(args: Sequence[str]) -> int:
    k = int_arg(args, 0, "K", 100)
    if k < 1:
        raise UsageError(f"K must be at least 1, got {k}")
    return k


def _best(rows: Iterable[tuple[int, int, str]], k: int) -> list[tuple[int, int, str]]:
    """The k largest (revenue, -order id, row) entries, best first."""
    return heapq.nlargest(k, rows)


def _scored(lines: Iterable[str]) -> Iterable[tuple[int, int, str]]:
    malformed = 0
    for line in lines:
        fields = line.split(",")
        try:
            yield int(fields[5]) * cents(fields[6]), -int(fields[0]), line
        except (IndexError, ValueError):
            malformed += 1
    count("MALFORMED_RECORDS", malformed)


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for revenue, negative_id, line in _best(_scored(records()), _k(args)):
        write(f"{KEY}\t{revenue}\t{-negative_id}\t{line}\n")


def _parsed(values: Iterable[str]) -> Iterable[tuple[int, int, str]]:
    for value in values:
        revenue, order_id, line = value.split("\t", 2)
        yield int(revenue), -int(order_id), line


def reducer(args: Sequence[str]) -> None:
    k = _k(args)
    write = sys.stdout.write
    for _, values in grouped():
        for rank, (revenue, _, line) in enumerate(_best(_parsed(values), k), start=1):
            write(f"{rank}\t{amount(revenue)}\t{line}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
