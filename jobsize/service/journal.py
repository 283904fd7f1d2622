"""The observation journal: every observed job and every decision on one, appended and fsynced
before it is acknowledged.

One JSON object per line, in the order the service made them:

* ``{"seq": n, "key": k, "job": {...}}`` — a job observed and learned;
* ``{"seq": n, "key": k, "job": {...}, "held": "<reason>"}`` — observed and held aside;
* ``{"seq": n, "accept": k}`` / ``{"seq": n, "drop": k}`` — an operator's decision on a held job.

``key`` is the job's id (or a digest of the job when it has none): a job is observed once.
Appends are group-committed: the requests waiting while one write+fsync runs go to disk together
in the next one. A line cut short by a crash was never acknowledged; :func:`read_journal` drops
it, and opening the journal for appending truncates it away. A damaged line anywhere else is a
ParseError naming it (``jobsize journal repair`` sets such lines aside): the journal is the
record of what the model learned, and a gap in it is not skipped silently.

One service at a time: :class:`Journal` holds an exclusive lock on ``JOURNAL.lock`` while open.
Compaction (:meth:`Journal.compact`) moves the lines up to a snapshot's sequence number to
``JOURNAL.archive`` and leaves the tail, so start-up replays the tail only.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobsize.atomic import atomic_write
from jobsize.errors import ConfigError, ParseError


@dataclass(frozen=True)
class Entry:
    """One line of the journal: an observed job (``op`` "observe") or a decision on a held one
    ("accept", "drop")."""

    seq: int
    key: str
    job: dict[str, Any] | None = None
    held: str | None = None  # why the job was held aside, not learned
    op: str = "observe"
    learned: bool = True  # the model counted it (a failed job, say, is journaled but not)

    def to_line(self) -> bytes:
        doc: dict[str, Any] = {"seq": self.seq}
        if self.op == "observe":
            doc.update(key=self.key, job=self.job)
            if self.held is not None:
                doc["held"] = self.held
        else:
            doc[self.op] = self.key
        return json.dumps(doc, separators=(",", ":"), allow_nan=False).encode() + b"\n"


@dataclass(frozen=True)
class Observation:
    """What became of one observed job."""

    seq: int  # the entry that first journaled it
    key: str
    learned: bool
    held: str | None = None  # why it was held aside instead of learned
    duplicate: bool = False  # observed before: nothing new was journaled or learned


def job_key(job: dict[str, Any]) -> str:
    """What identifies an observed job: its Hadoop job id, or a digest of the whole record (a
    client's retry sends the same bytes' worth of values)."""
    for name in ("job_id", "jobid", "id"):
        value = job.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    text = json.dumps(job, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def parse_entry(line: bytes) -> Entry:
    """One journal line; ValueError if it is not one."""
    return entry_of(json.loads(line))


def entry_of(doc: Any) -> Entry:
    """The entry a journal line's JSON object holds; ValueError if it is not one. Lines written
    before keys existed are keyed as :func:`job_key` keys them now."""
    if not isinstance(doc, dict) or type(doc.get("seq")) is not int:
        raise ValueError("no sequence number")
    for op in ("accept", "drop"):
        if op in doc:
            if not isinstance(doc[op], str):
                raise ValueError(f"{op} of a non-string key")
            return Entry(doc["seq"], doc[op], op=op)
    job = doc.get("job")
    held = doc.get("held")
    if not isinstance(job, dict) or not (held is None or isinstance(held, str)):
        raise ValueError("no job")
    key = doc.get("key")
    return Entry(doc["seq"], key if isinstance(key, str) else job_key(job), job, held)


def read_journal(path: str | os.PathLike[str], after: int = 0) -> tuple[list[Entry], int]:
    """The journal's entries with a sequence number above ``after`` and the byte length of its
    complete lines (a torn last line is left out). A missing journal is empty."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        raise ParseError(f"cannot read the journal ({exc.strerror})", source=path) from None
    end = data.rfind(b"\n") + 1  # past the last complete line
    entries: list[Entry] = []
    last = 0
    for number, line in enumerate(data[:end].splitlines(), start=1):
        try:
            entry = parse_entry(line)
        except (ValueError, TypeError):
            raise ParseError("not a journal entry (jobsize journal repair sets it aside)",
                             source=path, where=f"line {number}") from None
        if entry.seq <= last:
            raise ParseError(f"journal entry {entry.seq} out of sequence after {last} "
                             "(jobsize journal repair sets it aside)", source=path,
                             where=f"line {number}")
        last = entry.seq
        if entry.seq > after:
            entries.append(entry)
    return entries, end


def lock_path(journal: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(journal)}.lock")


def archive_path(journal: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(journal)}.archive")


@contextlib.contextmanager
def locked(journal: str | os.PathLike[str]):
    """Hold the journal's lock for a command that rewrites it (ConfigError if a service has it)."""
    fd = acquire_lock(journal)
    try:
        yield
    finally:
        os.close(fd)


def acquire_lock(journal: str | os.PathLike[str]) -> int:
    """An exclusive lock on ``JOURNAL.lock`` (its descriptor; closing it releases the lock)."""
    path = lock_path(journal)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise ConfigError(f"{journal}: the journal is in use by another jobsize process "
                          f"(pid {holder}); one service per journal") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


class Journal:
    """Appends entries to the journal file, durably, from the service's event loop."""

    def __init__(self, path: str | os.PathLike[str], valid_bytes: int, next_seq: int) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = acquire_lock(self.path)
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

    def add(self, job: dict[str, Any], learned: bool = True, *, key: str | None = None,
            held: str | None = None) -> tuple[Entry, asyncio.Future[None]]:
        """Number an observed ``job`` and queue it; the future is done once it is on disk."""
        return self.append(Entry(self.next_seq, key or job_key(job), job, held,
                                 learned=learned and held is None))

    def decide(self, op: str, key: str) -> tuple[Entry, asyncio.Future[None]]:
        """Number an operator's decision ("accept" or "drop") on a held job and queue it."""
        return self.append(Entry(self.next_seq, key, op=op, learned=op == "accept"))

    def append(self, entry: Entry) -> tuple[Entry, asyncio.Future[None]]:
        self.next_seq = entry.seq + 1
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._pending.append((entry.to_line(), done))
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

    async def compact(self, upto: int) -> int:
        """Move the lines with sequence numbers up to ``upto`` to the archive, keeping the rest;
        runs on the writer thread, between appends. Returns the lines moved."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer, self._compact, upto)

    def _compact(self, upto: int) -> int:
        lines = [(parse_entry(line).seq, line)
                 for line in self.path.read_bytes().splitlines(keepends=True)]
        moved = sum(seq <= upto for seq, _ in lines)
        archive = archive_path(self.path)
        archived, valid = read_journal(archive)
        done = archived[-1].seq if archived else 0  # a crash may have archived some already
        head = b"".join(line for seq, line in lines if done < seq <= upto)
        if head:
            append_durably(archive, valid, head)
        replace_durably(self.path, b"".join(line for seq, line in lines if seq > upto))
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        os.close(self._fd)
        self._fd = fd
        return moved

    def close(self) -> None:
        self._writer.shutdown(wait=True)
        os.close(self._fd)
        os.close(self._lock)


def append_durably(path: Path, valid: int, data: bytes) -> None:
    """Append ``data`` to ``path`` after its first ``valid`` bytes (a torn tail goes)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.ftruncate(fd, valid)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(path.parent)


def replace_durably(path: Path, data: bytes) -> None:
    """``path`` now holds ``data`` (written beside it, fsynced, renamed over it)."""
    with atomic_write(path) as handle:
        handle.write(data)
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def damaged_path(journal: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(journal)}.damaged")


def repair_journal(path: str | os.PathLike[str]) -> tuple[int, list[int]]:
    """Set aside the journal's damaged and out-of-sequence lines: they are appended, with their
    line numbers, to ``JOURNAL.damaged``, and the journal is rewritten without them (a torn last
    line is dropped). Returns the entries kept and the line numbers set aside. Takes the
    journal's lock: a running service has to be stopped first."""
    path = Path(path)
    with locked(path):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return 0, []
        kept: list[bytes] = []
        aside: list[tuple[int, bytes]] = []
        last = 0
        end = data.rfind(b"\n") + 1
        for number, line in enumerate(data[:end].splitlines(keepends=True), start=1):
            try:
                seq = parse_entry(line).seq
            except (ValueError, TypeError):
                seq = None
            if seq is None or seq <= last:
                aside.append((number, line))
            else:
                kept.append(line)
                last = seq
        if aside:
            record = b"".join(json.dumps({"line": n, "text": line.decode(errors="replace")},
                                         ensure_ascii=False).encode() + b"\n"
                              for n, line in aside)
            append_durably(damaged_path(path), _size(damaged_path(path)), record)
        if aside or end < len(data):
            replace_durably(path, b"".join(kept))
        return len(kept), [n for n, _ in aside]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
