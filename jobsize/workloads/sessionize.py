"""Web-log sessionization: each user's requests cut into sessions at gaps of inactivity.

``map`` parses each access-log line and emits ``user\\tepoch\\tpath``. ``reduce [GAP]`` sorts a
user's requests by time and starts a new session wherever two requests are more than ``GAP``
seconds apart (default 1800, half an hour). It writes each request tagged with its session —
``user\\tsession number\\tepoch\\tseconds into the session\\tstep in the session\\tpath`` —
the clickstream table later jobs aggregate. The reduce holds and sorts a whole user's history,
and a few very active users dominate: reduces of very unequal size.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.accesslog import parse
from jobsize.workloads.streaming import UsageError, count, grouped, int_arg, records, run


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        r = parse(line)
        if r is None:
            malformed += 1
            continue
        write(f"{r.user}\t{r.epoch}\t{r.path}\n")
    count("MALFORMED_RECORDS", malformed)


def sessions(hits: Iterable[tuple[int, str]], gap: int) -> list[list[tuple[int, str]]]:
    """Time-ordered hits split where consecutive hits are more than ``gap`` seconds apart."""
    out: list[list[tuple[int, str]]] = []
    last = None
    for hit in sorted(hits):
        if last is None or hit[0] - last > gap:
            out.append([])
        out[-1].append(hit)
        last = hit[0]
    return out


def _hits(values: Iterable[str]) -> Iterable[tuple[int, str]]:
    for value in values:
        epoch, _, path = value.partition("\t")
        yield int(epoch), path


def reducer(args: Sequence[str]) -> None:
    gap = int_arg(args, 0, "GAP", 1800)
    if gap < 0:
        raise UsageError(f"GAP must be non-negative, got {gap}")
    write = sys.stdout.write
    for user, values in grouped():
        for number, session in enumerate(sessions(_hits(values), gap), start=1):
            start = session[0][0]
            for step, (epoch, path) in enumerate(session, start=1):
                write(f"{user}\t{number}\t{epoch}\t{epoch - start}\t{step}\t{path}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
