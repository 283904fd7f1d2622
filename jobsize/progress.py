"""Progress bars for long work, in one style across commands.

Library code (collectors, the engine, the simulator) reports progress through a plain callback
``advance(n=1)``; the CLI turns that into a rich bar with a count, a rate and an ETA. With output
that is not a terminal the bar stays quiet.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

Advance = Callable[..., None]


@contextlib.contextmanager
def progress_bar(description: str, total: float | None = None) -> Iterator[Advance]:
    """Show a progress bar on stderr; yields ``advance(n=1)``."""
    console = Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task(description, total=total)

        def advance(n: float = 1) -> None:
            progress.advance(task, n)

        yield advance
