"""Traffic per network operator: every task first builds an address-range table.

A real job of this kind loads a GeoIP/ASN database into memory before it reads its first
record. Here each task builds the table itself, the same in every task: :data:`RANGES` address
ranges, their starts drawn from a fixed seed and sorted, each owned by one of :data:`OPERATORS`
operators with a generated name. That start-up is real work — hundreds of thousands of random
numbers, a sort and the names — paid once per task whatever its input.

``map`` looks up each access-log line's client address (binary search) and emits
``operator\\tbytes``; ``combine`` sums per operator; ``reduce`` builds the same table to name the
operators and writes ``operator\\tname\\trequests\\tbytes``.
"""

from __future__ import annotations

import bisect
import functools
import random
import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.streaming import count, grouped, records, run

RANGES = 1_000_000
OPERATORS = 20_000
SEED = 20_240_917
_SYLLABLES = tuple(c + v for c in "bdfgklmnprstvz" for v in "aeiou")


@functools.cache
def table() -> tuple[list[int], list[int], list[str]]:
    """(sorted range starts, operator of each range, operator names): built, not loaded."""
    draw = random.Random(SEED)
    starts = sorted(draw.getrandbits(32) for _ in range(RANGES))
    starts[0] = 0  # every address falls in some range
    owners = [draw.randrange(OPERATORS) for _ in range(RANGES)]
    names = ["".join(draw.choice(_SYLLABLES) for _ in range(2 + i % 3)).capitalize() + " Net"
             for i in range(OPERATORS)]
    return starts, owners, names


def address(text: str) -> int:
    """A dotted IPv4 address as a 32-bit integer (ValueError if it is not one)."""
    parts = text.split(".")
    if len(parts) != 4:
        raise ValueError(f"not an IPv4 address: {text!r}")
    value = 0
    for part in parts:
        octet = int(part)
        if not 0 <= octet <= 255:
            raise ValueError(f"not an IPv4 address: {text!r}")
        value = value << 8 | octet
    return value


def operator(ip: int) -> int:
    starts, owners, _ = table()
    return owners[bisect.bisect_right(starts, ip) - 1]


def mapper(args: Sequence[str]) -> None:
    table()  # the start-up, before the first record
    write = sys.stdout.write
    malformed = 0
    for line in records():
        fields = line.split(" ")
        try:
            ip = address(fields[0])
            size = int(fields[9]) if fields[9] != "-" else 0
        except (IndexError, ValueError):
            malformed += 1
            continue
        write(f"{operator(ip)}\t1\t{size}\n")
    count("MALFORMED_RECORDS", malformed)


def _totals(values: Iterable[str]) -> tuple[int, int]:
    requests = size = 0
    for value in values:
        n, _, b = value.partition("\t")
        requests += int(n)
        size += int(b)
    return requests, size


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        requests, size = _totals(values)
        write(f"{key}\t{requests}\t{size}\n")


def reducer(args: Sequence[str]) -> None:
    names = table()[2]
    write = sys.stdout.write
    for key, values in grouped():
        requests, size = _totals(values)
        write(f"{key}\t{names[int(key)]}\t{requests}\t{size}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
