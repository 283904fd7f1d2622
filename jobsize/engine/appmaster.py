"""The local ApplicationMaster: schedules a job's attempts, retries failures, keeps the history.

:class:`LocalEngine` owns a process pool sized to the machine, reused across tasks and jobs (a
task costs one pickled message to a worker, not a new interpreter). A job's maps run on the pool;
its reduces start when every map has succeeded (``slowstart.completedmaps = 1.0``: on a pool as
small as a workstation's, an early reduce would only hold a core while it waits). A failed
attempt is retried up to ``mapreduce.{map,reduce}.maxattempts`` times (4, as in Hadoop) and stays
in the history as a failed attempt; a task that fails every attempt fails the job: the other tasks
are killed, the history gets ``JOB_FAILED`` and :class:`jobsize.errors.JobFailedError` carries the
task's stderr.

An uber job (``mapreduce.job.ubertask.enable`` and Hadoop's size rule) runs all its tasks one
after another in this process, as the ApplicationMaster's container does on a cluster.
"""

from __future__ import annotations

import atexit
import itertools
import math
import multiprocessing
import os
import pickle
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobsize.engine import counters as C
from jobsize.engine import output as out
from jobsize.engine.attempt import (
    AttemptResult,
    MapAttempt,
    MapInput,
    ReduceAttempt,
    TaskContext,
    exported,
    now_ms,
)
from jobsize.engine.history import JobHistoryWriter, exists, history_paths, write_conf
from jobsize.engine.inputformat import FileSplit, compute_splits, input_files
from jobsize.engine.maptask import run_map
from jobsize.engine.reducetask import run_reduce
from jobsize.engine.spec import Containers, JobSpec, job_conf
from jobsize.errors import ConfigError, InputError, JobFailedError
from jobsize.javatask import refuse_local
from jobsize.schema import JOB_COLUMNS
from jobsize.ubermode import is_uber

_MIN_ALLOCATION_MB = 1024
_DIAGNOSTIC_CHARS = 600


@dataclass
class JobResult:
    """A finished job as the engine saw it: times, counters, attempts, where things are."""

    job_id: str
    name: str
    user: str
    queue: str
    state: str  # SUCCEEDED or FAILED
    uberized: bool
    submit_time_ms: int
    launch_time_ms: int
    finish_time_ms: int
    n_maps: int
    n_reduces: int
    containers: Containers
    #: ``{"total"|"map"|"reduce": {group: {counter: value}}}``, as the history's JOB_FINISHED
    counters: dict[str, C.Counters]
    attempts: list[AttemptResult]
    output_dir: Path
    outputs: list[Path] = field(default_factory=list)
    history_path: Path | None = None
    conf_path: Path | None = None
    diagnostics: str = ""
    #: the map's sort buffer as record columns (``map_sort_mb``, ...)
    sort_buffer: dict[str, float] = field(default_factory=dict)

    def _elapsed(self, task_type: str, ok: bool) -> int:
        return sum(a.elapsed_ms for a in self.attempts if a.task_type == task_type and a.ok == ok)

    @property
    def map_time_ms(self) -> int:
        """SE_m: summed elapsed time of the successful map attempts."""
        return self._elapsed("MAP", True)

    @property
    def reduce_time_ms(self) -> int:
        """SE_r: summed elapsed time of the successful reduce attempts."""
        return self._elapsed("REDUCE", True)

    @property
    def map_wasted_ms(self) -> int:
        return self._elapsed("MAP", False)

    @property
    def reduce_wasted_ms(self) -> int:
        return self._elapsed("REDUCE", False)

    def record(self) -> dict[str, Any]:
        """The job-record columns (jobsize.schema) from the engine's own bookkeeping."""
        c = self.containers
        rec: dict[str, Any] = {
            "job_id": self.job_id, "job_name": self.name, "user": self.user,
            "queue": self.queue, "state": self.state, "uberized": self.uberized,
            "submit_time_ms": self.submit_time_ms, "launch_time_ms": self.launch_time_ms,
            "finish_time_ms": self.finish_time_ms, "n_maps": self.n_maps,
            "n_reduces": self.n_reduces,
            "map_memory_mb": c.map_memory_mb, "map_vcores": c.map_vcores,
            "reduce_memory_mb": c.reduce_memory_mb, "reduce_vcores": c.reduce_vcores,
            "am_memory_mb": c.am_memory_mb, "am_vcores": c.am_vcores,
            **self.sort_buffer,
            "map_time_ms": self.map_time_ms, "reduce_time_ms": self.reduce_time_ms,
            "map_wasted_ms": self.map_wasted_ms, "reduce_wasted_ms": self.reduce_wasted_ms,
        }
        total = self.counters["total"]
        for col in JOB_COLUMNS:
            if col.hadoop and col.name not in rec and "." in col.hadoop:
                group, name = col.hadoop.rsplit(".", 1)
                if group in total and name in total[group]:
                    rec[col.name] = total[group][name]
        return rec


@dataclass
class _Task:
    task_id: str
    task_type: str  # MAP or REDUCE
    index: int
    inputs: tuple[MapInput, ...] = ()
    tries: int = 0
    result: AttemptResult | None = None


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork where it is safe (Linux, no other thread alive: starts fast and needs nothing
    importable), else forkserver (or spawn where there is none)."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    try:
        ctx = multiprocessing.get_context("forkserver")
    except ValueError:
        return multiprocessing.get_context("spawn")
    ctx.set_forkserver_preload(["jobsize.engine.maptask", "jobsize.engine.reducetask"])
    return ctx


#: Cores one task keeps busy: a streaming task runs two processes at once — the function's, and
#: the framework's reading its input and collecting, sorting and spilling its output — and a
#: record-heavy task keeps both at work.
CORES_PER_TASK = 2


def free_cores() -> int:
    """The cores no other work is using now: the machine's cores less its 1-minute load
    average, at least 1."""
    cores = os.cpu_count() or 1
    return max(1, min(cores, math.floor(cores - os.getloadavg()[0] + 0.5)))


def default_workers() -> int:
    """Workers that leave every task its :data:`CORES_PER_TASK` cores: the free cores over
    that, at least 1. Task times measured on more are inflated by the wait for a core, which
    the probe — one task at a time — does not see (a record-heavy job's map time doubled on
    two workers on two cores)."""
    return max(1, free_cores() // CORES_PER_TASK)


def oversubscription(workers: int) -> str | None:
    """A warning when ``workers`` tasks and the machine's load exceed its cores, else None."""
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    if workers * CORES_PER_TASK + load <= cores + 1.0:  # 2 per task is a record-heavy peak
        return None
    return (f"{workers} worker{'s' * (workers != 1)} of {CORES_PER_TASK} processes each on "
            f"{cores} core{'s' * (cores != 1)} with a load average of {load:.1f}: tasks will "
            "wait for a core, so their times measure the machine's load as well as the job")


def warn_if_oversubscribed(workers: int) -> None:
    """Say on stderr when :func:`oversubscription` finds the machine oversubscribed."""
    warning = oversubscription(workers)
    if warning:
        print(f"jobsize: warning: {warning}", file=sys.stderr)


class LocalEngine:
    """Runs MapReduce jobs on this machine. Use as a context manager, or call :meth:`close`.

    ``workers``: size of the process pool (default: :func:`default_workers`, so the measured
    task times are the job's and not the machine's load). ``work_root``: where
    intermediate data goes (default: the system's temporary directory).
    """

    def __init__(self, workers: int | None = None, *, work_root: Path | None = None) -> None:
        self.workers = max(1, workers or default_workers())
        self.work_root = work_root
        self.cluster_timestamp = now_ms()
        self._seq = itertools.count(1)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=_pool_context())
        return self._pool

    def reset_pool(self) -> None:
        """Drop a broken pool (a worker died); the next task starts a new one."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def new_job_id(self, history_dir: Path | None = None) -> str:
        """``job_<cluster timestamp>_<sequence>``, as YARN numbers applications."""
        with self._lock:
            while True:
                job_id = f"job_{self.cluster_timestamp}_{next(self._seq):04d}"
                if history_dir is None or not exists(history_dir, job_id):
                    return job_id

    def run(self, spec: JobSpec, *, history_dir: str | os.PathLike[str] | None = None,
            uber: bool | None = None,
            map_tasks: Sequence[Sequence[MapInput]] | None = None,
            reduce_partitions: Sequence[Sequence[int]] | None = None,
            count_map_keys: bool = False,
            progress: Callable[..., None] | None = None) -> JobResult:
        """Run ``spec`` and return its result; write its history into ``history_dir``.

        ``uber`` forces (True) or forbids (False) uber mode; None follows the spec.
        ``map_tasks`` gives each map task's input explicitly instead of splitting
        ``spec.inputs`` (the probe's map tasks over a sample). ``reduce_partitions`` lists the
        map-output partitions each reduce task reads (``[[0], [1, 2]]``: the maps partition by
        key hash three ways, the first reduce reads one part and the second two — the probe's
        uneven reduces); by default reduce i reads partition i. ``count_map_keys`` has each map
        report the distinct keys of its output (``MAP_OUTPUT_KEYS`` in the ``jobsize`` group; a
        probe measures how keys grow with input). ``progress()`` is called once per finished
        task.
        Raises :class:`JobFailedError` when a task fails every attempt.
        """
        refuse_local(spec.mapper, spec.combiner, spec.reducer, where=spec.name or "the job")
        history = Path(history_dir) if history_dir else None
        run = _JobRun(self, spec, history, uber, map_tasks, progress, reduce_partitions)
        run.count_map_keys = count_map_keys
        return run.run()


class _JobRun:
    """One job's ApplicationMaster."""

    def __init__(self, engine: LocalEngine, spec: JobSpec, history_dir: Path | None,
                 uber: bool | None, map_tasks: Sequence[Sequence[MapInput]] | None,
                 progress: Callable[..., None] | None = None,
                 reduce_partitions: Sequence[Sequence[int]] | None = None) -> None:
        self.engine = engine
        if reduce_partitions is None:
            reduce_partitions = [[i] for i in range(spec.n_reduces)]
        if len(reduce_partitions) != spec.n_reduces or (
                spec.n_reduces and sorted(p for ps in reduce_partitions for p in ps)
                != list(range(sum(len(ps) for ps in reduce_partitions)))):
            raise ConfigError(f"reduce partitions {reduce_partitions!r} must cover partitions "
                              f"0..k-1 once each, in {spec.n_reduces} reduce tasks")
        self.reduce_partitions = [tuple(ps) for ps in reduce_partitions]
        self.count_map_keys = False
        self.progress = progress
        self.spec = spec
        self.history_dir = history_dir
        self.submit_ms = now_ms()
        if map_tasks is None:
            files = input_files(spec.inputs)
            map_tasks = [(self._map_input(s),)
                         for s in compute_splits(files, spec.n_maps, spec.split_bytes)]
            self.input_bytes = sum(f.stat().st_size for f in files)
        else:
            self.input_bytes = sum(p.length for task in map_tasks for p in task)
        self.map_inputs = [tuple(task) for task in map_tasks]
        self.job_id = engine.new_job_id(history_dir)
        self.uberized = self._uber(uber)
        self.conf = job_conf(spec, self.job_id, len(self.map_inputs), self.uberized)
        self.history = JobHistoryWriter(self.job_id)
        self.attempts: list[AttemptResult] = []
        self.outputs: list[Path] = []
        self.failed: tuple[_Task, AttemptResult] | None = None
        self._containers = itertools.count(2)  # container 1 is the ApplicationMaster's
        self._app = self.job_id[len("job_"):]

    def _uber(self, uber: bool | None) -> bool:
        """Forced either way by ``uber`` (or the spec's ``uber``); else Hadoop's decision on
        the job's configuration (:mod:`jobsize.ubermode`)."""
        if uber is None:
            uber = self.spec.uber
        if uber is not None:
            return uber
        return is_uber(len(self.map_inputs), self.spec.n_reduces, self.input_bytes,
                       self.spec.uber_conf())

    # --- ids ----------------------------------------------------------------------------------

    def _task_id(self, kind: str, index: int) -> str:
        return f"task_{self._app}_{kind}_{index:06d}"

    def _container(self) -> str:
        return f"container_{self._app}_01_{next(self._containers):06d}"

    # --- the job ------------------------------------------------------------------------------

    def run(self) -> JobResult:
        spec = self.spec
        if self.history_dir is not None:
            try:  # fail before the job runs, not after
                self.history_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(f"cannot create the history directory "
                                 f"({exc.strerror or exc})", source=self.history_dir) from None
        out.prepare(spec.output, spec.overwrite)
        root = self.engine.work_root
        if root is not None:
            Path(root).mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{self.job_id}-", dir=root)).resolve()
        try:
            return self._run(work)
        except BaseException as exc:
            if not isinstance(exc, JobFailedError):  # interrupted: leave no attempt output
                out.commit_job(spec.output, succeeded=False)
            raise
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _run(self, work: Path) -> JobResult:
        spec = self.spec
        conf_path = None
        if self.history_dir is not None:
            conf_path = history_paths(self.history_dir, self.job_id)[1]
        self.history.am_started(f"appattempt_{self._app}_000001",
                                f"container_{self._app}_01_000001", self.submit_ms)
        self.history.job_submitted(spec.name, spec.user, spec.queue, self.submit_ms,
                                   str(conf_path.resolve()) if conf_path else "")
        self.launch_ms = now_ms()
        self.history.job_inited(self.submit_ms, self.launch_ms, len(self.map_inputs),
                                spec.n_reduces, self.uberized)
        self.ctx = TaskContext(
            job_id=self.job_id, work_dir=str(work), output_dir=str(spec.output.resolve()),
            cwd=os.getcwd(),
            mapper=spec.mapper, reducer=spec.reducer, combiner=spec.combiner,
            n_reduces=sum(len(ps) for ps in self.reduce_partitions),
            spill_bytes=spec.spill_bytes,
            map_merge_bytes=spec.spill_bytes, reduce_merge_bytes=spec.reduce_merge_bytes,
            env={**exported(self.conf), **spec.env},
            count_map_keys=self.count_map_keys, combine_min_spills=spec.combine_min_spills)
        self.maps = [_Task(self._task_id("m", i), "MAP", i, inputs)
                     for i, inputs in enumerate(self.map_inputs)]
        self.reduces = [_Task(self._task_id("r", i), "REDUCE", i)
                        for i in range(spec.n_reduces)]
        for task in self.maps + self.reduces:
            self.history.task_started(task.task_id, task.task_type, now_ms())
        if self.uberized:
            self._run_in_process()
        else:
            self._run_on_pool()
        return self._finish(conf_path)

    @staticmethod
    def _map_input(split: FileSplit) -> MapInput:
        path = str(Path(split.path).resolve())
        return MapInput(path, split.start, split.length, path)

    def _attempt(self, task: _Task) -> MapAttempt | ReduceAttempt:
        kind = "m" if task.task_type == "MAP" else "r"
        attempt_id = f"attempt_{self._app}_{kind}_{task.index:06d}_{task.tries}"
        task.tries += 1
        if task.task_type == "MAP":
            return MapAttempt(self.ctx, task.task_id, attempt_id, task.index, task.inputs)
        segments = tuple(m.result.segments[p] for m in self.maps  # type: ignore[union-attr]
                         for p in self.reduce_partitions[task.index])
        return ReduceAttempt(self.ctx, task.task_id, attempt_id, task.index, segments)

    def _max_tries(self, task: _Task) -> int:
        return (self.spec.max_map_attempts if task.task_type == "MAP"
                else self.spec.max_reduce_attempts)

    def _done(self, task: _Task, result: AttemptResult) -> bool:
        """Record an attempt; True when the task needs another attempt."""
        self.attempts.append(result)
        self.history.attempt(result, self._container())
        if result.ok:
            task.result = result
            if self.progress is not None:
                self.progress()
            self.history.task_finished(result)
            if result.output:
                self.outputs.append(out.commit_task(self.spec.output, Path(result.output)))
            return False
        if task.tries < self._max_tries(task) and self.failed is None:
            return True
        if self.failed is None:
            self.failed = (task, result)
            self.history.task_failed(task.task_id, task.task_type, result.finish_ms,
                                     result.error, result.attempt_id)
        return False

    def _run_in_process(self) -> None:
        for tasks, fn in ((self.maps, run_map), (self.reduces, run_reduce)):
            for task in tasks:
                while self.failed is None and self._done(task, fn(self._attempt(task))):  # type: ignore[arg-type]
                    pass
                if self.failed is not None:
                    return

    def _run_on_pool(self) -> None:
        _check_sendable(self.ctx)
        pending: dict[Future, tuple[_Task, MapAttempt | ReduceAttempt, int]] = {}

        def submit(task: _Task) -> None:
            attempt = self._attempt(task)
            fn: Callable = run_map if task.task_type == "MAP" else run_reduce
            start = now_ms()
            try:
                future = self.engine.pool().submit(fn, attempt)
            except BrokenProcessPool:
                self.engine.reset_pool()
                future = self.engine.pool().submit(fn, attempt)
            pending[future] = (task, attempt, start)

        for task in self.maps:
            submit(task)
        reduces_started = not self.reduces
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                task, attempt, start = pending.pop(future)
                if future.cancelled():
                    continue
                result = self._result_of(future, attempt, start)
                if self._done(task, result) and self.failed is None:
                    submit(task)
            if self.failed is not None:
                for future in pending:
                    future.cancel()
                continue
            if not reduces_started and all(m.result for m in self.maps):
                reduces_started = True
                for task in self.reduces:
                    submit(task)

    def _result_of(self, future: Future, attempt: MapAttempt | ReduceAttempt,
                   start_ms: int) -> AttemptResult:
        """The attempt's result; a worker that died becomes a failed attempt."""
        try:
            return future.result()
        except BrokenProcessPool as exc:
            self.engine.reset_pool()
            error = f"worker process died: {exc}"
        except Exception as exc:  # e.g. a callable that cannot be sent to a worker
            error = f"{type(exc).__name__}: {exc}"
        kind = "MAP" if isinstance(attempt, MapAttempt) else "REDUCE"
        return AttemptResult(attempt.task_id, attempt.attempt_id, kind, False, start_ms,
                             now_ms(), error)

    # --- the end ------------------------------------------------------------------------------

    def _finish(self, conf_path: Path | None) -> JobResult:
        finish_ms = now_ms()
        state = "SUCCEEDED" if self.failed is None else "FAILED"
        finished_maps = sum(1 for t in self.maps if t.result)
        finished_reduces = sum(1 for t in self.reduces if t.result)
        counters = self._counters()
        diagnostics = ""
        if self.failed is None:
            self.history.job_finished(finish_ms, finished_maps, finished_reduces,
                                      counters["total"], counters["map"], counters["reduce"])
        else:
            for task in self.maps + self.reduces:
                if task.result is None and task is not self.failed[0]:
                    self.history.task_failed(task.task_id, task.task_type, finish_ms, "",
                                             None, status="KILLED")
            task = self.failed[0]
            n_maps = int(task.task_type == "MAP")
            diagnostics = (f"Task failed {task.task_id}\nJob failed as tasks failed. "
                           f"failedMaps:{n_maps} failedReduces:{1 - n_maps}")
            self.history.job_failed(finish_ms, finished_maps, finished_reduces, diagnostics)
        out.commit_job(self.spec.output, self.failed is None)
        result = JobResult(
            self.job_id, self.spec.name, self.spec.user, self.spec.queue, state, self.uberized,
            self.submit_ms, self.launch_ms, finish_ms, len(self.maps), len(self.reduces),
            self.spec.containers, counters, self.attempts, self.spec.output,
            sorted(self.outputs), diagnostics=diagnostics,
            sort_buffer=self.spec.sort_buffer_columns())
        if self.history_dir is not None:
            jhist, conf = history_paths(self.history_dir, self.job_id)
            try:
                write_conf(conf, self.conf)
                result.history_path = self.history.write(jhist)
            except OSError as exc:
                raise InputError(f"cannot write the job's history ({exc.strerror or exc})",
                                 source=jhist) from None
            result.conf_path = conf
        if self.failed is not None:
            raise _job_failed(result, *self.failed)
        return result

    def _counters(self) -> dict[str, C.Counters]:
        maps = C.summed(t.result.counters for t in self.maps if t.result)
        reduces = C.summed(t.result.counters for t in self.reduces if t.result)
        total = C.summed([maps, reduces])
        total[C.JOB] = self._job_counters()
        return {"total": total, "map": maps, "reduce": reduces}

    def _job_counters(self) -> dict[str, int]:
        c = self.spec.containers
        jc: dict[str, int] = {}
        for kind, word, memory, vcores in (("MAP", "MAPS", c.map_memory_mb, c.map_vcores),
                                           ("REDUCE", "REDUCES", c.reduce_memory_mb,
                                            c.reduce_vcores)):
            tried = [a for a in self.attempts if a.task_type == kind]
            if not tried:
                continue
            millis = sum(a.elapsed_ms for a in tried)
            failed = sum(1 for a in tried if not a.ok)
            jc[f"TOTAL_LAUNCHED_{word}"] = len(tried)
            if failed:
                jc[f"NUM_FAILED_{word}"] = failed
            if kind == "MAP":
                jc["DATA_LOCAL_MAPS"] = len(tried)
            jc[f"SLOTS_MILLIS_{word}"] = millis * memory // _MIN_ALLOCATION_MB
            jc[f"MILLIS_{word}"] = millis
            jc[f"VCORES_MILLIS_{word}"] = millis * vcores
            jc[f"MB_MILLIS_{word}"] = millis * memory
        if self.uberized:
            jc["TOTAL_LAUNCHED_UBERTASKS"] = len(self.attempts)
            jc["NUM_UBER_SUBMAPS"] = sum(1 for a in self.attempts if a.task_type == "MAP")
            jc["NUM_UBER_SUBREDUCES"] = sum(1 for a in self.attempts if a.task_type == "REDUCE")
        return jc


def _check_sendable(ctx: TaskContext) -> None:
    """Python functions go to the workers by reference: a lambda or a closure cannot."""
    for what in ("mapper", "reducer", "combiner"):
        fn = getattr(ctx, what)
        if fn is None or isinstance(fn, tuple):
            continue
        try:
            pickle.dumps(fn)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise ConfigError(f"the {what} {fn!r} cannot be sent to a worker process ({exc}); "
                              "use a module-level function") from None


def _job_failed(result: JobResult, task: _Task, attempt: AttemptResult) -> JobFailedError:
    """The error a failed job raises: one line naming the task, with its stderr attached."""
    lines = [line.strip() for line in attempt.stderr.splitlines() if line.strip()]
    said = " | ".join(lines[-3:])[-_DIAGNOSTIC_CHARS:]
    error = " | ".join(line for line in attempt.error.splitlines() if line.strip())
    reason = f"task {task.task_id} failed {task.tries} attempt(s): {error}"
    if said:
        reason += f"; stderr: {said}"
    exc = JobFailedError(reason, source=result.job_id)
    exc.stderr = attempt.stderr  # type: ignore[attr-defined]
    exc.result = result  # type: ignore[attr-defined]
    return exc


_default: LocalEngine | None = None


def default_engine() -> LocalEngine:
    """A process-wide engine, created on first use."""
    global _default
    if _default is None:
        _default = LocalEngine()
    return _default


def run_job(spec: JobSpec, *, history_dir: str | os.PathLike[str] | None = None,
            engine: LocalEngine | None = None) -> JobResult:
    """Run ``spec`` on ``engine`` (default: a shared engine sized to this machine)."""
    return (engine or default_engine()).run(spec, history_dir=history_dir)


@atexit.register
def _close_default() -> None:
    if _default is not None:
        _default.close()
