"""A space of job cost shapes, and kinds of job drawn from it for evaluation.

The held-out workloads (:data:`jobsize.workloads.HELD_OUT`) are nine hand-written kinds that
have been looked at while the models were developed: they are a *development set*. Kinds drawn
here are fresh: :func:`draw_kinds` ``(seed, n)`` gives n points of the space, each a runnable
:class:`~jobsize.workloads.Workload` named ``drawn-<seed>-<i>`` whose map, combine and reduce
run :mod:`jobsize.workloads.costshape` with the point's parameters as arguments, over the input
of one of the existing generators (:data:`jobsize.workloads.GENERATORS`)::

    from jobsize.workloads.kindspace import draw_kinds
    kinds = draw_kinds(seed=7, n=5)          # the same five kinds for seed 7, always
    kinds[3].name, kinds[3].mapper           # 'drawn-7-3', (python, -m, ...costshape, map, ...)

A kind is a pure function of ``(seed, index)`` (and of :data:`SPACE_VERSION`, which changes
whenever the space does). Each point is written twice: as a Streaming program (the Python
:mod:`~.costshape`), and as a Java job, ``drawn-<seed>-<index>-java``, whose map, combine and
reduce are the same costs in Java (``org.jobsize.hadoop.CostShape`` in jobsize's Hadoop module),
run by Hadoop Streaming inside the task's JVM (:mod:`jobsize.javatask`) — so only a Hadoop
cluster runs them. ``draw_kinds(seed, n, java_share=s)`` makes each kind a Java one with
chance ``s``, drawn apart from the point's parameters, so that a draw with ``s`` = 0 is the
Streaming draw of the same seed and a Java kind has the parameters its Streaming twin has.
A unit is one SHA-256 in either language, but Java's is cheaper (0.17 µs in a one-map job
alone on the mini cluster, against Python's 0.4), as is what a Java task pays per record around
the work, and it starts no interpreter: the same point is a cheaper job in Java.

A point of the space (:class:`KindPoint`) has:

- the input kind, uniformly among the generators; map-only or not; a combiner or not;
- map costs per input record, per input byte and per distinct key met, in units of work (one
  SHA-256 of 32 bytes, about 0.4 µs on an unloaded core; see :mod:`~.costshape`);
- the map's output: records out per record in (below 1 a filter), the key cardinality and the
  Zipf-like exponent of the keys' skew, and the bytes of each value;
- or instead a *framework-bound* map: no work per record, the input's letters and digits
  folded onto a small alphabet and cut into pieces of a few bytes, each a record;
- combine and reduce costs per record, per byte and per key (group), and a superlinear reduce
  term: C × n^p units per group of n records, p in [1, 2];
- a per-task start-up cost (map and reduce), and the job's reduce-count policy.

How the ranges were chosen. The bound is that a task on 2 MiB of input takes roughly
50 ms-3 s on the local engine on an unloaded core. A streaming task's interpreter starts in
about 50 ms (the floor). Each role draws a *budget* of busy work per 2 MiB of its own input,
log-uniform in :data:`MAP_WORK`, :data:`COMBINE_WORK` or :data:`REDUCE_WORK` (at most 2.5 M
units, about 1 s), and splits it at random between its per-record, per-byte and per-key costs;
each cost is the budget's share over the records, bytes or expected distinct keys that 2 MiB of
that input holds (:data:`RECORD_BYTES`, measured on the generators' output;
:func:`expected_distinct`). Start-up is at most 1.25 M units (0.5 s, like ``iplookup``'s
table). The map's own Python costs about 1.5 µs per output record and the engine's collecting,
sorting and merging a few µs more, so the fan-out is at most 8 and at most what keeps 2 MiB of
input within :data:`MAX_MAP_RECORDS` output records and :data:`MAX_MAP_BYTES` output bytes (a
framework-bound map's pieces, of at least 4 bytes, come to some 300 thousand records). The
superlinear term is calibrated like the other costs, its budget (:data:`SUPERLINEAR_WORK`)
spent by a reduce on 2 MiB of its input with the kind's key law; a reduce on X times that input
does X^p times the work — that growth is the point of the term, and it makes large jobs of such
kinds long (``--scale`` below 1 keeps an evaluation short).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import asdict, dataclass

import numpy as np

from jobsize.errors import ConfigError
from jobsize.javatask import JAVA
from jobsize.workloads import GENERATORS, MiB, Workload, program

#: Changes whenever the space or the way it is drawn changes: the same name then means
#: another kind, and an evaluation directory made with the old space refuses to resume.
SPACE_VERSION = 1
#: ``drawn-<seed>-<index>``, and ``-java`` after it for the kind's Java job.
NAME = re.compile(r"drawn-(\d+)-(\d+)(-java)?")
PROGRAM = "costshape"
#: The Java classes of the map, combine and reduce (jobsize's Hadoop module).
JAVA_CLASSES = {"map": "org.jobsize.hadoop.CostShape$Map",
                "combine": "org.jobsize.hadoop.CostShape$Combine",
                "reduce": "org.jobsize.hadoop.CostShape$Reduce"}
LANGUAGES = ("streaming", "java")
#: The input the budgets are spent on: a 2 MiB task.
TASK_BYTES = 2 * MiB
#: Mean bytes per record (line terminator included) of each generator's output, measured at
#: 2 MiB with seed 1 (tests/workloads/test_drawn_kinds.py checks them).
RECORD_BYTES = {"text": 56.8, "documents": 197.7, "sales": 46.5, "weblog": 175.4,
                "join": 32.3, "records": 100.0, "points": 60.4, "pages": 89584.0}

# The space (see the module docstring for why these ranges).
MAP_ONLY_SHARE = 0.2  # of kinds
FRAMEWORK_SHARE = 0.15
COMBINER_SHARE = 0.4  # of kinds with reduces
STARTUP_SHARE = 0.3
SUPERLINEAR_SHARE = 0.35  # of kinds with reduces and drawn keys
FILTER_SHARE = 0.3  # of maps that are not framework-bound
COST_SHARE = 0.6  # chance that each of the per-record, per-byte, per-key costs is present
FAN_FILTER = (0.02, 1.0)  # records out per record in, log-uniform
FAN_EXPAND = (1.0, 8.0)
KEYS = (4, 1 << 20)  # key cardinality, log-uniform
ZIPF = (0.0, 1.5)  # skew exponent, uniform
VALUE_BYTES = (0, 48)
PIECE = (4, 10)  # bytes of a framework-bound map's record, at most
ALPHABET = (3, 26)
MAP_WORK = (2.5e4, 2.5e6)  # units of work per 2 MiB of the role's input, log-uniform
COMBINE_WORK = (1e4, 1e6)
REDUCE_WORK = (2.5e4, 2.5e6)
SUPERLINEAR_WORK = (2.5e4, 5e5)
SUPERLINEAR_P = (1.0, 2.0)
STARTUP = (1.25e5, 1.25e6)  # units per task
BYTES_PER_REDUCE = (16 * MiB, 32 * MiB, 64 * MiB)
MAX_REDUCES = (1, 2, 4, 8)
#: Bytes of a map output record besides its value's filler: six key digits, tab, "1", newline.
RECORD_OVERHEAD = 9
#: At most this many map output records and bytes per 2 MiB of input: the engine's own work
#: (collecting, sorting, spilling, merging) costs a few µs a record, and more would take a
#: 2 MiB map beyond a few seconds; the fan-out's upper bound shrinks to keep within them.
MAX_MAP_RECORDS = 200_000
MAX_MAP_BYTES = 8 * MiB


@dataclass(frozen=True)
class KindPoint:
    """One point of the space: every parameter of a drawn kind (costs in units of work)."""

    seed: int
    index: int
    input: str
    map_only: bool
    combiner: bool
    framework: bool
    map_rec: float = 0.0
    map_byte: float = 0.0
    map_key: float = 0.0
    fan: float = 1.0
    keys: int = 1
    zipf: float = 0.0
    value_bytes: int = 0
    piece: int = 0  # framework-bound maps only
    alphabet: int = 0
    start: float = 0.0
    combine_rec: float = 0.0
    combine_byte: float = 0.0
    combine_key: float = 0.0
    reduce_rec: float = 0.0
    reduce_byte: float = 0.0
    reduce_key: float = 0.0
    superlinear: float = 0.0  # C of C·n^p per reduce group
    power: float = 1.0
    bytes_per_reduce: int = 64 * MiB
    max_reduces: int = 1
    salt: int = 0
    language: str = "streaming"  # or "java": the same costs as a Java job

    @property
    def name(self) -> str:
        return kind_name(self.seed, self.index, self.language)

    def _command(self, role: str, args: tuple[str, ...]) -> tuple[str, ...]:
        if self.language == "java":
            return (JAVA, JAVA_CLASSES[role], *args)
        return program(PROGRAM, role, *args)

    def map_args(self) -> tuple[str, ...]:
        if self.framework:
            return _args(piece=self.piece, alpha=self.alphabet, start=self.start)
        return _args(rec=self.map_rec, byte=self.map_byte, key=self.map_key, fan=self.fan,
                     keys=self.keys, zipf=self.zipf, val=self.value_bytes, start=self.start,
                     salt=self.salt)

    def combine_args(self) -> tuple[str, ...]:
        return _args(rec=self.combine_rec, byte=self.combine_byte, key=self.combine_key)

    def reduce_args(self) -> tuple[str, ...]:
        return _args(rec=self.reduce_rec, byte=self.reduce_byte, key=self.reduce_key,
                     sl=self.superlinear, p=self.power, start=self.start)

    def parameters(self) -> dict[str, object]:
        """Every parameter by name (JSON-ready)."""
        return asdict(self)

    def shape(self) -> str:
        """The cost shape in a few words."""
        words = ["Java"] if self.language == "java" else []
        words.append("map-only" if self.map_only else "with reduces")
        if self.framework:
            words.append("framework-bound map")
        else:
            words.append("filtering map" if self.fan < 1 else "expanding map")
            if self.zipf >= 1:
                words.append("skewed keys")
        if self.combiner:
            words.append("combiner")
        if self.superlinear:
            words.append(f"superlinear reduce (p {self.power:g})")
        if self.start:
            words.append("per-task start-up")
        return ", ".join(words)

    def describe(self) -> str:
        """Its parameters in a sentence (costs in units of work)."""
        if self.framework:
            mapped = (f"framework-bound map: letters and digits folded onto {self.alphabet} "
                      f"letters, cut into pieces of at most {self.piece} bytes")
        else:
            mapped = (f"map {self.map_rec:g}/record + {self.map_byte:g}/byte + "
                      f"{self.map_key:g}/new key, {self.fan:g} records out per record over "
                      f"{self.keys} keys (Zipf {self.zipf:g}), {self.value_bytes}-byte values")
        parts = [f"{self.input} input", mapped]
        if self.combiner:
            parts.append(f"combine {self.combine_rec:g}/record + {self.combine_byte:g}/byte "
                         f"+ {self.combine_key:g}/key")
        if not self.map_only:
            parts.append(f"reduce {self.reduce_rec:g}/record + {self.reduce_byte:g}/byte + "
                         f"{self.reduce_key:g}/key" + (f" + {self.superlinear:g}·n^"
                                                       f"{self.power:g}/group"
                                                       if self.superlinear else ""))
        if self.start:
            parts.append(f"start-up {self.start:g} per task")
        return "; ".join(parts)

    def workload(self) -> Workload:
        """The runnable kind."""
        generator = GENERATORS[self.input]
        return Workload(
            name=self.name,
            mapper=self._command("map", self.map_args()),
            reducer=None if self.map_only else self._command("reduce", self.reduce_args()),
            combiner=self._command("combine", self.combine_args()) if self.combiner else None,
            n_inputs=2 if self.input == "join" else 1,
            generate=generator,
            description=self.describe(),
            profile=f"drawn: {self.shape()}",
            bytes_per_reduce=self.bytes_per_reduce,
            max_reduces=self.max_reduces,
        )


def _args(**values: float) -> tuple[str, ...]:
    return tuple(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                 for k, v in values.items())


# ---------------------------------------------------------------------------------------------
# Key laws


def key_shares(keys: int, zipf: float) -> np.ndarray:
    """The probability of each key rank of :func:`jobsize.workloads.costshape.rank_of`: the
    power law x^-zipf's mass in [r + 1, r + 2)."""
    x = np.arange(1, keys + 2, dtype=float)
    if abs(1.0 - zipf) < 1e-9:
        cdf = np.log(x) / math.log(keys + 1)
    else:
        cdf = (x ** (1.0 - zipf) - 1.0) / ((keys + 1) ** (1.0 - zipf) - 1.0)
    return np.diff(cdf)


def expected_distinct(shares: np.ndarray, draws: float) -> float:
    """The expected number of distinct keys among ``draws`` records with these key shares."""
    return float(-np.expm1(draws * np.log1p(-np.minimum(shares, 1 - 1e-16))).sum())


# ---------------------------------------------------------------------------------------------
# Drawing


def _log_uniform(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    low, high = math.log(bounds[0]), math.log(bounds[1])
    return math.exp(low + (high - low) * rng.random())


def _integer(rng: np.random.Generator, bounds: tuple[int, int]) -> int:
    """An integer uniform in [low, high]."""
    return bounds[0] + int(rng.random() * (bounds[1] - bounds[0] + 1))


def _round(value: float) -> float:
    """Four significant digits: parameters short enough to read in a report and an argv."""
    return float(f"{value:.4g}")


def _split(rng: np.random.Generator, budget: float, per: tuple[float, float, float]
           ) -> tuple[float, float, float]:
    """``budget`` units split at random among per-record, per-byte and per-key costs, each
    present with :data:`COST_SHARE` (one at least): a share over the records, bytes and keys
    (``per``) that 2 MiB holds."""
    present = [rng.random() < COST_SHARE for _ in per]
    weights = [-math.log(1.0 - rng.random()) for _ in per]  # exponential: a flat Dirichlet
    if not any(present):
        present[int(rng.random() * len(per))] = True
    total = sum(w for w, on in zip(weights, present, strict=True) if on)
    return tuple(_round(budget * w / total / max(n, 1.0)) if on else 0.0  # type: ignore[return-value]
                 for w, on, n in zip(weights, present, per, strict=True))


def kind_name(seed: int, index: int, language: str = "streaming") -> str:
    """``drawn-<seed>-<index>``, with ``-java`` for the kind's Java job."""
    return f"drawn-{seed}-{index}" + ("-java" if language == "java" else "")


#: The stream a kind's language is drawn from, apart from its parameters'.
LANGUAGE_STREAM = 1


def draw_language(seed: int, index: int, java_share: float) -> str:
    """Whether kind ``index`` of ``seed`` is a Java job, with chance ``java_share`` — from a
    stream of its own, so the point's parameters do not depend on it."""
    if not 0.0 <= java_share <= 1.0:
        raise ConfigError(f"the share of Java kinds must be in [0, 1], got {java_share!r}")
    if java_share == 0.0:
        return "streaming"
    rng = np.random.default_rng([SPACE_VERSION, seed, index, LANGUAGE_STREAM])
    return "java" if rng.random() < java_share else "streaming"


def draw_kind(seed: int, index: int, language: str = "streaming") -> KindPoint:
    """Kind ``index`` of ``seed`` written in ``language`` — a pure function of its
    arguments."""
    if language not in LANGUAGES:
        raise ConfigError(f"a drawn kind is written in {' or '.join(LANGUAGES)}, "
                          f"not {language!r}")
    if seed < 0 or index < 0:
        raise ConfigError(f"kind seed and index must be non-negative, got {seed} and {index}")
    # the space's version in the stream: a changed space draws other kinds, not mixed ones
    rng = np.random.default_rng([SPACE_VERSION, seed, index])
    names = sorted(GENERATORS)
    source = names[int(rng.random() * len(names))]
    map_only = bool(rng.random() < MAP_ONLY_SHARE)
    framework = bool(rng.random() < FRAMEWORK_SHARE)
    combiner = not map_only and bool(rng.random() < COMBINER_SHARE)
    start = _round(_log_uniform(rng, STARTUP)) if rng.random() < STARTUP_SHARE else 0.0
    point = dict(seed=seed, index=index, input=source, map_only=map_only, combiner=combiner,
                 framework=framework, start=start, salt=int(rng.integers(1 << 32)),
                 bytes_per_reduce=BYTES_PER_REDUCE[int(rng.random() * len(BYTES_PER_REDUCE))],
                 max_reduces=MAX_REDUCES[int(rng.random() * len(MAX_REDUCES))])
    in_records = TASK_BYTES / RECORD_BYTES[source]
    if framework:
        piece, alphabet = _integer(rng, PIECE), _integer(rng, ALPHABET)
        point.update(piece=piece, alphabet=alphabet)
        # short pieces are the many-records case: a bound on the records 2 MiB holds
        out_bytes = (piece + 1) / 2 + 1
        out_records = TASK_BYTES / out_bytes
        out_keys = min(out_records, sum(alphabet ** n for n in range(1, piece + 1)))
        shares = None
    else:
        filters = rng.random() < FILTER_SHARE
        fan_draw = rng.random()
        keys = round(_log_uniform(rng, KEYS))
        zipf = _round(ZIPF[0] + (ZIPF[1] - ZIPF[0]) * rng.random())
        value_bytes = _integer(rng, VALUE_BYTES)
        out_bytes = RECORD_OVERHEAD + (value_bytes + 1 if value_bytes else 0)
        most = min(FAN_EXPAND[1], MAX_MAP_RECORDS / in_records,
                   MAX_MAP_BYTES / out_bytes / in_records)
        low, high = FAN_FILTER if filters else (FAN_EXPAND[0], max(FAN_EXPAND[0], most))
        fan = _round(low * (high / low) ** fan_draw)  # log-uniform
        shares = key_shares(keys, zipf)
        map_keys = expected_distinct(shares, in_records * fan)
        point.update(fan=fan, keys=keys, zipf=zipf, value_bytes=value_bytes)
        point.update(zip(("map_rec", "map_byte", "map_key"),
                         _split(rng, _log_uniform(rng, MAP_WORK),
                                (in_records, TASK_BYTES, map_keys)), strict=True))
        out_records = TASK_BYTES / out_bytes
        out_keys = expected_distinct(shares, out_records)
    if not map_only:
        per = (out_records, TASK_BYTES, out_keys)
        if combiner:
            point.update(zip(("combine_rec", "combine_byte", "combine_key"),
                             _split(rng, _log_uniform(rng, COMBINE_WORK), per), strict=True))
        point.update(zip(("reduce_rec", "reduce_byte", "reduce_key"),
                         _split(rng, _log_uniform(rng, REDUCE_WORK), per), strict=True))
        if shares is not None and rng.random() < SUPERLINEAR_SHARE:
            power = _round(SUPERLINEAR_P[0] + (SUPERLINEAR_P[1] - SUPERLINEAR_P[0])
                           * rng.random())
            # Σ n_g^p over the groups of 2 MiB of reduce input: with λ records of a key
            # expected, E[n^p] ≤ λ(1 + λ)^(p-1) (Poisson counts, by Hölder; exact at p = 1, 2)
            mean = out_records * shares
            groups = float((mean * (1.0 + mean) ** (power - 1.0)).sum())
            point.update(power=power, superlinear=_round(
                _log_uniform(rng, SUPERLINEAR_WORK) / max(groups, 1.0)))
    return KindPoint(**point, language=language)  # type: ignore[arg-type]


def draw_kinds(seed: int, n: int, java_share: float = 0.0) -> list[Workload]:
    """The first ``n`` kinds of ``seed``, runnable; each a Java job with chance
    ``java_share`` (:func:`draw_language`)."""
    if n < 0 or seed < 0:
        raise ConfigError(f"the kind seed and the number of kinds to draw must be "
                          f"non-negative, got {seed} and {n}")
    return [drawn_workload(kind_name(seed, i, draw_language(seed, i, java_share)))
            for i in range(n)]


def is_drawn(name: str) -> bool:
    """Whether ``name`` is spelled like a drawn kind's."""
    return NAME.fullmatch(name) is not None


@functools.lru_cache(maxsize=1024)
def point(name: str) -> KindPoint:
    """The point ``drawn-<seed>-<index>`` of the space."""
    match = NAME.fullmatch(name)
    if match is None:
        raise ConfigError(f"a drawn kind is named drawn-<seed>-<index>[-java], got {name!r}")
    return draw_kind(int(match.group(1)), int(match.group(2)),
                     "java" if match.group(3) else "streaming")


@functools.lru_cache(maxsize=1024)
def drawn_workload(name: str) -> Workload:
    """The runnable drawn kind called ``drawn-<seed>-<index>``."""
    return point(name).workload()


__all__ = ["SPACE_VERSION", "KindPoint", "draw_kind", "draw_kinds", "draw_language",
           "drawn_workload",
           "expected_distinct", "is_drawn", "key_shares", "point"]
