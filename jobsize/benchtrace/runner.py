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

With ``engine="hadoop"`` step 4 submits the same streaming job (the workload's commands,
unchanged) to the mini cluster of ``jobsize hadoop up`` (:mod:`jobsize.hadoop`), with the
split size as the block size of the cluster's (local) file system, and step 5 reads the
``.jhist`` and ``_conf.xml`` the cluster wrote, copied into the trace's history under the local
engine's names. Probes run on Hadoop too, as real uber jobs on the probing queue
(:mod:`jobsize.hadoop.probe`), their histories kept beside the jobs'. The records' ``source``
says which engine measured them (:attr:`BenchTrace.source`). Such a trace may also draw
Hadoop's Java examples (:mod:`jobsize.benchtrace.java`), which are run, not probed.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jobsize.benchtrace.draw import Distribution, Draw, draw_jobs, uses
from jobsize.benchtrace.inputs import InputCache
from jobsize.benchtrace.java import is_java, kind
from jobsize.benchtrace.tracedir import DRAW_INDEX, SETTINGS_NAME, TRACE_NAME, TraceDirectory
from jobsize.collectors.jhist import JobHistory, read_jhist
from jobsize.engine import JobSpec, LocalEngine, run_probe
from jobsize.engine.appmaster import warn_if_oversubscribed
from jobsize.engine.inputformat import compute_splits, input_files
from jobsize.errors import ConfigError, JobFailedError
from jobsize.javatask import refuse_local
from jobsize.sampler.probespec import PROBE_COLUMNS, ProbePlan, ProbeSpec, plan_probe
from jobsize.workloads import workload

#: ``source`` of the records a bench trace measures (on the local engine).
SOURCE = "bench-trace"
#: Where a trace's jobs may run; records from another than the local one carry ``:<engine>``
#: after their ``source`` (:attr:`BenchTrace.source`).
ENGINES = ("local", "hadoop")
#: Hadoop's block size of a file on its local file system: the split size on the mini cluster.
LOCAL_BLOCK_KEY = "fs.local.block.size"
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

    ``engine``: ``"local"`` (default) or ``"hadoop"``: the production jobs run on the mini
    cluster in ``cluster`` (its directory; default :func:`jobsize.hadoop.default_dir`).

    A measurement that runs its jobs another way (``jobsize evaluate``) subclasses it: it keeps
    the resumable loop of :meth:`run` and overrides :meth:`plan`, :meth:`settings` and
    :meth:`_measure`, using :meth:`_input` and :meth:`_run_job` for the shared steps.
    """

    #: File names of the trace and its settings in the directory.
    trace_name = TRACE_NAME
    settings_name = SETTINGS_NAME
    #: ``source`` of the records the local engine measures (``:<engine>`` added for another)
    source_base = SOURCE

    def __init__(self, directory: str | os.PathLike[str], seed: int,
                 distribution: Distribution | None = None, *, workers: int | None = None,
                 input_budget: int = INPUT_BUDGET, engine: str = "local",
                 cluster: str | os.PathLike[str] | None = None) -> None:
        self.dir = TraceDirectory(Path(directory), self.trace_name, self.settings_name)
        self.seed = seed
        self.dist = distribution or Distribution()
        self.workers = workers
        self.input_budget = input_budget
        if engine not in ENGINES:
            raise ConfigError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
        self.engine = engine
        self.check_kinds(self.dist.workloads)
        self.cluster_dir = cluster
        self._client: Any = None

    def check_kinds(self, names: Iterable[str]) -> None:
        """Refuse, before any job runs, kinds this engine cannot run: Hadoop's Java examples
        and kinds whose tasks are Java classes run on Hadoop only."""
        if self.engine == "hadoop":
            return
        java = [n for n in names if is_java(n)]
        if java:
            raise ConfigError(f"Java examples ({', '.join(java)}) run on Hadoop only: use "
                              "the hadoop engine")
        for name in names:
            w = workload(name)
            refuse_local(w.mapper, w.combiner, w.reducer, where=f"kind {name}")

    @property
    def source(self) -> str:
        """``source`` of the records this measurement appends: ``bench-trace`` (or an
        evaluation's) on the local engine, with ``:hadoop`` after it on the mini cluster."""
        return self.source_base if self.engine == "local" else \
            f"{self.source_base}:{self.engine}"

    def client(self) -> Any:
        """The mini cluster's client (``engine="hadoop"``); one line if no cluster runs."""
        if self._client is None:
            from jobsize.hadoop import find
            from jobsize.hadoop.client import HadoopClient

            self._client = HadoopClient(find(self.cluster_dir))
        return self._client

    def plan(self, jobs: int) -> list[Draw]:
        """The first ``jobs`` draws of this trace's seed."""
        return draw_jobs(self.seed, jobs, self.dist)

    def settings(self) -> dict[str, Any]:
        """What the directory must be resumed with, besides the seed (JSON-ready): the
        distribution, and the engine unless it is the local one (so traces measured before
        there was a choice resume unchanged)."""
        return {**self.dist.settings(), **self.engine_settings()}

    def engine_settings(self) -> dict[str, str]:
        """The engine as the settings record it: nothing for the local one (so directories
        measured before there was a choice resume unchanged)."""
        return {} if self.engine == "local" else {"engine": self.engine}

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
        generators = None
        if self.engine == "hadoop":
            from jobsize.benchtrace.java import input_generators

            generators = input_generators(self.client())  # and no cluster: one line, now
        cache = InputCache(self.dir.inputs, uses(todo), self.input_budget, generators)
        outcomes: list[JobOutcome] = []
        t0 = time.monotonic()
        try:
            with LocalEngine(self.workers) as engine:
                run_log["workers"] = engine.workers
                if self.engine == "local":  # on Hadoop the cluster runs the tasks
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
        if self.engine == "hadoop":
            return self._run_on_hadoop(draw, spec)
        try:
            result = engine.run(spec, history_dir=self.dir.job_history)
        except JobFailedError as exc:
            result = exc.result  # type: ignore[attr-defined]  # its history is written
        shutil.rmtree(self.dir.scratch / str(draw.index), ignore_errors=True)
        return read_jhist(result.history_path), Path(result.history_path)

    def _run_on_hadoop(self, draw: Draw, spec: JobSpec) -> tuple[JobHistory, Path]:
        """Submit ``spec``'s job, with the workload's own commands, to the mini cluster: the
        same N_m (``mapreduce.job.maps`` 1 and the split size as the block size, so Hadoop
        Streaming's FileInputFormat cuts the splits ``compute_splits`` does), N_r, name and
        configuration. Its history is copied into the trace's under the local engine's names."""
        w = workload(draw.workload)
        conf = {**{k: str(v) for k, v in spec.conf.items()}, "mapreduce.job.maps": "1",
                LOCAL_BLOCK_KEY: str(spec.split_bytes), "dfs.blocksize": str(spec.split_bytes)}
        try:
            job = self.client().streaming(
                inputs=[str(p) for p in spec.inputs], output=str(spec.output),
                mapper=shlex.join(w.mapper), reducer=_command(w.reducer),
                combiner=_command(w.combiner), n_reduces=spec.n_reduces, conf=conf,
                name=spec.name)
        finally:
            shutil.rmtree(self.dir.scratch / str(draw.index), ignore_errors=True)
        jhist = self._keep_history(job)
        return read_jhist(jhist), jhist

    def _keep_history(self, job: Any) -> Path:
        """Copy a cluster job's .jhist and _conf.xml into the trace's job history as
        ``<job_id>.jhist`` and ``<job_id>_conf.xml``."""
        where = self.dir.job_history
        where.mkdir(parents=True, exist_ok=True)
        jhist = where / f"{job.job_id}.jhist"
        shutil.copyfile(job.conf_path, where / f"{job.job_id}_conf.xml")
        shutil.copyfile(job.history_path, jhist)
        return jhist

    def _measure(self, draw: Draw, engine: LocalEngine, cache: InputCache) -> JobOutcome:
        if is_java(draw.workload):
            return self._measure_java(draw, cache)
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
        record.update(job_type=w.name, source=self.source, draw_index=draw.index,
                      fb_maps=draw.fb_maps, split_bytes=split, user=USER,
                      host_load_1m=os.getloadavg()[0])
        return JobOutcome(draw, record, history.tasks, time.monotonic() - t0, generate_s,
                          probe_error)

    def _measure_java(self, draw: Draw, cache: InputCache) -> JobOutcome:
        """A Java example on the mini cluster, over its input made as Hadoop makes it; not
        probed (a probe runs streaming commands), so its probe columns stay null."""
        from jobsize.hadoop import examples

        k = kind(draw.workload)
        paths, generate_s = self._input(draw, cache)
        t0 = time.monotonic()
        split = draw.split_bytes or self.dist.split_bytes
        program = getattr(k, "program", draw.workload)
        inputs = ([str(p) for p in paths] if program == "join"
                  else [str(cache.path(draw.input_key))])
        work = self.dir.scratch / str(draw.index)
        work.mkdir(parents=True, exist_ok=True)
        conf = {**job_conf(split), LOCAL_BLOCK_KEY: str(split)}
        try:
            submission = examples.run_example(
                self.client(), program, inputs, work / "output",
                reduces=draw.n_reduces, conf=conf, cwd=work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        job = submission.job
        jhist = self._keep_history(job)
        history = read_jhist(jhist)
        record = dict(history.record)
        record.update({c: None for c in PROBE_COLUMNS})
        record.update(job_type=draw.workload, source=self.source, draw_index=draw.index,
                      fb_maps=draw.fb_maps, split_bytes=split, user=USER,
                      host_load_1m=os.getloadavg()[0])
        reason = None if record.get("uberized") else "a Java job: not probed"
        return JobOutcome(draw, record, history.tasks, time.monotonic() - t0, generate_s,
                          reason)

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
            if self.engine == "hadoop":
                probe = self._probe_on_hadoop(spec, draw, history)
            else:
                probe = run_probe(spec, engine=engine, history_dir=history,
                                  work_dir=self.dir.scratch)
        except JobFailedError as exc:
            return {**dict.fromkeys(PROBE_COLUMNS), "uberized": False}, str(exc)
        return {**probe, "uberized": False}, None

    def _probe_on_hadoop(self, spec: ProbeSpec, draw: Draw, history: Path,
                         splits: Any = None) -> dict[str, Any]:
        """The probe as Hadoop runs it: a real uber job on the cluster's probing queue
        (:func:`jobsize.hadoop.probe.probe_on_hadoop`) over ``splits`` (default: the spec's
        own); its history kept in the trace's."""
        from jobsize.hadoop.probe import probe_on_hadoop
        from jobsize.sampler.identity import with_identity

        spec = dataclasses.replace(spec, conf=with_identity(
            spec.conf, inputs=spec.inputs, mapper=spec.mapper, reducer=spec.reducer,
            combiner=spec.combiner, n_reduces=spec.n_reduces, user=USER))
        work = self.dir.scratch / f"probe-{draw.index}"
        shutil.rmtree(work, ignore_errors=True)
        try:
            probe = probe_on_hadoop(spec, spec.splits() if splits is None else splits,
                                    self.client(), directory=work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        jhist = Path(probe["probe_history"])
        history.mkdir(parents=True, exist_ok=True)
        job_id = probe["probe_job_id"]
        shutil.copyfile(jhist, history / f"{job_id}.jhist")
        shutil.copyfile(jhist.with_name(f"{job_id}_conf.xml"), history / f"{job_id}_conf.xml")
        return {column: probe[column] for column in PROBE_COLUMNS}


def _command(argv: Sequence[str] | None) -> str | None:
    return None if argv is None else shlex.join(argv)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
