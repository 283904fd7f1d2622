"""Helpers shared by the engine tests."""

from __future__ import annotations

import json
from pathlib import Path


def jhist_events(path: Path) -> list[dict]:
    """The events of a .jhist file as (decoded JSON) dicts, after the two header lines."""
    lines = Path(path).read_text().split("\n")
    assert lines[0] == "Avro-Json"
    return [json.loads(line) for line in lines[2:] if line.strip()]


def event_body(event: dict) -> dict:
    (body,) = event["event"].values()
    return body


THREE_LINES = b"the quick brown fox\njumps over the lazy dog\nthe dog barks\n"
