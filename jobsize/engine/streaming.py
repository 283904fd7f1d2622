"""Running the user's map or reduce function the way Hadoop Streaming does.

A function is either a command (argv of a program reading records on stdin and writing
``key\\tvalue`` lines on stdout) or a Python callable:

- map callable: ``fn(line: str) -> Iterable[tuple[key, value]]``, called once per input record;
- reduce/combine callable: ``fn(key: str, values: Iterator[str]) -> Iterable[tuple[key, value]]``,
  called once per key with that key's values (the framework groups, as Hadoop's Java API does).

Keys and values of callables are turned into text with ``str``; bytes that are not UTF-8 pass
through (``surrogateescape``). Both kinds report the time spent inside the user's function —
for a command, the life of its process minus the time the framework spent on the same thread
(spilling) while the process was alive; for a callable, the time inside the calls. The command's
stderr lines ``reporter:counter:<group>,<counter>,<amount>`` increment counters, as in Hadoop
Streaming; the rest of stderr is kept for the error message of a failed attempt.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MapFunction = Callable[[str], Iterable[tuple[Any, Any]]]
ReduceFunction = Callable[[str, Iterator[str]], Iterable[tuple[Any, Any]]]
#: A streaming command (argv) or a Python callable.
Function = tuple[str, ...] | MapFunction | ReduceFunction

STDERR_TAIL_BYTES = 16384
_READ_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031  # Linux: enlarge a pipe so the child blocks less often


def as_function(value: object, what: str) -> Function | None:
    """Normalise a user's mapper/reducer/combiner: None, a callable, an argv, or a command
    string (split like a shell would, without running one — as Hadoop Streaming does)."""
    from jobsize.errors import ConfigError

    if value is None or callable(value):
        return value  # type: ignore[return-value]
    if isinstance(value, str):
        argv = tuple(shlex.split(value))
    elif isinstance(value, Sequence) and all(isinstance(a, str) for a in value):
        argv = tuple(value)
    else:
        raise ConfigError(f"{what} must be a command or a callable, got {type(value).__name__}")
    if not argv:
        raise ConfigError(f"{what} command is empty")
    return argv


@dataclass
class Outcome:
    """How one run of a user function went."""

    ok: bool
    function_seconds: float = 0.0
    exit_code: int = 0
    error: str = ""  # one-line reason when not ok
    stderr: str = ""  # the tail of stderr (commands) or the traceback (callables)
    counters: dict[str, dict[str, int]] = field(default_factory=dict)  # from reporter: lines
    cpu_seconds: float = 0.0  # the child's user + system time
    max_rss_bytes: int = 0


def _enlarge_pipe(fd: int) -> None:
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETPIPE_SZ, _READ_BYTES)


def _feed(stdin, chunks: Iterable[bytes], failure: list[BaseException]) -> None:
    try:
        for chunk in chunks:
            stdin.write(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the program stopped reading; its exit status decides
    except BaseException as exc:  # reading the input failed: report it from the caller
        failure.append(exc)
    finally:
        with contextlib.suppress(OSError):
            stdin.close()


def parse_stderr(path: Path) -> tuple[dict[str, dict[str, int]], str]:
    """Counters from ``reporter:counter:`` lines, and the tail of the other stderr text."""
    counters: dict[str, dict[str, int]] = {}
    size = path.stat().st_size
    if size == 0:
        return counters, ""
    data = path.read_bytes()
    if b"reporter:" in data:
        kept = []
        for line in data.split(b"\n"):
            if line.startswith(b"reporter:counter:"):
                parts = line[len(b"reporter:counter:"):].decode("utf-8", "replace").split(",")
                if len(parts) == 3:
                    with contextlib.suppress(ValueError):
                        group = counters.setdefault(parts[0].strip(), {})
                        name = parts[1].strip()
                        group[name] = group.get(name, 0) + int(parts[2].strip())
                        continue
            if not line.startswith(b"reporter:status:"):
                kept.append(line)
        data = b"\n".join(kept)
    return counters, data[-STDERR_TAIL_BYTES:].decode("utf-8", "replace").strip()


def run_command(
    argv: tuple[str, ...],
    chunks: Iterable[bytes],
    on_output: Callable[[bytes], None],
    *,
    env: Mapping[str, str],
    cwd: Path,
    stderr_path: Path,
) -> Outcome:
    """Run ``argv`` with ``chunks`` on stdin; ``on_output`` gets stdout in whole-line chunks.

    Time that ``on_output`` takes is framework time and is subtracted from the function time.
    """
    t0 = time.perf_counter()
    with open(stderr_path, "wb") as err:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err, env=dict(env), cwd=cwd)
        except OSError as exc:
            return Outcome(False, exit_code=127, error=f"cannot run {argv[0]!r}: {exc.strerror}",
                           stderr=str(exc))
    _enlarge_pipe(proc.stdin.fileno())
    _enlarge_pipe(proc.stdout.fileno())
    failure: list[BaseException] = []
    feeder = threading.Thread(target=_feed, args=(proc.stdin, chunks, failure), daemon=True)
    feeder.start()
    framework = 0.0
    carry = b""
    try:
        while True:
            block = proc.stdout.read(_READ_BYTES)
            if not block:
                break
            block = carry + block
            cut = block.rfind(b"\n") + 1
            carry = block[cut:]
            if cut:
                c0 = time.perf_counter()
                on_output(block[:cut])
                framework += time.perf_counter() - c0
        if carry:
            c0 = time.perf_counter()
            on_output(carry + b"\n")
            framework += time.perf_counter() - c0
    except BaseException:
        proc.kill()
        raise
    finally:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        feeder.join()
    elapsed = time.perf_counter() - t0 - framework
    counters, tail = parse_stderr(stderr_path)
    outcome = Outcome(True, max(elapsed, 0.0), proc.returncode, "", tail, counters,
                      usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)
    if failure:
        raise failure[0]
    if proc.returncode != 0:
        outcome.ok = False
        how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with code {proc.returncode}")
        outcome.error = f"subprocess {shlex.join(argv)} {how}"
    return outcome


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _serialise(pairs: Iterable[tuple[Any, Any]], out: list[str]) -> None:
    for key, value in pairs:
        out.append(f"{_text(key)}\t{_text(value)}\n")


def _traceback(exc: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception(exc)).strip()[-STDERR_TAIL_BYTES:]


def run_map_callable(fn: MapFunction, chunks: Iterable[bytes],
                     on_output: Callable[[bytes], None]) -> Outcome:
    """Call ``fn`` on every record; only the time inside ``fn`` counts as function time."""
    inside = 0.0
    clock = time.perf_counter
    try:
        for chunk in chunks:
            out: list[str] = []
            for line in chunk.decode("utf-8", "surrogateescape").split("\n")[:-1]:
                t0 = clock()
                _serialise(fn(line), out)
                inside += clock() - t0
            if out:
                on_output("".join(out).encode("utf-8", "surrogateescape"))
    except Exception as exc:
        return Outcome(False, inside, 1, f"map function raised {type(exc).__name__}: {exc}",
                       _traceback(exc))
    return Outcome(True, inside)


def _groups(lines: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    """Group sorted ``key\\tvalue`` lines by key, like Hadoop's reduce-side grouping."""
    key: str | None = None
    values: list[str] = []
    for line in lines:
        k, _, v = line.partition("\t")
        if k != key:
            if key is not None:
                yield key, values
            key, values = k, []
        values.append(v)
    if key is not None:
        yield key, values


def run_reduce_callable(fn: ReduceFunction, chunks: Iterable[bytes],
                        on_output: Callable[[bytes], None]) -> Outcome:
    """Call ``fn`` once per key group of the sorted input; time inside ``fn`` is function time."""
    inside = 0.0
    clock = time.perf_counter

    def lines() -> Iterator[str]:
        for chunk in chunks:
            yield from chunk.decode("utf-8", "surrogateescape").split("\n")[:-1]

    out: list[str] = []
    try:
        # values are gathered before the call so the framework's reading is not timed
        for key, values in _groups(lines()):
            t0 = clock()
            _serialise(fn(key, iter(values)), out)
            inside += clock() - t0
            if len(out) > 4096:
                on_output("".join(out).encode("utf-8", "surrogateescape"))
                out.clear()
        if out:
            on_output("".join(out).encode("utf-8", "surrogateescape"))
    except Exception as exc:
        return Outcome(False, inside, 1, f"reduce function raised {type(exc).__name__}: {exc}",
                       _traceback(exc))
    return Outcome(True, inside)
