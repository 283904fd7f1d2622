"""Grep, map-only: the input lines that match a regular expression, unchanged.

``map PATTERN`` — Python ``re`` syntax, searched anywhere in the line. There is no reduce: the
job's output is the map output (map-only), a small fraction of the input for a selective
pattern.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, records, run


def compile_pattern(args: Sequence[str]) -> re.Pattern[str]:
    """The pattern given as the first argument."""
    if not args:
        raise UsageError("a regular expression is required")
    try:
        return re.compile(args[0])
    except re.error as error:
        raise UsageError(f"invalid regular expression {args[0]!r}: {error}") from None


def mapper(args: Sequence[str]) -> None:
    search = compile_pattern(args).search
    write = sys.stdout.write
    for line in records():
        if search(line):
            write(line + "\n")


if __name__ == "__main__":
    run({"map": mapper})
