"""Design matrices of the SE_m and SE_r models, in the paper's form and the per-task form.

**The paper's form** (``form="paper"``). eq 6 (map phase, seven coefficients α0..α6)::

    SE_m = α0 + α1·N_m + α2·MI + α3·MFE + α4·MO + α5·MOR + α6·MOR·log(MOR)

eq 7 (reduce phase). The paper prints eq 7 as a copy of eq 6; its text names eight coefficients
β0..β7 and the quantities that enter — the reduce count, the reduce function time, the reduce
output, the reduce input records with the same n·log n (sort/merge) term, the map output that is
shuffled to the reduces, and SE_m "because early launched reduce tasks have to wait until all map
tasks are finished". Rebuilt from that text::

    SE_r = β0 + β1·N_r + β2·MO + β3·RFE + β4·RO + β5·RIR + β6·RIR·log(RIR) + β7·SE_m

with probe counters scaled by eq 8, ``P_o = P_p / f_p``.

**The per-task form** (``form="tasks"``) keeps eq 6 and 7's quantities and adds terms for costs
they have none for::

    SE_m = α0 + α1·N_m + α2·MI + α3·MFE + α4·MO + α5·MOR + α6·MOR·log(MOR/N_m)
           + α7·CIR + α8·CFE + α9·N_m·(PO − P̄)
    SE_r = β0 + β1·N_r + β2·SB + β3·RFE + β4·RO + β5·RIR + β6·RIR·log(RIR/N_r) + β7·SE_m
           + β8·SE_m·W(N_m, N_r; C)

- each map sorts only its own output, so the sort costs ``MOR·log(MOR/N_m)`` summed over the
  maps (and each reduce merges ``RIR/N_r`` records), not ``MOR·log(MOR)``; a map-only job's
  output is written as it comes, unsorted, so its sort term is 0;
- a combiner's cost: the records it reads (CIR) and the time inside it (CFE) — without them a
  record-heavy job without a combiner and one with an expensive combiner look alike;
- ``N_m·(PO − P̄)``: what each map's start-up moves with the cluster's speed and load as the
  probe found them — PO is the probe's own time beyond its functions
  (:mod:`jobsize.models.scaling`), P̄ the history's median of it; 0 where either is unknown
  (a job without a probe wall time, a history without probes), so α1 is then the history's
  per-map cost as before. A cluster whose machines changed, or run busier than when the
  history was measured, starts each container and JVM slower, and so does the probe;
- SB: the bytes the reduces fetch (after the combiner), where eq 7 uses the map output;
- ``wait``, SE_m·W: what the reduces that start early wait for the map waves still to run —
  nothing when the maps run in one wave (:mod:`jobsize.models.waves`; C, the map containers a
  job gets, is the history's, 0 where the history shows no waves);
- with probe features, the quantities come from eq 8 in its per-task form
  (:mod:`jobsize.models.scaling`): per-task costs scale by N_m or N_r, fixed-size outputs do
  not grow, what the reduces write follows the job's distinct keys.

In both forms, when SE_r is predicted the SE_m (and wait) terms take the *predicted* SE_m;
when the model is fitted they take the job's actual SE_m. Times enter in seconds, bytes in
bytes, records in records; ``log`` is the natural logarithm and ``0·log 0`` is 0 (an empty
output), as is the sort term of fewer than one record per task.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from jobsize.models import scaling
from jobsize.models.waves import wave_factor, wave_factor_one

from jobsize.errors import ConfigError
from jobsize.schema import MODEL_INPUTS, TARGETS

PHASES: tuple[str, ...] = ("SE_m", "SE_r")
FEATURE_SETS: tuple[str, ...] = ("probe", "actual")
FORMS: tuple[str, ...] = ("tasks", "paper")
EQUATION: dict[str, int] = {"SE_m": 6, "SE_r": 7}

PROBE_FRACTION = "probe_fraction"

#: The terms of each equation in each form, intercept first.
_TERMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("SE_m", "paper"): ("const", "N_m", "MI", "MFE", "MO", "MOR", "MOR·log MOR"),
    ("SE_r", "paper"): ("const", "N_r", "MO", "RFE", "RO", "RIR", "RIR·log RIR", "SE_m"),
    ("SE_m", "tasks"): ("const", "N_m", "MI", "MFE", "MO", "MOR", "MOR·log(MOR/N_m)",
                        "CIR", "CFE", "N_m·ΔPO"),
    ("SE_r", "tasks"): ("const", "N_r", "SB", "RFE", "RO", "RIR", "RIR·log(RIR/N_r)", "SE_m",
                        "wait"),
}

#: Units of each term's *variable* (the coefficient's unit is seconds per that unit).
TERM_UNITS: dict[str, str] = {
    "const": "", "N_m": "tasks", "N_r": "tasks", "MI": "bytes", "MO": "bytes", "RO": "bytes",
    "SB": "bytes", "MFE": "s", "RFE": "s", "CFE": "s", "MOR": "records", "RIR": "records",
    "CIR": "records", "MOR·log MOR": "records", "RIR·log RIR": "records",
    "MOR·log(MOR/N_m)": "records", "RIR·log(RIR/N_r)": "records", "SE_m": "s", "wait": "s",
    "N_m·ΔPO": "tasks·s",
}


def check_phase(phase: str) -> None:
    if phase not in PHASES:
        raise ConfigError(f"unknown model {phase!r}; expected one of {', '.join(PHASES)}")


def check_features(features: str) -> None:
    if features not in FEATURE_SETS:
        raise ConfigError(
            f"unknown feature set {features!r}; expected one of {', '.join(FEATURE_SETS)}")


def check_form(form: str) -> None:
    if form not in FORMS:
        raise ConfigError(f"unknown model form {form!r}; expected one of {', '.join(FORMS)}")


def terms(phase: str, form: str = "paper") -> tuple[str, ...]:
    """Names of the design columns (coefficients) of eq 6 or eq 7 in ``form``."""
    check_phase(phase)
    check_form(form)
    return _TERMS[(phase, form)]


def input_columns(phase: str, features: str, form: str = "paper") -> tuple[str, ...]:
    """Record columns a prediction with this model needs (the target excluded); further
    columns are used where known (:func:`optional_columns`). The per-task form takes function
    times (MFE, RFE) from the timing wrapper where it reported them and from the tasks' CPU
    time otherwise — a cluster without the wrapper records only the latter."""
    check_phase(phase)
    check_features(features)
    check_form(form)
    if form == "paper":
        return MODEL_INPUTS[(phase, features)]
    shape = ("n_maps", "n_reduces", "map_input_bytes")
    if features == "probe":
        return (*shape, *scaling.PROBE_REQUIRED[phase])
    own = {"SE_m": ("map_output_records",),
           "SE_r": ("reduce_output_bytes", "reduce_input_records", "map_output_bytes")}
    return (*shape, *own[phase])


def optional_columns(features: str, form: str) -> tuple[str, ...]:
    """Columns the per-task form reads where they are known."""
    if form == "paper":
        return ()
    if features == "probe":
        return scaling.PROBE_OPTIONAL
    return (*scaling.ACTUAL_OPTIONAL, "map_function_ms", "reduce_function_ms",
            "map_output_bytes", "reduce_output_bytes")


def training_columns(phase: str, features: str, form: str = "paper") -> tuple[str, ...]:
    """Record columns a job needs to enter the fit of this model (inputs, target, SE_m)."""
    extra = (TARGETS["SE_m"],) if phase == "SE_r" else ()
    return (*input_columns(phase, features, form), TARGETS[phase], *extra)


# ---------------------------------------------------------------------------------------------
# Batch: arrays of many jobs


def xlogx(x: np.ndarray) -> np.ndarray:
    """``x·log x`` elementwise with ``0·log 0 = 0`` (and 0 for any x ≤ 0)."""
    out = np.zeros_like(x, dtype=float)
    pos = x > 0
    out[pos] = x[pos] * np.log(x[pos])
    return out


def sorted_per_task(records: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    """``R·log(R/N)``: N tasks each sorting R/N records; 0 below one record per task."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per = records / tasks
        return np.where(per > 1, records * np.log(np.where(per > 1, per, 1.0)), 0.0)


def quantities(columns: Mapping[str, np.ndarray], features: str, form: str,
               key_cost: float = 0.0) -> dict[str, np.ndarray]:
    """The job-level quantities (:mod:`jobsize.models.scaling`) of each job; ``key_cost``: κ,
    what a key costs a reduce in records (probe features, per-task form)."""
    if features == "actual":
        q = scaling.actual(columns)
        if form == "paper":  # eq 6/7 read the recorded map output as it is
            q["MO"] = np.asarray(columns["map_output_bytes"], dtype=float)
        return q
    return scaling.probe(columns, form, key_cost)


def design_matrix(
    columns: Mapping[str, np.ndarray], phase: str, features: str,
    se_m: np.ndarray | None = None, form: str = "paper",
    q: Mapping[str, np.ndarray] | None = None, key_cost: float = 0.0, map_slots: float = 0.0,
    overhead: float = math.nan,
) -> np.ndarray:
    """The n × p design matrix of eq 6 or eq 7 (in ``form``) from float arrays keyed by column.

    ``se_m`` (seconds) fills eq 7's SE_m column; it is required for ``"SE_r"``. Missing values
    propagate as NaN; the caller decides which rows are usable. ``q``: the jobs'
    :func:`quantities`, when already computed (both equations read them); ``key_cost``: as in
    :func:`quantities`; ``map_slots``: C of the ``wait`` term (0: no waves); ``overhead``: P̄
    of the ``N_m·ΔPO`` term (NaN: the term is 0).
    """
    check_features(features)
    names = terms(phase, form)
    if q is None:
        q = quantities(columns, features, form, key_cost)
    n = len(q["N_m"])
    x = np.empty((n, len(names)))
    for j, name in enumerate(names):
        x[:, j] = _term(name, q, se_m, n, map_slots, overhead)
    return x


def _term(name: str, q: Mapping[str, np.ndarray], se_m: np.ndarray | None, n: int,
          map_slots: float, overhead: float) -> np.ndarray:
    if name == "const":
        return np.ones(n)
    if name == "N_m·ΔPO":
        return np.nan_to_num(q["N_m"] * (np.asarray(q["PO"], dtype=float) - overhead))
    if name in ("SE_m", "wait"):
        if se_m is None:
            raise ValueError("eq 7 needs SE_m")
        se_m = np.asarray(se_m, dtype=float)
        return se_m if name == "SE_m" else se_m * wave_factor(q["N_m"], q["N_r"], map_slots)
    if name == "MOR·log MOR":
        return xlogx(q["MOR"])
    if name == "RIR·log RIR":
        return xlogx(q["RIR"])
    if name == "MOR·log(MOR/N_m)":  # a map-only job's output is written, not sorted
        return np.where(q["N_r"] > 0, sorted_per_task(q["MOR"], q["N_m"]), 0.0)
    if name == "RIR·log(RIR/N_r)":
        return sorted_per_task(q["RIR"], q["N_r"])
    return q[name]


# ---------------------------------------------------------------------------------------------
# One job


def job_quantities(job: Mapping[str, float], features: str, form: str, key_cost: float = 0.0
                   ) -> dict[str, np.ndarray]:
    """:func:`quantities` of one job given as a mapping (both equations' columns; those eq 7
    alone needs may be missing for a map-only job)."""
    cols = {}
    for name in dict.fromkeys((*input_columns("SE_m", features, form),
                               *input_columns("SE_r", features, form),
                               *optional_columns(features, form))):
        if name in job:
            cols[name] = np.array([job[name]], dtype=float)
    return quantities(cols, features, form, key_cost)


def design_row(
    job: Mapping[str, float], phase: str, features: str, se_m: float | None = None,
    form: str = "paper", q: Mapping[str, np.ndarray] | None = None, key_cost: float = 0.0,
    map_slots: float = 0.0, overhead: float = math.nan,
) -> list[float]:
    """One row of :func:`design_matrix` from a mapping of column name → float; a required
    column missing from ``job`` raises KeyError naming it. ``q``: the job's
    :func:`job_quantities`, when already computed; ``key_cost``, ``map_slots`` and
    ``overhead``: as in :func:`design_matrix`."""
    if form == "paper":
        return _paper_row(job, phase, features, se_m)
    for name in input_columns(phase, features, form):
        if name not in job:
            raise KeyError(name)
    if q is None and features == "probe":
        return _tasks_row(scaling.probe_one(job, key_cost), phase, se_m, map_slots, overhead)
    if q is None:
        q = job_quantities(job, features, form, key_cost)
    se = None if se_m is None else np.array([se_m])
    return design_matrix({}, phase, features, se, form, q, map_slots=map_slots,
                         overhead=overhead)[0].tolist()


def _tasks_row(q: Mapping[str, float], phase: str, se_m: float | None, map_slots: float,
               overhead: float) -> list[float]:
    """:func:`design_matrix`'s row in the per-task form from one job's float quantities."""
    row = []
    for name in terms(phase, "tasks"):
        if name == "const":
            row.append(1.0)
        elif name == "N_m·ΔPO":
            shift = q["N_m"] * (q["PO"] - overhead)
            row.append(shift if math.isfinite(shift) else 0.0)
        elif name in ("SE_m", "wait"):
            if se_m is None:
                raise ValueError("eq 7 needs SE_m")
            row.append(se_m if name == "SE_m"
                       else se_m * wave_factor_one(q["N_m"], q["N_r"], map_slots))
        elif name in ("MOR·log(MOR/N_m)", "RIR·log(RIR/N_r)"):
            records, tasks = (q["MOR"], q["N_m"]) if name[0] == "M" else (q["RIR"], q["N_r"])
            per = records / tasks if tasks else math.nan
            sorted_ = name[0] == "R" or q["N_r"] > 0
            row.append(records * math.log(per) if per > 1 and sorted_ else 0.0)
        else:
            row.append(q[name])
    return row


def _paper_row(job: Mapping[str, float], phase: str, features: str,
               se_m: float | None) -> list[float]:
    """eq 6/7 with eq 8's scaling in plain floats: no numpy on the paper's path."""
    cols = [c for c in MODEL_INPUTS[(phase, features)] if c != PROBE_FRACTION]
    row = [1.0]
    if features == "probe":
        fraction = job[PROBE_FRACTION]
        for c in cols:
            value = job[c] * (1e-3 if c.endswith("_ms") else 1.0)
            row.append(value / fraction if c.startswith("probe_") else value)
    else:
        row.extend(job[c] * (1e-3 if c.endswith("_ms") else 1.0) for c in cols)
    last = row[-1]
    row.append(last * math.log(last) if last > 0 else 0.0)
    if phase == "SE_r":
        if se_m is None:
            raise ValueError("eq 7 needs SE_m")
        row.append(se_m)
    return row
