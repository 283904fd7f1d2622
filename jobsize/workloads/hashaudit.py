"""Password-hash audit: a CPU-bound map whose output is one line per task.

``map [ITERATIONS]`` derives a PBKDF2-HMAC-SHA256 key (``ITERATIONS`` rounds, default
:data:`ITERATIONS`) from each record's key field, salted with its row field, as an audit of
stored password hashes recomputes them; it counts the digests whose first byte is zero (weak,
in this audit's rule) and folds all digests into one XOR. At the end it emits a single line
``audit\\trecords\\tweak\\txor``. ``reduce`` adds the counts and XORs the digests:
``records\\tweak\\txor``. The work per record is fixed by the iteration count, not by the
record's size, and the map's output does not grow with its input at all.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, count, grouped, int_arg, records, run

ITERATIONS = 100
KEY = "audit"


def digest(secret: str, salt: str, iterations: int = ITERATIONS) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", secret.encode(), salt.encode(), iterations)


def mapper(args: Sequence[str]) -> None:
    iterations = int_arg(args, 0, "ITERATIONS", ITERATIONS)
    if iterations < 1:
        raise UsageError(f"ITERATIONS must be at least 1, got {iterations}")
    n = weak = folded = malformed = 0
    for line in records():
        secret, sep, rest = line.partition("\t")
        if not sep:
            malformed += 1
            continue
        d = digest(secret, rest[:10], iterations)
        n += 1
        weak += d[0] == 0
        folded ^= int.from_bytes(d, "big")
    count("MALFORMED_RECORDS", malformed)
    sys.stdout.write(f"{KEY}\t{n}\t{weak}\t{folded:064x}\n")


def reducer(args: Sequence[str]) -> None:
    write = sys.stdout.write
    for _, values in grouped():
        n = weak = folded = 0
        for value in values:
            a, b, c = value.split("\t")
            n += int(a)
            weak += int(b)
            folded ^= int(c, 16)
        write(f"{n}\t{weak}\t{folded:064x}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
