"""Reference MapReduce workloads: real Hadoop Streaming programs and the inputs they run on.

Each :class:`Workload` names a mapper, an optional combiner and an optional reducer — argv of a
program in this package, run as ``python -m jobsize.workloads.<program> map|combine|reduce``,
that speaks the Hadoop Streaming protocol with the standard library only — and a seeded,
size-scaled generator of its input. Their cost profiles differ on purpose (map-heavy,
shuffle-heavy, reduce-heavy, map-only), because the measured runs of these jobs are the training
data of the size models::

    from jobsize.workloads import WORKLOADS
    wc = WORKLOADS["wordcount"]
    inputs = wc.generate(Path("in"), 64 << 20, seed=7)    # byte-identical for the same seed

This module imports no numpy: a streaming task that starts a program imports this package
first, and must start fast. Generators load their numpy code when first called.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jobsize.errors import ConfigError

MiB = 1 << 20

#: Cost profiles: where a job spends its time (measured; see the README, "Reference workloads").
#: "skewed-reduce": modest reduce work concentrated on a few hot keys, so reduces are unequal.
PROFILES = ("map-heavy", "cpu-heavy map", "shuffle-heavy", "reduce-heavy", "skewed-reduce",
            "map-only")


@dataclass(frozen=True)
class InputGenerator:
    """A generator function, imported on first call: ``(directory, size_bytes, seed) -> paths``.

    Same seed and size give byte-identical files; the files hold whole lines and together come
    within one line of ``size_bytes`` without exceeding it (except that a file is never empty).
    """

    kind: str  # the input's name: text, documents, sales, weblog, join, records, points, ...
    module: str
    function: str

    def __call__(self, directory: Path | str | os.PathLike[str], size_bytes: int,
                 seed: int) -> list[Path]:
        module = importlib.import_module(f"jobsize.workloads.gen.{self.module}")
        return getattr(module, self.function)(Path(directory), size_bytes, seed)


TEXT = InputGenerator("text", "text", "generate_text")
DOCUMENTS = InputGenerator("documents", "text", "generate_documents")
SALES = InputGenerator("sales", "sales", "generate_sales")
WEBLOG = InputGenerator("weblog", "weblog", "generate_weblog")
JOIN = InputGenerator("join", "join", "generate_join")
RECORDS = InputGenerator("records", "records", "generate_records")
POINTS = InputGenerator("points", "points", "generate_points")
PAGES = InputGenerator("pages", "pages", "generate_pages")


def program(module: str, role: str, *args: str) -> tuple[str, ...]:
    """The argv that runs ``role`` of program ``module`` with this interpreter."""
    return (sys.executable, "-m", f"jobsize.workloads.{module}", role, *args)


@dataclass(frozen=True)
class Workload:
    """A reference job: its streaming programs, its input generator and how it usually runs."""

    name: str
    mapper: tuple[str, ...]
    reducer: tuple[str, ...] | None  # None: map-only
    combiner: tuple[str, ...] | None
    n_inputs: int
    generate: Callable[[Path, int, int], list[Path]]
    description: str = ""
    profile: str = ""  # one of PROFILES (HELD_OUT_PROFILES for a held-out workload)
    #: Typical reduce count: one reduce per this many input bytes, at most ``max_reduces``.
    bytes_per_reduce: int = 256 * MiB
    max_reduces: int = 16

    @property
    def map_only(self) -> bool:
        return self.reducer is None

    @property
    def input_kind(self) -> str:
        """The name of the generated input (workloads of one kind can share inputs)."""
        return getattr(self.generate, "kind", self.name)

    def typical_reduces(self, input_bytes: int) -> int:
        """The number of reduces this job is usually given for ``input_bytes`` of input."""
        if self.map_only:
            return 0
        wanted = math.ceil(max(int(input_bytes), 1) / self.bytes_per_reduce)
        return max(1, min(wanted, self.max_reduces))


def _job(name: str, module: str, generate: InputGenerator, profile: str, description: str, *,
         args: tuple[str, ...] = (), reduce_args: tuple[str, ...] = (), reduce: bool = True,
         combine: bool = False, n_inputs: int = 1, bytes_per_reduce: int = 256 * MiB,
         max_reduces: int = 16) -> Workload:
    return Workload(
        name=name,
        mapper=program(module, "map", *args),
        reducer=program(module, "reduce", *reduce_args) if reduce else None,
        combiner=program(module, "combine") if combine else None,
        n_inputs=n_inputs,
        generate=generate,
        description=description,
        profile=profile,
        bytes_per_reduce=bytes_per_reduce,
        max_reduces=max_reduces,
    )


#: Centroids of the k-means iteration: enough distance computations to make the map CPU-bound.
KMEANS_K = 64
#: Grep's pattern: about 2% of the generated text lines match.
GREP_PATTERN = r"\bdo[a-z]*re\b"
#: Grep counting's pattern: words ending in "ni", about one match per ten lines.
GREPCOUNT_PATTERN = r"\b[a-z]*ni\b"

_ALL = (
    _job("wordcount", "wordcount", TEXT, "map-heavy",
         "occurrences of each word; the combiner shrinks the shuffle to the vocabulary",
         combine=True, bytes_per_reduce=512 * MiB, max_reduces=8),
    _job("wordcount_nocombine", "wordcount", TEXT, "shuffle-heavy",
         "word count without a combiner: every word occurrence crosses the shuffle",
         bytes_per_reduce=128 * MiB),
    _job("grep", "grep", TEXT, "map-only",
         "lines matching a regular expression (about 2% of lines)",
         args=(GREP_PATTERN,), reduce=False),
    _job("grepcount", "grepcount", TEXT, "map-heavy",
         "occurrences of each match of a regular expression (Hadoop's Grep example)",
         args=(GREPCOUNT_PATTERN,), combine=True, bytes_per_reduce=1024 * MiB, max_reduces=4),
    _job("bigram", "bigram", TEXT, "shuffle-heavy",
         "occurrences of each pair of adjacent words; a key space far beyond the vocabulary",
         combine=True, bytes_per_reduce=256 * MiB),
    _job("cooccur", "cooccur", TEXT, "shuffle-heavy",
         "word pairs within a window of 4 words: map output several times the input",
         combine=True, bytes_per_reduce=128 * MiB),
    _job("invindex", "invindex", DOCUMENTS, "shuffle-heavy",
         "inverted index: the sorted list of documents of each word",
         bytes_per_reduce=128 * MiB),
    _job("sort", "sort", RECORDS, "shuffle-heavy",
         "identity map and reduce over 100-byte records: the shuffle sorts them by key",
         bytes_per_reduce=128 * MiB, max_reduces=32),
    _job("join", "join", JOIN, "shuffle-heavy",
         "reduce-side inner join of users and their orders on the user id",
         n_inputs=2, bytes_per_reduce=128 * MiB),
    _job("groupby", "groupby", SALES, "map-heavy",
         "count, sum and average of the price per product (combiner: partial sums)",
         combine=True, bytes_per_reduce=512 * MiB, max_reduces=8),
    _job("quantiles", "quantiles", SALES, "skewed-reduce",
         "median and tail percentiles of the price per region: whole groups sorted in reduce",
         bytes_per_reduce=256 * MiB, max_reduces=8),
    _job("window", "window", SALES, "reduce-heavy",
         "running revenue and revenue rank of each purchase per customer (SQL window)",
         bytes_per_reduce=128 * MiB),
    _job("topk", "topk", SALES, "map-heavy",
         "the 100 orders of largest revenue: in-map top-k, one reduce",
         max_reduces=1),
    _job("csvfilter", "csvfilter", SALES, "map-only",
         "orders of quantity 3 or more with their revenue (SELECT ... WHERE)",
         reduce=False),
    _job("logparse", "logparse", WEBLOG, "map-only",
         "access-log lines parsed into a tab-separated table",
         reduce=False),
    _job("distinct", "distinct", WEBLOG, "map-heavy",
         "distinct (user, page) pairs of an access log (combiner: per-map dedup)",
         combine=True, bytes_per_reduce=256 * MiB),
    _job("sessionize", "sessionize", WEBLOG, "skewed-reduce",
         "each user's requests cut into sessions at 30-minute gaps, tagged with their session",
         bytes_per_reduce=256 * MiB),
    _job("kmeans", "kmeans", POINTS, "cpu-heavy map",
         "one k-means iteration: nearest of 64 centroids per point in pure Python",
         args=(str(KMEANS_K), "1"), combine=True, max_reduces=1),
)

#: The reference workloads by name.
WORKLOADS: dict[str, Workload] = {w.name: w for w in _ALL}

#: Cost shapes of the held-out workloads — each one a place where the reference workloads have
#: no example, so a model fitted on them has never seen its like.
HELD_OUT_PROFILES = ("record-heavy, no combiner", "expensive combiner", "per-task start-up",
                     "fixed-size task output", "cpu-bound map, tiny output",
                     "superlinear reduce", "map-only expansion", "long records",
                     "framework-bound map")

_HELD_OUT = (
    _job("chargrams", "chargrams", TEXT, "record-heavy, no combiner",
         "letter-bigram counts without a combiner: about 45 five-byte records per line, a key "
         "space of at most 676", bytes_per_reduce=16 * MiB, max_reduces=8),
    _job("agentmix", "agentmix", WEBLOG, "expensive combiner",
         "browser and platform mix per page: a cheap map, a combiner that classifies every "
         "user-agent string against a bank of regular expressions",
         combine=True, bytes_per_reduce=32 * MiB, max_reduces=8),
    _job("iplookup", "iplookup", WEBLOG, "per-task start-up",
         "traffic per network operator: every task first builds a table of a million address "
         "ranges, then looks each request up by binary search",
         combine=True, bytes_per_reduce=16 * MiB, max_reduces=4),
    _job("histogram", "histogram", SALES, "fixed-size task output",
         "revenue histograms per region: each map emits every cell of a 41 × 256 table "
         "whatever its input, so the reduce grows with the maps",
         bytes_per_reduce=64 * MiB, max_reduces=2),
    _job("hashaudit", "hashaudit", RECORDS, "cpu-bound map, tiny output",
         "PBKDF2 (100 rounds) of every record, folded into one line per map task",
         max_reduces=1),
    _job("neardup", "neardup", DOCUMENTS, "superlinear reduce",
         "near-duplicate documents: all pairs of each of 2048 blocks compared by Jaccard "
         "similarity, so reduce work grows with the square of the input",
         bytes_per_reduce=8 * MiB, max_reduces=8),
    _job("shingles", "shingles", DOCUMENTS, "map-only expansion",
         "every 3-word shingle of every document with its position: output about five times "
         "the input", reduce=False),
    _job("pagestats", "pagestats", PAGES, "long records",
         "per-site statistics of crawled pages, one page of about 100 KB per record",
         combine=True, bytes_per_reduce=16 * MiB, max_reduces=4),
    _job("wordsplit", "wordsplit", TEXT, "framework-bound map",
         "every word on a line of its own, counted (tr and uniq -c): a map that scans its "
         "input in blocks at C speed, so reading, partitioning and sorting millions of short "
         "records is most of the job", bytes_per_reduce=16 * MiB, max_reduces=8),
)

#: Workloads kept out of every reference trace and model fit: the held-out kinds on which
#: ``jobsize evaluate`` tests predictions for jobs the history has never seen. ``workload()``
#: and ``bench-trace --workloads`` run them; nothing draws them by default. They have been
#: looked at while the models were developed, so they are the *development set*; kinds drawn
#: fresh from the space of cost shapes (:mod:`jobsize.workloads.kindspace`) are the test.
HELD_OUT: dict[str, Workload] = {w.name: w for w in _HELD_OUT}

#: Names of kinds drawn from the space of cost shapes begin so (``drawn-<seed>-<index>``).
DRAWN_PREFIX = "drawn-"

#: Input generators by input kind (several workloads share one input).
GENERATORS: dict[str, InputGenerator] = {
    g.kind: g for g in (TEXT, DOCUMENTS, SALES, WEBLOG, JOIN, RECORDS, POINTS, PAGES)
}


def workload(name: str) -> Workload:
    """The reference, held-out or drawn (``drawn-<seed>-<index>``, see
    :mod:`jobsize.workloads.kindspace`) workload called ``name``, or a ConfigError listing the
    names there are."""
    found = WORKLOADS.get(name) or HELD_OUT.get(name)
    if found is None and name.startswith(DRAWN_PREFIX):
        from jobsize.workloads.kindspace import drawn_workload  # numpy: only when asked for

        return drawn_workload(name)
    if found is None:
        raise ConfigError(f"unknown workload {name!r}; choose one of "
                          f"{', '.join(sorted(WORKLOADS))}, a held-out workload: "
                          f"{', '.join(sorted(HELD_OUT))}, or a drawn kind "
                          f"{DRAWN_PREFIX}<seed>-<index>")
    return found


def is_workload(name: str) -> bool:
    """Whether :func:`workload` knows ``name``."""
    try:
        workload(name)
    except ConfigError:
        return False
    return True
