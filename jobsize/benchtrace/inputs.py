"""Generated job inputs on disk: made once, shared by the jobs that read them, deleted after.

The reference generators are deterministic (same kind, size and seed → byte-identical files), so
an input is identified by that triple and may be deleted and made again at will. The cache knows
which draws still need each input: an input no longer needed is deleted at once, and when the
inputs kept for later jobs exceed the byte budget, the one needed last is deleted first
(Belady's rule — the future is known, the draw being fixed).

An input is generated into a temporary directory and renamed into place, so an interrupted run
never leaves a partial input under a final name.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from jobsize.workloads import GENERATORS

Key = tuple[str, int, int]  # input kind, size in bytes, seed
_TMP = ".tmp-"


def key_name(key: Key) -> str:
    kind, size, seed = key
    return f"{kind}-{size}-s{seed}"


def _size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file())


class InputCache:
    """Inputs under ``root``, generated on demand; ``future`` maps each input to the draw
    indices that will still read it, in order. ``budget`` bounds the bytes kept for later.
    ``generators`` adds input kinds to the reference workloads' (:data:`GENERATORS`)."""

    def __init__(self, root: Path, future: dict[Key, list[int]], budget: int,
                 generators: Mapping[str, Callable[[Path, int, int], list[Path]]] | None = None
                 ) -> None:
        self.root = Path(root)
        self.generators = {**GENERATORS, **dict(generators or {})}
        self.future = {k: list(v) for k, v in future.items()}
        self.budget = budget
        self.generated = 0  # inputs made by this cache (not found on disk)
        self.root.mkdir(parents=True, exist_ok=True)
        self._tidy()

    def path(self, key: Key) -> Path:
        return self.root / key_name(key)

    def _tidy(self) -> None:
        """Remove temporaries of an interrupted run and inputs no draw will read."""
        wanted = {key_name(k) for k, v in self.future.items() if v}
        for entry in self.root.iterdir():
            if entry.name.startswith(_TMP) or (entry.is_dir() and entry.name not in wanted):
                shutil.rmtree(entry, ignore_errors=True)

    def get(self, key: Key) -> list[Path]:
        """The files of ``key``, generated if they are not on disk."""
        final = self.path(key)
        if not final.is_dir():
            kind, size, seed = key
            tmp = self.root / f"{_TMP}{key_name(key)}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            try:
                self.generators[kind](tmp, size, seed)
                os.replace(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            self.generated += 1
        return sorted(p for p in final.iterdir() if p.is_file())

    def used(self, key: Key, index: int) -> None:
        """Draw ``index`` has read ``key``: drop what is no longer needed, keep within budget."""
        pending = self.future.get(key, [])
        if index in pending:
            pending.remove(index)
        if not pending:
            self.drop(key)
        self._evict()

    def drop(self, key: Key) -> None:
        shutil.rmtree(self.path(key), ignore_errors=True)

    def on_disk(self) -> dict[Key, int]:
        """Inputs present and their sizes in bytes."""
        return {k: _size(self.path(k)) for k in self.future if self.path(k).is_dir()}

    def _evict(self) -> None:
        present = self.on_disk()
        total = sum(present.values())
        for key in sorted(present, key=self._next_use, reverse=True):
            if total <= self.budget:
                break
            self.drop(key)
            total -= present[key]

    def _next_use(self, key: Key) -> float:
        pending = self.future.get(key)
        return pending[0] if pending else float("inf")

    def clear(self, keys: Iterable[Key] | None = None) -> None:
        for key in self.future if keys is None else keys:
            self.drop(key)
