"""Window functions per customer over the sales table — a SQL ``OVER (PARTITION BY ...)``.

``map`` emits ``customer\\tdate\\torder_id\\tquantity\\tprice`` per sales row (no computing);
``reduce`` orders each customer's purchases by date (then order id) and writes one line per
purchase: ``customer\\torder_id\\tdate\\trevenue\\tpurchase number\\trunning revenue\\trank``,
where rank is the purchase's place by revenue among the customer's purchases (1 = largest,
ties to the smaller order id). The map is trivial and the reduce parses, sorts twice and writes
every record: a reduce-heavy job.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.csvtable import amount, cents
from jobsize.workloads.streaming import count, grouped, records, run


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        fields = line.split(",")
        if len(fields) < 7 or not fields[4]:
            malformed += 1
            continue
        write(f"{fields[4]}\t{fields[1]}\t{fields[0]}\t{fields[5]}\t{fields[6]}\n")
    count("MALFORMED_RECORDS", malformed)


def _purchases(values: Iterable[str]) -> list[tuple[str, int, int]]:
    out = []
    for value in values:
        date, order_id, quantity, price = value.split("\t")
        out.append((date, int(order_id), int(quantity) * cents(price)))
    return out


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for customer, values in grouped():
        purchases = sorted(_purchases(values))
        by_revenue = sorted(purchases, key=lambda p: (-p[2], p[1]))
        rank = {p[1]: place for place, p in enumerate(by_revenue, start=1)}
        running = 0
        for number, (date, order_id, revenue) in enumerate(purchases, start=1):
            running += revenue
            write(f"{customer}\t{order_id}\t{date}\t{amount(revenue)}\t{number}\t"
                  f"{amount(running)}\t{rank[order_id]}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
