"""Statistics of crawled pages, one whole page per record: very long records.

Each input line is a page, ``url\\ttext``, of tens to hundreds of kilobytes. ``map`` reads the
page's words and emits per site ``site\\tpages\\tbytes\\twords\\tdistinct\\tlinks``: the
page's length, word count, distinct words and ``[[link]]`` markers; ``combine`` and ``reduce``
sum them, and the reduce adds the mean page length (bytes per page) as a last field.
A split holds a handful of records, each costing as much as thousands of short ones.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence

from jobsize.workloads.streaming import count, grouped, records, run

_WORD = re.compile(r"[a-z0-9]+")
_LINK = "[["


def site(url: str) -> str:
    """The host of ``http://host/path`` (the url itself if it has no host part)."""
    rest = url.partition("://")[2] or url
    return rest.partition("/")[0]


def mapper(args: Sequence[str]) -> None:
    write = sys.stdout.write
    malformed = 0
    for line in records():
        url, sep, text = line.partition("\t")
        if not sep:
            malformed += 1
            continue
        words = _WORD.findall(text.lower())
        write(f"{site(url)}\t1\t{len(line.encode())}\t{len(words)}\t{len(set(words))}\t"
              f"{text.count(_LINK)}\n")
    count("MALFORMED_RECORDS", malformed)


def _sums(values: Iterable[str]) -> list[int]:
    sums = [0, 0, 0, 0, 0]
    for value in values:
        for i, field in enumerate(value.split("\t")):
            sums[i] += int(field)
    return sums


def combiner(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        write(f"{key}\t{chr(9).join(map(str, _sums(values)))}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for key, values in grouped():
        sums = _sums(values)
        write(f"{key}\t{chr(9).join(map(str, sums))}\t{sums[1] / sums[0]:.1f}\n")


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
