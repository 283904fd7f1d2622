"""A Streaming program whose cost shape is its arguments: the program of every drawn kind.

    python -m jobsize.workloads.costshape map rec=R byte=B key=K fan=F keys=N zipf=S val=V
                                              start=T salt=X
    python -m jobsize.workloads.costshape map piece=W alpha=A start=T     (framework-bound)
    python -m jobsize.workloads.costshape combine rec=R byte=B key=K
    python -m jobsize.workloads.costshape reduce rec=R byte=B key=K sl=C p=P start=T

Work is counted in *units*: one unit is one SHA-256 of a 32-byte digest, each digest hashing
the previous one — deterministic CPU work, never sleep (about 0.4 µs on an unloaded core). A
role does ``start`` units before its first record (a task's start-up), ``rec`` units per input
record, ``byte`` units per input byte (its line terminator included, as Hadoop counts bytes)
and ``key`` units per distinct key — the first time a map task meets a key, and once per group
in the combiner and the reducer. A reduce group of n records costs ``sl`` × n^``p`` units more
(a superlinear reduce). Fractional costs are owed and paid in batches, so a task does the
whole number of units its input owes; it reports them as the counter ``WORK_UNITS``.

The map writes ``key\\t1`` lines (``key\\t1 ....``: ``val`` filler bytes make longer records).
Each input record emits ⌊F⌋ records, and one more when a hash of the record falls below F's
fraction: F < 1 filters, F = 0 emits nothing, and the same record always gives the same
records. The key of each is a rank among ``keys`` keys, written as six hexadecimal digits, drawn
by the record's hash from a Zipf-like law of exponent S — the continuous power law x^-S on
[1, N + 1), floored — so S = 0 spreads records evenly over the keys and a larger S piles them
on the first ranks (:func:`rank_of`;
:func:`jobsize.workloads.kindspace.key_shares` gives each key's probability).

A *framework-bound* map (``piece=W``) does almost nothing per record: it scans its input in
blocks at C speed, folds every letter and digit onto an alphabet of ``alpha`` letters and writes
each run of them cut into pieces of at most W bytes, one piece per line with no value — many
short records whose reading, partitioning and sorting is most of the job's work.

``combine`` and ``reduce`` write ``key\\tcount`` per group: the sum of the group's counts (a
line with no value counts one). So the reduce output holds, for every key, how many records the
maps emitted with it.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence

from jobsize.workloads.streaming import UsageError, count, run

#: The counter of units of work a task did.
WORK_COUNTER = "WORK_UNITS"
#: Units owed before they are paid: a call per record would cost more than small debts.
BATCH = 256
#: Bytes a framework-bound map reads at a time.
BLOCK = 1 << 16
_M64 = (1 << 64) - 1
_ALNUM = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_LETTERS = b"abcdefghijklmnopqrstuvwxyz"

MAP_PARAMETERS = {"rec": 0.0, "byte": 0.0, "key": 0.0, "fan": 1.0, "keys": 1000.0,
                  "zipf": 0.0, "val": 0.0, "start": 0.0, "salt": 0.0}
FRAMEWORK_PARAMETERS = {"piece": 4.0, "alpha": 26.0, "start": 0.0}
COMBINE_PARAMETERS = {"rec": 0.0, "byte": 0.0, "key": 0.0}
REDUCE_PARAMETERS = {"rec": 0.0, "byte": 0.0, "key": 0.0, "sl": 0.0, "p": 1.0, "start": 0.0}


class Work:
    """Busy work owed in (fractional) units and paid in whole ones."""

    def __init__(self) -> None:
        self.owed = 0.0
        self.done = 0
        self._digest = bytes(32)

    def owe(self, units: float) -> None:
        self.owed += units
        if self.owed >= BATCH:
            self.pay()

    def pay(self) -> None:
        whole = int(self.owed)
        self.owed -= whole
        self.done += whole
        digest, sha = self._digest, hashlib.sha256
        for _ in range(whole):
            digest = sha(digest).digest()
        self._digest = digest

    def finish(self) -> None:
        """Pay what is left and report the units done."""
        self.pay()
        count(WORK_COUNTER, self.done)


def parameters(args: Sequence[str], defaults: Mapping[str, float]) -> dict[str, float]:
    """``NAME=VALUE`` arguments over ``defaults``: non-negative numbers of known names."""
    out = dict(defaults)
    for arg in args:
        name, sep, text = arg.partition("=")
        if not sep or name not in defaults:
            raise UsageError(f"expected NAME=VALUE with NAME one of {', '.join(defaults)}, "
                             f"got {arg!r}")
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"{name} must be a number, got {text!r}") from None
        if not (value >= 0 and math.isfinite(value)):
            raise UsageError(f"{name} must be a non-negative number, got {text!r}")
        out[name] = value
    return out


def mix(x: int) -> int:
    """SplitMix64: the next well-mixed 64-bit value after ``x`` (a hash, cheap in Python)."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def rank_of(keys: int, zipf: float) -> Callable[[float], int]:
    """``u in [0, 1) -> rank in [0, keys)``: the inverse of the power law's distribution."""
    top = keys + 1
    if abs(1.0 - zipf) < 1e-9:
        log_top = math.log(top)
        return lambda u: min(keys - 1, int(math.exp(u * log_top)) - 1)
    span, power = top ** (1.0 - zipf) - 1.0, 1.0 / (1.0 - zipf)
    return lambda u: max(0, min(keys - 1, int((1.0 + u * span) ** power) - 1))


def _start(work: Work, units: float) -> None:
    work.owe(units)
    work.pay()  # start-up is done before the first record, as a task loading its tables


def mapper(args: Sequence[str]) -> None:
    if any(a.startswith("piece=") for a in args):
        _framework_mapper(parameters(args, FRAMEWORK_PARAMETERS))
    else:
        _mapper(parameters(args, MAP_PARAMETERS))


def _mapper(p: dict[str, float]) -> None:
    work = Work()
    _start(work, p["start"])
    rec, per_byte, per_key, fan = p["rec"], p["byte"], p["key"], p["fan"]
    whole, threshold = int(fan), int((fan - int(fan)) * (1 << 64))
    rank = rank_of(max(1, int(p["keys"])), p["zipf"])
    salt = (int(p["salt"]) % (1 << 64)).to_bytes(16, "little")
    value = b"\t1" + (b" " + b"." * int(p["val"]) if int(p["val"]) else b"") + b"\n"
    seen: set[int] = set()
    write = sys.stdout.buffer.write
    for line in sys.stdin.buffer:
        # the record's hash, independent of its terminator (\n or \r\n)
        x = mix(int.from_bytes(hashlib.blake2b(line.rstrip(b"\r\n"), digest_size=8,
                                               salt=salt).digest()))
        cost = rec + per_byte * len(line)
        for _ in range(whole + (x < threshold)):
            x = mix(x)
            r = rank((x >> 11) * 2.0 ** -53)
            if per_key and r not in seen:
                seen.add(r)
                cost += per_key
            write(b"%06x%s" % (r, value))
        work.owe(cost)
    work.finish()


def _framework_mapper(p: dict[str, float]) -> None:
    work = Work()
    _start(work, p["start"])
    alphabet = _LETTERS[: max(1, min(len(_LETTERS), int(p["alpha"])))]
    fold = bytes.maketrans(_ALNUM, bytes(alphabet[i % len(alphabet)]
                                         for i in range(len(_ALNUM))))
    piece = re.compile(rb"[a-z]{1,%d}" % max(1, int(p["piece"])))
    read, write = sys.stdin.buffer.read, sys.stdout.buffer.write
    carry = b""
    while block := read(BLOCK):
        data = carry + block.translate(fold)
        kept = len(data.rstrip(alphabet))  # a run cut by the block's end waits for the next
        carry = data[kept:]
        found = piece.findall(data, 0, kept)
        if found:
            write(b"\n".join(found) + b"\n")
    if carry:
        write(b"\n".join(piece.findall(carry)) + b"\n")
    work.finish()


def _key(line: bytes) -> bytes:
    return line.partition(b"\t")[0].rstrip(b"\r\n")


def _count(line: bytes) -> int:
    """The count a line carries: its value's first word, or 1 for a line without one."""
    head = line.rstrip(b"\r\n").partition(b"\t")[2].partition(b" ")[0]
    return int(head) if head else 1


def _groups(p: dict[str, float]) -> None:
    work = Work()
    _start(work, p.get("start", 0.0))
    rec, per_byte, per_key = p["rec"], p["byte"], p["key"]
    sl, power = p.get("sl", 0.0), p.get("p", 1.0)
    write = sys.stdout.buffer.write
    for key, group in itertools.groupby(sys.stdin.buffer, key=_key):
        n = size = total = 0
        for line in group:
            n += 1
            size += len(line)
            total += _count(line)
        work.owe(rec * n + per_byte * size + per_key + (sl * n ** power if sl else 0.0))
        write(b"%s\t%d\n" % (key, total))
    work.finish()


def combiner(args: Sequence[str]) -> None:
    _groups(parameters(args, COMBINE_PARAMETERS))


def reducer(args: Sequence[str]) -> None:
    _groups(parameters(args, REDUCE_PARAMETERS))


if __name__ == "__main__":
    run({"map": mapper, "combine": combiner, "reduce": reducer})
