"""Sweeps: many simulations (segments × schedulers × seeds) run in parallel through joblib.

Each run is an independent task handed to :class:`joblib.Parallel`; nothing here names a
backend, so ``joblib.parallel_config(backend="dask")`` (or ``"ray"``) around :func:`run_sweep`
spreads a sweep over a cluster without code changes. Results come back as one per-job table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import delayed

from jobsize.sim.backends import ordered_results
from jobsize.sim.baseline import DEFAULT_BASELINE, FairBaseline, fair_baseline
from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import simulate
from jobsize.sim.fluid import make_policy, simulate_fluid
from jobsize.sim.metrics import Segmentation, add_slowdowns, alone_times
from jobsize.sim.rcp_groups import FIXED_ALPHA, FIXED_BETA, RcpGrouping, segment_grouping
from jobsize.sim.schedulers import make_scheduler
from jobsize.sim.size_sources import SizeSource, size_source
from jobsize.sim.workload import Workload


@dataclass(frozen=True)
class SweepConfig:
    """What to run: schedulers by name, seeds of the size sources, the model and its options.

    Size-based schedulers see sizes with lognormal error ``sigma`` (0: exact), or from
    ``size_sources`` — one source per seed (fitted models, measured error distributions; see
    :func:`jobsize.sim.predicted.parse_size_source`) — when given. The fair slowdown is taken
    against the Fair baseline ``fair_baseline`` (:mod:`jobsize.sim.baseline`; PS in the fluid
    model), or against ``fair_name`` when set; segments are grouped by ``rcp_groups``
    (:mod:`jobsize.sim.rcp_groups`; ``fixed`` uses ``rcp_alpha`` and ``rcp_beta``).
    """

    schedulers: tuple[str, ...] = ("fair",)
    seeds: tuple[int, ...] = (0,)
    sigma: float = 0.0
    model: str = "yarn"  # yarn | slots (the YARN model on MRv1 slots) | fluid
    segmentation: Segmentation = field(default_factory=Segmentation)
    capacity_queues: str | None = None
    sim_options: dict[str, float] = field(default_factory=dict)
    fair_name: str | None = None
    fair_baseline: str = DEFAULT_BASELINE
    rcp_groups: str = "paper"
    rcp_alpha: float = FIXED_ALPHA
    rcp_beta: float = FIXED_BETA
    size_sources: Mapping[int, SizeSource] | None = None
    #: per-scheduler settings passed to ``make_scheduler`` (e.g. ``{"ltyarn": {...}}``)
    scheduler_options: Mapping[str, object] = field(default_factory=dict)

    def baseline(self) -> FairBaseline:
        """The Fair every other scheduler is held against."""
        if self.fair_name is not None:
            return FairBaseline("given", self.fair_name, self.fair_name)
        return fair_baseline(self.fair_baseline, self.model)

    def grouping(self, workload: Workload, cluster: Cluster) -> RcpGrouping:
        """The RCP groups of ``workload``'s segments."""
        return segment_grouping(workload, cluster, self.segmentation, self.rcp_groups,
                                self.rcp_alpha, self.rcp_beta)

    def source(self, seed: int) -> SizeSource:
        """What size-based schedulers of the run with ``seed`` see."""
        if self.size_sources is not None:
            return self.size_sources[seed]
        return size_source(self.sigma, seed)


def _is_size_based(name: str, config: SweepConfig) -> bool:
    if config.model == "fluid":
        return name not in ("fifo", "ps", "las")
    return hasattr(make_scheduler(name), "size_source")


def _run_yarn(seg: Workload, cluster: Cluster, name: str, seed: int,
              config: SweepConfig) -> pd.DataFrame:
    policy = make_scheduler(name, size_source=config.source(seed),
                            capacity_queues=config.capacity_queues, **config.scheduler_options)
    res = simulate(seg, cluster, policy, **config.sim_options)  # type: ignore[arg-type]
    out = res.jobs[["job_id", "submit_s", "finish_s", "response_s"]].copy()
    out["policy"] = res.policy
    return out


def fluid_sizes(seg: Workload, cluster: Cluster) -> np.ndarray:
    """Job sizes in seconds of the whole cluster: S (memory MB·s) / cluster memory."""
    return seg.sizes()[0] / cluster.total[0]


def _run_fluid(seg: Workload, cluster: Cluster, name: str, seed: int,
               config: SweepConfig) -> pd.DataFrame:
    size = fluid_sizes(seg, cluster)
    est = size
    if _is_size_based(name, config):  # no probes in the fluid model: known at submission
        est = config.source(seed).estimate(seg).size_mb_s / cluster.total[0]
    submit = seg.submit_s()
    done = simulate_fluid(submit, size, make_policy(name), est).completion
    return pd.DataFrame({"job_id": seg.jobs["job_id"].to_numpy(), "submit_s": submit,
                         "finish_s": done, "response_s": done - submit, "policy": name})


def _one(seg: Workload, cluster: Cluster, index: int, name: str, seed: int,
         config: SweepConfig) -> pd.DataFrame:
    run = _run_fluid if config.model == "fluid" else _run_yarn
    out = run(seg, cluster, name, seed, config)
    out.insert(0, "segment", index)
    out.insert(1, "scheduler", name)
    out.insert(2, "seed", seed)
    return out


def _alone(seg: Workload, cluster: Cluster, config: SweepConfig) -> np.ndarray:
    if config.model == "fluid":
        return fluid_sizes(seg, cluster)
    return alone_times(seg, cluster, **config.sim_options)


def run_sweep(workload: Workload, cluster: Cluster, config: SweepConfig, *, n_jobs: int = 1,
              advance: Callable[..., None] | None = None) -> pd.DataFrame:
    """Per-job results of every (segment, scheduler, seed), with RCP and both slowdowns.

    A run of the Fair baseline on every segment is added when it is not among the
    schedulers, because fair slowdown is defined against it. ``advance(n)`` reports progress
    (one unit per finished simulation).
    """
    windows = config.segmentation.windows(workload.n_jobs)
    segments = [workload.segment(a, b) for a, b in windows]
    fair = config.baseline().scheduler
    names: Sequence[str] = list(dict.fromkeys([*config.schedulers, fair]))
    tasks = []
    for i, seg in enumerate(segments):
        for name in names:
            seeds = config.seeds if _is_size_based(name, config) else config.seeds[:1]
            tasks.extend(delayed(_one)(seg, cluster, i, name, s, config) for s in seeds)
    # the "alone" runs of common slowdown, one task per segment's not-yet-covered jobs
    covered = 0
    alone_tasks, alone_ranges = [], []
    for a, b in windows:
        lo = max(a, covered)
        if lo < b:
            alone_tasks.append(delayed(_alone)(workload.segment(lo, b), cluster, config))
            alone_ranges.append((lo, b))
            covered = b
    results = []
    alone = np.full(workload.n_jobs, np.nan)
    for k, out in enumerate(ordered_results([*alone_tasks, *tasks], n_jobs)):
        if k < len(alone_tasks):
            lo, hi = alone_ranges[k]
            alone[lo:hi] = out
        else:
            results.append(out)
        if advance is not None:
            advance(1)
    per_job = pd.concat(results, ignore_index=True)
    starts = np.array([a for a, _ in windows])
    pos = {jid: k for k, jid in enumerate(workload.jobs["job_id"].astype(str))}
    per_job["alone_s"] = alone[per_job["job_id"].astype(str).map(pos).to_numpy()]
    grouping = config.grouping(workload, cluster)
    seg = per_job["segment"].to_numpy()
    per_job["rcp"] = grouping.rcp[seg]
    per_job["rcp_group"] = pd.array(grouping.group[seg], dtype="Float64").astype("Int64")
    per_job["first_job"] = starts[seg]
    return add_slowdowns(per_job, fair)


def n_runs(workload: Workload, config: SweepConfig) -> int:
    """How many tasks :func:`run_sweep` hands to joblib (for a progress bar's total)."""
    windows = config.segmentation.windows(workload.n_jobs)
    names = list(dict.fromkeys([*config.schedulers, config.baseline().scheduler]))
    per_seg = sum(len(config.seeds) if _is_size_based(n, config) else 1 for n in names)
    covered, alone = 0, 0
    for a, b in windows:
        if max(a, covered) < b:
            alone += 1
            covered = b
    return len(windows) * per_seg + alone
