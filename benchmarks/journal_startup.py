"""Start-up of ``jobsize serve`` after many observations: snapshot + tail against replaying the
whole journal, measured in the same run.

The model is fitted on the bundled reference trace; N observations (real records of the
reference and held-out traces, sent again with fresh job ids) are journaled once with the
service's compaction (a snapshot every ``ModelState.compact_every`` entries) and once without.
Printed: the time to start the model state from each, and their ratio.

    python benchmarks/journal_startup.py [--observations N]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row
from observe_hostile import _learnable
from serve import _jobs

import jobsize
from jobsize.bundled import reference_trace
from jobsize.service.model_state import ModelState


async def _observe(state: ModelState, jobs: list[dict]) -> None:
    for job in jobs:
        await state.observe(job)
    while state._compacting:
        await asyncio.sleep(0.01)


def _journal(model: Path, journal: Path, jobs: list[dict], every: int) -> None:
    state = ModelState(model, journal)
    state.compact_every = every
    asyncio.run(_observe(state, jobs))
    state.close()


def _start(model: Path, journal: Path) -> float:
    t0 = time.perf_counter()
    ModelState(model, journal).close()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--observations", type=int, default=10_000)
    args = parser.parse_args()
    reference = jobsize.read_trace(reference_trace())
    heldout = jobsize.read_trace(reference_trace().parent / "heldout.parquet")
    fitted = jobsize.SizePredictor().fit(reference)
    pool = [j for j in _jobs(reference) + _jobs(heldout) if _learnable(fitted, j)]
    jobs = []
    for i in range(args.observations):
        job = copy.deepcopy(pool[i % len(pool)])
        job["job_id"] = f"job_1800000000000_{i:06d}"
        jobs.append(job)
    with tempfile.TemporaryDirectory() as tmp:
        model = fitted.save(Path(tmp) / "model.json")
        _journal(model, Path(tmp) / "compacted", jobs, ModelState.compact_every)
        _journal(model, Path(tmp) / "whole", jobs, 10 ** 9)
        compacted = min(_start(model, Path(tmp) / "compacted") for _ in range(3))
        whole = min(_start(model, Path(tmp) / "whole") for _ in range(3))
    row(f"start-up after {args.observations} observations", compacted, "s", whole,
        "whole journal replayed", "goal: ratio well below 1")


if __name__ == "__main__":
    main()
