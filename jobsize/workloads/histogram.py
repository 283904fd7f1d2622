"""Revenue histograms per region: every map task ships a fixed-size table.

``map`` reads the sales table and counts each order's revenue (quantity × price) in one of
:data:`BUCKETS` logarithmic buckets, separately for each of the first :data:`REGIONS` region
names it meets (later regions share an overflow row); at the end it emits *every* cell —
``region:bucket\\tcount``, zeros included — as a dense histogram would be shipped. A map task's
output is :data:`REGIONS` × :data:`BUCKETS` records whatever its input size, so the shuffle and the
reduce grow with the number of maps, not with the input. ``reduce`` sums the cells and writes
the non-zero ones: ``region:bucket\\tlow\\tcount``, ``low`` the bucket's lower edge in cents.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

from jobsize.workloads.csvtable import cents
from jobsize.workloads.streaming import count, grouped, records, run

BUCKETS = 256
REGIONS = 40
OVERFLOW = "~other"
#: Bucket b holds revenues in [BASE^b, BASE^(b+1)) cents; bucket 0 also holds 0 and 1 cent.
BASE = 10 ** (8 / BUCKETS)  # 256 buckets span one cent to a million


def bucket(revenue_cents: int) -> int:
    """The bucket of a revenue in cents."""
    if revenue_cents <= 1:
        return 0
    return min(BUCKETS - 1, int(math.log(revenue_cents) / math.log(BASE)))


def lower_edge(b: int) -> int:
    return 0 if b == 0 else math.ceil(BASE ** b)


def mapper(args: Sequence[str]) -> None:
    rows: dict[str, list[int]] = {}
    malformed = 0
    for line in records():
        fields = line.split(",")
        try:
            revenue = int(fields[5]) * cents(fields[6])
            region = fields[2]
        except (IndexError, ValueError):
            malformed += 1
            continue
        row = rows.get(region)
        if row is None:
            if len(rows) >= REGIONS:
                region = OVERFLOW
            row = rows.setdefault(region, [0] * BUCKETS)
        row[bucket(revenue)] += 1
    count("MALFORMED_RECORDS", malformed)
    write = sys.stdout.write
    names = sorted(rows)
    names += [f"~unused{i:02d}" for i in range(REGIONS + 1 - len(names))]
    for name in names:
        row = rows.get(name) or [0] * BUCKETS
        for b, n in enumerate(row):
            write(f"{name}:{b:03d}\t{n}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        total = sum(map(int, values))
        if total:
            write(f"{key}\t{lower_edge(int(key.rpartition(':')[2]))}\t{total}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
