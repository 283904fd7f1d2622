"""The service's model: a model file plus every observation in the journal, each learned once and
only if it is plausible.

Predictions read :attr:`ModelState.live`, which holds only observations already on disk. An
observation is keyed by its job id (:func:`~jobsize.service.journal.job_key`): a key seen before
is answered as a duplicate and learned no second time. A new one is checked by the model it would
join (:meth:`jobsize.SizePredictor.implausible`); an implausible one is journaled as *held*, not
learned, until an operator accepts or drops it. A plausible one is learned by a copy of the
newest model (so a job the model refuses leaves no trace in it), queued for the journal, and the
copy becomes live once the journal has it. Starting, and reloading the model file, rebuild the
model from the file (or the last snapshot, while the file is unchanged) and the journal, off the
event loop; observations that arrive meanwhile are learned by the rebuilt model before it goes
live. Every :attr:`ModelState.compact_every` entries a snapshot is written and the journal
compacted, so start-up replays a bounded tail.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobsize.errors import JobsizeError
from jobsize.predictor import SizePredictor
from jobsize.service.journal import (
    Entry,
    Journal,
    Observation,
    archive_path,
    job_key,
    read_journal,
)
from jobsize.service.snapshot import Snapshot, read_snapshot, write_snapshot

log = logging.getLogger("jobsize.service")


@dataclass
class Replay:
    """The model, keys and held jobs after replaying journal entries in order."""

    predictor: SizePredictor
    last_seq: int = 0
    base_seq: int = 0  # the snapshot's sequence number it started from (0: the model file)
    learned: int = 0
    keys: dict[str, Observation] = field(default_factory=dict)
    held: dict[str, Entry] = field(default_factory=dict)
    rejected: list[int] = field(default_factory=list)
    in_place: bool = False  # learn into the model itself (replay), not a copy (reload's tail)

    def apply(self, entry: Entry) -> None:
        """Replay one entry as it was decided when it was journaled."""
        self.last_seq = max(self.last_seq, entry.seq)
        if entry.op == "drop":
            self.held.pop(entry.key, None)
            return
        if entry.op == "accept":
            entry = self.held.pop(entry.key, None) or entry
            if entry.job is None:
                return
        elif entry.key in self.keys:  # journaled twice before keys were kept: learn once
            return
        elif entry.held is not None:
            self.held[entry.key] = entry
            self.keys[entry.key] = Observation(entry.seq, entry.key, False, entry.held)
            return
        if entry.seq in self.rejected:
            learned = False
        elif self.in_place:  # a refusal may have half-updated the model: replay() restarts
            try:
                learned = learn(self.predictor, entry.job)
            except JobsizeError:
                raise _Refused(entry.seq) from None
        else:
            candidate = copy.deepcopy(self.predictor)
            try:
                learned = learn(candidate, entry.job)
            except JobsizeError:
                self.rejected.append(entry.seq)
                learned = False
            else:
                self.predictor = candidate
        self.learned += learned
        self.keys[entry.key] = Observation(entry.seq, entry.key, learned)


def learn(predictor: SizePredictor, job: dict[str, Any]) -> bool:
    """Observe ``job``; whether the model counted it (a job that failed, say, it does not)."""
    before = predictor.training_.get("observed")
    predictor.observe(job)
    return predictor.training_.get("observed") != before


def file_digest(path: str | os.PathLike[str]) -> str | None:
    """The SHA-256 of a model file (None if it cannot be read: loading it will say why)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def replay(model_path: str | os.PathLike[str], journal_path: str | os.PathLike[str]
           ) -> tuple[Replay, int, int]:
    """The model of ``model_path`` having replayed the journal: from the snapshot and the tail
    when the snapshot was taken of this model file, else from the file, the archive and the
    whole journal. Also the journal's valid byte length and the entries it holds."""
    snapshot = read_snapshot(journal_path, lambda: file_digest(model_path))
    if snapshot is not None:
        entries, valid = read_journal(journal_path, after=snapshot.seq)
        in_journal = len(entries)
    else:
        archived, _ = read_journal(archive_path(journal_path))
        entries, valid = read_journal(journal_path)
        in_journal = len(entries)
        entries = [e for e in archived if not entries or e.seq < entries[0].seq] + entries
    rejected: list[int] = []  # entries the model refuses (possible after the file changed)
    while True:
        if snapshot is not None:
            state = Replay(SizePredictor.from_model(copy.deepcopy(snapshot.model)),
                           snapshot.seq, snapshot.seq, snapshot.learned, dict(snapshot.keys),
                           dict(snapshot.held))
        else:
            state = Replay(SizePredictor.load(model_path))
        state.rejected, state.in_place = list(rejected), True
        try:
            for entry in entries:
                state.apply(entry)
        except _Refused as refused:
            rejected.append(refused.seq)
            continue
        state.in_place = False
        return state, valid, in_journal


class _Refused(Exception):
    def __init__(self, seq: int) -> None:
        self.seq = seq


class JournalFailed(Exception):
    """The journal cannot be written: no observation can be acknowledged any more."""


class ReloadBusy(JobsizeError):
    """A reload is already running: retry once it is done."""


class ModelState:
    """The live model, the journal, and the observations between them; :attr:`version` counts
    the models that have been live."""

    #: Journal entries between snapshots.
    compact_every = 250

    def __init__(self, model_path: str | os.PathLike[str],
                 journal_path: str | os.PathLike[str]) -> None:
        self.model_path = Path(model_path)
        self.version = 0
        built, valid, self.entries = replay(self.model_path, journal_path)
        self.journal = Journal(journal_path, valid, built.last_seq + 1)
        self._install(built)
        self._tip = self.live
        self.failure: str | None = None
        self._reloading: list[Entry] | None = None
        self._compacting = False
        self.reloads = 0
        self.duplicates = 0
        self.compactions = 0
        self._pending: dict[str, asyncio.Future[None]] = {}  # keys not yet on disk

    @property
    def live(self) -> SizePredictor:
        return self._live

    @live.setter
    def live(self, predictor: SizePredictor) -> None:
        self._live = predictor
        self.version += 1

    def _install(self, built: Replay) -> None:
        self.live = built.predictor
        self._live_seq = built.last_seq
        self.rejected = built.rejected
        self.observed = built.learned  # journal entries the live model learned from
        self._keys = built.keys
        self._held = built.held
        self.snapshot_seq = built.base_seq

    @property
    def model_info(self) -> dict[str, Any]:
        model = self.live
        return {"path": str(self.model_path), "features": model.features,
                "method": model.method, "training": dict(model.training_)}

    @property
    def held_count(self) -> int:
        return len(self._held)

    def held_list(self) -> list[dict[str, Any]]:
        """The jobs held aside, oldest first: key, seq, reason and the job as observed."""
        return [{"key": e.key, "seq": e.seq, "reason": e.held, "job": e.job}
                for e in sorted(self._held.values(), key=lambda e: e.seq)]

    async def observe(self, job: dict[str, Any]) -> Observation:
        """Learn ``job`` (or hold it aside) and return once that is in the journal; a job seen
        before is answered as it was (JobsizeError: the job cannot be learned from at all)."""
        if self.failure is not None:
            raise JournalFailed(self.failure)
        key = job_key(job)
        seen = self._keys.get(key)
        if seen is not None:
            first = self._pending.get(key)
            if first is not None:  # acknowledged once the first is on disk, not before
                try:
                    await asyncio.shield(first)
                except OSError:
                    raise JournalFailed(self.failure or "journal write failed") from None
            self.duplicates += 1
            return Observation(seen.seq, key, seen.learned, seen.held, duplicate=True)
        held = self._tip.implausible(job)
        candidate, learned = self._tip, False
        if held is None:
            candidate = copy.deepcopy(self._tip)
            learned = learn(candidate, job)
        entry, durable = self.journal.add(job, held is None and learned, key=key, held=held)
        if held is None:
            self._tip = candidate
        else:
            self._held[key] = entry
        return await self._commit(entry, durable, candidate)

    async def accept(self, key: str) -> Observation:
        """Learn a held job after all (KeyError: no such held job)."""
        held = self._held[key]
        candidate = copy.deepcopy(self._tip)
        learned = learn(candidate, held.job)
        entry, durable = self.journal.decide("accept", key)
        del self._held[key]
        self._tip = candidate
        # the job travels with the decision so a reload running meanwhile can learn it
        entry = Entry(entry.seq, key, held.job, op="accept", learned=learned)
        return await self._commit(entry, durable, candidate)

    async def drop(self, key: str) -> None:
        """Forget a held job (KeyError: no such held job)."""
        if key not in self._held:
            raise KeyError(key)
        entry, durable = self.journal.decide("drop", key)
        del self._held[key]
        await self._commit(entry, durable, None)

    async def _commit(self, entry: Entry, durable: asyncio.Future[None],
                      candidate: SizePredictor | None) -> Observation:
        if entry.op != "drop":
            first = self._keys.get(entry.key)
            self._keys[entry.key] = Observation(first.seq if first else entry.seq, entry.key,
                                                entry.learned, entry.held)
        if entry.op == "observe":
            self._pending[entry.key] = durable
        if self._reloading is not None:
            self._reloading.append(entry)
        try:
            await durable
        except OSError as exc:
            self.failure = f"journal write failed: {exc.strerror or exc}"
            self._tip = self.live
            raise JournalFailed(self.failure) from None
        finally:
            if self._pending.get(entry.key) is durable:
                del self._pending[entry.key]
        self.entries += 1
        self.observed += entry.learned
        if candidate is not None and entry.learned and entry.seq > self._live_seq:
            # a later entry of the same fsync may have gone live first
            self.live, self._live_seq = candidate, entry.seq
        self._live_seq = max(self._live_seq, entry.seq)
        if self.entries >= self.compact_every and not self._compacting:
            self._compacting = True  # now, so no second one is started before it runs
            asyncio.get_running_loop().create_task(self._compact_in_background())
        return Observation(entry.seq, entry.key, entry.learned, entry.held)

    async def compact(self) -> int:
        """Snapshot what the journal holds and move its lines to the archive; the lines moved
        (0 if a compaction is already running)."""
        if self._compacting:
            return 0
        self._compacting = True
        try:
            return await self._compact()
        finally:
            self._compacting = False

    async def _compact(self) -> int:
        # The snapshot is rebuilt from disk, not taken from memory: memory runs ahead of the
        # journal (keys and held jobs are registered before their fsync), the disk does not.
        built, _, _ = await asyncio.to_thread(replay, self.model_path, self.journal.path)
        snapshot = Snapshot(built.predictor.model_, built.last_seq, built.learned, built.keys,
                            built.held)
        digest = await asyncio.to_thread(file_digest, self.model_path)
        await asyncio.to_thread(write_snapshot, self.journal.path, digest, snapshot)
        moved = await self.journal.compact(snapshot.seq)
        self.entries -= moved
        self.snapshot_seq = snapshot.seq
        self.compactions += 1
        return moved

    async def _compact_in_background(self) -> None:
        try:
            await self._compact()
        except (OSError, RuntimeError, JobsizeError) as exc:  # every step leaves it whole
            log.warning("journal compaction failed, the journal is intact: %s", exc)
        finally:
            self._compacting = False

    async def reload(self) -> Replay:
        """Rebuild from the model file and the journal, then switch to it in one step. A file
        that cannot be loaded raises and leaves the current model in place."""
        if self._reloading is not None:
            raise ReloadBusy("a reload is already running")
        self._reloading = []
        try:
            built, _, _ = await asyncio.to_thread(replay, self.model_path, self.journal.path)
            for entry in self._reloading:  # observed while the journal was being read
                if entry.seq > built.last_seq:
                    built.apply(entry)
        finally:
            self._reloading = None
        self._install(built)
        self._tip = self.live
        self.reloads += 1
        return built

    def close(self) -> None:
        self.journal.close()
