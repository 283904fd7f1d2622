"""Scheduling metrics of the paper's §IV-C and the workload segmentation behind them.

- response time: finish − submission;
- common slowdown: response / the job's response alone on the same cluster;
- fair slowdown: response / the job's response under Fair on the same workload;
- RCP (eq 11): ``α·ln(ΣS_i / (ΣI_i·CR)) + β`` with S_i the job size (eq 5, memory MB·s), I_i
  the gap before job i (for the first job of a segment, the gap to its predecessor in the
  trace), CR the cluster's memory (slot mode: S in slot·s, CR all slots). ΣS/(ΣI·CR) is the
  offered load; with the defaults α = 2, β = 5 a segment at load 1 has RCP 5, each doubling of
  the load adds 1.4.
  RCP groups are RCP rounded to the nearest integer;
- segments: 200-job windows overlapping by 50 (the paper's FB-2009 setup).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.schedulers import FIFO
from jobsize.sim.workload import Workload

RCP_ALPHA = 2.0
RCP_BETA = 5.0


@dataclass(frozen=True)
class Segmentation:
    """Windows of ``size`` jobs, consecutive windows sharing ``overlap`` jobs."""

    size: int = 200
    overlap: int = 50

    @classmethod
    def parse(cls, spec: str) -> Segmentation:
        """``SIZE/OVERLAP``, e.g. ``200/50``."""
        try:
            size, _, overlap = spec.partition("/")
            seg = cls(int(size), int(overlap or 0))
        except ValueError:
            raise ConfigError(f"segments {spec!r}: expected SIZE/OVERLAP like 200/50") from None
        if seg.size <= 0 or not 0 <= seg.overlap < seg.size:
            raise ConfigError(f"segments {spec!r}: need size > 0 and 0 ≤ overlap < size")
        return seg

    def windows(self, n_jobs: int) -> list[tuple[int, int]]:
        """Full windows (start, stop) over ``n_jobs`` jobs; one window if fewer jobs."""
        if n_jobs <= self.size:
            return [(0, n_jobs)]
        step = self.size - self.overlap
        return [(s, s + self.size) for s in range(0, n_jobs - self.size + 1, step)]


def rcp(workload: Workload, cluster: Cluster, alpha: float = RCP_ALPHA,
        beta: float = RCP_BETA) -> float:
    """Resource competition pressure of a workload on a cluster (eq 11)."""
    if cluster.slots:  # MRv1: sizes in slot·s against all slots
        size_mem = workload.map_work_s() + workload.reduce_work_s()
    else:
        size_mem, _ = workload.sizes()
    submit = workload.submit_s()
    gaps = np.diff(submit)
    first = workload.first_gap_s
    if first is None or not math.isfinite(first):
        first = float(gaps.mean()) if len(gaps) else 0.0
    interval = float(gaps.sum()) + first
    capacity = sum(cluster.total) if cluster.slots else cluster.total[0]
    if interval <= 0 or capacity <= 0 or size_mem.sum() <= 0:
        return math.nan
    return alpha * math.log(float(size_mem.sum()) / (interval * capacity)) + beta


def alone_times(workload: Workload, cluster: Cluster, **options: object) -> np.ndarray:
    """Every job's response time when it runs alone on ``cluster`` (common slowdown's base)."""
    out = np.empty(workload.n_jobs)
    for j in range(workload.n_jobs):
        out[j] = simulate(workload.segment(j, j + 1), cluster, FIFO(),
                          **options).jobs["response_s"].iloc[0]  # type: ignore[arg-type]
    return out


def ecdf(values: np.ndarray | pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the empirical CDF at each."""
    x = np.sort(np.asarray(values, dtype=float)[~np.isnan(np.asarray(values, dtype=float))])
    return x, np.arange(1, len(x) + 1) / max(len(x), 1)


def add_slowdowns(per_job: pd.DataFrame, fair_name: str = "fair") -> pd.DataFrame:
    """Add ``slowdown`` (needs ``alone_s``) and ``fair_slowdown`` (pairs each run with the Fair
    run of the same segment and seed-independent workload)."""
    out = per_job.copy()
    out["slowdown"] = out["response_s"] / out["alone_s"]
    fair = out[out["scheduler"] == fair_name][["segment", "job_id", "response_s"]]
    fair = fair.drop_duplicates(["segment", "job_id"]).rename(columns={"response_s": "fair_s"})
    out = out.merge(fair, on=["segment", "job_id"], how="left")
    out["fair_slowdown"] = out["response_s"] / out.pop("fair_s")
    return out


def summarize(per_job: pd.DataFrame) -> pd.DataFrame:
    """Per RCP group and scheduler: segments, jobs, mean response, slowdown statistics."""
    g = per_job.groupby(["rcp_group", "scheduler"], sort=True)
    table = g.agg(
        segments=("segment", "nunique"), jobs=("job_id", "size"),
        mean_response_s=("response_s", "mean"), median_response_s=("response_s", "median"),
        mean_slowdown=("slowdown", "mean"), max_slowdown=("slowdown", "max"),
        mean_fair_slowdown=("fair_slowdown", "mean"),
        max_fair_slowdown=("fair_slowdown", "max"),
        share_fair_slowdown_le_1=("fair_slowdown", lambda s: float((s <= 1 + 1e-9).mean())),
    ).reset_index()
    return table
