"""Held-out evaluation: size predictions for kinds of job that no history holds, measured along
the path a user takes — ``jobsize probe``, ``jobsize predict``, ``jobsize run``.

The held-out workloads (:data:`jobsize.workloads.HELD_OUT`) have cost shapes the reference
workloads lack, and no reference trace or fitted model ever includes them; but they have been
looked at while the models were developed, so they are the *development set*. Kinds drawn fresh
from the space of cost shapes (:mod:`jobsize.workloads.kindspace`, ``Design.drawn``) are the
test. For each job of the plan (:class:`Design`: kind, input size, split size, N_m, N_r),
:class:`HeldOutTrace`:

1. generates the job's input with the workload's seeded generator;
2. probes the job as ``jobsize probe --maps N_m --reduces N_r --split-size B [-D ...]`` does — a
   :class:`~jobsize.sampler.probespec.ProbeSpec` with the job's splits and configuration, and
   :func:`jobsize.engine.run_probe` unless the probe plan says the job runs in uber mode — and
   times it;
3. writes what ``jobsize probe`` prints — the job document ``jobsize predict`` reads: the job's
   shape, input bytes, uber-mode plan, probe record and configuration — to
   ``DIR/jobs/<i>.json`` and predicts it with :func:`jobsize.predict`, keeping every field of
   the prediction;
4. runs the job on the local engine as ``jobsize run`` does, reads its record back from its
   .jhist, and appends record, probe columns, prediction and the machine's load to
   ``DIR/heldout.parquet`` (the bench-trace machinery: resumable, whole jobs only).

With ``engine="hadoop"`` steps 2 and 4 run on the Hadoop mini cluster (``jobsize hadoop up``):
the probe as a real uber job on its probing queue, the job as a Hadoop Streaming job, its
record read from the cluster's own .jhist.

:func:`write_report` scores the predictions per kind and overall (:class:`ErrorProfile`, probe
cost) and adds leave-one-kind-out over the reference trace and the held-out trace pooled: each
kind predicted by a model fitted on every other kind
(:func:`jobsize.models.evaluation.cross_validated_pairs` with ``groups="job_type"``)::

    from jobsize.heldout import Design, HeldOutTrace, evaluation_model, write_report
    model = evaluation_model("eval", trace="datasets/reference.parquet")
    ev = HeldOutTrace("eval", seed=1, design=Design(jobs_per_kind=8), model=model)
    ev.run(ev.plan())                        # rerun to resume
    write_report(ev, "datasets/reference.parquet")

The evaluation reads predictions only through ``Prediction.to_dict()``, so it keeps working as
the models and the probe change underneath.
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from jobsize.atomic import atomic_write_text
from jobsize.benchtrace.draw import Draw
from jobsize.benchtrace.inputs import InputCache
from jobsize.benchtrace.runner import INPUT_BUDGET, USER, BenchTrace, JobOutcome
from jobsize.engine import JobSpec, LocalEngine, run_probe
from jobsize.engine.inputformat import compute_splits, input_files
from jobsize.engine.spec import Containers
from jobsize.errors import ConfigError, JobFailedError, JobsizeError
from jobsize.models.evaluation import (
    PAIR_COLUMNS,
    ErrorProfile,
    cross_validated_pairs,
    probe_cost,
)
from jobsize.models.size_model import actual_sizes
from jobsize.predictor import SizePredictor, predict
from jobsize.sampler.probespec import ProbeSpec
from jobsize.sampler.sampling import DEFAULT_MAX_FRACTION, DEFAULT_MAX_SPLITS
from jobsize.schema import read_trace, read_traces
from jobsize.ubermode import enabled as uber_enabled
from jobsize.workloads import HELD_OUT, workload

KiB, MiB = 1 << 10, 1 << 20
#: ``source`` of the records an evaluation measures.
SOURCE = "jobsize evaluate"
#: File names inside an evaluation directory.
TRACE_NAME, SETTINGS_NAME = "heldout.parquet", "evaluate.json"
MODEL_NAME, REPORT_NAME = "model.json", "report.md"
LOKO_NAME, JOBS_DIR = "leave-one-kind-out.parquet", "jobs"
#: Split (block) sizes a job draws from: with inputs of 0.5-150 MiB, 1 to 200 maps.
SPLIT_SIZES = (256 * KiB, 512 * KiB, 1 * MiB)
#: Probe cost is scored on jobs of at least this many maps.
PROBE_COST_MIN_MAPS = 10
#: What the report holds the results against: what a scheduler needs of a size prediction.
TARGETS = {"R² S": "≥ 0.90", "median |error| S": "≤ 20 %", "within ±25 %": "≥ 75 %",
           "off by ≥ 2×": "≤ 3 %", "interval coverage": "85-95 % (90 % level)",
           "probe cost": "≤ 3 %"}


def coverage_band(level: float = 0.9) -> tuple[float, float]:
    """The band an interval's coverage should fall in on kinds left out of fitting: its level
    ± 5 points (85-95 % for a 90 % interval)."""
    return level - 0.05, level + 0.05


# ---------------------------------------------------------------------------------------------
# The plan


@dataclass(frozen=True)
class Design:
    """Which jobs an evaluation runs: ``jobs_per_kind`` jobs of each of ``kinds``, taken in turn
    (job i is of kind i mod K, so an interrupted run has covered every kind evenly).

    A job's input size is log-uniform in [``min_mib``, ``max_mib``] × ``scale`` MiB, its split
    size uniform among ``split_sizes`` (larger when N_m would exceed ``max_maps``), N_m the
    input's split count and N_r the workload's typical reduce count for the input. ``conf`` is
    the job configuration given to probe, predict and run alike (``-D KEY=VALUE``); empty means
    the configuration defaults, as when a user gives none. ``max_fraction`` caps each probe's
    sample fraction as ``jobsize probe --max-fraction`` does (None: Algorithm 1's
    1/max(N_m, N_r)). ``probe_uber`` probes the jobs Hadoop runs in uber mode too, as ``jobsize
    probe`` does, so that they are sized from their probes; False leaves them to the history's
    uber jobs, as ``--uber-from-history`` does.

    The default kinds are the hand-written held-out kinds, the development set. ``kind_seed``
    says that ``kinds`` are the first kinds drawn with that seed from the space of cost shapes
    (:meth:`drawn` makes such a design).
    """

    kinds: tuple[str, ...] = tuple(sorted(HELD_OUT))
    jobs_per_kind: int = 8
    min_mib: float = 0.5
    max_mib: float = 150.0
    scale: float = 1.0
    split_sizes: tuple[int, ...] = SPLIT_SIZES
    max_maps: int = 200
    conf: Mapping[str, str] = field(default_factory=dict)
    max_fraction: float | None = DEFAULT_MAX_FRACTION
    probe_uber: bool = True
    kind_seed: int | None = None
    java_share: float = 0.0  # the chance that a drawn kind was made a Java job

    @classmethod
    def drawn(cls, n: int, kind_seed: int, java_share: float = 0.0, **options: Any) -> Design:
        """A design of the first ``n`` kinds drawn with ``kind_seed`` from the space of cost
        shapes (:func:`jobsize.workloads.kindspace.draw_kinds`), each a Java job with chance
        ``java_share`` (its name, ``drawn-K-i-java``, says so)."""
        from jobsize.workloads.kindspace import draw_kinds

        if n < 1:
            raise ConfigError(f"--drawn must be at least 1 kind, got {n}")
        kinds = tuple(w.name for w in draw_kinds(kind_seed, n, java_share))
        return cls(kinds=kinds, kind_seed=kind_seed, java_share=java_share, **options)

    def __post_init__(self) -> None:
        kinds = tuple(dict.fromkeys(self.kinds))
        if not kinds:
            raise ConfigError("no job kinds to evaluate")
        if self.kind_seed is not None and self.kind_seed < 0:
            raise ConfigError(f"--kind-seed must be non-negative, got {self.kind_seed}")
        for name in kinds:
            workload(name)  # a ConfigError naming the choices
        if self.jobs_per_kind < 1 or self.max_maps < 1 or not self.split_sizes or \
                any(int(b) < 1 for b in self.split_sizes):
            raise ConfigError("jobs per kind, split sizes and the map limit must be positive")
        if not (0 < self.min_mib <= self.max_mib and self.scale > 0) or \
                not math.isfinite(self.max_mib * self.scale):
            raise ConfigError(f"input sizes must satisfy 0 < min ≤ max and scale > 0, got "
                              f"{self.min_mib}-{self.max_mib} MiB × {self.scale}")
        if self.max_fraction is not None and not 0 < self.max_fraction <= 1:
            raise ConfigError(f"the probe's largest fraction must be in (0, 1], got "
                              f"{self.max_fraction!r}")
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "split_sizes", tuple(int(b) for b in self.split_sizes))
        object.__setattr__(self, "conf", {str(k): str(v) for k, v in dict(self.conf).items()})

    @property
    def uber_mode(self) -> bool:
        """Whether the jobs' configuration turns uber mode on (Hadoop's default is off)."""
        return uber_enabled(self.conf)

    @property
    def jobs(self) -> int:
        return self.jobs_per_kind * len(self.kinds)

    def settings(self) -> dict[str, Any]:
        """What a directory must be resumed with (the job count may grow: later jobs extend)."""
        return {"kinds": list(self.kinds), "min_mib": self.min_mib, "max_mib": self.max_mib,
                "scale": self.scale, "split_sizes": list(self.split_sizes),
                "max_maps": self.max_maps, "conf": dict(self.conf),
                # only when set, so directories made before the option resume as they were
                **({} if self.max_fraction is None else {"max_fraction": self.max_fraction}),
                # only where it matters, and True only: a directory made before uber jobs were
                # probed by default resumes as it was made (with --uber-from-history if uber)
                **({"probe_uber": True} if self.probe_uber and self.uber_mode else {}),
                **({} if self.kind_seed is None else {"kind_seed": self.kind_seed,
                                                      "kind_space": _space_version()}),
                **({"java_share": self.java_share} if self.java_share else {})}

    def draw(self, seed: int, index: int) -> Draw:
        """Job ``index`` of the evaluation of ``seed`` — a pure function of its arguments."""
        if seed < 0 or index < 0:
            raise ConfigError(f"seed and index must be non-negative, got {seed} and {index}")
        rng = np.random.default_rng([seed, index])
        name = self.kinds[index % len(self.kinds)]
        low, high = (math.log(m * self.scale * MiB) for m in (self.min_mib, self.max_mib))
        size = max(1, round(math.exp(rng.uniform(low, high))))
        split = self.split_sizes[int(rng.integers(len(self.split_sizes)))]
        if math.ceil(size / split) > self.max_maps:  # a larger block, as for a larger file
            split = math.ceil(size / self.max_maps)
        return Draw(index=index, workload=name, bin=None, fb_maps=None,
                    n_maps=math.ceil(size / split),
                    n_reduces=workload(name).typical_reduces(size), input_bytes=size,
                    input_seed=int(rng.integers(2**31)), probe_seed=int(rng.integers(2**31)),
                    split_bytes=split)


def _space_version() -> int:
    from jobsize.workloads.kindspace import SPACE_VERSION

    return SPACE_VERSION


# ---------------------------------------------------------------------------------------------
# The model


def evaluation_model(directory: str | os.PathLike[str], model: str | os.PathLike[str] | None =
                     None, *, trace: str | os.PathLike[str] | None = None,
                     level: float = 0.90) -> SizePredictor:
    """The model an evaluation directory predicts with, kept as ``DIR/model.json``.

    ``model``: a model file to use (copied into the directory). Without it, the directory's own
    model when resuming, else the model ``jobsize fit TRACE --level LEVEL`` makes
    (``SizePredictor(level=LEVEL).fit``: the size model's default options) on ``trace``
    (default: the bundled history, :func:`jobsize.bundled.default_trace`; calibrated as
    ``jobsize fit`` calibrates it: a bundled trace on its bundled draws,
    :func:`jobsize.bundled.calibration_for`, any other by leaving one kind out at a time).
    A directory keeps one model: resuming with another is refused.
    """
    from jobsize.atomic import atomic_write
    from jobsize.bundled import calibration_for, default_trace

    kept = Path(directory) / MODEL_NAME
    if model is not None:
        data = Path(model).read_bytes() if Path(model).is_file() else None
        if data is None:
            raise ConfigError("no such model file", source=model)
        if kept.is_file() and kept.read_bytes() != data:
            raise ConfigError(f"this evaluation was made with the model in {kept}, not "
                              f"{model}: use another directory", source=directory)
        if not kept.is_file():
            with atomic_write(kept) as handle:
                handle.write(data)
    elif not kept.is_file():
        source = Path(trace if trace is not None else default_trace())
        unseen = calibration_for(source)
        fitted = SizePredictor(level=level).fit(read_trace(source), calibration=read_traces(
            unseen) if unseen else None)
        fitted.model_.training["trace"] = str(source)
        kept.parent.mkdir(parents=True, exist_ok=True)
        fitted.save(kept)
    return SizePredictor.load(kept)


# ---------------------------------------------------------------------------------------------
# Measuring the jobs


def flat_job(document: Mapping[str, Any]) -> dict[str, Any]:
    """The job mapping ``jobsize predict`` reads from a job document: top-level values, then
    the ``conf``, ``job`` and ``probe`` sections merged over them in that order."""
    sections = ("conf", "job", "probe")
    job = {k: v for k, v in document.items() if k not in sections}
    for section in sections:
        job.update(document.get(section) or {})
    return job


def prediction_columns(prediction: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scored values of a prediction (``Prediction.to_dict()``): SE_m, SE_r, S and S's
    interval with its level; absent fields are NaN."""
    p = prediction or {}
    size = p.get("S") or {}
    intervals = p.get("intervals") or {}
    low, high = [*(intervals.get("S_memory_mb_s") or []), None, None][:2]

    def number(value: Any, missing: float = math.nan) -> float:
        return missing if value is None else float(value)

    return {"SE_m_pred_s": number(p.get("SE_m_s")), "SE_r_pred_s": number(p.get("SE_r_s")),
            "S_pred_mb_s": number(size.get("memory_mb_s")),
            "S_pred_vcore_s": number(size.get("vcore_s")),
            "S_low_mb_s": number(low, 0.0 if intervals else math.nan),
            "S_high_mb_s": number(high, math.inf if intervals else math.nan),
            "interval_level": number(intervals.get("level"))}


class HeldOutTrace(BenchTrace):
    """An evaluation directory: the jobs of ``design`` probed, predicted by ``model``, run and
    recorded (see the module docstring). ``containers``: the jobs' container sizes (Hadoop's
    defaults unless the configuration sets them). ``engine``: ``"local"`` or ``"hadoop"`` (the
    mini cluster in ``cluster``, default :func:`jobsize.hadoop.default_dir`)."""

    trace_name = TRACE_NAME
    settings_name = SETTINGS_NAME
    source_base = SOURCE

    def __init__(self, directory: str | os.PathLike[str], seed: int, design: Design,
                 model: SizePredictor, *, workers: int | None = None,
                 containers: Containers | None = None,
                 input_budget: int = INPUT_BUDGET, engine: str = "local",
                 cluster: str | os.PathLike[str] | None = None) -> None:
        super().__init__(directory, seed, workers=workers, input_budget=input_budget,
                         engine=engine, cluster=cluster)
        self.design = design
        self.model = model
        self.containers = containers or Containers()
        self.check_kinds(design.kinds)
        self._check_resumed_as_made((self.dir.settings() or {}).get("distribution") or {})

    @property
    def jobs_dir(self) -> Path:
        return self.dir.root / JOBS_DIR

    def settings(self) -> dict[str, Any]:
        return {**self.design.settings(), **self.engine_settings()}

    def _check_resumed_as_made(self, made: dict[str, Any]) -> None:
        """Refuse, in so many words, to resume drawn kinds with another kind seed, or uber jobs
        sized another way (the settings' check, when the directory is used, would refuse too,
        but name only the settings that differ)."""
        seed = made.get("kind_seed")
        if seed is not None and seed != self.design.kind_seed:
            raise ConfigError(f"was made with --kind-seed {seed}, not "
                              f"{self.design.kind_seed}: resume with the same kind seed or use "
                              "another directory", source=self.dir.settings_path)
        probed = bool(made.get("probe_uber"))
        if made and self.design.uber_mode and probed != self.design.probe_uber:
            how = ("probed" if probed else
                   "sized from the history, unprobed (made before uber jobs were probed by "
                   "default)")
            raise ConfigError(f"its uber jobs were {how}: resume "
                              f"{'without' if probed else 'with'} --uber-from-history or use "
                              "another directory", source=self.dir.settings_path)

    def plan(self, jobs: int | None = None) -> list[Draw]:
        """The first ``jobs`` jobs (default: the design's) of this evaluation's seed."""
        count = self.design.jobs if jobs is None else jobs
        return [self.design.draw(self.seed, i) for i in range(count)]

    def _measure(self, draw: Draw, engine: LocalEngine, cache: InputCache) -> JobOutcome:
        w = workload(draw.workload)
        paths, generate_s = self._input(draw, cache)
        t0 = time.monotonic()
        n_maps = len(compute_splits(input_files(paths), None, draw.split_bytes))
        name = f"{w.name} (evaluate seed {self.seed} job {draw.index})"
        document, probe_s, probe_error = self._probe(draw, paths, n_maps, name)
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.jobs_dir / f"{draw.index}.json",
                          json.dumps(document, indent=2, default=_json_number) + "\n")
        prediction, predict_error = None, None
        try:
            prediction = predict(self.model, flat_job(document)).to_dict()
        except JobsizeError as exc:
            predict_error = str(exc)
        conf = dict(self.design.conf)
        spec = JobSpec(inputs=tuple(paths), output=self.dir.scratch / str(draw.index) / "out",
                       mapper=w.mapper, reducer=w.reducer, combiner=w.combiner, n_maps=n_maps,
                       n_reduces=draw.n_reduces, split_bytes=draw.split_bytes, name=name,
                       user=USER, containers=self.containers, conf=conf, overwrite=True)
        history, _ = self._run_job(draw, spec, engine)
        record = dict(history.record)
        record.update({k: v for k, v in document.items() if k.startswith("probe_")})
        actual = actual_sizes(pd.DataFrame([record]), clock=self.model.clock).iloc[0]
        record.update({k: float(actual[k]) for k in ("SE_m_s", "SE_r_s", "S_mb_s", "S_vcore_s")})
        record.update(prediction_columns(prediction))
        record.update(
            job_type=w.name, source=self.source, draw_index=draw.index,
            split_bytes=draw.split_bytes, host_load_1m=os.getloadavg()[0],
            probe_s=probe_s, probe_planned_uber=bool(document.get("uberized")),
            probe_error=probe_error, predict_error=predict_error,
            prediction=None if prediction is None else json.dumps(prediction,
                                                                  default=_json_number))
        return JobOutcome(draw, record, history.tasks, time.monotonic() - t0, generate_s,
                          probe_error)

    def _probe(self, draw: Draw, paths: Sequence[Path], n_maps: int, name: str
               ) -> tuple[dict[str, Any], float, str | None]:
        """What ``jobsize probe --maps N_m --reduces N_r --split-size B`` prints for the job —
        the job document ``jobsize predict`` reads: the job's shape, input bytes, uber-mode
        plan, probe record and configuration — with the probe's wall time in seconds (listing
        the input included) and the error if the probe failed."""
        w = workload(draw.workload)
        c = self.containers
        conf = {**self.design.conf}
        conf.setdefault("dfs.blocksize", str(draw.split_bytes))  # the engine's block
        spec = ProbeSpec(
            mapper=w.mapper, reducer=w.reducer, combiner=w.combiner,
            inputs=tuple(str(p) for p in paths), n_maps=n_maps, n_reduces=draw.n_reduces,
            map_memory_mb=c.map_memory_mb, map_vcores=c.map_vcores,
            reduce_memory_mb=c.reduce_memory_mb, reduce_vcores=c.reduce_vcores,
            am_memory_mb=c.am_memory_mb, am_vcores=c.am_vcores,
            split_bytes=draw.split_bytes,
            max_splits=DEFAULT_MAX_SPLITS, seed=draw.probe_seed,
            max_fraction=self.design.max_fraction,
            job_name=name, conf=conf)
        history = self.dir.probe_history / str(draw.index)
        shutil.rmtree(history, ignore_errors=True)
        self.dir.scratch.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        splits = spec.splits().for_maps(n_maps)  # as `jobsize probe` cuts them
        input_bytes = splits.total_bytes
        plan = spec.plan(input_bytes)
        out: dict[str, Any] = {"job_name": spec.job_name, **spec.job_columns(),
                               "map_input_bytes": input_bytes, **plan.record(),
                               "reason": plan.said(self.design.probe_uber)}
        error = None
        if plan.probe or self.design.probe_uber:
            try:
                if self.engine == "hadoop":
                    out.update(self._probe_on_hadoop(spec, draw, history, splits))
                else:
                    with LocalEngine(1) as engine:
                        out.update(run_probe(spec, engine=engine, history_dir=history,
                                             splits=splits, work_dir=self.dir.scratch))
            except JobFailedError as exc:
                error = str(exc)
        out["conf"] = dict(spec.conf)
        return out, time.perf_counter() - t0, error


def _json_number(value: Any) -> Any:
    """numpy scalars in a document as plain numbers."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# ---------------------------------------------------------------------------------------------
# Scores


def heldout_pairs(records: pd.DataFrame, clock: str = "wall") -> pd.DataFrame:
    """Actual and predicted sizes of each recorded job (:data:`PAIR_COLUMNS`; actual times on
    ``clock``, the one the model predicts), with its kind, map count, the probe's wall time
    and the job's total task time (wall clock) for the probe cost, and whether it
    succeeded."""
    actual = actual_sizes(records, "probe", clock).reset_index(drop=True)
    wall = actual_sizes(records).reset_index(drop=True)
    frame = records.reset_index(drop=True)
    out = actual[["job_id", "finish_time_ms", "uber", "probed", "n_reduces", "SE_m_s",
                  "SE_r_s", "S_mb_s", "S_vcore_s"]].copy()
    for column in ("SE_m_pred_s", "SE_r_pred_s", "S_pred_mb_s", "S_low_mb_s", "S_high_mb_s",
                   "S_pred_vcore_s"):
        out[column] = pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
    out = out[list(PAIR_COLUMNS)]
    out["job_type"] = frame["job_type"].astype(str).to_numpy()
    out["n_maps"] = frame["n_maps"].to_numpy(float, na_value=np.nan)
    out["probe_s"] = pd.to_numeric(frame["probe_s"], errors="coerce").to_numpy(float)
    out["task_s"] = (wall["SE_m_s"] + wall["SE_r_s"]).to_numpy(float)
    out["succeeded"] = actual["succeeded"].to_numpy(bool)
    return out


@dataclass(frozen=True)
class KindScores:
    """One row of the report: a kind (or all of them), its errors and its probe cost."""

    label: str
    jobs: int  # recorded jobs that succeeded
    unpredicted: int  # of those, jobs without a prediction
    errors: ErrorProfile
    probe_jobs: int
    probe_median: float
    probe_p90: float


def kind_scores(label: str, pairs: pd.DataFrame) -> KindScores:
    """Scores of the jobs in ``pairs`` (see :func:`heldout_pairs`; the probe cost columns may
    be absent)."""
    ok = pairs[pairs["succeeded"]] if "succeeded" in pairs else pairs
    predicted = ok[np.isfinite(ok["SE_m_pred_s"].to_numpy(float)) &
                   np.isfinite(ok["S_pred_mb_s"].to_numpy(float))]
    n, median, p90 = 0, math.nan, math.nan
    if "probe_s" in ok:
        n, median, p90 = probe_cost(ok["probe_s"].to_numpy(float),
                                    ok["task_s"].to_numpy(float),
                                    ok["n_maps"].to_numpy(float), PROBE_COST_MIN_MAPS)
    return KindScores(label, len(ok), len(ok) - len(predicted),
                      ErrorProfile.of(predicted.reset_index(drop=True)), n, median, p90)


@dataclass(frozen=True)
class CoverageSpread:
    """How much a set of kinds' interval coverage depends on which kinds are in it.

    Intervals calibrated on kinds left out cover their level *averaged over kinds*, not within
    each kind: a kind's errors move together, so a kind tends to be covered whole or missed
    whole, and the coverage of a handful of kinds swings with the draw."""

    per_kind: dict[str, float]  # coverage of each kind's bounded intervals
    kinds_per_set: int
    draws: int
    quantiles: tuple[float, float, float]  # 5 %, 50 % and 95 % of a set's coverage
    below: float  # share of sets covering less than the band
    above: float  # share of sets covering more than the band


def coverage_spread(pairs: pd.DataFrame, kinds_per_set: int,
                    band: tuple[float, float] = coverage_band(), draws: int = 20_000,
                    seed: int = 0) -> CoverageSpread | None:
    """The coverage of ``draws`` sets of ``kinds_per_set`` kinds drawn without replacement
    from the kinds (``job_type``) of ``pairs`` — each set's coverage over its jobs pooled, as
    the held-out table pools its kinds. None with fewer kinds than a set holds."""
    s = pairs["S_mb_s"].to_numpy(float)
    low, high = pairs["S_low_mb_s"].to_numpy(float), pairs["S_high_mb_s"].to_numpy(float)
    bounded = np.isfinite(low) & np.isfinite(high) & np.isfinite(s)
    inside = bounded & (low <= s) & (s <= high)
    table = pd.DataFrame({"kind": pairs["job_type"].astype(str), "jobs": bounded,
                          "inside": inside}).groupby("kind").sum()
    table = table[table["jobs"] > 0]
    if len(table) < kinds_per_set or kinds_per_set < 1:
        return None
    rng = np.random.default_rng(seed)
    chosen = np.argsort(rng.random((draws, len(table))), axis=1)[:, :kinds_per_set]
    jobs, covered = table["jobs"].to_numpy(float), table["inside"].to_numpy(float)
    share = covered[chosen].sum(axis=1) / jobs[chosen].sum(axis=1)
    q05, q50, q95 = (float(q) for q in np.quantile(share, [0.05, 0.5, 0.95]))
    return CoverageSpread(per_kind=dict(zip(table.index, covered / jobs, strict=True)),
                          kinds_per_set=kinds_per_set, draws=draws, quantiles=(q05, q50, q95),
                          below=float(np.mean(share < band[0] - 1e-12)),
                          above=float(np.mean(share > band[1] + 1e-12)))


def leave_one_kind_out(reference: pd.DataFrame, heldout: pd.DataFrame, model: SizePredictor
                       ) -> pd.DataFrame:
    """Every succeeded job of the pooled traces, predicted by a model of ``model``'s options
    fitted on every other kind (``cross_validated_pairs`` by ``job_type``; NaN where it could
    not be predicted), with job_type, held_out, n_maps and the probe's wall time in seconds
    where the trace records it (``probe_wall_ms``)."""
    pooled = pd.concat([reference, heldout], ignore_index=True)
    if pooled["job_id"].duplicated().any():
        raise ConfigError("the reference and held-out traces share job ids; they cannot be "
                          "pooled")
    predicted = cross_validated_pairs(pooled, model.features, model.method, model.level,
                                      groups="job_type", form=model.form, clock=model.clock,
                                      calibrated=model.calibrate is not None,
                                      eq7_fit=model.eq7_fit)
    actual = actual_sizes(pooled, model.features, model.clock)
    wall = actual_sizes(pooled)
    actual["job_id"] = actual["job_id"].astype(str)
    predicted["job_id"] = predicted["job_id"].astype(str)
    guesses = [c for c in PAIR_COLUMNS if c not in actual.columns]
    actual["task_s"] = (wall["SE_m_s"] + wall["SE_r_s"]).to_numpy(float)
    pairs = actual[actual["succeeded"]].merge(predicted[["job_id", *guesses]], on="job_id",
                                              how="left")
    pairs = pairs[[*PAIR_COLUMNS, "succeeded", "task_s"]].copy()
    by_id = pooled.assign(job_id=pooled["job_id"].astype(str)).set_index("job_id")
    ids = pairs["job_id"]
    pairs["job_type"] = by_id.loc[ids, "job_type"].astype(str).to_numpy()
    pairs["held_out"] = pairs["job_type"].isin(set(heldout["job_type"].astype(str)))
    pairs["n_maps"] = by_id.loc[ids, "n_maps"].to_numpy(float, na_value=np.nan)
    wall_ms = pd.to_numeric(by_id.loc[ids, "probe_wall_ms"], errors="coerce")
    pairs["probe_s"] = wall_ms.to_numpy(float) / 1000.0
    return pairs.reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# The report


def _fmt(value: float, percent: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{100 * value:.0f} %" if percent else f"{value:.3f}"


def _pct(value: float) -> str:
    return _fmt(value, True)


def _row(s: KindScores) -> str:
    e = s.errors
    probe = (f"{_fmt(s.probe_median, True)} / {_fmt(s.probe_p90, True)} ({s.probe_jobs})"
             if s.probe_jobs else "—")
    cells = [s.label, str(s.jobs), str(s.unpredicted), _fmt(e.r2["SE_m"]),
             _fmt(e.r2["SE_r"]), _fmt(e.r2["S"]), _fmt(e.mdare, True), _fmt(e.within_25, True),
             _fmt(e.off_2x, True), _fmt(e.coverage, True), probe]
    return "| " + " | ".join(cells) + " |\n"


_COLUMNS = ("kind", "jobs", "unpredicted", "R² SE_m", "R² SE_r", "R² S", "median \\|err\\| S",
            "within ±25 %", "off by ≥ 2×", "{level} interval coverage",
            "probe cost median / p90 (jobs ≥ 10 maps)")


def _table(rows: Sequence[KindScores], level: str) -> str:
    out = "| " + " | ".join(_COLUMNS).format(level=level) + " |\n"
    out += "|" + "---|" * len(_COLUMNS) + "\n"
    return out + "".join(_row(r) for r in rows)


def _targets_row() -> str:
    t = TARGETS
    cells = ["target", "", "", "", "", t["R² S"], t["median |error| S"], t["within ±25 %"],
             t["off by ≥ 2×"], t["interval coverage"], t["probe cost"]]
    return "| " + " | ".join(cells) + " |\n"


def write_report(trace: HeldOutTrace, reference: str | os.PathLike[str]) -> Path:
    """Score the evaluation directory's jobs and write ``report.md`` and the leave-one-kind-out
    pairs beside the trace; returns the report's path."""
    records = trace.dir.records()
    if not len(records):
        raise ConfigError("no job is recorded yet: run the evaluation first",
                          source=trace.dir.trace)
    pairs = heldout_pairs(records, trace.model.clock)
    kinds = list(dict.fromkeys(k for k in trace.design.kinds if k in set(pairs["job_type"])))
    level = trace.model.level
    label = f"{100 * level:g} %"
    held = [kind_scores(k, pairs[pairs["job_type"] == k]) for k in kinds]
    planned_uber = records["probe_planned_uber"].fillna(False).astype(bool).to_numpy()
    everything = kind_scores("all held-out jobs", pairs)
    held.append(everything)
    held.append(kind_scores("probed jobs", pairs[~planned_uber]))
    held.append(kind_scores("jobs the probe plan took for uber", pairs[planned_uber]))
    reference_records = read_trace(reference)
    loko_pairs = leave_one_kind_out(reference_records, records, trace.model)
    loko_pairs.to_parquet(trace.dir.root / LOKO_NAME, index=False)
    loko = [kind_scores(k, loko_pairs[loko_pairs["job_type"] == k])
            for k in sorted(set(loko_pairs["job_type"]), key=lambda k: (k not in kinds, k))]
    loko.append(kind_scores("held-out kinds", loko_pairs[loko_pairs["held_out"]]))
    loko.append(kind_scores("reference kinds", loko_pairs[~loko_pairs["held_out"]]))
    loko.append(kind_scores("all kinds", loko_pairs))
    band = coverage_band(level)
    spread = coverage_spread(loko_pairs, len(kinds), band)
    text = _report_text(trace, records, reference, held, loko, label,
                        _spread_text(spread, everything.errors.coverage, band))
    path = trace.dir.root / REPORT_NAME
    atomic_write_text(path, text)
    return path


def _spread_text(spread: CoverageSpread | None, held_out: float,
                 band: tuple[float, float]) -> str:
    """The report's section on how much a set of kinds' coverage depends on the kinds."""
    if spread is None:
        return ""
    missed = sorted((k for k, c in spread.per_kind.items() if c < 1), key=spread.per_kind.get)
    q05, q50, q95 = spread.quantiles
    return (
        "\n## How much coverage depends on the kinds\n\n"
        "Intervals calibrated on kinds left out cover their level averaged over kinds, not "
        "within each kind: a kind's errors move together, so it tends to be covered whole or "
        "missed whole. Leaving one kind out, the kinds not covered whole are "
        + (", ".join(f"{k} {_pct(spread.per_kind[k])}" for k in missed) or "none")
        + f"; the other {len(spread.per_kind) - len(missed)} of {len(spread.per_kind)} are "
        f"covered whole. Sets of {spread.kinds_per_set} kinds drawn at random from the "
        f"{len(spread.per_kind)} ({spread.draws} draws) cover {_pct(q05)}-{_pct(q95)} of their "
        f"jobs (5-95 %; median {_pct(q50)}); {_pct(spread.above)} of the sets cover more than "
        f"{_pct(band[1])} and {_pct(spread.below)} less than {_pct(band[0])}. The held-out kinds "
        f"on the user's path: {_pct(held_out)}.\n")


def _report_text(trace: HeldOutTrace, records: pd.DataFrame, reference: str | os.PathLike[str],
                 held: Sequence[KindScores], loko: Sequence[KindScores], level: str,
                 spread: str = "") -> str:
    settings = trace.dir.settings() or {}
    machine = settings.get("machine", {})
    runs = settings.get("runs", [])
    training = trace.model.training_
    load = pd.to_numeric(records["host_load_1m"], errors="coerce")
    wall = sum(float(r.get("wall_s") or 0) for r in runs)
    planned_uber = records["probe_planned_uber"].fillna(False).astype(bool)
    ran_uber = records["uberized"].fillna(False).astype(bool)
    buf = io.StringIO()
    buf.write("# Held-out evaluation\n\n")
    buf.write(f"Written by `{command_line(trace)}`.\n\n")
    m = trace.model
    calibrated = " (calibrated)" if m.calibrate is not None else ""
    buf.write(f"- model: `{MODEL_NAME}` — {m.features} features, {m.form} form, {m.method}, "
              f"{m.clock} clock, intervals at {level}{calibrated}; fitted on "
              f"{Path(str(training.get('trace', '?'))).name} ({training.get('jobs', '?')} "
              "jobs)\n")
    buf.write(f"- jobs: {len(records)} recorded of {trace.design.jobs} planned, "
              f"{int(records['n_maps'].min())}-{int(records['n_maps'].max())} maps, "
              f"{records['map_input_bytes'].min() / MiB:.2f}-"
              f"{records['map_input_bytes'].max() / MiB:.1f} MiB; "
              f"{int((records['state'] != 'SUCCEEDED').sum())} did not succeed\n")
    buf.write(f"- machine: {machine.get('cores', '?')} cores, {machine.get('cpu_model', '?')}, "
              f"Python {machine.get('python', '?')}; "
              + ("jobs and probes on the Hadoop mini cluster\n" if trace.engine == "hadoop"
                 else "local engine workers "
                 f"{', '.join(str(r.get('workers')) for r in runs) or '?'}\n"))
    buf.write(f"- host load (1 min) at each job's end: median {load.median():.2f}, "
              f"range {load.min():.2f}-{load.max():.2f}\n")
    buf.write(f"- measured in {len(runs)} run(s), {wall / 60:.1f} min in all, "
              f"{runs[0].get('started', '?') if runs else '?'} to "
              f"{runs[-1].get('finished', '?') if runs else '?'}\n")
    sized = ("probed, sized from their probes" if trace.design.probe_uber
             else "not probed (--uber-from-history), sized from history")
    buf.write(f"- probe plan said uber ({sized}) for "
              f"{int(planned_uber.sum())} jobs; the engine ran {int(ran_uber.sum())} jobs in "
              f"uber mode; they disagreed on {int((planned_uber != ran_uber).sum())}\n\n")
    buf.write("## Held-out kinds: probe → predict → run\n\n")
    buf.write("Each job probed as `jobsize probe` does, predicted with `jobsize.predict` from "
              "the job document in `jobs/<i>.json` (replay one with `jobsize predict --model "
              "model.json --job jobs/<i>.json`), run as `jobsize run` does, and recorded from "
              f"its .jhist into `{TRACE_NAME}`.\n\n")
    shapes = {k: workload(k).profile for k in trace.design.kinds}
    buf.write(_table(held, level))
    buf.write(_targets_row())
    buf.write("\n" + "".join(f"- {k}: {shapes[k]} — {workload(k).description}\n"
                             for k in trace.design.kinds))
    buf.write(_drawn_text(trace.design))
    buf.write("\n## Leave one kind out, over everything\n\n")
    buf.write(f"The reference trace ({Path(reference).name}) and the held-out trace pooled; "
              "each kind's jobs predicted by a model with the options above fitted on every "
              "other kind (scikit-learn's LeaveOneGroupOut by `job_type`). Pairs in "
              f"`{LOKO_NAME}`. Probe cost from the traces' `probe_wall_ms`.\n\n")
    buf.write(_table(loko, level))
    buf.write(_targets_row())
    buf.write(spread)
    buf.write("\n## Reading the tables\n\n" + READING)
    return buf.getvalue()


def _drawn_text(design: Design) -> str:
    """The report's section on the kinds drawn from the space of cost shapes: their seed and
    every parameter; empty when the design has none."""
    from jobsize.workloads.kindspace import SPACE_VERSION, is_drawn, point

    drawn = [point(k) for k in design.kinds if is_drawn(k)]
    if not drawn:
        return ""
    seeds = sorted({p.seed for p in drawn})
    java = "" if not any(p.language == "java" for p in drawn) else (
        " — a kind whose name ends in `-java` runs the same costs in Java "
        "(`org.jobsize.hadoop.CostShape`) in the task's JVM, drawn with chance "
        f"{design.java_share:g}")
    head = ("| kind | input | map-only | combiner | framework-bound | map rec / byte / key | "
            "fan-out | keys | Zipf | value bytes | piece / alphabet | start-up | "
            "combine rec / byte / key | reduce rec / byte / key | superlinear C, p | "
            "reduces per input, at most |\n" + "|---" * 16 + "|\n")

    def row(p: Any) -> str:
        cells = [p.name, p.input, _yes(p.map_only), _yes(p.combiner), _yes(p.framework),
                 f"{p.map_rec:g} / {p.map_byte:g} / {p.map_key:g}", f"{p.fan:g}", str(p.keys),
                 f"{p.zipf:g}", str(p.value_bytes),
                 f"{p.piece} / {p.alphabet}" if p.framework else "—", f"{p.start:g}",
                 f"{p.combine_rec:g} / {p.combine_byte:g} / {p.combine_key:g}"
                 if p.combiner else "—",
                 "—" if p.map_only else f"{p.reduce_rec:g} / {p.reduce_byte:g} / "
                 f"{p.reduce_key:g}",
                 f"{p.superlinear:g}, {p.power:g}" if p.superlinear else "—",
                 "—" if p.map_only else f"1 per {p.bytes_per_reduce // MiB} MiB, "
                 f"{p.max_reduces}"]
        return "| " + " | ".join(cells) + " |\n"

    return ("\n## Drawn kinds\n\n"
            f"{len(drawn)} kinds drawn with kind seed {', '.join(map(str, seeds))} from the "
            f"space of cost shapes (`jobsize.workloads.kindspace`, space version "
            f"{SPACE_VERSION}), each a Hadoop Streaming job of `jobsize.workloads.costshape` "
            "with these parameters as its arguments" + java + ". Costs are in units of work "
            "(one SHA-256 of 32 bytes, about 0.4 µs on an unloaded core) per input record, byte or "
            "distinct key of the task, start-up per map and reduce task; a superlinear reduce "
            "does C·n^p more per group of n records. Unlike the hand-written held-out kinds, "
            "the development set, drawn kinds test the models only while their kind seed is "
            "one that no earlier run has shown.\n\n"
            + head + "".join(row(p) for p in drawn))


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


READING = """\
- **R²**: unweighted, on the original scale (seconds; S in memory MB·s), over the kind's jobs
  that were predicted; SE_r over jobs with reduces. With a handful of jobs per kind it swings
  widely: read the pooled rows first.
- **median |err| S**: median of |predicted S − actual S| / actual S.
- **within ±25 %** and **off by ≥ 2×**: shares of jobs whose predicted S is within 25 % of the
  actual, and at least twice or at most half of it (a prediction of zero or less counts as off).
- **interval coverage**: share of jobs whose actual S lies inside the prediction's interval at
  the model's level (the level is in the column name).
- **probe cost**: the probe's wall time (listing the input, sampling, the probe job) over the
  job's total task time SE_m + SE_r, for jobs of at least 10 maps: median / 90th percentile
  (number of jobs).
- **probed jobs** and **jobs the probe plan took for uber**: the held-out jobs split by the
  probe's decision; a job taken for an uber job is probed and sized from its probe (with
  `--uber-from-history` it is not probed and is sized from the history).
- **unpredicted**: succeeded jobs for which the prediction failed (the trace's
  `predict_error` says why); they are left out of the error columns.
- **target**: what the size predictions should reach for a size-based scheduler to rely on them.
"""


def command_line(trace: HeldOutTrace) -> str:
    """The command that makes (or resumes) this evaluation."""
    d, defaults = trace.design, Design()
    parts = ["jobsize evaluate", f"-o {trace.dir.root}", f"--seed {trace.seed}",
             f"--jobs-per-kind {d.jobs_per_kind}"]
    if d.kind_seed is not None:
        parts.append(f"--drawn {len(d.kinds)} --kind-seed {d.kind_seed}")
        if d.java_share:
            parts.append(f"--java-share {d.java_share:g}")
    elif d.kinds != defaults.kinds:
        parts.append(f"--kinds {','.join(d.kinds)}")
    if d.scale != defaults.scale:
        parts.append(f"--scale {d.scale:g}")
    parts += [f"-D {k}={v}" for k, v in d.conf.items()]
    if d.max_fraction is not None:
        parts.append(f"--max-fraction {d.max_fraction:g}")
    if not d.probe_uber:
        parts.append("--uber-from-history")
    if trace.engine != "local":
        parts.append(f"--engine {trace.engine}")
    if trace.workers:
        parts.append(f"--parallel {trace.workers}")
    return " ".join(parts)


__all__ = ["SOURCE", "Design", "HeldOutTrace", "KindScores", "evaluation_model",
           "flat_job", "heldout_pairs", "kind_scores", "leave_one_kind_out", "prediction_columns",
           "write_report"]
