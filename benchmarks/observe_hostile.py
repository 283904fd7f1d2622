"""One thousand observations, a tenth of them corrupted or hostile: how far the served model's
accuracy moves, and what was held aside.

The model is ``jobsize fit`` on the bundled reference trace (320 jobs). The service's model state
(:class:`jobsize.service.model_state.ModelState`, what ``jobsize serve`` runs, with its journal)
then observes 1,000 finished jobs in a shuffled order: 900 real records of the reference and
held-out traces sent again as recurring jobs (a fresh job id each time: a production cluster
runs the same jobs day after day), and 100 corrupted copies, ten of each kind in
:data:`CORRUPTIONS`. The same 900 real observations alone are the baseline measured in the same
run. Printed: the median |error| of S over the 320 reference jobs before any observation, after
the 900 real ones, and after all 1,000 (goal: within 1 point of both), with how many of each kind
were held aside, and how many real ones were (false alarms).

    python benchmarks/observe_hostile.py [--seed N] [--observations N]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import math
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row
from jobsize.models.size_model import actual_sizes
from serve import _jobs

import jobsize
from jobsize.bundled import reference_trace
from jobsize.service.model_state import ModelState

Job = dict


def _scaled(*columns: str, by: float) -> Callable[[Job, np.random.Generator], Job]:
    def corrupt(job: Job, rng: np.random.Generator) -> Job:
        for c in columns:
            if c in job:
                job[c] = job[c] * by
        return job
    return corrupt


def _hostile_huge(job: Job, rng: np.random.Generator) -> Job:
    job["map_time_ms"] = 1e18
    return job


def _swapped(job: Job, rng: np.random.Generator) -> Job:
    job["map_time_ms"], job["reduce_time_ms"] = job["reduce_time_ms"], job["map_time_ms"]
    return job


def _noise(job: Job, rng: np.random.Generator) -> Job:
    """Every number scaled by its own factor, e^N(0, 2²): a garbled record."""
    for key, value in list(job.items()):
        timestamp = key.endswith("_time_ms") and key not in ("map_time_ms", "reduce_time_ms")
        number = isinstance(value, float | int) and not isinstance(value, bool)
        if number and not timestamp and key not in ("n_maps", "n_reduces"):
            job[key] = type(value)(value * math.exp(rng.normal(0, 2)))
    return job


def _docs_job(job: Job, rng: np.random.Generator) -> Job:
    """A hand-written record: the job's probe, times of another order altogether."""
    job["map_time_ms"] = 1_900_000
    if job.get("n_reduces", 0) > 0:
        job["reduce_time_ms"] = 420_000
    for key in ("submit_time_ms", "launch_time_ms", "finish_time_ms"):
        job.pop(key, None)
    return job


#: The kinds that corrupt a reduce phase, drawn from jobs with reduces only.
NEEDS_REDUCES = {"reduce time ×100", "map and reduce swapped"}
#: kind → how a real record is corrupted.
CORRUPTIONS: dict[str, Callable[[Job, np.random.Generator], Job]] = {
    "times in µs (×1000)": _scaled("map_time_ms", "reduce_time_ms", by=1000),
    "times in s (÷1000)": _scaled("map_time_ms", "reduce_time_ms", by=1e-3),
    "map time 1e18": _hostile_huge,
    "reduce time ×100": _scaled("reduce_time_ms", by=100),
    "map and reduce swapped": _swapped,
    "input bytes ×1000": _scaled("map_input_bytes", "probe_input_bytes", by=1000),
    "probe function times ×1000": _scaled("probe_map_function_ms", "probe_reduce_function_ms",
                                          by=1000),
    "probe fraction ÷100": _scaled("probe_fraction", by=0.01),
    "every number garbled": _noise,
    "hand-written times": _docs_job,
}


def _median_error(model: jobsize.SizePredictor, reference: pd.DataFrame) -> float:
    predicted = model.predict(reference)
    actual = actual_sizes(reference)["S_mb_s"].to_numpy()
    ok = np.isfinite(predicted) & np.isfinite(actual) & (actual > 0)
    return float(np.median(np.abs(predicted[ok] / actual[ok] - 1)))


async def _observe_all(state: ModelState, jobs: list[Job]) -> list:
    out = []
    for job in jobs:
        try:
            out.append(await state.observe(job))
        except jobsize.JobsizeError as exc:  # refused outright (400 from the service)
            out.append(exc)
    return out


def _serve(model_path: Path, journal: Path, jobs: list[Job]) -> tuple[ModelState, list]:
    state = ModelState(model_path, journal)
    answers = asyncio.run(_observe_all(state, jobs))
    state.close()
    return state, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--observations", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    reference = jobsize.read_trace(reference_trace())
    heldout = jobsize.read_trace(reference_trace().parent / "heldout.parquet")
    model = jobsize.SizePredictor().fit(reference)
    pool = [j for j in _jobs(reference) + _jobs(heldout) if _learnable(model, j)]

    n_bad = args.observations // 10
    real = []
    for i in range(args.observations - n_bad):
        job = copy.deepcopy(pool[rng.integers(len(pool))])
        job["job_id"] = f"job_1800000000000_{i:05d}"
        real.append(job)
    kinds = list(CORRUPTIONS)
    with_reduces = [j for j in pool if j.get("n_reduces", 0) > 0]
    bad = []
    for i in range(n_bad):
        kind = kinds[i % len(kinds)]
        source = with_reduces if kind in NEEDS_REDUCES else pool
        job = CORRUPTIONS[kind](copy.deepcopy(source[rng.integers(len(source))]), rng)
        job["job_id"] = f"job_1800000000001_{i:05d}"
        bad.append((kind, job))
    mixed = real + [job for _, job in bad]
    order = rng.permutation(len(mixed))
    mixed = [mixed[i] for i in order]

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        model.save(path)
        clean, clean_answers = _serve(path, Path(tmp) / "clean.journal", real)
        dirty, answers = _serve(path, Path(tmp) / "mixed.journal", mixed)
    by_key = dict(zip((j["job_id"] for j in mixed), answers, strict=True))
    kind_of = {job["job_id"]: kind for kind, job in bad}
    held = Counter(kind_of[k] for k, a in by_key.items()
                   if k in kind_of and getattr(a, "held", None))
    refused = Counter(kind_of[k] for k, a in by_key.items()
                      if k in kind_of and isinstance(a, Exception))
    false_alarms = [a.held for a in clean_answers if getattr(a, "held", None)]

    before = _median_error(model, reference)
    after_clean = _median_error(clean.live, reference)
    after_mixed = _median_error(dirty.live, reference)
    print(f"{len(real)} real observations drawn from {len(pool)} records, {len(bad)} corrupted "
          f"(seed {args.seed})")
    row("median |error| of S, 320 reference jobs", 100 * after_mixed, "%", 100 * after_clean,
        "900 real only", "goal: within 1 point")
    row("  ... against the model before observing", 100 * after_mixed, "%", 100 * before,
        "fitted model", "goal: within 1 point")
    print(f"held aside: {sum(held.values())} of {len(bad)} corrupted, {refused.total()} refused "
          f"outright (400); {len(false_alarms)} of {len(real)} real observations held")
    for kind in kinds:
        n = sum(1 for k, _ in bad if k == kind)
        print(f"  {kind:<28} held {held[kind]:>2} of {n}, refused {refused[kind]}")
    for reason in false_alarms:
        print(f"  real, held: {reason}")
    print(f"learned: {clean.observed} (real only), {dirty.observed} (mixed)")


def _learnable(model: jobsize.SizePredictor, job: Job) -> bool:
    if job.get("state") != "SUCCEEDED":
        return False
    try:
        copy.deepcopy(model).observe(job)
    except jobsize.JobsizeError:
        return False
    return True


if __name__ == "__main__":
    main()
