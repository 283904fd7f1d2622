"""What a local job is: inputs, output, the user's functions, task counts and settings.

Settings carry Hadoop's names in the job's configuration (``<job_id>_conf.xml``):
``mapreduce.job.maps`` (a hint, as in Hadoop: the splits decide), ``mapreduce.job.reduces``,
container sizes, the sort buffer (``mapreduce.task.io.sort.mb``,
``mapreduce.map.sort.spill.percent``, ``mapreduce.map.combine.minspills``: taken from the job's
configuration unless given), ``mapreduce.map.maxattempts`` and the uber-mode keys.
"""

from __future__ import annotations

import getpass
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jobsize.collectors.conf import sort_buffer
from jobsize.engine.inputformat import DEFAULT_BLOCK_BYTES
from jobsize.engine.streaming import Function, as_function
from jobsize.errors import ConfigError
from jobsize.schema import DEFAULT_CONTAINERS
from jobsize.ubermode import HADOOP_DEFAULTS, MAX_MAPS, MAX_REDUCES, enabled

MIB = 1024 * 1024
#: JobSpec's sort-buffer fields → their record columns.
_SORT_COLUMNS = {"sort_mb": "map_sort_mb", "spill_percent": "map_spill_percent",
                 "combine_min_spills": "combine_min_spills"}


@dataclass(frozen=True)
class Containers:
    """YARN container sizes of the job's tasks and ApplicationMaster (R_m, R_r, R_am)."""

    map_memory_mb: int = DEFAULT_CONTAINERS["map_memory_mb"]
    map_vcores: int = DEFAULT_CONTAINERS["map_vcores"]
    reduce_memory_mb: int = DEFAULT_CONTAINERS["reduce_memory_mb"]
    reduce_vcores: int = DEFAULT_CONTAINERS["reduce_vcores"]
    am_memory_mb: int = DEFAULT_CONTAINERS["am_memory_mb"]
    am_vcores: int = DEFAULT_CONTAINERS["am_vcores"]

    def conf(self) -> dict[str, str]:
        return {
            "mapreduce.map.memory.mb": str(self.map_memory_mb),
            "mapreduce.map.cpu.vcores": str(self.map_vcores),
            "mapreduce.reduce.memory.mb": str(self.reduce_memory_mb),
            "mapreduce.reduce.cpu.vcores": str(self.reduce_vcores),
            "yarn.app.mapreduce.am.resource.mb": str(self.am_memory_mb),
            "yarn.app.mapreduce.am.resource.cpu-vcores": str(self.am_vcores),
        }


def _path_tuple(value: object) -> tuple[Path, ...]:
    if isinstance(value, str | os.PathLike):
        return (Path(value),)
    return tuple(Path(v) for v in value)  # type: ignore[union-attr]


@dataclass(frozen=True)
class JobSpec:
    """A streaming job for the local engine.

    ``mapper``/``reducer``/``combiner``: a command (string, split like a shell would, or argv)
    or a Python callable (see :mod:`jobsize.engine.streaming`). ``reducer=None`` with
    ``n_reduces > 0`` sorts and writes the map output unchanged (Hadoop's identity reduce);
    ``n_reduces=0`` is a map-only job. ``n_maps`` is Hadoop's hint: the input is cut into
    ``min(total / n_maps, split_bytes)``-byte splits, per file. ``uber=None`` follows
    ``mapreduce.job.ubertask.enable`` in ``conf`` (off unless set, as in Hadoop).
    """

    inputs: tuple[Path, ...]
    output: Path
    mapper: Function
    reducer: Function | None = None
    combiner: Function | None = None
    n_maps: int | None = None
    n_reduces: int = 1
    split_bytes: int = DEFAULT_BLOCK_BYTES
    name: str = "streamjob"
    user: str = field(default_factory=getpass.getuser)
    queue: str = "default"
    containers: Containers = Containers()
    max_map_attempts: int = 4
    max_reduce_attempts: int = 4
    # the map's sort buffer; None: the job configuration's (Hadoop's names), else Hadoop's default
    sort_mb: int | None = None
    spill_percent: float | None = None
    combine_min_spills: int | None = None
    reduce_merge_mb: int | None = None  # in-memory merge budget of a reduce (None: 1/4 of R_r)
    uber: bool | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    conf: Mapping[str, str] = field(default_factory=dict)
    overwrite: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "inputs", _path_tuple(self.inputs))
        set_(self, "output", Path(self.output))
        set_(self, "mapper", as_function(self.mapper, "mapper"))
        set_(self, "reducer", as_function(self.reducer, "reducer"))
        set_(self, "combiner", as_function(self.combiner, "combiner"))
        if self.mapper is None:
            raise ConfigError("a job needs a mapper")
        if not self.inputs:
            raise ConfigError("a job needs at least one input")
        if self.n_reduces < 0 or (self.n_maps is not None and self.n_maps < 1):
            raise ConfigError(f"bad task counts: maps {self.n_maps}, reduces {self.n_reduces}")
        if self.max_map_attempts < 1 or self.max_reduce_attempts < 1:
            raise ConfigError("max attempts must be at least 1")
        buffer = sort_buffer({k: str(v) for k, v in self.conf.items()},
                             source="the job's configuration")
        for name, column in _SORT_COLUMNS.items():
            if getattr(self, name) is None:
                set_(self, name, buffer[column])
        if (self.split_bytes < 1 or self.sort_mb < 1 or not 0 < self.spill_percent <= 1
                or self.combine_min_spills < 0):
            raise ConfigError("split size, sort buffer and spill percent must be positive")

    def sort_buffer_columns(self) -> dict[str, float]:
        """The sort buffer as record columns (``map_sort_mb``, ...)."""
        return {column: getattr(self, name) for name, column in _SORT_COLUMNS.items()}

    @property
    def spill_bytes(self) -> int:
        return int(self.sort_mb * MIB * self.spill_percent)

    @property
    def reduce_merge_bytes(self) -> int:
        mb = self.reduce_merge_mb
        return (mb if mb is not None else self.containers.reduce_memory_mb // 4) * MIB

    def uber_conf(self) -> dict[str, str]:
        """The configuration the uber decision reads: the job's, with the engine's block size
        (its split size) and container sizes."""
        return {"dfs.blocksize": str(self.split_bytes), **self.containers.conf(),
                **{k: str(v) for k, v in self.conf.items()}}


def describe(fn: Function | None) -> str:
    """How a function appears in the job's conf (``stream.map.streamprocessor``)."""
    if fn is None:
        return ""
    if isinstance(fn, tuple):
        return shlex.join(fn)
    return f"python:{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def job_conf(spec: JobSpec, job_id: str, n_maps: int, uberized: bool) -> dict[str, str]:
    """The job's configuration as Hadoop names it (written as ``<job_id>_conf.xml``): defaults,
    then the spec's ``conf``, then what the engine actually used, which always wins."""
    defaults = {
        "mapreduce.framework.name": "jobsize-local",
        "yarn.scheduler.minimum-allocation-mb": "1024",
        "mapreduce.job.ubertask.maxmaps": HADOOP_DEFAULTS[MAX_MAPS],
        "mapreduce.job.ubertask.maxreduces": HADOOP_DEFAULTS[MAX_REDUCES],
    }
    used = {
        "mapreduce.job.id": job_id,
        "mapreduce.job.name": spec.name,
        "mapreduce.job.user.name": spec.user,
        "user.name": spec.user,
        "mapreduce.job.queuename": spec.queue,
        "mapreduce.job.maps": str(n_maps),
        "mapreduce.job.reduces": str(spec.n_reduces),
        **spec.containers.conf(),
        "mapreduce.job.ubertask.enable": "true" if uberized or enabled(spec.conf) else "false",
        "mapreduce.job.uberized": "true" if uberized else "false",
        "mapreduce.input.fileinputformat.inputdir":
            ",".join(f"file:{p.resolve()}" for p in spec.inputs),
        "mapreduce.input.fileinputformat.split.maxsize": str(spec.split_bytes),
        "dfs.blocksize": str(spec.split_bytes),
        "mapreduce.output.fileoutputformat.outputdir": f"file:{spec.output.resolve()}",
        "mapreduce.task.io.sort.mb": str(spec.sort_mb),
        "mapreduce.map.sort.spill.percent": str(spec.spill_percent),
        "mapreduce.map.combine.minspills": str(spec.combine_min_spills),
        "mapreduce.map.maxattempts": str(spec.max_map_attempts),
        "mapreduce.reduce.maxattempts": str(spec.max_reduce_attempts),
        # reduces start once every map has finished
        "mapreduce.job.reduce.slowstart.completedmaps": "1.0",
        "stream.map.streamprocessor": describe(spec.mapper),
        "stream.reduce.streamprocessor": describe(spec.reducer),
        "stream.combine.streamprocessor": describe(spec.combiner),
    }
    return {**defaults, **{k: str(v) for k, v in spec.conf.items()}, **used}
