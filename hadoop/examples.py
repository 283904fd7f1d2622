"""Hadoop's MapReduce examples as jobs to measure: their inputs, made as Hadoop makes them, and
the arguments that run them.

Each supported program of ``hadoop-mapreduce-examples.jar`` (:data:`EXAMPLES`) reads one kind
of input (:data:`INPUTS`), which :func:`generate` makes at a requested size:

- ``text``: ``randomtextwriter`` with Hadoop's ``TextOutputFormat`` (lines of random words from
  its own word list, key and value separated by a tab) — what wordcount, grep, multifilewc,
  wordmean, wordmedian, wordstandarddeviation and aggregatewordcount/hist read;
- ``sequence``: ``randomwriter`` (a SequenceFile of random ``BytesWritable`` keys and values),
  what sort reads;
- ``tera``: ``teragen`` (100-byte rows), what terasort reads;
- ``pairs``: lines of two integers, what secondarysort reads (Hadoop has no generator for it;
  written here, seeded);
- ``tables``: two tables of ``key<TAB>value`` lines sorted by key, one file each — the
  "sorted, equally partitioned datasets" join reads (written here, seeded), read with
  ``KeyValueTextInputFormat``.

Hadoop's generators are jobs themselves: one map per ``maps`` requested, each writing its share
of the bytes (so a text input of ``maps`` files gives its reader ``maps`` splits); their output
is random, not seeded (Hadoop's writers draw from an unseeded ``java.util.Random``).

Nothing here starts a JVM itself: :func:`generate` and :func:`run_example` submit through a
:class:`~jobsize.hadoop.client.HadoopClient`.
"""

from __future__ import annotations

import math
import random
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from jobsize.hadoop.client import HadoopClient, HadoopJob, Submission

from jobsize.errors import ConfigError

TEXT_OUTPUT = "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat"
KEY_VALUE_INPUT = "org.apache.hadoop.mapreduce.lib.input.KeyValueTextInputFormat"
TEXT_KEY = "org.apache.hadoop.io.Text"
#: grep's default expression: words of randomtextwriter's list that start with "un" (about one
#: word in thirty).
GREP_PATTERN = "un[a-z]*"
#: The client's poll of a running job (Job.waitForCompletion; Hadoop's default is 5 s, which a
#: job of a few seconds would wait out). Client-side only: the job's tasks never read it.
CLIENT_POLL = {"mapreduce.client.completion.pollinterval": "500"}
#: Settings an example needs on the mini cluster. terasort's TotalOrderPartitioner reads its
#: cut points from ``_partition.lst``, a relative path that the task resolves against the job's
#: working directory on the default file system — the submitting client's directory when that
#: file system is the local one, where no such file is (the distributed cache links it into the
#: container's directory) — so with more than one reduce every map fails. TeraSort's own
#: SimplePartitioner cuts the key range evenly instead, which for teragen's uniformly random
#: keys gives the same total order without a partition file (and without the client's sampling
#: of the input).
EXAMPLE_CONF: dict[str, dict[str, str]] = {
    "terasort": {"mapreduce.terasort.simplepartitioner": "true"},
}
#: teragen writes rows of this many bytes.
TERA_ROW_BYTES = 100


@dataclass(frozen=True)
class InputKind:
    """An input an example reads: made by a Hadoop generator (``program``) or written here."""

    name: str
    program: str | None  # randomtextwriter, randomwriter, teragen; None: written by jobsize
    description: str


INPUTS: dict[str, InputKind] = {k.name: k for k in (
    InputKind("text", "randomtextwriter",
              "randomtextwriter -outFormat TextOutputFormat: lines of random words"),
    InputKind("sequence", "randomwriter",
              "randomwriter: a SequenceFile of random BytesWritable keys and values"),
    InputKind("tera", "teragen", "teragen: 100-byte rows, a 10-byte key each"),
    InputKind("pairs", None, "lines of two integers (secondarysort's input), seeded"),
    InputKind("tables", None, "two tables of key<TAB>value lines sorted by key (join's "
              "input), seeded"),
)}


@dataclass(frozen=True)
class Example:
    """One program of Hadoop's examples jar: what it reads and how it is told its reduces."""

    name: str
    input_kind: str
    jobs: int  # jobs one run submits (grep: a search and a sort)
    description: str
    #: How the reduce count is given: "conf" (-D mapreduce.job.reduces), "-r" (its option),
    #: "arg" (aggregate's positional numOfReducer), "one" (fixed at 1), "none" (map-only).
    reduces: str = "conf"

    def arguments(self, inputs: Sequence[str], output: str, *, reduces: int | None = None,
                  pattern: str = GREP_PATTERN) -> list[str]:
        """The program's own arguments (after the generic ``-D`` options)."""
        ins = [str(p) for p in inputs]
        if not ins:
            raise ConfigError(f"{self.name} needs an input", where="--input")
        r = [] if reduces is None else [str(reduces)]
        if self.name == "grep":
            return [*_one(self.name, ins), output, pattern]
        if self.name == "sort":
            return [*(["-r", *r] if r else []), *_one(self.name, ins), output]
        if self.name == "join":
            if len(ins) < 2:
                raise ConfigError("join needs two or more inputs, sorted by key",
                                  where="--input")
            return [*(["-r", *r] if r else []), "-inFormat", KEY_VALUE_INPUT,
                    "-outKey", TEXT_KEY, "-outFormat", TEXT_OUTPUT, *ins, output]
        if self.name in ("aggregatewordcount", "aggregatewordhist"):
            return [",".join(ins), output, r[0] if r else "1", "textinputformat"]
        if self.name == "wordcount":
            return [*ins, output]
        return [*_one(self.name, ins), output]

    def conf(self, reduces: int | None = None) -> dict[str, str]:
        """Generic ``-D`` settings: the client's short poll, and the reduce count where the
        program takes it from the configuration."""
        conf = {**CLIENT_POLL, **EXAMPLE_CONF.get(self.name, {})}
        if reduces is not None and self.reduces == "conf":
            conf["mapreduce.job.reduces"] = str(reduces)
        return conf


def _one(program: str, inputs: Sequence[str]) -> list[str]:
    if len(inputs) != 1:
        raise ConfigError(f"{program} reads one input path, got {len(inputs)}",
                          where="--input")
    return list(inputs)


EXAMPLES: dict[str, Example] = {e.name: e for e in (
    Example("wordcount", "text", 1, "occurrences of each word (a combiner sums per map)"),
    Example("grep", "text", 2, "matches of a regular expression counted, then sorted by "
            "count (two jobs)"),
    Example("sort", "sequence", 1, "randomwriter's records sorted by key (identity map and "
            "reduce)", reduces="-r"),
    Example("terasort", "tera", 1, "teragen's rows sorted by a sampled total-order partition"),
    Example("join", "tables", 1, "inner join of sorted, equally partitioned tables in the "
            "map (CompositeInputFormat)", reduces="-r"),
    Example("secondarysort", "pairs", 1, "integer pairs grouped by the first, sorted by the "
            "second"),
    Example("multifilewc", "text", 1, "word count over a CombineFileInputFormat (many files, "
            "few maps)"),
    Example("wordmean", "text", 1, "the mean length of the words"),
    Example("wordmedian", "text", 1, "the median length of the words"),
    Example("wordstandarddeviation", "text", 1, "the standard deviation of word lengths"),
    Example("aggregatewordcount", "text", 1, "word count with the Aggregate framework",
            reduces="arg"),
    Example("aggregatewordhist", "text", 1, "a histogram of words with the Aggregate "
            "framework", reduces="arg"),
)}
#: Hadoop's generators, runnable as examples of their own (map-only jobs).
GENERATORS = ("randomtextwriter", "randomwriter", "teragen")


def example(name: str) -> Example:
    """The supported example ``name``; a one-line error naming the choices."""
    try:
        return EXAMPLES[name]
    except KeyError:
        raise ConfigError(f"unknown example {name!r}; supported: "
                          f"{', '.join(sorted(EXAMPLES))} (generators: "
                          f"{', '.join(GENERATORS)})", where="--example") from None


@dataclass(frozen=True)
class Step:
    """One client run of the examples jar: a program, its arguments, its ``-D`` settings."""

    program: str
    args: tuple[str, ...]
    conf: Mapping[str, str]


def generator_step(kind: str, output: str | Path, size_bytes: int, *, maps: int = 1) -> Step:
    """The Hadoop job that writes ``size_bytes`` of input ``kind`` to ``output`` in ``maps``
    files (one map each)."""
    source = INPUTS.get(kind)
    if source is None or source.program is None:
        raise ConfigError(f"input {kind!r} is not made by a Hadoop generator; they make "
                          f"{', '.join(k for k, v in INPUTS.items() if v.program)}")
    if size_bytes < 1 or maps < 1:
        raise ConfigError(f"an input needs a positive size and map count, got {size_bytes} "
                          f"bytes in {maps} maps")
    out = str(output)
    if kind == "tera":
        rows = max(1, size_bytes // TERA_ROW_BYTES)
        return Step("teragen", (str(rows), out),
                    {**CLIENT_POLL, "mapreduce.job.maps": str(min(maps, rows))})
    per_map = math.ceil(size_bytes / maps)
    prefix = f"mapreduce.{source.program}"
    conf = {**CLIENT_POLL, f"{prefix}.totalbytes": str(per_map * maps),
            f"{prefix}.bytespermap": str(per_map)}
    if kind == "text":
        return Step("randomtextwriter", ("-outFormat", TEXT_OUTPUT, out), conf)
    return Step("randomwriter", (out,), conf)


def write_pairs(directory: Path, size_bytes: int, seed: int, *, files: int = 1) -> list[Path]:
    """secondarysort's input: lines ``<a> <b>`` of integers (``a`` from a small range, so
    groups have several members), ``files`` files of about ``size_bytes / files`` bytes."""
    rng = random.Random(seed)
    paths = []
    for i in range(files):
        path = directory / f"pairs-{i:05d}.txt"
        lines, written = [], 0
        while written < size_bytes / files or not lines:
            line = f"{rng.randrange(-1000, 1000)} {rng.randrange(-100000, 100000)}\n"
            lines.append(line)
            written += len(line)
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def write_tables(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """join's input: ``left/part-00000`` holds every key once, ``right/part-00000`` about two
    thirds of them, each ``k<8 digits><TAB><value>``, sorted by key — so an inner join
    produces one row per key of the right table."""
    rng = random.Random(seed)
    keys = max(1, size_bytes // (2 * 24))
    out = []
    for side, keep in (("left", 1.0), ("right", 2 / 3)):
        lines = [f"k{k:08d}\t{side}-{rng.randrange(10**9):09d}\n" for k in range(keys)
                 if keep >= 1 or rng.random() < keep]
        path = directory / side / "part-00000"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(lines))
        out.append(path.parent)
    return out


def input_paths(kind: str, directory: Path) -> list[str]:
    """The paths an example names for input ``kind`` made in ``directory``."""
    if kind == "tables":
        return [str(directory / "left"), str(directory / "right")]
    return [str(directory)]


def generate(client: HadoopClient, kind: str, directory: str | Path, size_bytes: int, *,
             maps: int = 1, seed: int = 0, conf: Mapping[str, str] | None = None,
             timeout_s: float | None = None) -> tuple[list[str], list[HadoopJob]]:
    """Make ``size_bytes`` of input ``kind`` in ``directory`` (which must not exist: Hadoop's
    generators refuse an existing output). Returns the paths to give the example and the
    generator's jobs (none for an input written here). ``conf``: more ``-D`` settings of the
    generator's job."""
    where = Path(directory).resolve()
    if where.exists():
        raise ConfigError("the input directory to generate exists already", source=where)
    source = INPUTS.get(kind)
    if source is None:
        raise ConfigError(f"unknown input kind {kind!r}; known: {', '.join(INPUTS)}")
    if source.program is None:
        tmp = where.with_name(f".{where.name}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if kind == "pairs":
            write_pairs(tmp, size_bytes, seed, files=maps)
        else:
            write_tables(tmp, size_bytes, seed)
        tmp.rename(where)
        return input_paths(kind, where), []
    where.parent.mkdir(parents=True, exist_ok=True)
    step = generator_step(kind, where, size_bytes, maps=maps)
    submission = client.example(step.program, step.args, conf={**step.conf, **dict(conf or {})},
                                output=str(where), timeout_s=timeout_s)
    _check(submission, step.program)
    return input_paths(kind, where), list(submission.jobs)


def run_example(client: HadoopClient, name: str, inputs: Sequence[str], output: str | Path, *,
                reduces: int | None = None, conf: Mapping[str, str] | None = None,
                pattern: str = GREP_PATTERN, cwd: str | Path | None = None,
                timeout_s: float | None = None) -> Submission:
    """Run example ``name`` over ``inputs`` into ``output``; every job it submitted, in order.
    ``cwd`` is the client's working directory (grep keeps its intermediate output there)."""
    ex = example(name)
    out = str(Path(output).resolve())
    args = ex.arguments([str(Path(p).resolve()) for p in inputs], out, reduces=reduces,
                        pattern=pattern)
    return client.example(name, args, conf={**ex.conf(reduces), **dict(conf or {})},
                          output=out, timeout_s=timeout_s, cwd=cwd)


def _check(submission: Submission, program: str) -> None:
    from jobsize.errors import JobFailedError

    failed = [j for j in submission.jobs if j.state != "SUCCEEDED"]
    if submission.returncode != 0 or failed or not submission.jobs:
        what = failed[0].job_id + " " + failed[0].state if failed else \
            f"exit {submission.returncode}"
        raise JobFailedError(f"{program} did not make its input ({what})",
                             source="hadoop " + program)
