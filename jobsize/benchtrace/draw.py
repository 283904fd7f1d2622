"""Which jobs a reference trace runs: a draw shaped like Facebook's 2009 MapReduce workload.

Facebook's October 2009 jobs fall into nine bins by map count (Zaharia et al., Table 2; Tang's
thesis, Table 3.3): 58 % have 1-25 maps, then 9.6 %, 8.6 %, 8.4 %, 5.6 %, 4.3 %, 2.5 %, 1.3 % and
1.7 % have 26-50, 51-100, ..., 1601-3200 and more than 3200 maps — many tiny jobs and a long tail.

Each job of a trace is drawn independently:

1. a bin with those shares, then a map count ``n_fb`` uniformly inside it (the open last bin is
   taken as 3201-6400);
2. the map count scaled to this machine, ``N_m = ceil(n_fb / map_scale)``, and the input size
   ``N_m × split_bytes`` (whole splits, so the job runs exactly N_m maps; see 6). A one-map
   job reads ``split_bytes / 2^j`` for j uniform in 0..4, as tiny jobs read anything up to one
   block;
3. map-only or not: in the SWIM sample of FB-2009 (5,894 jobs) 85 % of the one-block jobs and
   21 % of the larger ones shuffle nothing — those are the probabilities used;
4. a workload uniformly among the map-only or the other reference workloads (the held-out
   workloads of ``jobsize.workloads.HELD_OUT``, and Hadoop's Java examples
   ``java:<program>`` of :mod:`jobsize.benchtrace.java`, only when named in ``workloads``);
5. ``N_r = round(r × N_m)`` with r uniform in [0.05, 0.25] (the 5-25 % of Zaharia et al.), at
   least 1 and at most the workload's ``max_reduces`` (0 for a map-only job);
6. optionally (``split_sizes``) the job's split (block) size uniformly among several, and
   (``partial_splits``) a last split filled to a uniform fraction in (0, 1] — as a cluster's
   jobs read files of any length, split by blocks of several sizes. Without them every job
   reads whole splits of ``split_bytes``, so its input bytes are N_m times one constant and a
   model cannot tell N_m's effect from MI's.

A draw is a pure function of ``(seed, index)``: the trace of N jobs is the first N draws of the
seed, so a resumed or extended run draws the same jobs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from jobsize.benchtrace.java import kind
from jobsize.errors import ConfigError
from jobsize.workloads import WORKLOADS

KiB = 1024


@dataclass(frozen=True)
class SizeBin:
    """A bin of Facebook's job sizes: map counts ``low..high`` (inclusive) and its share."""

    low: int
    high: int
    share: float

    @property
    def label(self) -> str:
        return f"{self.low}-{self.high}"


#: FB-2009 job sizes by map count (Tang, Table 3.3, after Zaharia et al.); the last bin is open
#: in the source and closed here at twice its lower bound.
FB2009_BINS: tuple[SizeBin, ...] = (
    SizeBin(1, 25, 0.58), SizeBin(26, 50, 0.096), SizeBin(51, 100, 0.086),
    SizeBin(101, 200, 0.084), SizeBin(201, 400, 0.056), SizeBin(401, 800, 0.043),
    SizeBin(801, 1600, 0.025), SizeBin(1601, 3200, 0.013), SizeBin(3201, 6400, 0.017),
)

#: Share of map-only jobs (no shuffle) in the SWIM FB-2009 sample: of one-block jobs, of others.
MAP_ONLY_SHARE_ONE_MAP = 0.85
MAP_ONLY_SHARE = 0.21
#: N_r as a share of N_m (Zaharia et al.; Tang: "5 % and 25 % of the number of map tasks").
REDUCE_RATIO = (0.05, 0.25)
#: A one-map job reads split_bytes / 2^j, j = 0 .. ONE_MAP_STEPS - 1.
ONE_MAP_STEPS = 5


@dataclass(frozen=True)
class Distribution:
    """How jobs are drawn and scaled to this machine (see the module docstring)."""

    split_bytes: int = 512 * KiB
    map_scale: int = 4
    workloads: tuple[str, ...] = tuple(sorted(WORKLOADS))
    bins: tuple[SizeBin, ...] = FB2009_BINS
    map_only_share: float = MAP_ONLY_SHARE
    map_only_share_one_map: float = MAP_ONLY_SHARE_ONE_MAP
    reduce_ratio: tuple[float, float] = REDUCE_RATIO
    split_sizes: tuple[int, ...] = ()  # each job draws its split size from these (if given)
    partial_splits: bool = False  # the last split of a job's input is partly filled
    shares: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = tuple(self.workloads)
        for name in names:
            kind(name)  # a ConfigError naming the choices
        if not names:
            raise ConfigError("no workloads to draw from")
        if self.split_bytes < 1 or self.map_scale < 1 or any(b < 1 for b in self.split_sizes):
            raise ConfigError(f"split sizes and map scale must be positive, got "
                              f"{self.split_sizes or self.split_bytes} and {self.map_scale}")
        object.__setattr__(self, "split_sizes", tuple(int(b) for b in self.split_sizes))
        object.__setattr__(self, "workloads", tuple(dict.fromkeys(names)))
        shares = np.array([b.share for b in self.bins], dtype=float)
        object.__setattr__(self, "shares", shares / shares.sum())

    @property
    def map_only_workloads(self) -> tuple[str, ...]:
        return tuple(n for n in self.workloads if kind(n).map_only)

    @property
    def reduce_workloads(self) -> tuple[str, ...]:
        return tuple(n for n in self.workloads if not kind(n).map_only)

    def settings(self) -> dict[str, object]:
        """What a trace directory must be resumed with (JSON-ready)."""
        return {"split_bytes": self.split_bytes, "map_scale": self.map_scale,
                "workloads": list(self.workloads),
                "bins": [[b.low, b.high, b.share] for b in self.bins],
                "map_only_share": self.map_only_share,
                "map_only_share_one_map": self.map_only_share_one_map,
                "reduce_ratio": list(self.reduce_ratio),
                # only when set, so traces measured before these options resume unchanged
                **({"split_sizes": list(self.split_sizes)} if self.split_sizes else {}),
                **({"partial_splits": True} if self.partial_splits else {})}


@dataclass(frozen=True)
class Draw:
    """One job of the trace, before it runs."""

    index: int
    workload: str
    bin: int | None  # index into the distribution's bins (None: not drawn by FB-2009 bins)
    fb_maps: int | None  # the map count drawn at Facebook's scale
    n_maps: int  # scaled: the maps the job runs (for a two-file input, one more may run)
    n_reduces: int
    input_bytes: int
    input_seed: int
    probe_seed: int
    split_bytes: int = 0  # the job's split (block) size; 0: the distribution's

    @property
    def input_kind(self) -> str:
        return kind(self.workload).input_kind

    @property
    def input_key(self) -> tuple[str, int, int]:
        """Jobs with the same key read the same generated files."""
        return (self.input_kind, self.input_bytes, self.input_seed)

    @property
    def map_only(self) -> bool:
        return self.n_reduces == 0


def draw_job(seed: int, index: int, dist: Distribution) -> Draw:
    """The ``index``-th job of the trace of ``seed`` — a pure function of its arguments."""
    if seed < 0 or index < 0:
        raise ConfigError(f"seed and index must be non-negative, got {seed} and {index}")
    rng = np.random.default_rng([seed, index])
    b = int(rng.choice(len(dist.bins), p=dist.shares))
    fb_maps = int(rng.integers(dist.bins[b].low, dist.bins[b].high + 1))
    n_maps = math.ceil(fb_maps / dist.map_scale)
    step = int(rng.integers(0, ONE_MAP_STEPS))
    p_map_only = dist.map_only_share_one_map if n_maps == 1 else dist.map_only_share
    map_only = bool(rng.random() < p_map_only)
    choices = dist.map_only_workloads if map_only else dist.reduce_workloads
    if not choices:  # the chosen workloads have no job of this kind
        choices = dist.workloads
    name = choices[int(rng.integers(len(choices)))]
    ratio = float(rng.uniform(*dist.reduce_ratio))
    w = kind(name)
    n_reduces = 0 if w.map_only else min(w.max_reduces, max(1, round(ratio * n_maps)))
    probe_seed = int(rng.integers(2**31))
    # drawn last, and only when asked for, so the draws above stay those of older traces
    split = dist.split_bytes
    if dist.split_sizes:
        split = dist.split_sizes[int(rng.integers(len(dist.split_sizes)))]
    fill = 1.0 - float(rng.random()) if dist.partial_splits else 1.0  # in (0, 1]
    input_bytes = (n_maps - 1) * split + max(1, round(fill * split)) if n_maps > 1 else \
        max(1, split >> step)
    return Draw(index=index, workload=name, bin=b, fb_maps=fb_maps, n_maps=n_maps,
                n_reduces=n_reduces, input_bytes=input_bytes, input_seed=seed,
                probe_seed=probe_seed, split_bytes=split)


def draw_jobs(seed: int, jobs: int, dist: Distribution) -> list[Draw]:
    """The first ``jobs`` draws of ``seed``."""
    if jobs < 0:
        raise ConfigError(f"number of jobs must be non-negative, got {jobs}")
    return [draw_job(seed, i, dist) for i in range(jobs)]


@dataclass(frozen=True)
class BinSummary:
    """How many drawn jobs fall in one FB-2009 bin, against the bin's share."""

    bin: SizeBin
    local_maps: tuple[int, int]
    jobs: int
    map_only: int
    maps: int


def summarize(draws: Sequence[Draw], dist: Distribution) -> list[BinSummary]:
    """Jobs, map-only jobs and total maps per bin."""
    out = []
    for i, b in enumerate(dist.bins):
        mine = [d for d in draws if d.bin == i]
        local = (math.ceil(b.low / dist.map_scale), math.ceil(b.high / dist.map_scale))
        out.append(BinSummary(b, local, len(mine), sum(d.map_only for d in mine),
                              sum(d.n_maps for d in mine)))
    return out


def uses(draws: Iterable[Draw]) -> dict[tuple[str, int, int], list[int]]:
    """For each input, the indices of the draws that read it, in order."""
    out: dict[tuple[str, int, int], list[int]] = {}
    for d in draws:
        out.setdefault(d.input_key, []).append(d.index)
    return out
