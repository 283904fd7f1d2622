"""The observation journal: every observed job, appended and fsynced before it is acknowledged.

One JSON object per line, ``{"seq": n, "job": {...}}``, in the order the model learned them.
Appends are group-committed: the requests waiting while one write+fsync runs go to disk together
in the next one, so many clients observing at once cost one fsync per batch, not per job. A line
cut short by a crash was never acknowledged; :func:`read_journal` drops it, and opening the
journal for appending truncates it away. A damaged line anywhere else is a ParseError: the
journal is the record of what the model learned, and a gap in it is not skipped silently.
"""

from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobsize.errors import ParseError


@dataclass(frozen=True)
class Entry:
    """One observed job and its place in the journal."""

    seq: int
    job: dict[str, Any]
    learned: bool = True  # the model counted it (a failed job, say, is journaled but not)


def read_journal(path: str | os.PathLike[str]) -> tuple[list[Entry], int]:
    """The journal's entries and the byte length of its complete lines (a torn last line is
    left out). A missing journal is empty."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        raise ParseError(f"cannot read the journal ({exc.strerror})", source=path) from None
    end = data.rfind(b"\n") + 1  # past the last complete line
    entries: list[Entry] = []
    for number, line in enumerate(data[:end].splitlines(), start=1):
        try:
            doc = json.loads(line)
            entry = Entry(int(doc["seq"]), doc["job"])
        except (ValueError, KeyError, TypeError):
            raise ParseError("not a journal entry", source=path, where=f"line {number}") from None
        if not isinstance(entry.job, dict) or (entries and entry.seq <= entries[-1].seq):
            raise ParseError("not a journal entry in sequence", source=path,
                             where=f"line {number}")
        entries.append(entry)
    return entries, end


class Journal:
    """Appends entries to the journal file, durably, from the service's event loop."""

    def __init__(self, path: str | os.PathLike[str], valid_bytes: int, next_seq: int) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if os.fstat(self._fd).st_size > valid_bytes:  # a line torn by a crash
            os.ftruncate(self._fd, valid_bytes)
            os.fsync(self._fd)
        if created:
            _fsync_dir(self.path.parent)
        self.next_seq = next_seq
        self._pending: list[tuple[bytes, asyncio.Future[None]]] = []
        self._flushing = False
        self._flusher: asyncio.Task[None] | None = None
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")

    def add(self, job: dict[str, Any], learned: bool = True
            ) -> tuple[Entry, asyncio.Future[None]]:
        """Number ``job`` and queue it; the future is done once it is on disk."""
        entry = Entry(self.next_seq, job, learned)
        self.next_seq += 1
        line = json.dumps({"seq": entry.seq, "job": job}, separators=(",", ":"),
                          allow_nan=False).encode() + b"\n"
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._pending.append((line, done))
        if not self._flushing:
            self._flushing = True
            self._flusher = loop.create_task(self._flush())
        return entry, done

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    await loop.run_in_executor(self._writer, self._write,
                                               b"".join(line for line, _ in batch))
                except OSError as exc:
                    for _, done in batch:
                        done.set_exception(exc)
                else:
                    for _, done in batch:
                        done.set_result(None)
        finally:
            self._flushing = False

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def close(self) -> None:
        self._writer.shutdown(wait=True)
        os.close(self._fd)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
