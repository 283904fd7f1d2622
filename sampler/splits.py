"""Input splits: a job's input cut into map-sized byte ranges, as Hadoop's FileInputFormat does.

A directory stands for the files in it, sorted by name, skipping names that start with ``_`` or
``.`` (``_SUCCESS``, ``.crc`` files — Hadoop's hidden-file filter). Each file is cut into splits
of ``split_bytes``; the last split may be up to 10 % longer rather than leave a sliver
(``SPLIT_SLOP`` = 1.1), and an empty file is one empty split — so ``len(splits)`` is the N_m
Hadoop would run. Local files default to 64 MB splits (the block size of the paper's cluster);
WebHDFS files default to their own HDFS block size.

A :class:`Split` can read any byte range of its file (``split.read(offset, n)``), locally with a
positional read or over WebHDFS with ``OPEN`` — so a sampler seeks to what it needs and never
scans.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from jobsize.sampler.webhdfs import FileStatus, WebHdfs, client_for, is_webhdfs_url

from jobsize.errors import ConfigError, InputError

DEFAULT_SPLIT_BYTES = 64 * 1024 * 1024
SPLIT_SLOP = 1.1
#: Compressed files are one stream each; their records cannot be reached by seeking.
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".zst", ".xz", ".lz4", ".snappy", ".deflate", ".lzo", ".br")


class ByteSource(Protocol):
    """A file that can be read at any offset."""

    name: str

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes at ``offset`` (fewer only at the end of the file)."""
        ...


@dataclass(frozen=True)
class LocalFile:
    """A local file, read with one positional read per call."""

    name: str

    def read(self, offset: int, length: int) -> bytes:
        if length <= 0:
            return b""
        try:
            with open(self.name, "rb", buffering=0) as handle:
                handle.seek(offset)
                data = handle.read(length) or b""
                while len(data) < length:  # a raw read may return less; EOF returns b""
                    more = handle.read(length - len(data))
                    if not more:
                        break
                    data += more
        except OSError as exc:
            raise InputError(f"cannot read ({exc.strerror or exc})", source=self.name,
                             where=f"offset {offset}") from None
        return data


@dataclass(frozen=True)
class RemoteFile:
    """A file on HDFS, read with WebHDFS ``OPEN``."""

    name: str
    client: WebHdfs = field(repr=False)
    path: str

    def read(self, offset: int, length: int) -> bytes:
        return self.client.open(self.path, offset, length)


@dataclass(frozen=True)
class Split:
    """One map task's input: ``length`` bytes of ``path`` from ``start``.

    ``file_length`` is the whole file's length (records may run past the split's end).
    """

    path: str
    start: int
    length: int
    file_length: int
    source: ByteSource = field(compare=False, repr=False)

    @property
    def end(self) -> int:
        return self.start + self.length

    def read(self, offset: int, length: int) -> bytes:
        """Bytes ``[offset, offset + length)`` of the file, clipped at its end."""
        length = max(0, min(length, self.file_length - offset))
        data = self.source.read(offset, length)
        if len(data) != length:
            raise InputError(f"expected {length} bytes, got {len(data)}: the file changed "
                             "since it was listed", source=self.path, where=f"offset {offset}")
        return data


def _split_count(file_length: int, split_bytes: int) -> int:
    """How many splits ``getSplits`` cuts a file into (an empty file is one empty split)."""
    if file_length == 0:
        return 1

    def more(k: int) -> bool:  # Hadoop's test, in floating point as Hadoop does it
        return (file_length - k * split_bytes) / split_bytes > SPLIT_SLOP

    k = max(0, (10 * file_length - 11 * split_bytes) // (10 * split_bytes))
    while more(k):
        k += 1
    while k > 0 and not more(k - 1):
        k -= 1
    return k + 1


@dataclass(frozen=True)
class _File:
    source: ByteSource
    length: int
    split_bytes: int
    count: int


class Splits(Sequence[Split]):
    """A job's input splits, in input order, made on demand.

    Only the files are held (path, length, split size), never one object per split, so a tiny
    split size or a huge input costs no memory: ``splits[i]`` builds split ``i``.
    """

    def __init__(self) -> None:
        self._files: list[_File] = []
        self._ends: list[int] = []  # cumulative split counts
        self.total_bytes = 0

    def add_file(self, source: ByteSource, file_length: int, split_bytes: int) -> None:
        count = _split_count(file_length, split_bytes)
        self._files.append(_File(source, file_length, split_bytes, count))
        self._ends.append((self._ends[-1] if self._ends else 0) + count)
        self.total_bytes += file_length

    def extend(self, other: Splits) -> None:
        for f in other._files:
            self.add_file(f.source, f.length, f.split_bytes)

    def for_maps(self, n_maps: int) -> Splits:
        """The splits of a job that asks for ``n_maps`` maps: as Hadoop Streaming's ``mapred``
        ``FileInputFormat.getSplits(job, numSplits)``, the count is a hint — each file is cut
        at ``min(goal, its split size)`` with goal = total bytes / ``n_maps`` — and
        ``len()`` of the result is the job's N_m."""
        goal = self.total_bytes // max(1, n_maps)
        out = Splits()
        for f in self._files:
            out.add_file(f.source, f.length, max(1, min(goal, f.split_bytes)))
        return out

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("split index out of range")
        at = bisect.bisect_right(self._ends, index)
        f = self._files[at]
        k = index - (self._ends[at - 1] if at else 0)
        start = k * f.split_bytes
        length = f.length - start if k == f.count - 1 else f.split_bytes
        return Split(f.source.name, start, length, f.length, f.source)

    def __iter__(self) -> Iterator[Split]:
        for i in range(len(self)):
            yield self[i]

    def runs(self, first: int, stop: int) -> list[Split]:
        """Splits ``first`` to ``stop - 1`` merged into one range per file (consecutive splits
        of a file are contiguous): what a map task of Hadoop's CombineFileInputFormat reads."""
        out: list[Split] = []
        at = bisect.bisect_right(self._ends, first)
        index = first
        while index < stop:
            f = self._files[at]
            head, tail = self[index], self[min(stop, self._ends[at]) - 1]
            out.append(Split(f.source.name, head.start, tail.end - head.start, f.length,
                             f.source))
            index = self._ends[at]
            at += 1
        return out


def file_splits(source: ByteSource, file_length: int, split_bytes: int) -> Splits:
    """Hadoop's ``FileInputFormat.getSplits`` for one file."""
    out = Splits()
    out.add_file(source, file_length, split_bytes)
    return out


def local_splits(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    split_bytes: int = DEFAULT_SPLIT_BYTES,
    *,
    recursive: bool = False,
) -> Splits:
    """Splits of local files and directories, in input order."""
    _check_split_bytes(split_bytes)
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    out = Splits()
    for given in paths:
        for path, length in _walk(str(given), _local_status, _local_children, recursive):
            out.add_file(LocalFile(path), length, split_bytes)
    return out


def webhdfs_splits(
    urls: str | Iterable[str],
    split_bytes: int | None = None,
    *,
    recursive: bool = False,
    user: str | None = None,
    delegation: str | None = None,
    **options: Any,
) -> Splits:
    """Splits of files and directories on HDFS, listed over WebHDFS.

    ``split_bytes`` defaults to each file's HDFS block size, as in Hadoop. ``options`` go to
    :class:`~sampler.webhdfs.WebHdfs` (``timeout``, ``retries``, ``backoff``, ``auth``,
    ``session``).
    """
    if split_bytes is not None:
        _check_split_bytes(split_bytes)
    if isinstance(urls, str):
        urls = [urls]
    out = Splits()
    for url in urls:
        client, root = client_for(url, user=user, delegation=delegation, **options)
        sizes: dict[str, int] = {}

        def status(path: str, client: WebHdfs = client, sizes: dict[str, int] = sizes
                   ) -> tuple[str, int] | None:
            st = client.status(path)
            sizes[path] = st.block_size
            return _kind(st)

        def children(path: str, client: WebHdfs = client, sizes: dict[str, int] = sizes
                     ) -> list[tuple[str, str, int]]:
            listing = client.list(path)
            sizes.update({st.path: st.block_size for st in listing})
            return [(st.path, *_kind(st)) for st in listing]

        for path, length in _walk(root, status, children, recursive, name=client.name):
            size = split_bytes or sizes.get(path) or DEFAULT_SPLIT_BYTES
            out.add_file(RemoteFile(client.name(path), client, path), length, size)
    return out


def input_splits(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    split_bytes: int | None = None,
    *,
    recursive: bool = False,
    user: str | None = None,
    delegation: str | None = None,
    **options: Any,
) -> Splits:
    """Splits of a job's inputs, each a local path or a WebHDFS URL (see :mod:`sampler.webhdfs`).

    ``split_bytes`` defaults to 64 MB for local files and to the block size on HDFS.
    """
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    out = Splits()
    for given in inputs:
        text = os.fspath(given)
        if is_webhdfs_url(text):
            out.extend(webhdfs_splits(text, split_bytes, recursive=recursive, user=user,
                                      delegation=delegation, **options))
        else:
            if text.startswith("file://"):
                text = text[len("file://"):]
            out.extend(local_splits(text, split_bytes or DEFAULT_SPLIT_BYTES,
                                    recursive=recursive))
    return out


def total_bytes(splits: Iterable[Split]) -> int:
    """Total input bytes covered by ``splits``."""
    if isinstance(splits, Splits):
        return splits.total_bytes
    return sum(s.length for s in splits)


# ---------------------------------------------------------------------------------------------
# Walking inputs (shared by local paths and WebHDFS)

Status = Callable[[str], "tuple[str, int] | None"]  # path → (kind, length), None if missing
Children = Callable[[str], "list[tuple[str, str, int]]"]  # dir → [(path, kind, length)]


def _walk(root: str, status: Status, children: Children, recursive: bool,
          name: Callable[[str], str] = str) -> list[tuple[str, int]]:
    """(path, length) of the files ``root`` stands for, in Hadoop's order."""
    found = status(root)
    if found is None:
        raise InputError("no such file or directory", source=name(root))
    kind, length = found
    if kind == "FILE":
        _check_not_compressed(root, name)
        return [(root, length)]
    files: list[tuple[str, int]] = []
    for path, child_kind, child_length in sorted(children(root)):
        if _hidden(path):
            continue
        if child_kind == "FILE":
            _check_not_compressed(path, name)
            files.append((path, child_length))
        elif recursive:
            files.extend(_walk(path, status, children, recursive, name))
        else:
            raise InputError("not a file: a directory inside an input directory "
                             "(sample it recursively, or name the files)", source=name(path))
    return files


def _hidden(path: str) -> bool:
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return base.startswith(("_", "."))


def _check_not_compressed(path: str, name: Callable[[str], str]) -> None:
    if path.lower().endswith(COMPRESSED_SUFFIXES):
        raise InputError("compressed input cannot be sampled by seeking; decompress it first",
                         source=name(path))


def _check_split_bytes(split_bytes: int) -> None:
    if not isinstance(split_bytes, int) or split_bytes < 1:
        raise ConfigError(f"split size must be a positive number of bytes, got {split_bytes!r}")


def _local_status(path: str) -> tuple[str, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", source=path) from None
    return ("DIRECTORY", 0) if Path(path).is_dir() else ("FILE", st.st_size)


def _local_children(path: str) -> list[tuple[str, str, int]]:
    try:
        names = os.listdir(path)
    except OSError as exc:
        raise InputError(f"cannot list ({exc.strerror or exc})", source=path) from None
    out = []
    for entry in names:
        child = os.path.join(path, entry)
        found = _local_status(child)
        if found is not None:  # a dangling link vanishes, as it would from a listing
            out.append((child, *found))
    return out


def _kind(st: FileStatus) -> tuple[str, int]:
    return ("FILE" if st.kind == "FILE" else "DIRECTORY", st.length)
