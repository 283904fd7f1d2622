"""Log parsing, map-only ETL: web server access logs to a tab-separated table.

``map`` turns each Combined Log Format line into
``user\\tepoch_seconds\\tmethod\\tpath\\tstatus\\tbytes\\thost``; lines not in the format are
skipped and counted (``MALFORMED_RECORDS``). Map-only, with output about half the input and a
regular expression per line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from jobsize.workloads.accesslog import parse
from jobsize.workloads.streaming import count, records, run


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        r = parse(line)
        if r is None:
            malformed += 1
            continue
        write(f"{r.user}\t{r.epoch}\t{r.method}\t{r.path}\t{r.status}\t{r.size}\t{r.host}\n")
    count("MALFORMED_RECORDS", malformed)


if __name__ == "__main__":
    run({"map": mapper})
