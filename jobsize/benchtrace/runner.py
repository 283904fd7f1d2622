"""Measure a reference trace: for each drawn job, probe it, run it, and record it from its history.

For each :class:`~jobsize.benchtrace.draw.Draw`, in index order:

1. its input is generated (or found: jobs of the same input kind, size and seed share it);
2. the job's configuration enables uber mode with Hadoop's limits and
   ``mapreduce.job.ubertask.maxbytes`` = the block (split) size, as Hadoop's default is; a job
   that Hadoop would run in uber mode is not probed (``jobsize.sampler.probespec.plan_probe``);
3. any other job is probed first — ``jobsize.engine.run_probe`` on a ``ProbeSpec`` with the
   job's own splits, N_m, N_r and functions (paper §III-A) — giving the ``probe_*`` columns;
4. the job runs on the local engine and writes ``<job_id>.jhist`` and ``_conf.xml``;
5. its record is read back from that .jhist by ``jobsize.collectors.jhist`` (the same path a
   cluster's history takes), joined with the probe's columns, ``job_type``, ``source``, the draw
   index and the machine's load, and appended to the trace with the job's task attempts.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jobsize.benchtrace.draw import Distribution, Draw, draw_jobs, uses
from jobsize.benchtrace.inputs import InputCache
from jobsize.benchtrace.tracedir import DRAW_INDEX, SETTINGS_NAME, TRACE_NAME, TraceDirectory
from jobsize.collectors.jhist import JobHistory, read_jhist
from jobsize.engine import JobSpec, LocalEngine, run_probe
from jobsize.engine.appmaster import warn_if_oversubscribed
from jobsize.engine.inputformat import compute_splits, input_files
from jobsize.errors import JobFailedError
from jobsize.sampler.probespec import PROBE_COLUMNS, ProbePlan, ProbeSpec, plan_probe
from jobsize.workloads import workload

#: ``source`` of the records a bench trace measures.
SOURCE = "bench-trace"
#: The user the reference jobs run as (kept out of the trace: no login names in a dataset).
USER = "jobsize"
#: Default bytes of generated input kept on disk for later jobs.
INPUT_BUDGET = 2 << 30


@dataclass(frozen=True)
class JobOutcome:
    """One measured job: its draw, its record (as appended), and what it cost here."""

    draw: Draw
    record: dict[str, Any]
    tasks: list[dict[str, Any]]
    wall_s: float  # probe + job + collection, without input generation
    generate_s: float
    probe_error: str | None = None


def job_conf(split_bytes: int) -> dict[str, str]:
    """The configuration a job of the trace runs under (Hadoop's uber rule, the paper's
    setting: uber mode enabled, at most one block — the job's split size — of input)."""
    return {"mapreduce.job.ubertask.enable": "true",
            "mapreduce.job.ubertask.maxbytes": str(split_bytes)}


class BenchTrace:
    """The measurement of one trace directory. ``workers``: size of the engine's process pool
    (default: the machine's cores); ``input_budget``: bytes of generated input kept for later.

    A measurement that runs its jobs another way (``jobsize evaluate``) subclasses it: it keeps
    the resumable loop of :meth:`run` and overrides :meth:`plan`, :meth:`settings` and
    :meth:`_measure`, using :meth:`_input` and :meth:`_run_job` for the shared steps.
    """

    #: File names of the trace and its settings in the directory.
    trace_name = TRACE_NAME
    settings_name = SETTINGS_NAME

    def __init__(self, directory: str | os.PathLike[str], seed: int,
                 distribution: Distribution | None = None, *, workers: int | None = None,
                 input_budget: int = INPUT_BUDGET) -> None:
        self.dir = TraceDirectory(Path(directory), self.trace_name, self.settings_name)
        self.seed = seed
        self.dist = distribution or Distribution()
        self.workers = workers
        self.input_budget = input_budget

    def plan(self, jobs: int) -> list[Draw]:
        """The first ``jobs`` draws of this trace's seed."""
        return draw_jobs(self.seed, jobs, self.dist)

    def settings(self) -> dict[str, Any]:
        """What the directory must be resumed with, besides the seed (JSON-ready)."""
        return self.dist.settings()

    def pending(self, draws: Iterable[Draw]) -> list[Draw]:
        """The draws not yet in the trace (an error if the directory holds another trace)."""
        self.dir.check(self.seed, self.settings())
        done = self.dir.done()
        return [d for d in draws if d.index not in done]

    def run(self, draws: Sequence[Draw],
            on_job: Callable[[JobOutcome], None] | None = None) -> list[JobOutcome]:
        """Measure the ``draws`` not yet in the trace, appending each as it finishes."""
        settings = self.dir.open(self.seed, self.settings())
        records = self.dir.records()
        self.dir.remove_unrecorded(records)
        done = {int(i) for i in records[DRAW_INDEX]}
        todo = [d for d in draws if d.index not in done]
        run_log: dict[str, Any] = {"started": _now(), "jobs": 0, "wall_s": 0.0,
                                   "load_1m": [], "workers": None}
        settings["runs"].append(run_log)
        cache = InputCache(self.dir.inputs, uses(todo), self.input_budget)
        outcomes: list[JobOutcome] = []
        t0 = time.monotonic()
        try:
            with LocalEngine(self.workers) as engine:
                run_log["workers"] = engine.workers
                warn_if_oversubscribed(engine.workers)
                for draw in todo:
                    outcome = self._measure(draw, engine, cache)
                    self.dir.append([outcome.record], outcome.tasks)
                    cache.used(draw.input_key, draw.index)
                    outcomes.append(outcome)
                    run_log["jobs"] += 1
                    run_log["load_1m"].append(outcome.record["host_load_1m"])
                    run_log["wall_s"] = round(time.monotonic() - t0, 1)
                    run_log["finished"] = _now()
                    self.dir.save(settings)
                    if on_job is not None:
                        on_job(outcome)
        finally:
            run_log["wall_s"] = round(time.monotonic() - t0, 1)
            run_log["finished"] = _now()
            self.dir.save(settings)
            shutil.rmtree(self.dir.scratch, ignore_errors=True)
        if not self.pending(draws):
            cache.clear()
        return outcomes

    # --- one job ------------------------------------------------------------------------------

    def _input(self, draw: Draw, cache: InputCache) -> tuple[list[Path], float]:
        """The draw's input files (generated if needed) and the seconds generating took."""
        t_gen = time.monotonic()
        paths = cache.get(draw.input_key)
        return paths, time.monotonic() - t_gen

    def _run_job(self, draw: Draw, spec: JobSpec, engine: LocalEngine
                 ) -> tuple[JobHistory, Path]:
        """Run ``spec`` (its output under the scratch directory, removed after) and read the
        job's history back from its .jhist — also for a job that failed. Returns the history
        and the .jhist's path."""
        try:
            result = engine.run(spec, history_dir=self.dir.job_history)
        except JobFailedError as exc:
            result = exc.result  # type: ignore[attr-defined]  # its history is written
        shutil.rmtree(self.dir.scratch / str(draw.index), ignore_errors=True)
        return read_jhist(result.history_path), Path(result.history_path)

    def _measure(self, draw: Draw, engine: LocalEngine, cache: InputCache) -> JobOutcome:
        w = workload(draw.workload)
        paths, generate_s = self._input(draw, cache)
        t0 = time.monotonic()
        split = draw.split_bytes or self.dist.split_bytes
        conf = job_conf(split)
        files = input_files(paths)
        n_maps = len(compute_splits(files, None, split))
        plan = plan_probe(n_maps, draw.n_reduces, sum(f.stat().st_size for f in files), conf)
        name = f"{w.name} (bench-trace seed {self.seed} draw {draw.index})"
        probe, probe_error = self._probe(draw, plan, paths, n_maps, split, conf, name, engine)
        work = self.dir.scratch / str(draw.index)
        spec = JobSpec(inputs=tuple(paths), output=work / "output", mapper=w.mapper,
                       reducer=w.reducer, combiner=w.combiner, n_reduces=draw.n_reduces,
                       split_bytes=split, name=name, user=USER, conf=conf,
                       overwrite=True)
        history, jhist = self._run_job(draw, spec, engine)
        record = dict(history.record)
        if bool(record.get("uberized")) != plan.uberized:
            raise RuntimeError(f"{jhist}: the engine's uber decision "
                               f"({record.get('uberized')}) differs from the probe plan's "
                               f"({plan.uberized}): {plan.reason}")
        record.update(probe)
        record.update(job_type=w.name, source=SOURCE, draw_index=draw.index,
                      fb_maps=draw.fb_maps, split_bytes=split,
                      host_load_1m=os.getloadavg()[0])
        return JobOutcome(draw, record, history.tasks, time.monotonic() - t0, generate_s,
                          probe_error)

    def _probe(self, draw: Draw, plan: ProbePlan, paths: Sequence[Path], n_maps: int,
               split: int, conf: dict[str, str], name: str, engine: LocalEngine
               ) -> tuple[dict[str, Any], str | None]:
        """The probe columns: null for an uber job (never probed) or a probe that failed."""
        if not plan.probe:
            return plan.record(), None
        w = workload(draw.workload)
        spec = ProbeSpec(mapper=w.mapper, reducer=w.reducer, combiner=w.combiner,
                         inputs=tuple(str(p) for p in paths), n_maps=n_maps,
                         n_reduces=draw.n_reduces, split_bytes=split,
                         seed=draw.probe_seed, job_name=name, conf=conf)
        history = self.dir.probe_history / str(draw.index)
        shutil.rmtree(history, ignore_errors=True)
        self.dir.scratch.mkdir(parents=True, exist_ok=True)
        try:
            probe = run_probe(spec, engine=engine, history_dir=history, work_dir=self.dir.scratch)
        except JobFailedError as exc:
            return {**dict.fromkeys(PROBE_COLUMNS), "uberized": False}, str(exc)
        return {**probe, "uberized": False}, None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
