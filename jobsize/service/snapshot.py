"""Journal snapshots: the live model and what it has seen, up to one journal sequence number.

``JOURNAL.snapshot.json`` holds the model (in the model file's own JSON form), the sequence
number it includes, the key of every job observed so far (so duplicates stay duplicates after
compaction) and the held jobs. It names the model file it grew from by SHA-256: a snapshot of
another model file is ignored, and the model is rebuilt from the new file, the archive and the
journal. It is written atomically; a damaged one is a ParseError, never silently skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jobsize.atomic import atomic_write_text
from jobsize.errors import JobsizeError, ParseError
from jobsize.models.modelfile import model_from_json, model_to_json
from jobsize.models.size_model import SizeModel
from jobsize.service.journal import Entry, Observation, entry_of

FORMAT = "jobsize-journal-snapshot"
VERSION = 1


@dataclass
class Snapshot:
    model: SizeModel
    seq: int
    learned: int
    keys: dict[str, Observation]
    held: dict[str, Entry]


def snapshot_path(journal: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(journal)}.snapshot.json")


def write_snapshot(journal: str | os.PathLike[str], model_digest: str, snap: Snapshot) -> None:
    doc = {
        "format": FORMAT, "version": VERSION, "model_sha256": model_digest, "seq": snap.seq,
        "learned": snap.learned,
        "keys": {k: [o.seq, o.learned, o.held] for k, o in snap.keys.items()},
        "held": [json.loads(e.to_line()) for e in snap.held.values()],
        "model": model_to_json(snap.model),
    }
    atomic_write_text(snapshot_path(journal), json.dumps(doc, separators=(",", ":")))


def read_snapshot(journal: str | os.PathLike[str], model_digest: Callable[[], str | None]
                  ) -> Snapshot | None:
    """The journal's snapshot if it grew from the model file whose digest ``model_digest()``
    gives (read only when there is a snapshot), else None."""
    path = snapshot_path(journal)
    try:
        doc = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ParseError(f"damaged journal snapshot ({exc}); remove it to rebuild from the "
                         "model file, the archive and the journal", source=path) from None
    try:
        if doc["format"] != FORMAT or doc["version"] != VERSION:
            raise ValueError("not a snapshot of this version")
        if doc["model_sha256"] != model_digest():
            return None
        keys = {k: Observation(int(seq), k, bool(learned), held)
                for k, (seq, learned, held) in doc["keys"].items()}
        held = {e.key: e for e in map(entry_of, doc["held"])}
        return Snapshot(model_from_json(doc["model"], source=path), int(doc["seq"]),
                        int(doc["learned"]), keys, held)
    except (KeyError, TypeError, ValueError, JobsizeError) as exc:
        raise ParseError(f"damaged journal snapshot ({exc}); remove it to rebuild from the "
                         "model file, the archive and the journal", source=path) from None
