"""``jobsize journal``: look after the observation journal of ``jobsize serve``.

    jobsize journal status  JOURNAL [--model MODEL.json]
    jobsize journal repair  JOURNAL
    jobsize journal compact JOURNAL --model MODEL.json

``status`` counts entries, held jobs and the snapshot; ``repair`` sets damaged lines aside in
``JOURNAL.damaged`` so the service can start again; ``compact`` writes a snapshot and moves the
journal's lines into ``JOURNAL.archive`` (the service does this itself every 250 entries).
``repair`` and ``compact`` take the journal's lock: stop the service first.
"""

from __future__ import annotations

import argparse
import asyncio
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "journal", help="check, repair or compact the observation journal of `jobsize serve`",
        description="Look after the journal of jobsize serve: status (entries, held jobs, "
        "snapshot), repair (set damaged lines aside in JOURNAL.damaged), compact (snapshot the "
        "model and archive the journal's lines). repair and compact need the service stopped.")
    parser.add_argument("action", choices=("status", "repair", "compact"))
    parser.add_argument("journal", metavar="JOURNAL", help="the journal (MODEL.json.journal)")
    parser.add_argument("--model", metavar="MODEL.json",
                        help="the model file the service serves (compact; status: held jobs)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jobsize.errors import ConfigError
    from jobsize.service.journal import damaged_path, read_journal, repair_journal

    if not Path(args.journal).is_file():
        raise ConfigError(f"{args.journal}: no such journal")

    if args.action == "repair":
        kept, aside = repair_journal(args.journal)
        where = f" to {damaged_path(args.journal)}" if aside else ""
        print(f"{args.journal}: {kept} entries kept, {len(aside)} line(s) set aside{where}"
              + (f" (lines {', '.join(map(str, aside[:20]))})" if aside else ""))
        return 0
    if args.model is None and args.action == "compact":
        raise ConfigError("jobsize journal compact needs --model (the model file served)")
    if args.model is None:
        entries, _ = read_journal(args.journal)
        print(json.dumps({"journal": args.journal, "entries": len(entries)}))
        return 0
    from jobsize.service.model_state import ModelState

    state = ModelState(args.model, args.journal)
    try:
        if args.action == "compact":
            moved = asyncio.run(state.compact())
            print(f"{args.journal}: snapshot at entry {state.snapshot_seq}, {moved} entries "
                  "archived")
        else:
            print(json.dumps({"journal": args.journal, "entries": state.entries,
                              "observed": state.observed, "held": state.held_list(),
                              "snapshot_seq": state.snapshot_seq}, indent=1))
    finally:
        state.close()
    return 0
