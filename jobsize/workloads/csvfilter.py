"""Filter and project, map-only: the bulk orders of the sales table with their revenue.

``map [MIN_QUANTITY]`` (default 3) keeps the rows whose quantity is at least ``MIN_QUANTITY``
and writes ``order_id\\tcustomer\\tproduct\\trevenue`` — a SQL ``SELECT ... WHERE``. Map-only;
its output is a sizeable fraction of the input (about a third with the default).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobsize.workloads.csvtable import amount, cents
from jobsize.workloads.streaming import count, int_arg, records, run


def mapper(args: Sequence[str]) -> None:
    least = int_arg(args, 0, "MIN_QUANTITY", 3)
    write = sys.stdout.write
    malformed = 0
    for line in records():
        fields = line.split(",")
        try:
            quantity = int(fields[5])
            if quantity >= least:
                revenue = amount(quantity * cents(fields[6]))
                write(f"{fields[0]}\t{fields[4]}\t{fields[3]}\t{revenue}\n")
        except (IndexError, ValueError):
            malformed += 1
    count("MALFORMED_RECORDS", malformed)


if __name__ == "__main__":
    run({"map": mapper})
