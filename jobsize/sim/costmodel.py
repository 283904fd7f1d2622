"""SWIM workloads to tasks: the cost model that turns a job's bytes into task durations.

SWIM files give, per job, its submission time and three byte counts: map input (MI), shuffle
and reduce output. This model derives the rest; every parameter is a field of
:class:`CostModel` (and an option of ``jobsize simulate``):

- N_m = max(1, ⌈MI / block_bytes⌉) maps; map i reads a block (the last one the remainder).
- N_r = ⌈shuffle / bytes_per_reduce⌉ reduces (0 for a job without shuffle: map-only).
- A map writes its share of the shuffle bytes (map-only jobs: of the output bytes)::

      map_i = map_overhead_s + in_i / map_read_bps + out_i / map_write_bps

- A reduce gets an equal share of the shuffle and of the output::

      tail_k   = reduce_overhead_s + shuffle_k / reduce_bps + output_k / write_bps
      reduce_k = shuffle_k / shuffle_bps + tail_k

  (``tail`` is the part after the shuffle: a reduce started early waits for the last map.)
- Each task's duration is multiplied by exp(noise_sigma · Z), Z standard normal, seeded.
- Containers: Hadoop's defaults (1024 MB / 1 vcore for tasks, 1536 MB for the AM); uber jobs
  by Hadoop's rule (``jobsize.ubermode``) on a cluster that enables it: ≤ 9 maps, ≤ 1
  reduce, input ≤ one block.

With the defaults (64 MiB blocks, 1 GiB per reduce) the FB-2009 day has 427,900 tasks and the
FB-2010 day 16,572,856.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from jobsize.errors import ConfigError
from jobsize.schema import DEFAULT_CONTAINERS
from jobsize.sim.workload import Workload, make_jobs, offsets_from_counts
from jobsize.ubermode import decide_array

MiB = 1024 * 1024


@dataclass(frozen=True)
class CostModel:
    """Parameters of the SWIM cost model (see the module docstring); rates in bytes/s."""

    block_bytes: int = 64 * MiB
    bytes_per_reduce: int = 1024 * MiB
    map_overhead_s: float = 3.0
    map_read_bps: float = 8 * MiB
    map_write_bps: float = 32 * MiB
    reduce_overhead_s: float = 3.0
    shuffle_bps: float = 32 * MiB
    reduce_bps: float = 16 * MiB
    write_bps: float = 32 * MiB
    noise_sigma: float = 0.3
    seed: int = 0
    map_mb: int = DEFAULT_CONTAINERS["map_memory_mb"]
    map_vcores: int = DEFAULT_CONTAINERS["map_vcores"]
    reduce_mb: int = DEFAULT_CONTAINERS["reduce_memory_mb"]
    reduce_vcores: int = DEFAULT_CONTAINERS["reduce_vcores"]
    am_mb: int = DEFAULT_CONTAINERS["am_memory_mb"]
    am_vcores: int = DEFAULT_CONTAINERS["am_vcores"]
    uber: bool = True

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or name == "seed":
                continue
            if not (value >= 0 and np.isfinite(value)):
                raise ConfigError(f"cost model: {name} must be a non-negative number, "
                                  f"found {value!r}")
        for name in ("block_bytes", "bytes_per_reduce", "map_read_bps", "map_write_bps",
                     "shuffle_bps", "reduce_bps", "write_bps"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"cost model: {name} must be positive")

    def task_counts(self, mi: np.ndarray, shuffle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n_maps = np.maximum(1, np.ceil(mi / self.block_bytes)).astype(np.int64)
        n_reduces = np.ceil(shuffle / self.bytes_per_reduce).astype(np.int64)
        return n_maps, n_reduces


def from_bytes(name: str, job_ids: np.ndarray, submit_s: np.ndarray, mi: np.ndarray,
               shuffle: np.ndarray, output: np.ndarray, model: CostModel = CostModel(),
               first_gap_s: float | None = None) -> Workload:
    """A workload from per-job byte counts under ``model``."""
    mi, shuffle, output = (np.asarray(a, dtype=np.float64) for a in (mi, shuffle, output))
    n = len(mi)
    n_maps, n_reduces = model.task_counts(mi, shuffle)
    map_off, red_off = offsets_from_counts(n_maps), offsets_from_counts(n_reduces)
    rng = np.random.default_rng(model.seed)
    # maps: block-sized reads, the last one the remainder
    job = np.repeat(np.arange(n), n_maps)
    i = np.arange(len(job)) - map_off[job]
    b = float(model.block_bytes)
    in_bytes = np.clip(mi[job] - i * b, 0.0, b)
    spread = np.where(mi[job] > 0, in_bytes / np.where(mi[job] > 0, mi[job], 1.0),
                      1.0 / n_maps[job])
    written = np.where(n_reduces[job] > 0, shuffle[job], output[job]) * spread
    map_s = (model.map_overhead_s + in_bytes / model.map_read_bps
             + written / model.map_write_bps)
    map_s *= np.exp(model.noise_sigma * rng.standard_normal(len(map_s)))
    # reduces: equal shares of shuffle and output
    rjob = np.repeat(np.arange(n), n_reduces)
    share = 1.0 / np.maximum(n_reduces[rjob], 1)
    sh_k, out_k = shuffle[rjob] * share, output[rjob] * share
    tail = model.reduce_overhead_s + sh_k / model.reduce_bps + out_k / model.write_bps
    reduce_s = sh_k / model.shuffle_bps + tail
    noise = np.exp(model.noise_sigma * rng.standard_normal(len(reduce_s)))
    reduce_s, tail = reduce_s * noise, tail * noise
    uber = decide_array(n_maps, n_reduces, mi, {
        "mapreduce.job.ubertask.enable": str(model.uber).lower(),
        "dfs.blocksize": str(model.block_bytes)})
    jobs = make_jobs(n, job_id=np.asarray(job_ids).astype(str), submit_s=np.asarray(submit_s,
                     float), map_mb=model.map_mb, map_vcores=model.map_vcores,
                     reduce_mb=model.reduce_mb, reduce_vcores=model.reduce_vcores,
                     am_mb=model.am_mb, am_vcores=model.am_vcores, uber=uber)
    jobs["map_input_bytes"] = mi
    jobs["reduce_shuffle_bytes"] = shuffle
    jobs["reduce_output_bytes"] = output
    return Workload(name, jobs, map_s, map_off, reduce_s, tail, red_off,
                    first_gap_s=first_gap_s, meta={"cost_model": asdict(model)})


def from_swim(frame: pd.DataFrame, name: str, model: CostModel = CostModel()) -> Workload:
    """A workload from ``jobsize.collectors.swim.read_swim``'s table."""
    submit = frame["submit_time_ms"].to_numpy(dtype=np.float64, na_value=0.0) / 1000.0
    gap = frame["gap_ms"].to_numpy(dtype=np.float64, na_value=np.nan) / 1000.0 \
        if "gap_ms" in frame else np.full(len(frame), np.nan)
    col = lambda c: frame[c].to_numpy(dtype=np.float64, na_value=0.0)  # noqa: E731
    first_gap = float(gap[0]) if len(gap) and np.isfinite(gap[0]) else None
    return from_bytes(name, frame["job_id"].to_numpy(), submit, col("map_input_bytes"),
                      col("reduce_shuffle_bytes"), col("reduce_output_bytes"), model,
                      first_gap_s=first_gap)


def read_swim_workload(path: str, model: CostModel = CostModel()) -> Workload:
    """Read a SWIM TSV and apply ``model``."""
    from jobsize.collectors.swim import read_swim

    return from_swim(read_swim(path), str(path), model)
