"""A simulator workload: jobs with arrival times and container requests, and their tasks.

Task durations live in flat numpy arrays with per-job offsets (job ``j``'s maps are
``map_s[map_off[j]:map_off[j+1]]``), so a day of Facebook's cluster (16.6 M tasks) costs a few
hundred MB and no Python object per task. Times are seconds from the workload's start.

A reduce task has a duration and a *tail* (the part after its shuffle: merge and reduce
function). A reduce started before its job's maps have all finished cannot finish before
``maps_done + tail``; it finishes at ``max(start + duration, maps_done + tail)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from jobsize.errors import SimulationError
from jobsize.sim.cluster import Cluster

#: Per-job columns of :attr:`Workload.jobs` (besides optional job-record columns).
JOB_FIELDS: tuple[str, ...] = (
    "job_id", "submit_s", "map_mb", "map_vcores", "reduce_mb", "reduce_vcores", "am_mb",
    "am_vcores", "uber", "queue", "weight",
)


def per_job_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values[offsets[j]:offsets[j+1]]`` for every j (empty ranges give 0)."""
    c = np.concatenate(([0.0], np.cumsum(values, dtype=np.float64)))
    return c[offsets[1:]] - c[offsets[:-1]]


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(np.asarray(counts, dtype=np.int64))))


@dataclass
class Workload:
    """Jobs sorted by submission, and their tasks' durations in seconds."""

    name: str
    jobs: pd.DataFrame
    map_s: np.ndarray
    map_off: np.ndarray
    reduce_s: np.ndarray
    reduce_tail_s: np.ndarray
    reduce_off: np.ndarray
    #: interval before the first job (eq 11's I_1); None when unknown
    first_gap_s: float | None = None
    meta: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.map_s = np.ascontiguousarray(self.map_s, dtype=np.float64)
        self.reduce_s = np.ascontiguousarray(self.reduce_s, dtype=np.float64)
        self.reduce_tail_s = np.ascontiguousarray(self.reduce_tail_s, dtype=np.float64)
        self.map_off = np.asarray(self.map_off, dtype=np.int64)
        self.reduce_off = np.asarray(self.reduce_off, dtype=np.int64)
        n = len(self.jobs)
        missing = [c for c in JOB_FIELDS if c not in self.jobs.columns]
        if missing:
            raise SimulationError(f"workload lacks column {missing[0]!r}", source=self.name)
        if len(self.map_off) != n + 1 or len(self.reduce_off) != n + 1:
            raise SimulationError("task offsets do not match the number of jobs", source=self.name)
        if len(self.reduce_tail_s) != len(self.reduce_s):
            raise SimulationError("reduce tails do not match reduce tasks", source=self.name)
        for label, arr in (("map", self.map_s), ("reduce", self.reduce_s)):
            bad = ~np.isfinite(arr) | (arr < 0)
            if bad.any():
                raise SimulationError(f"{label} task {int(np.flatnonzero(bad)[0])}: duration "
                                      f"{arr[bad][0]!r} is not a non-negative number",
                                      source=self.name)
        self.reduce_tail_s = np.minimum(np.maximum(self.reduce_tail_s, 0.0), self.reduce_s)
        submit = self.jobs["submit_s"].to_numpy(dtype=np.float64)
        if n and (np.diff(submit) < 0).any():
            order = np.argsort(submit, kind="stable")
            self._reorder(order)

    def _reorder(self, order: np.ndarray) -> None:
        m_idx = np.concatenate([np.arange(self.map_off[j], self.map_off[j + 1]) for j in order]
                               + [np.zeros(0, np.int64)])
        r_idx = np.concatenate([np.arange(self.reduce_off[j], self.reduce_off[j + 1])
                                for j in order] + [np.zeros(0, np.int64)])
        self.map_off = offsets_from_counts(np.diff(self.map_off)[order])
        self.reduce_off = offsets_from_counts(np.diff(self.reduce_off)[order])
        self.map_s, self.reduce_s = self.map_s[m_idx], self.reduce_s[r_idx]
        self.reduce_tail_s = self.reduce_tail_s[r_idx]
        self.jobs = self.jobs.iloc[order].reset_index(drop=True)

    # -----------------------------------------------------------------------------------------
    @property
    def n_jobs(self) -> int:
        return len(self.jobs)

    @property
    def n_tasks(self) -> int:
        return len(self.map_s) + len(self.reduce_s)

    @property
    def n_maps(self) -> np.ndarray:
        return np.diff(self.map_off)

    @property
    def n_reduces(self) -> np.ndarray:
        return np.diff(self.reduce_off)

    def map_work_s(self) -> np.ndarray:
        """SE_m of every job: summed map task time."""
        return per_job_sum(self.map_s, self.map_off)

    def reduce_work_s(self) -> np.ndarray:
        """SE_r of every job: summed reduce task time."""
        return per_job_sum(self.reduce_s, self.reduce_off)

    def sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """True job sizes S = R_m·SE_m + R_r·SE_r (eq 5): (memory MB·s, vcore·s), AM excluded."""
        se_m, se_r = self.map_work_s(), self.reduce_work_s()
        j = self.jobs
        mem = j["map_mb"].to_numpy(np.float64) * se_m + j["reduce_mb"].to_numpy(np.float64) * se_r
        cpu = (j["map_vcores"].to_numpy(np.float64) * se_m
               + j["reduce_vcores"].to_numpy(np.float64) * se_r)
        return mem, cpu

    def submit_s(self) -> np.ndarray:
        return self.jobs["submit_s"].to_numpy(dtype=np.float64)

    def segment(self, start: int, stop: int) -> Workload:
        """Jobs ``start..stop-1`` as a workload of their own, the first submitted at time 0."""
        stop = min(stop, self.n_jobs)
        if not 0 <= start < stop:
            raise SimulationError(f"empty segment {start}:{stop}", source=self.name)
        submit = self.submit_s()
        if start > 0:
            gap: float | None = float(submit[start] - submit[start - 1])
        else:
            gap = self.first_gap_s
        jobs = self.jobs.iloc[start:stop].reset_index(drop=True).copy()
        jobs["submit_s"] = submit[start:stop] - submit[start]
        m0, m1 = self.map_off[start], self.map_off[stop]
        r0, r1 = self.reduce_off[start], self.reduce_off[stop]
        return Workload(
            name=f"{self.name}[{start}:{stop}]", jobs=jobs,
            map_s=self.map_s[m0:m1], map_off=self.map_off[start:stop + 1] - m0,
            reduce_s=self.reduce_s[r0:r1], reduce_tail_s=self.reduce_tail_s[r0:r1],
            reduce_off=self.reduce_off[start:stop + 1] - r0, first_gap_s=gap,
            meta=dict(self.meta),
        )

    def requests(self, slots: bool) -> np.ndarray:
        """Container requests, shape (n_jobs, 3 kinds AM/MAP/REDUCE, 2 dimensions)."""
        n = self.n_jobs
        req = np.zeros((n, 3, 2), dtype=np.int64)
        if slots:
            req[:, 1, 0] = 1
            req[:, 2, 1] = 1
            return req
        j = self.jobs
        for k, (mem, cpu) in enumerate((("am_mb", "am_vcores"), ("map_mb", "map_vcores"),
                                        ("reduce_mb", "reduce_vcores"))):
            req[:, k, 0] = j[mem].to_numpy(np.int64)
            req[:, k, 1] = j[cpu].to_numpy(np.int64)
        return req

    def check_fits(self, cluster: Cluster) -> None:
        """Raise if some job asks for a container no node can hold (it would wait forever)."""
        req = self.requests(cluster.slots)
        cap = cluster.capacity
        need = [(0, np.ones(self.n_jobs, bool)), (1, self.n_maps > 0), (2, self.n_reduces > 0)]
        for kind, used in need:
            r = req[:, kind, :]
            fits = ((r[:, None, 0] <= cap[None, :, 0]) & (r[:, None, 1] <= cap[None, :, 1])).any(1)
            bad = used & ~fits
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                what = ("AM", "map", "reduce")[kind]
                raise SimulationError(f"job {self.jobs['job_id'].iloc[j]}: its {what} container "
                                      f"{tuple(int(x) for x in r[j])} fits on no node of "
                                      f"{cluster.describe()}", source=self.name)


def make_jobs(n: int, **columns: object) -> pd.DataFrame:
    """A per-job frame with every :data:`JOB_FIELDS` column, defaults for those not given.

    Defaults: Hadoop's container sizes (1024 MB, 1 vcore; AM 1536 MB), not uber, queue
    ``default``, weight 1.
    """
    defaults: dict[str, object] = {
        "job_id": [f"job{i}" for i in range(n)], "submit_s": np.zeros(n), "map_mb": 1024,
        "map_vcores": 1, "reduce_mb": 1024, "reduce_vcores": 1, "am_mb": 1536, "am_vcores": 1,
        "uber": False, "queue": "default", "weight": 1.0,
    }
    defaults.update(columns)
    frame = pd.DataFrame({k: (np.repeat(v, n) if np.ndim(v) == 0 else v)  # type: ignore[arg-type]
                          for k, v in defaults.items()})
    frame["job_id"] = frame["job_id"].astype(str)
    frame["queue"] = frame["queue"].astype(str)
    frame["uber"] = frame["uber"].astype(bool)
    return frame


def from_task_lists(
    name: str,
    jobs: pd.DataFrame,
    maps: list[list[float]] | list[np.ndarray],
    reduces: list[list[float]] | list[np.ndarray],
    tails: list[list[float]] | list[np.ndarray] | None = None,
) -> Workload:
    """Build a workload from per-job lists of task durations (small, hand-written cases)."""
    counts_m = [len(m) for m in maps]
    counts_r = [len(r) for r in reduces]
    flat = lambda xs: (np.concatenate([np.asarray(x, float) for x in xs])  # noqa: E731
                       if xs else np.zeros(0))
    r = flat(reduces)
    return Workload(name=name, jobs=jobs, map_s=flat(maps), map_off=offsets_from_counts(counts_m),
                    reduce_s=r, reduce_tail_s=flat(tails) if tails is not None else r.copy(),
                    reduce_off=offsets_from_counts(counts_r))
