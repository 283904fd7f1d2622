"""Jobs drawn from an SLS synthetic-workload spec (SLS's SYNTH ``syn.json``).

SLS's SynthTraceJobProducer turns a spec into jobs this way, and so does
:func:`generate_sls_synth`: each of ``num_jobs`` jobs picks a workload by ``workload_weight``,
a submission time from the workload's ``time_distribution`` (a bucket by ``weight``, then a
whole second uniformly between its ``time`` and the next bucket's) and a job class by
``class_weight``. The class's map and reduce task definitions then draw the task count, one
container size per task type (at least 1024 MB and 1 vcore) and one duration per task, in
seconds. A sampled value is a constant (``{"val": v}``), a draw from a distribution
(``{"val": mean, "std": sd, "dist": "LOGNORM" | "NORM"}``, log-normal by default, with that
mean and standard deviation) or a weighted choice (``{"discrete": [...], "weights": [...]}``);
counts, sizes and durations are rounded half up, as SLS does. The legacy flat fields
(``mtasks_avg``/``mtasks_stddev``, ``mtime_*``, ``rtasks_*``, ``rtime_*``,
``map_max_memory_*``, ``map_max_vcores_*``, ``reduce_max_*``) become log-normal samples.

The draws follow SLS's distributions, not its random sequence (Java's generator): the same
spec and seed give the same jobs here, not the jobs SLS would run. Each task row starts at its
job's submission and lasts its drawn duration; the simulator replays the durations.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from jobsize.collectors.json_stream import documents, read_bytes
from jobsize.collectors.rest import JsonView

from jobsize.errors import ParseError
from jobsize.validation import RecordCheck, validated

MIN_MEMORY_MB = 1024
MIN_VCORES = 1
MAX_TASKS_PER_JOB = 1_000_000  # far above any real job; keeps a damaged spec from exhausting memory
#: Most jobs and task rows one draw may make: a damaged num_jobs must not run for hours.
MAX_JOBS = 1_000_000
MAX_TASKS = 2_000_000
_JAVA_INT = 2**31  # SLS holds times and sizes in Java ints
_TYPES = {"map": "MAP", "reduce": "REDUCE"}
_LEGACY = {"map": ("mtasks", "mtime", "map_max_memory", "map_max_vcores"),
           "reduce": ("rtasks", "rtime", "reduce_max_memory", "reduce_max_vcores")}


def _round(x: float) -> int:
    return math.floor(x + 0.5)  # Java's Math.round, not Python's round-half-even


def _drawn(x: float, what: str, limit: int, source: object) -> int:
    """``x`` rounded as SLS rounds it, at least 0; an error past ``limit``."""
    if not math.isfinite(x) or x >= limit:
        raise ParseError(f"a job drew {what} = {x:.4g}, more than {limit:,}", source=source)
    return max(0, _round(x))


@dataclass(frozen=True)
class Sample:
    """One sampled quantity of the spec: constant, distribution or discrete choice."""

    val: float | None = None
    std: float | None = None
    dist: str = "LOGNORM"
    discrete: tuple[float, ...] = ()
    weights: tuple[float, ...] = ()

    def draw(self, rng: np.random.Generator) -> float:
        if self.discrete:
            return self.discrete[_weighted(self.weights, rng)]
        assert self.val is not None
        if self.std is None:
            return self.val
        if self.dist == "NORM":
            return float(rng.normal(self.val, self.std))
        # the log-normal whose mean and standard deviation are val and std
        cv = self.std / self.val
        sigma2 = math.log1p(cv * cv)
        return float(rng.lognormal(math.log(self.val) - sigma2 / 2, math.sqrt(sigma2)))


def _weighted(weights: tuple[float, ...], rng: np.random.Generator) -> int:
    w = np.asarray(weights, dtype=float)
    return int(rng.choice(len(w), p=w / w.sum()))


def _as_number(value: Any, source: object, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or \
            not math.isfinite(value):
        raise ParseError(f"expected a number, found {value!r}"[:120], source=source,
                         where=where)
    return float(value)


def _number(view: JsonView, key: str, *, required: bool = True) -> float | None:
    value = view.number(key, required=required)
    if value is not None and not math.isfinite(value):
        raise ParseError(f"expected a finite number, found {value!r}", source=view.source,
                         where=f"{view.path}.{key}")
    return value


def _checked(weights: tuple[float, ...], source: object, where: str) -> tuple[float, ...]:
    if not weights:
        raise ParseError("must not be empty", source=source, where=where)
    if any(w < 0 for w in weights) or not 0 < sum(weights) < math.inf:
        raise ParseError("weights must be ≥ 0 with a positive sum", source=source, where=where)
    return weights


def _weights(views: list[JsonView], key: str, source: object, where: str
             ) -> tuple[float, ...]:
    return _checked(tuple(_number(v, key) or 0.0 for v in views), source, where)


def _sample(view: JsonView) -> Sample:
    """A ``{"val", "std", "dist"}`` or ``{"discrete", "weights"}`` object."""
    if not isinstance(view.value, dict):
        raise ParseError("expected a sample object", source=view.source, where=view.path)
    if view.value.get("val") is None:
        values = view.items("discrete")
        if not values:
            raise ParseError("a sample needs val or discrete", source=view.source,
                             where=view.path)
        discrete = tuple(_as_number(v.value, v.source, v.path) for v in values)
        weights = view.get("weights", required=False).value
        where = f"{view.path}.weights"
        if weights is None:
            return Sample(discrete=discrete, weights=(1.0,) * len(discrete))
        if not isinstance(weights, list) or len(weights) != len(discrete):
            raise ParseError("weights must be a list as long as discrete", source=view.source,
                             where=where)
        w = tuple(_as_number(x, view.source, where) for x in weights)
        return Sample(discrete=discrete, weights=_checked(w, view.source, where))
    dist = view.str("dist", required=False) or "LOGNORM"
    if dist not in ("LOGNORM", "NORM"):
        raise ParseError(f"dist must be LOGNORM or NORM, not {dist!r}"[:120],
                         source=view.source, where=f"{view.path}.dist")
    val, std = _number(view, "val"), _number(view, "std", required=False)
    if std is not None and std < 0:
        raise ParseError("std must be ≥ 0", source=view.source, where=f"{view.path}.std")
    if dist == "LOGNORM" and std is not None:
        if val is None or val <= 0:
            raise ParseError("a log-normal sample needs val > 0", source=view.source,
                             where=f"{view.path}.val")
        if not (std / val) * (std / val) < math.inf:
            raise ParseError("std is too large beside val for a log-normal",
                             source=view.source, where=f"{view.path}.std")
    return Sample(val=val, std=std, dist=dist)


@dataclass(frozen=True)
class TaskClass:
    type: str  # MAP or REDUCE
    count: Sample
    time_s: Sample
    memory_mb: Sample
    vcores: Sample


@dataclass(frozen=True)
class JobClass:
    name: str
    user: str | None
    tasks: tuple[TaskClass, ...]


@dataclass(frozen=True)
class SynthWorkload:
    name: str | None
    queue: str | None
    classes: tuple[JobClass, ...]
    class_weights: tuple[float, ...]
    times: tuple[int, ...]
    time_weights: tuple[float, ...]

    def submission_s(self, rng: np.random.Generator) -> int:
        i = _weighted(self.time_weights, rng)
        start, end = self.times[i], self.times[min(i + 1, len(self.times) - 1)]
        return start + (int(rng.integers(end - start)) if end > start else 0)


def _legacy_task(kind: str, job: JsonView) -> TaskClass:
    count, time, memory, vcores = _LEGACY[kind]

    def sample(prefix: str) -> Sample:
        return _sample(JsonView({"val": job.value.get(f"{prefix}_avg"),
                                 "std": job.value.get(f"{prefix}_stddev")},
                                job.source, f"{job.path}.{prefix}_avg"))
    return TaskClass(_TYPES[kind], sample(count), sample(time), sample(memory), sample(vcores))


def _task(view: JsonView) -> TaskClass:
    kind = view.str("type")
    if kind not in _TYPES:
        raise ParseError(f"task type must be map or reduce, not {kind!r}"[:120],
                         source=view.source, where=f"{view.path}.type")
    return TaskClass(_TYPES[kind], _sample(view.get("count")), _sample(view.get("time")),
                     _sample(view.get("max_memory")), _sample(view.get("max_vcores")))


def _job_class(view: JsonView) -> JobClass:
    if not isinstance(view.value, dict):
        raise ParseError("expected a job class object", source=view.source, where=view.path)
    tasks = view.items("tasks")
    defs = (tuple(_task(t) for t in tasks) if tasks
            else (_legacy_task("map", view), _legacy_task("reduce", view)))
    return JobClass(view.str("class_name"), view.str("user_name", required=False), defs)


def _time(view: JsonView) -> int:
    t = view.int("time")
    if t is None or not 0 <= t < _JAVA_INT:
        raise ParseError(f"time must be 0 to {_JAVA_INT - 1} seconds", source=view.source,
                         where=f"{view.path}.time")
    return t


def _workload(view: JsonView) -> SynthWorkload:
    classes = view.items("job_classes")
    times = view.items("time_distribution")
    return SynthWorkload(
        view.str("workload_name", required=False), view.str("queue_name", required=False),
        tuple(_job_class(c) for c in classes),
        _weights(classes, "class_weight", view.source, f"{view.path}.job_classes"),
        tuple(_time(t) for t in times),
        _weights(times, "weight", view.source, f"{view.path}.time_distribution"))


@dataclass(frozen=True)
class SynthSpec:
    """A parsed spec: its workloads, weights, job count and seed."""

    workloads: tuple[SynthWorkload, ...]
    weights: tuple[float, ...]
    num_jobs: int
    seed: int


def parse_synth_spec(data: bytes, *, source: object = "<sls synth>") -> SynthSpec:
    docs = documents(data, source)
    if len(docs) != 1 or not isinstance(docs[0][0], dict):
        raise ParseError("expected one synthetic-workload object", source=source)
    spec = JsonView(docs[0][0], source)
    workloads = spec.items("workloads")
    num_jobs = spec.int("num_jobs")
    if num_jobs is None or num_jobs < 0:
        raise ParseError("num_jobs must be ≥ 0", source=source, where="$.num_jobs")
    return SynthSpec(tuple(_workload(w) for w in workloads),
                     _weights(workloads, "workload_weight", source, "$.workloads"),
                     num_jobs, spec.int("rand_seed", required=False) or 0)


def _draw_job(spec: SynthSpec, rng: np.random.Generator, source: object
              ) -> tuple[int, SynthWorkload, JobClass, list[tuple[TaskClass, int, int, list[int]]]]:
    workload = spec.workloads[_weighted(spec.weights, rng)]
    submit = workload.submission_s(rng)
    job_class = workload.classes[_weighted(workload.class_weights, rng)]
    drawn = []
    for task in job_class.tasks:
        n = _drawn(task.count.draw(rng), "a task count", MAX_TASKS_PER_JOB + 1, source)
        memory = max(_drawn(task.memory_mb.draw(rng), "a memory size", _JAVA_INT, source),
                     MIN_MEMORY_MB)
        vcores = max(_drawn(task.vcores.draw(rng), "a vcore count", _JAVA_INT, source),
                     MIN_VCORES)
        times = [_drawn(task.time_s.draw(rng), "a task time", _JAVA_INT, source)
                 for _ in range(n)]
        drawn.append((task, memory, vcores, times))
    return submit, workload, job_class, drawn


def _draws(spec: SynthSpec, rng: np.random.Generator, count: int, source: object) -> list:
    """``count`` jobs drawn one after another, refusing more than MAX_TASKS task rows."""
    out, tasks = [], 0
    for _ in range(count):
        job = _draw_job(spec, rng, source)
        tasks += sum(len(times) for *_, times in job[3])
        if tasks > MAX_TASKS:
            raise ParseError(f"the spec draws more than {MAX_TASKS:,} tasks", source=source)
        out.append(job)
    return out


def generate_sls_synth(path: str | os.PathLike[str], *, seed: int | None = None,
                       num_jobs: int | None = None, check: RecordCheck | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw the jobs of an SLS SYNTH spec: (job records, one task row per container), in
    submission order. ``seed`` and ``num_jobs`` override the spec's ``rand_seed`` and
    ``num_jobs``."""
    data = read_bytes(path, "an SLS synthetic workload spec")
    return draw_sls_synth(data, source=path, seed=seed, num_jobs=num_jobs, check=check)


def draw_sls_synth(data: bytes, *, source: object = "<sls synth>", seed: int | None = None,
                   num_jobs: int | None = None, check: RecordCheck | None = None
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`generate_sls_synth` on the spec's content."""
    spec = parse_synth_spec(data, source=source)
    rng = np.random.default_rng(abs(spec.seed if seed is None else seed))
    count = spec.num_jobs if num_jobs is None else num_jobs
    if not 0 <= count <= MAX_JOBS:
        raise ParseError(f"asks for {count:,} jobs; at most {MAX_JOBS:,} are drawn",
                         source=source, where="$.num_jobs" if num_jobs is None else None)
    drawn = sorted(_draws(spec, rng, count, source), key=lambda d: d[0])
    jobs: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    for i, (submit, workload, job_class, task_draws) in enumerate(drawn):
        job_id = f"job_mock_{job_class.name}_{i:06d}"
        submit_ms = submit * 1000
        record: dict[str, Any] = {
            "job_id": job_id, "job_name": job_class.name, "user": job_class.user,
            "queue": workload.queue, "job_type": workload.name, "source": "sls-synth",
            "complete": True, "submit_time_ms": submit_ms,
            "n_maps": 0, "n_reduces": 0, "map_time_ms": 0, "reduce_time_ms": 0}
        for task, memory, vcores, times in task_draws:
            side = "map" if task.type == "MAP" else "reduce"
            key = "n_maps" if side == "map" else "n_reduces"
            first = record[key]
            record[key] += len(times)
            record[f"{side}_time_ms"] += 1000 * sum(times)
            record[f"{side}_memory_mb"], record[f"{side}_vcores"] = memory, vcores
            for k, t in enumerate(times, start=first):
                task_id = f"task_{job_id.removeprefix('job_')}_{side[0]}_{k:06d}"
                tasks.append({"job_id": job_id, "task_id": task_id,
                              "attempt_id": f"{task_id}_0", "task_type": task.type,
                              "status": "SUCCEEDED", "start_time_ms": submit_ms,
                              "finish_time_ms": submit_ms + 1000 * t, "memory_mb": memory,
                              "vcores": vcores})
        jobs.append(record)
    if not jobs:
        raise ParseError("the spec generates no jobs (num_jobs is 0)", source=source)
    return validated(jobs, tasks, source=source, check=check)
