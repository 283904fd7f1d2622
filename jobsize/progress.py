"""Progress for long work, in one style across commands.

Library code (collectors, the engine, the simulator) reports progress through a plain callback
``advance(n=1)``; the CLI turns that into a rich bar with a count, a rate and an ETA on a
terminal. When stderr is not a terminal (a log, CI, a pipe) a bar would be noise, so a plain line
(``simulating: 120/480 (25%), 31 s elapsed, eta 93 s``) is printed every :data:`LOG_EVERY_S`
seconds and once at the end. ``jobsize --quiet`` turns both off.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

Advance = Callable[..., None]

#: Seconds between progress lines when stderr is not a terminal.
LOG_EVERY_S = 5.0

_settings = {"quiet": False}


def configure(*, quiet: bool = False) -> None:
    """Turn progress output off (``quiet``) or on for the rest of the process."""
    _settings["quiet"] = quiet


@contextlib.contextmanager
def progress_bar(description: str, total: float | None = None) -> Iterator[Advance]:
    """Report progress on stderr while the block runs; yields ``advance(n=1)``."""
    if _settings["quiet"]:
        yield _ignore
    elif sys.stderr.isatty():
        with _rich_bar(description, total) as advance:
            yield advance
    else:
        log = _ProgressLog(description, total, sys.stderr)
        try:
            yield log.advance
        finally:
            log.finish()


def _ignore(n: float = 1) -> None:
    return None


@contextlib.contextmanager
def _rich_bar(description: str, total: float | None) -> Iterator[Advance]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task(description, total=total)

        def advance(n: float = 1) -> None:
            progress.advance(task, n)

        yield advance


class _ProgressLog:
    """Progress as a line every few seconds, for output that is not a terminal.

    A timer thread writes the lines, so work that advances rarely (one long simulation) still
    shows that it is alive.
    """

    def __init__(self, description: str, total: float | None, stream: TextIO,
                 every_s: float | None = None):
        self.description, self.total, self.stream = description, total, stream
        self.done = 0.0
        self._lines = 0
        self.start = time.monotonic()
        self._stop = threading.Event()
        every_s = LOG_EVERY_S if every_s is None else every_s
        self._timer = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._timer.start()

    def advance(self, n: float = 1) -> None:
        self.done += n

    def finish(self) -> None:
        self._stop.set()
        self._timer.join()
        if self._lines:  # quick work stays silent
            self._line()

    def _run(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            self._line()

    def _line(self) -> None:
        self._lines += 1
        elapsed = time.monotonic() - self.start
        text = f"{self.description}: "
        if self.total:
            text += f"{self.done:g}/{self.total:g} ({100 * self.done / self.total:.0f}%), "
        elif self.done:  # work without a count (a probe, a listing) shows only its time
            text += f"{self.done:g}, "
        text += f"{elapsed:.0f} s elapsed"
        if self.total and 0 < self.done < self.total:
            text += f", eta {elapsed * (self.total - self.done) / self.done:.0f} s"
        print(text, file=self.stream, flush=True)
