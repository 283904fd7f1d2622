"""The service's model: a model file plus every observation in the journal.

Predictions read :attr:`ModelState.live`, which holds only observations already on disk. An
observation is learned by a copy of the newest model (so a job the model refuses leaves no trace
in it), queued for the journal, and the copy becomes live once the journal has it. Starting, and
reloading the model file, rebuild the model from the file and the whole journal, off the event
loop; observations that arrive meanwhile are learned by the rebuilt model before it goes live.
"""

from __future__ import annotations

import asyncio
import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobsize.errors import JobsizeError
from jobsize.predictor import SizePredictor
from jobsize.service.journal import Entry, Journal, read_journal


@dataclass
class Rebuilt:
    """A model rebuilt from its file and journal entries; ``rejected`` the entries it refused
    (possible only after the model file changed)."""

    predictor: SizePredictor
    last_seq: int
    learned: int = 0
    rejected: list[int] = field(default_factory=list)


def learn(predictor: SizePredictor, job: dict[str, Any]) -> bool:
    """Observe ``job``; whether the model counted it (a job that failed, say, it does not)."""
    before = predictor.training_.get("observed")
    predictor.observe(job)
    return predictor.training_.get("observed") != before


def rebuild(model_path: str | os.PathLike[str], entries: list[Entry]) -> Rebuilt:
    """The model of ``model_path`` having observed ``entries`` in order."""
    rejected: set[int] = set()
    while True:  # a refused entry may have half-updated the model: start again without it
        predictor, learned = SizePredictor.load(model_path), 0
        for entry in entries:
            if entry.seq in rejected:
                continue
            try:
                learned += learn(predictor, entry.job)
            except JobsizeError:
                rejected.add(entry.seq)
                break
        else:
            last = entries[-1].seq if entries else 0
            return Rebuilt(predictor, last, learned, sorted(rejected))


class JournalFailed(Exception):
    """The journal cannot be written: no observation can be acknowledged any more."""


class ModelState:
    """The live model, the journal, and the observations between them."""

    def __init__(self, model_path: str | os.PathLike[str],
                 journal_path: str | os.PathLike[str]) -> None:
        self.model_path = Path(model_path)
        entries, valid = read_journal(journal_path)
        built = rebuild(self.model_path, entries)
        self.live = built.predictor
        self._tip = self.live
        self._live_seq = built.last_seq
        self.rejected = built.rejected
        self.journal = Journal(journal_path, valid, built.last_seq + 1)
        self.entries = len(entries)
        self.observed = built.learned  # journal entries the live model learned from
        self.failure: str | None = None
        self._reloading: list[Entry] | None = None
        self.reloads = 0

    @property
    def model_info(self) -> dict[str, Any]:
        model = self.live
        return {"path": str(self.model_path), "features": model.features,
                "method": model.method, "training": dict(model.training_)}

    async def observe(self, job: dict[str, Any]) -> Entry:
        """Learn ``job`` and return once it is in the journal (JobsizeError: refused)."""
        if self.failure is not None:
            raise JournalFailed(self.failure)
        candidate = copy.deepcopy(self._tip)
        entry, durable = self.journal.add(job, learn(candidate, job))
        self._tip = candidate
        if self._reloading is not None:
            self._reloading.append(entry)
        try:
            await durable
        except OSError as exc:
            self.failure = f"journal write failed: {exc.strerror or exc}"
            self._tip = self.live
            raise JournalFailed(self.failure) from None
        self.entries += 1
        self.observed += entry.learned
        if entry.seq > self._live_seq:  # a later entry of the same fsync may have gone first
            self.live, self._live_seq = candidate, entry.seq
        return entry

    async def reload(self) -> Rebuilt:
        """Rebuild from the model file and the journal, then switch to it in one step. A file
        that cannot be loaded raises and leaves the current model in place."""
        if self._reloading is not None:
            raise JobsizeError("a reload is already running")
        self._reloading = []
        try:
            built = await asyncio.to_thread(self._rebuild_from_disk)
            for entry in self._reloading:  # observed while the journal was being read
                if entry.seq > built.last_seq:
                    candidate = copy.deepcopy(built.predictor)
                    try:
                        built.learned += learn(candidate, entry.job)
                    except JobsizeError:
                        built.rejected.append(entry.seq)
                    else:
                        built.predictor = candidate
                    built.last_seq = entry.seq
        finally:
            self._reloading = None
        self.live = self._tip = built.predictor
        self._live_seq = built.last_seq
        self.rejected = built.rejected
        self.observed = built.learned
        self.reloads += 1
        return built

    def _rebuild_from_disk(self) -> Rebuilt:
        entries, _ = read_journal(self.journal.path)
        return rebuild(self.model_path, entries)

    def close(self) -> None:
        self.journal.close()
