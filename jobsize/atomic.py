"""Atomic writes: a file appears complete under its final name or not at all.

Every artefact jobsize writes (traces, models, reports) goes through :func:`atomic_write`, so an
interrupted run never leaves a half-written file where a good one was. Files that belong
together (a trace and its task table, a sample and its metadata) go through
:func:`commit_together`: all are written beside their targets first, then a journal naming them
is written, then they are renamed into place and the journal removed. A run killed after the
journal was written is completed by the next one that touches the files (:func:`recover`), so
readers see the old set or the new set, never a mix.

Temporary files carry the writer's process id (``.NAME.PID-XXXX.tmp``); SIGINT and SIGTERM
remove them as the exception unwinds, and :func:`sweep` removes those a killed process left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

_JOURNAL = ".{name}.commit.json"
_JOURNAL_RE = re.compile(r"^\..+\.commit\.json$")


def _temp_beside(target: Path) -> tuple[int, str]:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}-", suffix=".tmp",
                               dir=target.parent)
    # mkstemp makes the file 0600; give it the permissions a plain open() would.
    os.chmod(tmp, 0o666 & ~_UMASK)
    return fd, tmp


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "wb", **open_kwargs: Any
) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success fsync it and rename it into place.

    On any exception the temporary file is removed and ``path`` is left untouched.
    """
    target = Path(path)
    fd, tmp = _temp_beside(target)
    try:
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _read_umask() -> int:
    # os.umask can only be read by setting it; do that once, at import, not while threads write.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_write(path, "w", encoding="utf-8") as handle:
        handle.write(text)


Writer = Callable[[IO[bytes]], None]


def commit_together(files: Sequence[tuple[str | os.PathLike[str], Writer]]) -> None:
    """Write each ``(path, write)`` and put them all in place as one commit.

    ``write(handle)`` fills a binary file. The first path names the journal. If the run dies
    before the journal is written nothing changes; after, :func:`recover` finishes the renames.
    """
    if not files:
        return
    renames: list[tuple[str, str]] = []
    journal = _journal_of(Path(files[0][0]))
    written = False
    try:
        for path, write in files:
            fd, tmp = _temp_beside(Path(path))
            renames.append((tmp, os.path.abspath(path)))
            with os.fdopen(fd, "wb") as handle:
                write(handle)
                handle.flush()
                os.fsync(handle.fileno())
        atomic_write_text(journal, json.dumps({"renames": renames}))
        written = True
        _finish(renames, journal)
    except BaseException:
        if written:  # the new set is complete on disk: finish it rather than lose it
            with contextlib.suppress(OSError):
                _finish(renames, journal)
        else:
            for tmp, _ in renames:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        raise


def _journal_of(path: Path) -> Path:
    return path.with_name(_JOURNAL.format(name=path.name))


def _finish(renames: list[tuple[str, str]], journal: Path) -> None:
    for tmp, final in renames:
        with contextlib.suppress(FileNotFoundError):  # renamed before the interruption
            os.replace(tmp, final)
    _fsync_dir(journal.parent)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def recover(path: str | os.PathLike[str]) -> None:
    """Finish any commit that a killed run left in ``path``'s folder (a journal is there)."""
    folder = Path(path).parent
    try:
        names = [n for n in os.listdir(folder or ".") if _JOURNAL_RE.match(n)]
    except OSError:
        return
    for name in names:
        journal = folder / name
        try:
            renames = json.loads(journal.read_text(encoding="utf-8"))["renames"]
            pairs = [(str(tmp), str(final)) for tmp, final in renames]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not ours, or being written: leave it
        with contextlib.suppress(OSError):
            _finish(pairs, journal)


def sweep(path: str | os.PathLike[str]) -> list[Path]:
    """Remove temporary files of ``path`` left by processes that no longer run; return them."""
    target = Path(path)
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.(\d+)-[^/]*\.tmp$")
    removed = []
    try:
        names = os.listdir(target.parent or ".")
    except OSError:
        return removed
    for name in names:
        match = pattern.match(name)
        if match and not _alive(int(match.group(1))):
            with contextlib.suppress(OSError):
                os.unlink(target.parent / name)
                removed.append(target.parent / name)
    return removed


def prepare(*paths: str | os.PathLike[str]) -> None:
    """Before a run writes ``paths``: finish an interrupted commit, sweep dead temporaries."""
    for path in paths:
        recover(path)
        sweep(path)
        sweep(_journal_of(Path(path)))  # a journal being written when the run died


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
