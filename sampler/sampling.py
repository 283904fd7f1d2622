"""Algorithm 1 of the paper (§III-A): a semi-random, record-aligned sample of a job's input.

With the index typos of the paper's listing fixed::

    sampleFrac      = 1 / max(N_m, N_r)
    sampleSplitNum  = min(N_m, sampledSplitsUpperBound)
    splitSampleFreq = sampleFrac / (sampleSplitNum / N_m)
    partial Fisher-Yates: choose sampleSplitNum splits uniformly without replacement
    for each chosen split: read split.length × splitSampleFreq bytes at a random offset

Only the chosen byte ranges are read, each with one positional read (plus a little more for a
record that runs past the range): the sampler seeks, it never scans.

Records are never cut. A chosen range ``[o, o + b)`` is read as Hadoop's LineRecordReader reads
a split: a record is a line ended by ``\\n``, ``\\r\\n`` or ``\\r`` (the last one may be
unterminated); the range takes every record that *starts* in ``(o, o + b]`` — the record that
begins before ``o`` (or exactly at it, unless ``o`` is 0) is skipped, and the last record is read
to its end even past the range. Bytes pass through untouched (no decoding).

When the input has exactly N_m splits (the usual case, the splits being the job's map inputs)
this is Algorithm 1 verbatim, and ``splitSampleFreq ≤ 1``. If it has another count, the fraction
of splits chosen is ``sampleSplitNum / len(splits)``, and when that would ask for more than a
whole split, more splits are chosen (up to the upper bound) so each is read at most once.

The achieved fraction ``f_p`` is the sampled bytes over the input bytes; it is what eq 8 divides
by. An empty input gives an empty sample with ``f_p = 1`` (the sample is all of it).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from jobsize.sampler.splits import Split

from jobsize.errors import ConfigError

#: Default ``sampledSplitsUpperBound``: how many splits a probe may seek into.
DEFAULT_MAX_SPLITS = 16
#: Reads past a range, for the record that runs on: the first is at most FIRST_STEP (most text
#: records are shorter), later ones grow by a tenth of what was read past, up to MAX_STEP.
FIRST_STEP = 4096
MAX_STEP = 1 << 20

_LF = 0x0A


@dataclass(frozen=True)
class SamplingPlan:
    """Lines 1-3 of Algorithm 1, for a given input."""

    target_fraction: float  # sampleFrac
    n_chosen: int  # sampleSplitNum
    frequency: float  # splitSampleFreq: the share of each chosen split that is read


@dataclass(frozen=True)
class ChosenSplit:
    """What was taken from one chosen split."""

    path: str
    split_start: int
    split_length: int
    offset: int  # the random offset o: the sampled range is [o, o + range_bytes)
    range_bytes: int
    data_start: int  # file offset of the first sampled byte (equals ``offset`` when empty)
    data_bytes: int  # whole records taken (they follow each other in Sample.data)
    bytes_read: int


@dataclass(frozen=True)
class Sample:
    """A sample of a job's input and how it was drawn."""

    data: bytes
    fraction: float  # f_p achieved: len(data) / input_bytes
    target_fraction: float  # 1 / max(N_m, N_r)
    bytes_read: int  # bytes fetched from the input
    input_bytes: int
    splits_chosen: tuple[ChosenSplit, ...]
    n_splits: int
    frequency: float
    seed: int
    n_maps: int
    n_reduces: int
    max_splits: int

    def parts(self) -> Iterator[tuple[ChosenSplit, bytes]]:
        """Each chosen split with its slice of :attr:`data` (e.g. to know a record's file)."""
        pos = 0
        for chosen in self.splits_chosen:
            yield chosen, self.data[pos: pos + chosen.data_bytes]
            pos += chosen.data_bytes

    def metadata(self) -> dict:
        """Everything but the data, as JSON-ready values."""
        meta = {k: v for k, v in asdict(self).items() if k != "data"}
        meta["sample_bytes"] = len(self.data)
        meta["splits_chosen"] = [asdict(c) for c in self.splits_chosen]
        return meta


def plan(n_splits: int, n_maps: int, n_reduces: int,
         max_splits: int = DEFAULT_MAX_SPLITS, max_fraction: float | None = None
         ) -> SamplingPlan:
    """Algorithm 1 lines 1-3 (``splitSampleFreq`` relative to the splits that exist).

    ``max_fraction`` caps ``sampleFrac = 1 / max(N_m, N_r)`` (a smaller probe for jobs of few
    tasks, where one task's share of the input makes the probe cost a tenth of the job)."""
    _check_counts(n_maps, n_reduces, max_splits)
    target = 1.0 / max(n_maps, n_reduces)
    if max_fraction is not None:
        if not 0 < max_fraction <= 1:
            raise ConfigError(f"the largest probe fraction must be in (0, 1], got "
                              f"{max_fraction!r}")
        target = min(target, max_fraction)
    if n_splits == 0:
        return SamplingPlan(target, 0, 0.0)
    chosen = min(n_maps, max_splits, n_splits)
    frequency = target * n_splits / chosen
    if frequency > 1.0:  # only when the input has more splits than N_m
        chosen = min(max(chosen, math.ceil(target * n_splits)), max_splits, n_splits)
        frequency = min(1.0, target * n_splits / chosen)
    return SamplingPlan(target, chosen, frequency)


def choose_splits(n_splits: int, n_chosen: int, rng: np.random.Generator) -> list[int]:
    """Algorithm 1 lines 5-9: a partial Fisher-Yates shuffle; the first ``n_chosen`` indices."""
    order = list(range(n_splits))
    for i in range(n_chosen):
        j = int(rng.integers(i, n_splits))
        order[i], order[j] = order[j], order[i]
    return order[:n_chosen]


def sample(
    splits: Sequence[Split],
    n_maps: int,
    n_reduces: int,
    max_splits: int = DEFAULT_MAX_SPLITS,
    seed: int | None = None,
    *,
    progress: Callable[..., None] | None = None,
    max_fraction: float | None = None,
) -> Sample:
    """Draw the probe's sample from ``splits`` (Algorithm 1, record-aligned).

    ``seed`` makes the sample reproducible; without one a fresh seed is drawn and recorded in
    :attr:`Sample.seed`. ``progress`` is called once per chosen split. ``max_fraction`` caps
    the sample fraction (:func:`plan`).
    """
    if seed is None:
        seed = secrets.randbits(63)
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"the seed must be a non-negative integer, got {seed!r}")
    seed, n_maps, n_reduces, max_splits = map(int, (seed, n_maps, n_reduces, max_splits))
    p = plan(len(splits), n_maps, n_reduces, max_splits, max_fraction)
    rng = np.random.default_rng(seed)
    picked = sorted(choose_splits(len(splits), p.n_chosen, rng))  # read in file order
    pieces: list[bytes] = []
    chosen: list[ChosenSplit] = []
    for index in picked:
        split = splits[index]
        size = min(split.length, math.floor(split.length * p.frequency + 0.5))
        offset = split.start + int(rng.integers(0, split.length - size + 1))
        start, data, fetched = read_records(split, offset, size)
        pieces.append(data)
        chosen.append(ChosenSplit(split.path, split.start, split.length, offset, size, start,
                                  len(data), fetched))
        if progress is not None:
            progress()
    data = b"".join(pieces)
    input_bytes = sum(s.length for s in splits)
    return Sample(
        data=data,
        fraction=len(data) / input_bytes if input_bytes else 1.0,
        target_fraction=p.target_fraction,
        bytes_read=sum(c.bytes_read for c in chosen),
        input_bytes=input_bytes,
        splits_chosen=tuple(chosen),
        n_splits=len(splits),
        frequency=p.frequency,
        seed=seed,
        n_maps=n_maps,
        n_reduces=n_reduces,
        max_splits=max_splits,
    )


# ---------------------------------------------------------------------------------------------
# Record alignment (Hadoop's LineRecordReader over the range [o, o + b))


class _Window:
    """The bytes of one file from ``base`` on, fetched by positional reads as parsing needs."""

    def __init__(self, split: Split, base: int, length: int) -> None:
        self.split = split
        self.base = base
        self.buf = bytearray(split.read(base, length))
        self.fetched = len(self.buf)

    @property
    def end(self) -> int:
        return self.base + len(self.buf)

    @property
    def at_eof(self) -> bool:
        return self.end >= self.split.file_length

    def grow(self, n: int) -> bool:
        """Fetch ``n`` more bytes (fewer at the end of the file); False at the end."""
        if self.at_eof:
            return False
        more = self.split.read(self.end, n)
        self.buf += more
        self.fetched += len(more)
        return True


def _boundary_after(win: _Window, pos: int, step: Callable[[], int] | None) -> int | None:
    """The first record boundary after ``pos`` (a position just past a terminator).

    ``\\r\\n`` is one terminator, so the position between its two bytes is no boundary.
    ``step`` gives the size of the next read when the buffer runs out; with None (or at the end
    of the file) the answer is None if no terminator was found.
    """
    i = pos - win.base
    buf = win.buf
    while True:
        lf = buf.find(b"\n", i)
        cr = buf.find(b"\r", i, lf if lf >= 0 else len(buf))
        if cr >= 0:
            if cr + 1 < len(buf):
                return win.base + cr + (2 if buf[cr + 1] == _LF else 1)
            if win.at_eof:
                return win.base + cr + 1
            i = cr  # a CR at the end of the buffer: the next byte decides CR or CRLF
        elif lf >= 0:
            return win.base + lf + 1
        else:
            i = len(buf)
        if step is None or not win.grow(step()):
            return None


def read_records(split: Split, offset: int, size: int) -> tuple[int, bytes, int]:
    """The whole records starting in ``(offset, offset + size]`` (``[0, size]`` at offset 0).

    Returns ``(file offset of the data, data, bytes fetched)``. Reads ``[offset, offset + size]``
    at once — one byte past the range settles a CR at its end — then, for a last record that
    runs on, reads further in small steps that grow with what was read past the range, so the
    over-read stays within ~10 % of the sample plus the skipped part of the first record.
    """
    if size <= 0:
        return offset, b"", 0
    end = offset + size
    win = _Window(split, offset, min(end + 1, split.file_length) - offset)
    first = offset if offset == 0 else _boundary_after(win, offset, None)
    if first is None or first > end or first >= split.file_length:
        return offset, b"", win.fetched
    taken = end - first
    extra = 0

    def step() -> int:
        nonlocal extra
        n = max(1, min(MAX_STEP, max(min(taken // 64, FIRST_STEP), extra // 10)))
        extra += n
        return n

    last = _boundary_after(win, end, step)
    stop = split.file_length if last is None else last
    data = bytes(win.buf[first - win.base: stop - win.base])
    return first, data, win.fetched


def _check_counts(n_maps: int, n_reduces: int, max_splits: int) -> None:
    if not isinstance(n_maps, int | np.integer) or n_maps < 1:
        raise ConfigError(f"the job's map count N_m must be at least 1, got {n_maps!r}")
    if not isinstance(n_reduces, int | np.integer) or n_reduces < 0:
        raise ConfigError(f"the job's reduce count N_r must be 0 or more, got {n_reduces!r}")
    if not isinstance(max_splits, int | np.integer) or max_splits < 1:
        raise ConfigError(f"the upper bound on sampled splits must be at least 1, "
                          f"got {max_splits!r}")
