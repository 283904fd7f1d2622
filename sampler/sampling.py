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
this is Algorithm 1 verbatim, and ``splitSampleFreq ≤ 1``. With fewer splits, the fraction of
splits chosen is ``sampleSplitNum / len(splits)``. With more splits than N_m (many small files,
or a split size below the job's), each map must have read several: consecutive splits are
combined into N_m map inputs, as Hadoop's CombineFileInputFormat does, and Algorithm 1 runs
on those, a sampled range running across the files of its input. Either way the target
fraction is reached with at most the upper bound of map inputs, and splits are never listed
in memory (:class:`~sampler.splits.Splits`).

The achieved fraction ``f_p`` is the sampled bytes over the input bytes; it is what eq 8 divides
by. An empty input gives an empty sample with ``f_p = 1`` (the sample is all of it).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from jobsize.sampler.splits import Split, Splits, total_bytes

from jobsize.errors import ConfigError

#: Default ``sampledSplitsUpperBound``: how many splits a probe may seek into.
DEFAULT_MAX_SPLITS = 16
#: A budget for the probe: its sample at most this fraction of the job's input (None: no cap,
#: Algorithm 1's fraction — below one map's share, tasks of tenths of a second time too few
#: records against their start-ups; see the probing guide) ...
DEFAULT_MAX_FRACTION: float | None = None
#: ... unless that leaves it under this many bytes, too few records to time and count.
DEFAULT_MIN_SAMPLE_BYTES = 128 * 1024
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
    n_units: int = 0  # map inputs chosen from: the splits, or N_m combinations of them


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
    unit: int = 0  # the chosen map input this range belongs to


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
         max_splits: int = DEFAULT_MAX_SPLITS, max_fraction: float | None = None,
         input_bytes: int = 0, min_bytes: int = 0) -> SamplingPlan:
    """Algorithm 1 lines 1-3 (``splitSampleFreq`` relative to the splits that exist).

    ``max_fraction`` caps ``sampleFrac = 1 / max(N_m, N_r)``: one map's share of the input
    makes the probe cost a tenth of a job of ten maps. The cap never takes the sample below
    ``min_bytes`` of the ``input_bytes`` (nor above one map's share)."""
    _check_counts(n_maps, n_reduces, max_splits)
    target = sample_fraction(n_maps, n_reduces, max_fraction, input_bytes, min_bytes)
    if n_splits == 0:
        return SamplingPlan(target, 0, 0.0, 0)
    units = min(n_splits, n_maps)  # more splits than maps: combined into N_m map inputs
    chosen = min(n_maps, max_splits, units)
    return SamplingPlan(target, chosen, min(1.0, target * units / chosen), units)


def sample_fraction(n_maps: int, n_reduces: int, max_fraction: float | None = None,
                    input_bytes: float = 0, min_bytes: float = 0) -> float:
    """``sampleFrac``: Algorithm 1's ``1 / max(N_m, N_r)``, capped at ``max_fraction`` unless
    the cap leaves fewer than ``min_bytes`` of the ``input_bytes`` (unknown: 0)."""
    target = 1.0 / max(n_maps, n_reduces, 1)
    if max_fraction is None:
        return target
    check_budget(max_fraction, min_bytes)
    floor = min_bytes / input_bytes if input_bytes > 0 else 0.0
    return min(target, max(max_fraction, floor))


def check_budget(max_fraction: float | None, min_bytes: float) -> None:
    """A ``ConfigError`` unless the fraction is None or in (0, 1] and the floor is ≥ 0."""
    if max_fraction is not None and not 0 < max_fraction <= 1:
        raise ConfigError(f"the largest probe fraction must be in (0, 1], got {max_fraction!r}")
    if not min_bytes >= 0:
        raise ConfigError(f"the smallest probe sample must be 0 bytes or more, got "
                          f"{min_bytes!r}")


def choose_splits(n_splits: int, n_chosen: int, rng: np.random.Generator) -> list[int]:
    """Algorithm 1 lines 5-9: a partial Fisher-Yates shuffle; the first ``n_chosen`` indices.

    Only the swapped positions are held, so the cost is O(n_chosen) whatever ``n_splits``.
    """
    moved: dict[int, int] = {}
    out = []
    for i in range(n_chosen):
        j = int(rng.integers(i, n_splits))
        at_i, at_j = moved.get(i, i), moved.get(j, j)
        moved[i], moved[j] = at_j, at_i
        out.append(at_j)
    return out


def sample(
    splits: Sequence[Split],
    n_maps: int,
    n_reduces: int,
    max_splits: int = DEFAULT_MAX_SPLITS,
    seed: int | None = None,
    *,
    progress: Callable[..., None] | None = None,
    max_fraction: float | None = None,
    min_bytes: int = 0,
    nonempty: bool = False,
) -> Sample:
    """Draw the probe's sample from ``splits`` (Algorithm 1, record-aligned).

    ``seed`` makes the sample reproducible; without one a fresh seed is drawn and recorded in
    :attr:`Sample.seed`. ``progress`` is called once per chosen split. ``max_fraction`` caps
    the sample fraction, never below ``min_bytes`` (:func:`plan`). Algorithm 1's ranges may
    hold no whole record (a tiny fraction, records longer than a range); with ``nonempty``
    the sample then takes the first record after the first chosen range instead, as a probe
    needs (eq 8 divides by f_p).
    """
    if seed is None:
        seed = secrets.randbits(63)
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise ConfigError(f"the seed must be a non-negative integer, got {seed!r}")
    seed, n_maps, n_reduces, max_splits = map(int, (seed, n_maps, n_reduces, max_splits))
    input_bytes = total_bytes(splits)
    p = plan(len(splits), n_maps, n_reduces, max_splits, max_fraction, input_bytes, min_bytes)
    rng = np.random.default_rng(seed)
    picked = sorted(choose_splits(p.n_units, p.n_chosen, rng))  # read in file order
    pieces: list[bytes] = []
    chosen: list[ChosenSplit] = []
    for unit in picked:
        runs = _unit_runs(splits, unit, p.n_units)
        length = sum(r.length for r in runs)
        size = min(length, math.floor(length * p.frequency + 0.5))
        offset = int(rng.integers(0, length - size + 1))
        for run, at, n in _spans(runs, offset, size):
            start, data, fetched = read_records(run, at, n)
            pieces.append(data)
            chosen.append(ChosenSplit(run.path, run.start, run.length, at, n, start,
                                      len(data), fetched, unit))
        if progress is not None:
            progress()
    if nonempty and picked and not any(pieces):
        pieces, chosen = _first_record(splits, picked[0], p.n_units, chosen)
    data = b"".join(pieces)
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


def _first_record(splits: Sequence[Split], unit: int, units: int, chosen: list[ChosenSplit]
                  ) -> tuple[list[bytes], list[ChosenSplit]]:
    """The first whole record(s) of map input ``unit`` starting after where its empty range
    began, read in a range that doubles until it holds one (none if the unit has none)."""
    at_chosen = [c for c in chosen if c.unit == unit]
    for run in _unit_runs(splits, unit, units):
        start = next((c.offset for c in at_chosen if c.path == run.path
                      and run.start <= c.offset <= run.end), run.start)
        for at in dict.fromkeys((start, run.start)):  # after the range, else the run's start
            n = 64
            while True:
                n = min(n, run.end - at)
                first, data, fetched = read_records(run, at, n)
                if data or at + n >= run.end:
                    break
                n *= 2
            if data:
                return [data], [ChosenSplit(run.path, run.start, run.length, at, n, first,
                                            len(data), fetched, unit)]
    return [], chosen


def _unit_runs(splits: Sequence[Split], unit: int, units: int) -> list[Split]:
    """Map input ``unit`` of ``units``: one split, or consecutive splits merged per file."""
    if units == len(splits):
        return [splits[unit]]
    first, stop = unit * len(splits) // units, (unit + 1) * len(splits) // units
    if isinstance(splits, Splits):
        return splits.runs(first, stop)
    runs: list[Split] = []
    for split in splits[first:stop]:
        last = runs[-1] if runs else None
        if last is not None and last.path == split.path and last.end == split.start:
            runs[-1] = Split(last.path, last.start, last.length + split.length,
                             last.file_length, last.source)
        else:
            runs.append(split)
    return runs


def _spans(runs: list[Split], offset: int, size: int) -> Iterator[tuple[Split, int, int]]:
    """The range ``[offset, offset + size)`` of the runs laid end to end, as (run, file offset,
    bytes) for each run it touches (the run holding ``offset`` when ``size`` is 0)."""
    pos = 0
    for run in runs:
        low, high = max(offset, pos), min(offset + size, pos + run.length)
        if low < high or (size == 0 and pos <= offset <= pos + run.length):
            yield run, run.start + (low - pos), max(0, high - low)
            if size == 0:
                return
        pos += run.length


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
