"""The Hadoop Streaming protocol, as the reference programs speak it (standard library only).

A streaming task is a process: the mapper reads its split's lines on stdin and writes
``key\\tvalue`` lines on stdout; the key is the text up to the first tab, and a line without a
tab is a key with an empty value. The reducer (and the combiner) reads its partition's lines
sorted by key and groups consecutive equal keys itself — values within a key arrive in no
particular order. Counters are reported on stderr as ``reporter:counter:<group>,<name>,<n>``.

Every program module ends with ``run({"map": ..., "reduce": ...})`` so that it runs as
``python -m jobsize.workloads.<name> map|reduce|combine [args]``. Nothing here imports more than
the standard library: a task starts in tens of milliseconds, as on a cluster node.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

#: Counter group of the reference programs' own counters (malformed records skipped, ...).
COUNTER_GROUP = "jobsize.workloads"

#: The environment variables through which Hadoop Streaming names a map task's input file
#: (``mapreduce_map_input_file`` since Hadoop 2; ``map_input_file`` is the older name).
INPUT_FILE_VARIABLES = ("mapreduce_map_input_file", "map_input_file")

Role = Callable[[Sequence[str]], None]


class UsageError(Exception):
    """A program was started with arguments it cannot use."""


def records(stream: Iterable[str] | None = None) -> Iterator[str]:
    """The input lines without their line terminator (``\\n`` or ``\\r\\n``, as Hadoop)."""
    for line in sys.stdin if stream is None else stream:
        yield line.rstrip("\r\n")


def split_key(line: str) -> tuple[str, str]:
    """``(key, value)`` of a streaming line: the key ends at the first tab."""
    key, _, value = line.partition("\t")
    return key, value


def _key(line: str) -> str:
    return line.partition("\t")[0]


def grouped(lines: Iterable[str] | None = None) -> Iterator[tuple[str, Iterator[str]]]:
    """Group a reducer's key-sorted input: ``(key, values)`` per run of equal keys."""
    source = records() if lines is None else lines
    for key, group in itertools.groupby(source, key=_key):
        yield key, (line.partition("\t")[2] for line in group)


def input_file() -> str:
    """The path of the map task's input file, as Hadoop Streaming sets it in the environment."""
    for name in INPUT_FILE_VARIABLES:
        value = os.environ.get(name)
        if value:
            return value
    raise UsageError(
        "the map input file is not set: run this mapper under a streaming engine that sets "
        f"{INPUT_FILE_VARIABLES[0]}"
    )


def count(name: str, amount: int) -> None:
    """Report a streaming counter on stderr (Hadoop adds it to the task's counters)."""
    if amount:
        sys.stderr.write(f"reporter:counter:{COUNTER_GROUP},{name},{amount}\n")


def int_arg(args: Sequence[str], index: int, name: str, default: int) -> int:
    """The integer argument at ``index`` (or ``default``), with a usage error naming it."""
    if index >= len(args):
        return default
    try:
        return int(args[index])
    except ValueError:
        raise UsageError(f"{name} must be an integer, got {args[index]!r}") from None


def _setup_streams() -> None:
    # Input is bytes on a cluster: decode as UTF-8 but let any other byte pass through unharmed.
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape", newline="\n")
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape", newline="\n")


def run(roles: Mapping[str, Role], argv: Sequence[str] | None = None) -> None:
    """Run the role named by ``argv[1]`` (``map``, ``reduce`` or ``combine``) and exit.

    A usage error prints one line on stderr and exits 2, like a command-line tool.
    """
    argv = list(sys.argv if argv is None else argv)
    program = os.path.basename(argv[0]) if argv else "program"
    if len(argv) < 2 or argv[1] not in roles:
        sys.stderr.write(f"usage: {program} {{{'|'.join(roles)}}} [args]\n")
        sys.exit(2)
    _setup_streams()
    try:
        roles[argv[1]](argv[2:])
        sys.stdout.flush()
    except UsageError as error:
        sys.stderr.write(f"{program} {argv[1]}: {error}\n")
        sys.exit(2)
    except BrokenPipeError:
        # The consumer went away (e.g. `| head`): stop quietly, as a Unix filter does.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


def sum_values(args: Sequence[str]) -> None:
    """A reducer (and combiner) that sums each key's integer values: ``key\\ttotal``."""
    write = sys.stdout.write
    for key, values in grouped():
        write(f"{key}\t{sum(map(int, values))}\n")
