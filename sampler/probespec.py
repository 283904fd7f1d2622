"""The probing job (paper §III-A): which sample, which functions, which settings, and how the
probe's counters become a probe record.

A :class:`ProbeSpec` describes the probe of one job: its mapper, reducer and combiner, its input,
its N_m, N_r and container sizes, and how to sample (split size, ``sampledSplitsUpperBound``,
seed). The probe runs the job's own functions over the sample as one map task and one reduce
task in one container — uber mode. This module does not run it: the local engine does
(``jobsize.engine.run_probe``), or a cluster does with the command :func:`render_hadoop` prints.
Either way the probe's counters come back through :func:`probe_record` as the job record's
``probe_*`` columns, which eq 8 scales by ``1 / f_p``.

:func:`plan_probe` says whether Hadoop would run a job in uber mode itself; such a job is probed
all the same unless ``--uber-from-history``, which leaves it to the history's uber jobs.
"""

from __future__ import annotations

import numbers
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobsize.sampler import timing_wrapper
from jobsize.sampler.probeparts import split_columns, task_counts
from jobsize.sampler.sampling import (
    DEFAULT_MAX_FRACTION,
    DEFAULT_MAX_SPLITS,
    DEFAULT_MIN_SAMPLE_BYTES,
    Sample,
    sample,
)
from jobsize.sampler.splits import Split, input_splits, total_bytes

from jobsize.errors import ConfigError, InputError
from jobsize.javatask import is_java, java_task, streaming_task
from jobsize.schema import (
    COMBINE_FUNCTION_COUNTER,
    COMBINE_FUNCTION_STARTUP_COUNTER,
    COMBINE_RUNS_COUNTER,
    COMBINE_WRAPPER_COUNTER,
    DEFAULT_CONTAINERS,
    FUNCTION_TIME_GROUP,
    JOB_COLUMNS,
    JOB_SCHEMA,
    MAP_FUNCTION_COUNTER,
    MAP_FUNCTION_STARTUP_COUNTER,
    MAP_OUTPUT_KEYS_COUNTER,
    MAP_WRAPPER_COUNTER,
    PROBE_FOR_KEY,
    PROBE_FRACTION_KEY,
    PROBE_ID_KEY,
    PROBE_INPUT_BYTES_KEY,
    PROBE_MAPS_KEY,
    PROBE_NAME_PREFIX,
    PROBE_REDUCES_KEY,
    REDUCE_FUNCTION_COUNTER,
    REDUCE_FUNCTION_STARTUP_COUNTER,
    REDUCE_WRAPPER_COUNTER,
)
from jobsize.ubermode import decide

#: A streaming command (argv) or, for the local engine, a Python callable.
Function = tuple[str, ...] | Callable[..., Any]

#: The job record's probe columns, in schema order.
PROBE_COLUMNS: tuple[str, ...] = tuple(c.name for c in JOB_COLUMNS
                                       if c.name.startswith("probe_"))
#: The split probe's shape columns (:mod:`jobsize.sampler.probeparts`): null where the probe
#: could not measure them (a cluster probe, which runs no two uneven tasks of a kind; two tasks
#: of a kind too alike to tell a shape apart: too few records, no reduces, no output).
PROBE_SHAPE: tuple[str, ...] = tuple(c for c in PROBE_COLUMNS if c.endswith(
    ("_split", "_fixed_ms", "_startup_ms", "_exponent")))
#: The later maps' columns: only a probe that ran two maps or more, read from its history
#: (:func:`jobsize.collectors.probe_join.later_maps`).
PROBE_LATER: tuple[str, ...] = ("probe_map_later_task_ms", "probe_map_later_function_ms",
                                "probe_map_later_input_share")
#: The timing wrapper's own time: only a cluster probe of functions the wrapper runs.
PROBE_WRAPPER: tuple[str, ...] = ("probe_map_wrapper_ms", "probe_reduce_wrapper_ms")
#: When the probe's first task started after its launch: read from its attempts (a cluster
#: probe's ``.jhist``; :func:`jobsize.collectors.probe_join.task_start`).
PROBE_START: tuple[str, ...] = ("probe_task_start_ms",)
#: Probe columns every probe of a job that is not uber fills.
PROBE_MEASURED: tuple[str, ...] = tuple(
    c for c in PROBE_COLUMNS if c not in PROBE_SHAPE + PROBE_LATER + PROBE_WRAPPER + PROBE_START)

DEFAULT_QUEUE = "probing"
DEFAULT_STREAMING_JAR = "$HADOOP_HOME/share/hadoop/tools/lib/hadoop-streaming-*.jar"
#: jobsize's Hadoop module, which holds the Java task classes (``jobsize.javatask``): the jar
#: the mini cluster builds (``jobsize.hadoop.toolchain``), to ship with a probe of a Java task.
JAVA_JAR = "jobsize-hadoop.jar"


def as_function(value: object, what: str) -> Function:
    """A command given as a shell-like string or an argv sequence, or a callable."""
    if callable(value):
        return value
    if isinstance(value, str):
        try:
            argv = tuple(shlex.split(value))
        except ValueError as exc:
            raise ConfigError(f"{what} command {value!r}: {exc}") from None
    elif isinstance(value, Sequence):
        argv = tuple(str(a) for a in value)
    else:
        raise ConfigError(f"{what} must be a command or a callable, got {type(value).__name__}")
    if not argv:
        raise ConfigError(f"{what} command is empty")
    return argv


@dataclass(frozen=True)
class ProbeSpec:
    """The probe of one job.

    ``mapper``, ``reducer`` and ``combiner`` are commands (a string is split like a shell
    would, without running one) or callables; ``reducer=None`` is a map-only job, which must have
    ``n_reduces=0``. ``inputs`` are local paths or WebHDFS URLs. ``n_maps``, ``n_reduces`` and
    the container sizes are the *job's* (they set f_p and the probe's containers);
    ``split_bytes=None`` means Hadoop's default (64 MB locally, the block size on HDFS).
    ``conf`` is the job's configuration, consulted for the uber-mode limits. ``files`` are
    shipped with the cluster probe (``-files``), e.g. the mapper's script. ``max_fraction``
    caps Algorithm 1's sample fraction 1 / max(N_m, N_r), but not below ``min_sample_bytes``
    of input (a budget, :func:`jobsize.sampler.sampling.plan`); ``None`` is Algorithm 1's
    fraction.
    """

    mapper: Function
    reducer: Function | None
    inputs: tuple[str, ...]
    n_maps: int
    n_reduces: int
    combiner: Function | None = None
    map_memory_mb: int = DEFAULT_CONTAINERS["map_memory_mb"]
    map_vcores: int = DEFAULT_CONTAINERS["map_vcores"]
    reduce_memory_mb: int = DEFAULT_CONTAINERS["reduce_memory_mb"]
    reduce_vcores: int = DEFAULT_CONTAINERS["reduce_vcores"]
    am_memory_mb: int = DEFAULT_CONTAINERS["am_memory_mb"]
    am_vcores: int = DEFAULT_CONTAINERS["am_vcores"]
    split_bytes: int | None = None
    max_splits: int = DEFAULT_MAX_SPLITS
    seed: int | None = None
    max_fraction: float | None = DEFAULT_MAX_FRACTION
    min_sample_bytes: int = DEFAULT_MIN_SAMPLE_BYTES
    queue: str = DEFAULT_QUEUE
    job_name: str = "job"
    files: tuple[str, ...] = ()
    conf: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        fix = object.__setattr__
        fix(self, "mapper", as_function(self.mapper, "mapper"))
        if self.reducer is not None:
            fix(self, "reducer", as_function(self.reducer, "reducer"))
        if self.combiner is not None:
            fix(self, "combiner", as_function(self.combiner, "combiner"))
        inputs = (self.inputs,) if isinstance(self.inputs, str | Path) else self.inputs
        fix(self, "inputs", tuple(str(i) for i in inputs))
        fix(self, "files", tuple(str(f) for f in self.files))
        fix(self, "conf", {str(k): str(v) for k, v in dict(self.conf).items()})
        self._validate()

    def _validate(self) -> None:
        if not self.inputs:
            raise ConfigError("the probe needs at least one input")
        if not isinstance(self.n_maps, int) or self.n_maps < 1:
            raise ConfigError(f"the job's map count N_m must be at least 1, got {self.n_maps!r}")
        if not isinstance(self.n_reduces, int) or self.n_reduces < 0:
            raise ConfigError(f"the job's reduce count N_r must be 0 or more, "
                              f"got {self.n_reduces!r}")
        if self.reducer is None and self.n_reduces > 0:
            raise ConfigError(f"N_r = {self.n_reduces} but no reducer: give one "
                              "(\"cat\" for an identity reduce) or set N_r = 0 (map-only)")
        if self.reducer is not None and self.n_reduces == 0:
            raise ConfigError("N_r = 0 is a map-only job: drop the reducer")
        for name in ("map_memory_mb", "map_vcores", "reduce_memory_mb", "reduce_vcores",
                     "am_memory_mb", "am_vcores", "max_splits"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")

    @property
    def map_only(self) -> bool:
        return self.reducer is None

    def splits(self, **options: Any) -> list[Split]:
        """The job's input splits; ``options`` go to :func:`jobsize.sampler.splits.input_splits`
        (``user``, ``delegation``, ``recursive``, ``timeout``, ...)."""
        return input_splits(self.inputs, self.split_bytes, **options)

    def take_sample(self, splits: Sequence[Split] | None = None, **options: Any) -> Sample:
        """Algorithm 1 over the job's input (its splits are listed unless given), holding at
        least one record whenever the input does: a probe of nothing measures nothing."""
        if splits is None:
            splits = self.splits(**options)
        return sample(splits, self.n_maps, self.n_reduces, self.max_splits, self.seed,
                      max_fraction=self.max_fraction, min_bytes=self.min_sample_bytes,
                      nonempty=True)

    def plan(self, input_bytes: int | None = None, **options: Any) -> ProbePlan:
        """Whether to probe this job (see :func:`plan_probe`); lists the input if needed."""
        if input_bytes is None:
            input_bytes = total_bytes(self.splits(**options))
        return plan_probe(self.n_maps, self.n_reduces, input_bytes, self.conf)

    def job_columns(self) -> dict[str, int]:
        """The job-record columns the spec knows: N_m, N_r and container sizes."""
        return {name: getattr(self, name) for name in (
            "n_maps", "n_reduces", "map_memory_mb", "map_vcores", "reduce_memory_mb",
            "reduce_vcores", "am_memory_mb", "am_vcores")}


# ---------------------------------------------------------------------------------------------
# Uber jobs


@dataclass(frozen=True)
class ProbePlan:
    """The decision to probe a job or not, and why."""

    probe: bool
    reason: str
    input_bytes: int

    @property
    def uberized(self) -> bool:
        return not self.probe

    def said(self, probe_uber: bool) -> str:
        """The reason, with how an uber job is sized when uber jobs are probed or not."""
        if self.probe:
            return self.reason
        if probe_uber:
            return f"{self.reason}; probed all the same, and sized from its probe"
        return (f"{self.reason}; not probed (--uber-from-history): sized from the history's "
                "uber jobs, as the paper does")

    def record(self) -> dict[str, Any]:
        """Record columns settled before probing: ``uberized``, and for an uber job null
        probe columns (it is never probed)."""
        out: dict[str, Any] = {"uberized": self.uberized}
        if self.uberized:
            out.update(dict.fromkeys(PROBE_COLUMNS))
        return out


def plan_probe(n_maps: int, n_reduces: int, input_bytes: int,
               conf: Mapping[str, object] | None = None) -> ProbePlan:
    """Whether Hadoop would run the job in uber mode, which the paper does not probe (§III-A).

    The decision is Hadoop's on the job's configuration (:func:`jobsize.ubermode.decide`:
    uber mode is off unless ``mapreduce.job.ubertask.enable`` is set); the reason names the
    limit that decided it.
    """
    decision = decide(n_maps, n_reduces, input_bytes, conf)
    if decision.uber:
        return ProbePlan(False, f"{decision.reason}: Hadoop runs it inside its AM container",
                         input_bytes)
    return ProbePlan(True, f"not an uber job ({decision.reason}); probe it", input_bytes)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


# ---------------------------------------------------------------------------------------------
# Counters → probe record


def _hadoop_name(column: str) -> tuple[str, str]:
    group, _, name = (JOB_SCHEMA[column].hadoop or "").rpartition(".")
    return group, name


_TASK_GROUP, _ = _hadoop_name("map_output_bytes")
_OUTPUT_GROUP, _BYTES_WRITTEN = _hadoop_name("reduce_output_bytes")
_INPUT_GROUP, _BYTES_READ = _hadoop_name("map_input_bytes")
#: Other spellings of the same counter groups (Hadoop 1, display names in JHS and the CLI).
_MR = "org.apache.hadoop.mapreduce.lib"
GROUP_ALIASES: dict[str, tuple[str, ...]] = {
    _TASK_GROUP: (_TASK_GROUP, "org.apache.hadoop.mapred.Task$Counter", "Map-Reduce Framework"),
    _OUTPUT_GROUP: (_OUTPUT_GROUP, f"{_MR}.output.FileOutputFormat$Counter",
                    "File Output Format Counters"),
    _INPUT_GROUP: (_INPUT_GROUP, f"{_MR}.input.FileInputFormat$Counter",
                   "File Input Format Counters"),
    FUNCTION_TIME_GROUP: (FUNCTION_TIME_GROUP,),
}


def _counter(counters: Mapping[str, Mapping[str, object]], group: str, name: str) -> int | None:
    """A counter's value under any spelling of its group, or None if absent."""
    names = set(GROUP_ALIASES.get(group, (group,)))
    for found, values in counters.items():
        if str(found).strip() in names and isinstance(values, Mapping) and name in values:
            return _count(values[name], f"counters.{found}.{name}")
    return None


def _count(value: object, where: str) -> int:
    integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    integral |= isinstance(value, float) and value.is_integer()
    integral |= isinstance(value, str) and value.strip().isdigit()
    number = int(value) if integral else -1  # type: ignore[call-overload]
    if number < 0:
        raise InputError(f"counter value {value!r} is not a non-negative integer", where=where)
    return number


def column_counter(counters: Mapping[str, Mapping[str, object]], column: str) -> int | None:
    """The counter a job-record column names (:attr:`jobsize.schema.Column.hadoop`), if
    recorded."""
    group, name = _hadoop_name(column)
    return _counter(counters, group, name)


def probe_record(
    counters: Mapping[str, Mapping[str, object]],
    *,
    fraction: float,
    input_bytes: int | None,
    wall_ms: float,
    n_reduces: int | None = None,
    tasks: Sequence[tuple[str, Mapping[str, Mapping[str, object]]]] = (),
    map_processes: Sequence[int] = (),
    empty_tasks: Sequence[tuple[str, Mapping[str, Mapping[str, object]]]] = (),
    task_ms: Sequence[float] = (),
    empty_task_ms: Sequence[float] = (),
    combine_startup_ms: float | None = None,
) -> dict[str, Any]:
    """The schema's ``probe_*`` columns from a probe job's counters.

    ``counters`` is ``{group: {name: value}}`` with Hadoop's group names (the shape of
    ``JobHistory.counters["total"]``); MFE and RFE are the ``jobsize`` group's
    ``MAP_FUNCTION_MILLIS`` and ``REDUCE_FUNCTION_MILLIS``. ``fraction`` is the sample's
    achieved f_p, ``input_bytes`` the sample's size (None: the probe's input-format
    ``BYTES_READ``), ``wall_ms`` the probe's wall time. A map-only probe (``n_reduces=0``, or no
    reduce counters) reports zeros for the reduce side; RO is then the bytes the map wrote, as
    in the job record. A probe run without the timing wrapper has null function times.

    The split probe's ``tasks`` (kind, counters) and ``empty_tasks`` fill its shape columns
    (:mod:`jobsize.sampler.probeparts`); ``task_ms`` and ``empty_task_ms``, their elapsed times
    in the same order, the probe's task times; ``combine_startup_ms``, the combiner run once
    over no records. What is not given is null.
    """
    if not 0.0 < float(fraction) <= 1.0:
        raise InputError(f"f_p must be in (0, 1], got {fraction!r}: an empty sample cannot be "
                         "probed (eq 8 divides by f_p)")
    if wall_ms is None or float(wall_ms) < 0:
        raise InputError(f"probe wall time must be a non-negative number, got {wall_ms!r}")

    def get(group: str, name: str) -> int | None:
        return _counter(counters, group, name)

    def need(group: str, name: str) -> int:
        value = get(group, name)
        if value is None:
            raise InputError(f"missing counter {name} (group {group}): not the counters of a "
                             "finished MapReduce job", where=f"counters.{group}")
        return value

    map_only = (get(_TASK_GROUP, "REDUCE_INPUT_RECORDS") is None if n_reduces is None
                else n_reduces == 0)
    if input_bytes is None:
        input_bytes = need(_INPUT_GROUP, _BYTES_READ)
    mfe = get(FUNCTION_TIME_GROUP, MAP_FUNCTION_COUNTER)
    rfe = get(FUNCTION_TIME_GROUP, REDUCE_FUNCTION_COUNTER)
    record: dict[str, Any] = {
        "probe_fraction": float(fraction),
        "probe_input_bytes": int(input_bytes),
        "probe_map_function_ms": None if mfe is None else float(mfe),
        "probe_reduce_function_ms": 0.0 if map_only else (None if rfe is None else float(rfe)),
        "probe_map_output_bytes": (get(_TASK_GROUP, "MAP_OUTPUT_BYTES") or 0) if map_only
        else need(_TASK_GROUP, "MAP_OUTPUT_BYTES"),
        "probe_map_output_records": need(_TASK_GROUP, "MAP_OUTPUT_RECORDS"),
        "probe_reduce_input_records": 0 if map_only
        else need(_TASK_GROUP, "REDUCE_INPUT_RECORDS"),
        "probe_reduce_output_bytes": get(_OUTPUT_GROUP, _BYTES_WRITTEN) or 0,
        "probe_wall_ms": float(wall_ms),
    }
    processes = iter(map_processes)
    measured = [task_counts(kind, c, column_counter,
                            _counter(c, FUNCTION_TIME_GROUP, MAP_OUTPUT_KEYS_COUNTER),
                            next(processes, 1) if kind == "MAP" else 1)
                for kind, c in tasks]
    empty = [task_counts(kind, c, column_counter) for kind, c in empty_tasks]
    record.update(split_columns(measured, empty) if measured else
                  dict.fromkeys(PROBE_COLUMNS[len(record):]))
    for t in empty:  # their start-ups are in the totals too
        name = "probe_map_processes" if t.kind == "MAP" else "probe_reduce_tasks"
        if record[name] is not None:
            record[name] += 1
    if not measured:
        record["probe_map_tasks"] = record["probe_reduce_tasks"] = None
        record["probe_map_processes"] = None
    cfe = get(FUNCTION_TIME_GROUP, COMBINE_FUNCTION_COUNTER)
    cir = get(_TASK_GROUP, "COMBINE_INPUT_RECORDS") or 0
    record["probe_combine_function_ms"] = float(cfe) if cfe is not None else (
        0.0 if cir == 0 else None)
    record["probe_combine_input_records"] = cir
    for kind, column in (("MAP", "probe_map_cpu_ms"), ("REDUCE", "probe_reduce_cpu_ms")):
        cpu = [_counter(c, _TASK_GROUP, "CPU_MILLISECONDS")
               for k, c in (*tasks, *empty_tasks) if k == kind]
        record[column] = (float(sum(cpu)) if cpu and None not in cpu else
                          (0.0 if kind == "REDUCE" and map_only else None))
    record["probe_reduce_input_groups"] = (0 if map_only else
                                           get(_TASK_GROUP, "REDUCE_INPUT_GROUPS"))
    runs = get(FUNCTION_TIME_GROUP, COMBINE_RUNS_COUNTER)
    record["probe_combine_runs"] = 0 if cir == 0 else runs
    record["probe_combine_function_fixed_ms"] = (
        None if cir == 0 or combine_startup_ms is None else float(combine_startup_ms))
    record.update(_task_times(tasks, task_ms, empty_tasks, empty_task_ms, map_only))
    # counters alone do not say which map ran first, nor when (the probe's history does); the
    # local engine times its functions itself, unwrapped
    record.update(dict.fromkeys(PROBE_LATER + PROBE_WRAPPER + PROBE_START))
    assert set(record) == set(PROBE_COLUMNS), "probe record out of step with the schema"
    return {column: record[column] for column in PROBE_COLUMNS}


def _task_times(tasks: Sequence[tuple[str, object]], task_ms: Sequence[float],
                empty_tasks: Sequence[tuple[str, object]], empty_task_ms: Sequence[float],
                map_only: bool) -> dict[str, float | None]:
    """The probe's summed task times and its empty tasks' (the start-up), by kind; null unless
    every task's elapsed time is known."""
    out: dict[str, float | None] = {}
    if len(task_ms) != len(tasks) or len(empty_task_ms) != len(empty_tasks):
        task_ms, empty_task_ms, tasks, empty_tasks = (), (), (), ()
    for kind, name in (("MAP", "map"), ("REDUCE", "reduce")):
        times = [float(t) for (k, _), t in zip(tasks, task_ms, strict=True) if k == kind]
        empty = [float(t) for (k, _), t in zip(empty_tasks, empty_task_ms, strict=True)
                 if k == kind]
        if kind == "REDUCE" and map_only:
            out[f"probe_{name}_task_ms"], out[f"probe_{name}_task_fixed_ms"] = 0.0, None
            continue
        out[f"probe_{name}_task_ms"] = sum(times) + sum(empty) if times else None
        out[f"probe_{name}_task_fixed_ms"] = min(empty) if empty else None
    return out


# ---------------------------------------------------------------------------------------------
# The probe's identity, carried in its configuration


def probe_properties(spec: ProbeSpec, *, fraction: float | None = None,
                     input_bytes: int | None = None, probe_id: str | None = None
                     ) -> dict[str, str]:
    """The configuration that names a probe and the job it probes, so that ``jobsize collect``
    joins the probe's counters to the job from a cluster's history.

    The job name is ``jobsize probe: <job name>`` and ``jobsize.probe.for`` the job's name;
    ``jobsize.probe.id`` (``probe_id``, else the job's own ``-D jobsize.probe.id``) is the
    identity the production job carries too. f_p, the sample's bytes and the job's N_m and N_r
    go along, so the probe record can be rebuilt from history alone.
    """
    probe_id = probe_id or spec.conf.get(PROBE_ID_KEY)
    return {"mapreduce.job.name": f"{PROBE_NAME_PREFIX}{spec.job_name}",
            PROBE_FOR_KEY: spec.job_name,
            **({PROBE_ID_KEY: probe_id} if probe_id else {}),
            **({PROBE_FRACTION_KEY: repr(float(fraction))} if fraction is not None else {}),
            **({PROBE_INPUT_BYTES_KEY: str(input_bytes)} if input_bytes is not None else {}),
            PROBE_MAPS_KEY: str(spec.n_maps), PROBE_REDUCES_KEY: str(spec.n_reduces)}


# ---------------------------------------------------------------------------------------------
# The probe on a cluster: a Hadoop Streaming job in uber mode


def streaming_quote(arg: str) -> str:
    """Quote one argument the way Hadoop Streaming splits ``-mapper`` commands.

    Streaming splits on spaces and honours single or double quotes around a word, but has no
    escapes: an argument holding both quote kinds, or nothing at all, cannot be passed.
    """
    if not arg:
        raise ConfigError("Hadoop Streaming cannot pass an empty argument")
    if not any(c in arg for c in " '\""):
        return arg
    if "'" not in arg:
        return f"'{arg}'"
    if '"' not in arg:
        return f'"{arg}"'
    raise ConfigError(f"Hadoop Streaming cannot pass an argument with both quote kinds: {arg!r}")


def _streaming_command(function: Function | None, what: str) -> str:
    if function is None:
        raise ConfigError(f"no {what}")
    if callable(function):
        raise ConfigError(f"the {what} is a Python callable; a cluster probe needs a command")
    return " ".join(streaming_quote(a) for a in function)


def _timed(function: Function | None, what: str, counter: str, python: str, startup: str,
           runs: str | None = None, *, conf: dict[str, str]) -> str:
    """``function`` under the timing wrapper: its time, its start-up (a first run over no
    input), the wrapper's own time and, for a combiner, its runs, as ``jobsize`` counters. A
    Java task reports the same counters itself (no wrapper, no wrapper's time): its class name,
    its arguments added to ``conf``."""
    task = None if function is None or callable(function) else java_task(function)
    if task is not None:
        option, settings = streaming_task(what, task)
        conf.update(settings)
        return option
    wrapper = Path(timing_wrapper.__file__).name
    g = FUNCTION_TIME_GROUP
    counted = f" --runs-counter {g},{runs}" if runs else ""
    own = _WRAPPER_COUNTERS[what]
    return (f"{python} {wrapper} --counter {g},{counter} --startup-counter {g},{startup}"
            f"{counted} --overhead-counter {g},{own} -- {_streaming_command(function, what)}")


_WRAPPER_COUNTERS = {"mapper": MAP_WRAPPER_COUNTER, "combiner": COMBINE_WRAPPER_COUNTER,
                     "reducer": REDUCE_WRAPPER_COUNTER}


@dataclass(frozen=True)
class StreamingProbe:
    """The probe as a Hadoop Streaming job: its settings (generic ``-D`` options) and the
    streaming tool's own arguments, in the order Hadoop Streaming takes them."""

    conf: Mapping[str, str]
    files: tuple[str, ...]
    args: tuple[str, ...]
    libjars: tuple[str, ...] = ()  # jobsize's module, when a task is one of its Java classes

    def argv(self) -> list[str]:
        """The streaming tool's command-line arguments (after ``hadoop jar JAR``)."""
        out = [a for key, value in self.conf.items() for a in ("-D", f"{key}={value}")]
        if self.libjars:
            out += ["-libjars", ",".join(self.libjars)]
        return [*out, "-files", ",".join(self.files), *self.args]


def streaming_probe(
    spec: ProbeSpec,
    *,
    sample: str | Sequence[str],
    sample_bytes: int,
    output: str,
    python: str = "python3",
    fraction: float | None = None,
    probe_id: str | None = None,
    java_jar: str = JAVA_JAR,
) -> StreamingProbe:
    """The probe as a Hadoop Streaming job in uber mode (see :func:`render_hadoop`); a Java
    task (:mod:`jobsize.javatask`) runs as itself, reporting its own times, from ``java_jar``."""
    samples = [sample] if isinstance(sample, str) else list(sample)
    if not samples:
        raise ConfigError("no sample path to probe")
    if not isinstance(sample_bytes, int) or sample_bytes < 0:
        raise ConfigError(f"sample size must be a byte count, got {sample_bytes!r}")
    max_bytes = sample_bytes + (1 << 20)  # above the sample, so Hadoop keeps the probe uber
    conf = {
        **probe_properties(spec, fraction=fraction, input_bytes=sample_bytes,
                           probe_id=probe_id),
        "mapreduce.job.queuename": spec.queue,
        "mapreduce.job.ubertask.enable": "true",
        "mapreduce.job.ubertask.maxmaps": str(len(samples)),
        "mapreduce.job.ubertask.maxreduces": "1",
        "mapreduce.job.ubertask.maxbytes": str(max_bytes),
        # a split per sample file, however small the block size
        "mapreduce.input.fileinputformat.split.minsize": str(max_bytes),
        "mapreduce.map.memory.mb": str(spec.map_memory_mb),
        "mapreduce.map.cpu.vcores": str(spec.map_vcores),
        "mapreduce.reduce.memory.mb": str(spec.reduce_memory_mb),
        "mapreduce.reduce.cpu.vcores": str(spec.reduce_vcores),
        # uber tasks run in the AM container, which Hadoop requires to be at least as large
        "yarn.app.mapreduce.am.resource.mb": str(max(spec.am_memory_mb, spec.map_memory_mb,
                                                     spec.reduce_memory_mb)),
        "yarn.app.mapreduce.am.resource.cpu-vcores": str(max(spec.am_vcores, spec.map_vcores,
                                                             spec.reduce_vcores)),
    }
    args = [a for path in samples for a in ("-input", path)]
    args += ["-output", output,
             "-mapper", _timed(spec.mapper, "mapper", MAP_FUNCTION_COUNTER, python,
                               MAP_FUNCTION_STARTUP_COUNTER, conf=conf)]
    if spec.combiner is not None:
        args += ["-combiner", _timed(spec.combiner, "combiner", COMBINE_FUNCTION_COUNTER,
                                     python, COMBINE_FUNCTION_STARTUP_COUNTER,
                                     COMBINE_RUNS_COUNTER, conf=conf)]
    if spec.map_only:
        args += ["-numReduceTasks", "0"]
    else:
        args += ["-reducer", _timed(spec.reducer, "reducer", REDUCE_FUNCTION_COUNTER, python,
                                    REDUCE_FUNCTION_STARTUP_COUNTER, conf=conf),
                 "-numReduceTasks", "1"]
    java = is_java(spec.mapper, spec.combiner, spec.reducer)
    return StreamingProbe(conf, (timing_wrapper.__file__, *spec.files), tuple(args),
                          (java_jar,) if java else ())


def render_hadoop(
    spec: ProbeSpec,
    *,
    sample: str | Sequence[str],
    sample_bytes: int,
    output: str,
    streaming_jar: str = DEFAULT_STREAMING_JAR,
    hadoop: str = "hadoop",
    python: str = "python3",
    fraction: float | None = None,
    probe_id: str | None = None,
) -> str:
    """The ``hadoop jar hadoop-streaming.jar`` command that runs the probe on a cluster.

    ``sample`` is the HDFS path of the uploaded sample (several paths for a job whose mapper
    tells its inputs apart, or an uber job's two halves; each becomes one map), ``sample_bytes``
    its size and ``output`` an
    HDFS directory that must not exist. The job runs in uber mode — one map per sample file and
    one reduce inside the AM container, on the probing queue — with the job's container sizes,
    the AM sized to hold them, and the mapper, combiner and reducer wrapped by
    ``timing_wrapper.py``, which reports MFE, CFE and RFE as ``jobsize`` counters, each
    function's start-up (its time over no input, run first in every task and combiner run:
    what a task pays whatever its input), the wrapper's own time and the combiner's runs. The
    command is for a POSIX shell, one option per line; ``$HADOOP_HOME`` in the default jar path
    is left for the shell. The probe carries :func:`probe_properties` (``fraction`` is the
    sample's f_p, ``probe_id`` the identity to give the production job too).
    """
    job = streaming_probe(spec, sample=sample, sample_bytes=sample_bytes, output=output,
                          python=python, fraction=fraction, probe_id=probe_id)
    q = shlex.quote
    jar = streaming_jar if streaming_jar == DEFAULT_STREAMING_JAR else q(streaming_jar)
    lines = [f"{q(hadoop)} jar {jar}"]
    lines += [f"-D {q(f'{key}={value}')}" for key, value in job.conf.items()]
    if job.libjars:
        lines.append("-libjars " + q(",".join(job.libjars)))
    lines.append("-files " + q(",".join(job.files)))
    args = list(job.args)
    lines += [f"{flag} {q(value)}" for flag, value in zip(args[::2], args[1::2], strict=True)]
    return " \\\n  ".join(lines)
