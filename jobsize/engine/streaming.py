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

import array
import contextlib
import fcntl
import os
import select
import shlex
import subprocess
import termios
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
#: The smallest pipe Linux makes: one page.
_PAGE_BYTES = 4096


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
    #: what it paid whatever its input (start-up until its first read, end after its last),
    #: where timed
    startup_seconds: float | None = None


def startup_sum(total: float | None, more: float | None) -> float | None:
    """Two start-ups added; None when either went untimed."""
    return None if total is None or more is None else total + more


def _set_pipe(fd: int, size: int) -> int | None:
    """Resize a pipe; its new capacity, or None where the system refuses."""
    try:
        return fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    except OSError:
        return None


def _enlarge_pipe(fd: int) -> None:
    _set_pipe(fd, _READ_BYTES)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _Clock:
    """When a program first read its input and when it had read all of it (the feeder's
    thread sets both), and the framework's time on the caller's thread after the latter."""

    def __init__(self) -> None:
        self.first_read: float | None = None
        self.drained: float | None = None
        self.spans: list[tuple[float, float]] = []  # framework time: (start, end)

    def fixed(self, started: float, exited: float) -> float | None:
        """What the program paid whatever its input: its start-up, until it first read, and
        its end, from reading its last input to its exit (less the framework's time then)."""
        if self.first_read is None or self.drained is None:
            return None
        framework = sum(max(0.0, b - max(a, self.drained)) for a, b in self.spans)
        end = max(exited - self.drained - framework, 0.0)
        return (self.first_read - started) + end


def _first_read(fd: int, chunks: Iterator[bytes], clock: _Clock) -> None:
    """Feed the program its first bytes so that the moment it first reads is seen: a pipe of
    one page is filled and one byte more is written, which returns only once the program has
    read. What it did before — start an interpreter, import, load a model — is its start-up.
    Inputs shorter than the pipe, and systems that do not resize pipes, are fed untimed."""
    capacity = _set_pipe(fd, _PAGE_BYTES)
    head = b""
    for chunk in chunks:
        head += chunk
        if capacity is None or len(head) > capacity:
            break
    if capacity is not None and len(head) > capacity:
        _write_all(fd, head[:capacity])
        _write_all(fd, head[capacity:capacity + 1])
        clock.first_read = time.perf_counter()
        head = head[capacity + 1:]
    _enlarge_pipe(fd)
    _write_all(fd, head)


def _until_drained(fd: int, clock: _Clock) -> None:
    """Wait until the program has read everything written to it (or closed its input); what
    it does after it has — its last records, its output, its exit — ends the task."""
    waiting = select.poll()
    waiting.register(fd, 0)  # errors only: the reader gone
    left = array.array("i", [0])
    while True:
        fcntl.ioctl(fd, termios.FIONREAD, left, True)
        if left[0] == 0:
            clock.drained = time.perf_counter()
            return
        if waiting.poll(1):
            return


def _feed(stdin, chunks: Iterable[bytes], failure: list[BaseException],
          clock: _Clock | None = None) -> None:
    try:
        rest = iter(chunks)
        if clock is None:
            for chunk in rest:
                stdin.write(chunk)
        else:  # unbuffered, to see when the program reads
            fd = stdin.fileno()
            _first_read(fd, rest, clock)
            for chunk in rest:
                _write_all(fd, chunk)
            _until_drained(fd, clock)
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
    time_startup: bool = False,
) -> Outcome:
    """Run ``argv`` with ``chunks`` on stdin; ``on_output`` gets stdout in whole-line chunks.

    Time that ``on_output`` takes is framework time and is subtracted from the function time.
    ``time_startup`` also times what the program pays whatever its input, as its run over no
    input would: its start-up until it first reads and its end after its last read
    (:class:`_Clock`).
    """
    t0 = time.perf_counter()
    with open(stderr_path, "wb") as err:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err, env=dict(env), cwd=cwd)
        except OSError as exc:
            return Outcome(False, exit_code=127, error=f"cannot run {argv[0]!r}: {exc.strerror}",
                           stderr=str(exc))
    if not time_startup:
        _enlarge_pipe(proc.stdin.fileno())
    _enlarge_pipe(proc.stdout.fileno())
    failure: list[BaseException] = []
    clock = _Clock() if time_startup else None
    feeder = threading.Thread(target=_feed, args=(proc.stdin, chunks, failure, clock),
                              daemon=True)
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
                framework += _framework(on_output, block[:cut], clock)
        if carry:
            framework += _framework(on_output, carry + b"\n", clock)
    except BaseException:
        proc.kill()
        raise
    finally:
        _, status, usage = os.wait4(proc.pid, 0)
        exited = time.perf_counter()
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        feeder.join()
    elapsed = time.perf_counter() - t0 - framework
    counters, tail = parse_stderr(stderr_path)
    outcome = Outcome(True, max(elapsed, 0.0), proc.returncode, "", tail, counters,
                      usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
                      None if clock is None else clock.fixed(t0, exited))
    if failure:
        raise failure[0]
    if proc.returncode != 0:
        outcome.ok = False
        how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with code {proc.returncode}")
        outcome.error = f"subprocess {shlex.join(argv)} {how}"
    return outcome


def _framework(on_output: Callable[[bytes], None], block: bytes, clock: _Clock | None
               ) -> float:
    """Hand ``block`` to the framework; the seconds that took (kept on the clock, if any)."""
    c0 = time.perf_counter()
    on_output(block)
    c1 = time.perf_counter()
    if clock is not None:
        clock.spans.append((c0, c1))
    return c1 - c0


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
