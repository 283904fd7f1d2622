"""Job-level quantities of a job, from its probe (eq 8 and its per-task form) or its counters.

The models' terms are built from a handful of job-level quantities: N_m, N_r, MI, the map and
reduce function times MFE and RFE, the map output MO and MOR, the records and bytes the reduces
get (RIR, shuffled bytes), what the reduces write (RO), the combiner's input CIR and time CFE.
With ``features="actual"`` they are the job's own counters. With ``features="probe"`` they are
the probe's counters scaled to the whole job, in one of two forms:

``paper`` — eq 8 as printed: every probe counter P_p becomes ``P_o = P_p / f_p``.

``tasks`` — eq 8 applied only to what grows with a task's input, using what the split probe
(:mod:`jobsize.sampler.probeparts`) measured about each quantity:

- a function time ``t = a + b·x`` per task: ``T_o = N·a + (T_p − k·a) / f_p`` — the per-task
  part ``a`` (start-up) is paid N_m (N_r) times, not ``1 / f_p = max(N_m, N_r)`` times (a probe
  map that read two files ran two mapper processes, so k counts processes; the probe's empty
  task paid its measured start-up, not ``a``); RFE's variable part grows with the reduce
  input records — but where the probe's reduces read none (a map that filtered its whole
  sample away), what they spent is per-task cost, and each of the job's N_r reduces pays
  what one of the probe's k paid: ``N_r·(T_p − paid) / k`` beyond the start-ups;
- a map output ``y = c·x^β`` per map task of input x: the job's N_m maps of input MI / N_m each
  emit ``N_m·c·(MI/N_m)^β`` (β = 0: a fixed-size output such as an in-map top-k; β = 1: eq 8);
- the distinct keys follow Heaps' law ``G ∝ input^δ``, and the reduces write per key:
  ``RO_o = RO_p·(G_o / G_p)`` with ``G_o = G_p·f_p^(−δ)`` — a job with 64 centroids writes 64
  centroids however large its input;
- a reduce function pays per record and per key (group): ``α·R·(1 + κ·G/R)``. The sample's keys
  repeat less than the job's (G_p/R_p ≥ G_o/R_o), so RFE's variable part, scaled by records,
  is multiplied by ``(1 + κ·G_o/R_o) / (1 + κ·G_p/R_p)`` (:func:`key_cost_scale`); κ, what a
  key costs in records, is the history's (:func:`fit_key_cost`; 0 gives the records alone);
- the combiner starts afresh at each run (once per spill): its start-up ``c``, measured over no
  records, is paid ``runs`` times — in the job once per spill of each map, by the job's own sort
  buffer (:func:`combiner_runs`) — and only the rest grows with the records.

- the probe's own start-up ``PO``, the seconds it took beyond its functions (``probe_wall_ms``
  less its map, reduce and combine function times): how long the cluster takes, now, to
  start a job and its tasks — JVMs, containers, the machine's speed and load. It is no
  quantity of eq 8; the per-task form's SE_m takes it as a term (:mod:`jobsize.models.design`).

A probe that ran one map and one reduce (no split columns) gets eq 8's plain scaling in both
forms. Every function here works on numpy arrays, one element per job.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from jobsize.schema import DEFAULT_SORT_BUFFER

#: Values of κ (a key's reduce cost in records) :func:`fit_key_cost` chooses from.
KEY_COSTS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)
#: Differences of the median |log(probe / own)| below this are noise: the smaller κ is kept.
KEY_COST_TOLERANCE = 0.01
#: Fewest jobs with both a probe's and their own reduce function time that κ is fitted on.
KEY_COST_MIN_JOBS = 10
#: The jobs' own reduce function time (timing wrapper, else CPU time) κ is fitted on.
KEY_COST_COLUMNS = ("reduce_function_ms", "reduce_cpu_ms", "n_reduces")

#: Quantities the models' terms are built from, in seconds, bytes and records.
QUANTITIES = ("N_m", "N_r", "MI", "MFE", "MO", "MOR", "RIR", "SB", "RFE", "RO", "CIR", "CFE")

#: Bytes a map's sort buffer holds before it spills, at Hadoop's defaults
#: (``mapreduce.task.io.sort.mb`` 100 × ``mapreduce.map.sort.spill.percent`` 0.8); a job's own
#: settings (record columns ``map_sort_mb``, ``map_spill_percent``) take their place.
SPILL_BYTES = (DEFAULT_SORT_BUFFER["map_sort_mb"] * 2**20
               * DEFAULT_SORT_BUFFER["map_spill_percent"])
#: The job's sort-buffer columns: size (MB), spill share, spills from which the merge combines.
SORT_COLUMNS = ("map_sort_mb", "map_spill_percent", "combine_min_spills")

_MS = 1e-3

#: The job's own columns behind each quantity (``features="actual"``).
ACTUAL_COLUMNS: dict[str, str] = {
    "N_m": "n_maps", "N_r": "n_reduces", "MI": "map_input_bytes",
    "MFE": "map_function_ms", "MO": "map_output_bytes", "MOR": "map_output_records",
    "RIR": "reduce_input_records", "SB": "reduce_shuffle_bytes", "RFE": "reduce_function_ms",
    "RO": "reduce_output_bytes", "CIR": "combine_input_records", "CFE": "combine_function_ms",
}

#: Probe columns that must be known to scale a probe (eq 8), by phase.
PROBE_REQUIRED: dict[str, tuple[str, ...]] = {
    "SE_m": ("probe_fraction", "probe_map_output_bytes", "probe_map_output_records"),
    "SE_r": ("probe_fraction", "probe_map_output_bytes", "probe_map_output_records",
             "probe_reduce_output_bytes", "probe_reduce_input_records"),
}

#: Probe columns used when known; the split probe's shape and the combiner's counters.
PROBE_OPTIONAL: tuple[str, ...] = (
    "probe_map_function_ms", "probe_reduce_function_ms", "probe_map_cpu_ms",
    "probe_reduce_cpu_ms", "probe_input_bytes", "probe_map_tasks", "probe_reduce_tasks",
    "probe_map_processes",
    "probe_map_split",
    "probe_reduce_split", "probe_map_function_fixed_ms", "probe_reduce_function_fixed_ms",
    "probe_map_function_startup_ms", "probe_reduce_function_startup_ms",
    "probe_map_output_exponent", "probe_reduce_input_exponent", "probe_key_exponent",
    "probe_reduce_input_groups", "probe_combine_function_ms", "probe_combine_input_records",
    "probe_combine_runs", "probe_combine_function_fixed_ms", "probe_wall_ms", *SORT_COLUMNS,
)

#: Job columns used when known with ``features="actual"`` (a cluster without the timing wrapper
#: has no combiner time; a job without a combiner has CIR = 0).
ACTUAL_OPTIONAL: tuple[str, ...] = ("combine_input_records", "combine_function_ms",
                                    "reduce_shuffle_bytes", "map_cpu_ms", "reduce_cpu_ms")

Arrays = Mapping[str, np.ndarray]


def actual(cols: Arrays) -> dict[str, np.ndarray]:
    """The job's own quantities; times in seconds. What a map-only job's maps write (RO) is its
    map output; shuffled bytes default to MO."""
    n = len(next(iter(cols.values())))
    q = {name: np.asarray(cols[col], dtype=float) if col in cols else np.full(n, np.nan)
         for name, col in ACTUAL_COLUMNS.items()}
    map_only = q["N_r"] == 0
    q["MFE"] = function_time(q["MFE"], _column(cols, "map_cpu_ms", n))
    q["RFE"] = np.where(map_only, 0.0,
                        function_time(q["RFE"], _column(cols, "reduce_cpu_ms", n)))
    q["MO"] = np.where(map_only & ~np.isfinite(q["MO"]), q["RO"], q["MO"])
    q["CIR"] = _known(q["CIR"], n, 0.0)
    q["CFE"] = np.where(q["CIR"] == 0, 0.0, _known(q["CFE"], n, 0.0) * _MS)
    q["SB"] = np.where(np.isfinite(q["SB"]), q["SB"], q["MO"])
    for name in ("RIR", "RO"):
        q[name] = np.where(map_only, np.nan_to_num(q[name]), q[name])
    q["PO"] = np.full(n, np.nan)  # a probe's, which the job's own counters do not tell
    return q


def probe(cols: Arrays, form: str, key_cost: float = 0.0) -> dict[str, np.ndarray]:
    """The job's quantities from its probe record (eq 8, ``form`` "paper" or "tasks"; in the
    per-task form a key costs the reduce function ``key_cost`` records' worth)."""
    n_m = np.asarray(cols["n_maps"], dtype=float)
    n_r = np.asarray(cols["n_reduces"], dtype=float)
    mi = np.asarray(cols["map_input_bytes"], dtype=float)
    f = np.asarray(cols["probe_fraction"], dtype=float)
    n = len(n_m)

    def col(name: str, default: float = np.nan) -> np.ndarray:
        return _known(np.asarray(cols[name], dtype=float) if name in cols else None, n, default)

    mfe = function_time(col("probe_map_function_ms"), col("probe_map_cpu_ms"))
    rfe = function_time(col("probe_reduce_function_ms"), col("probe_reduce_cpu_ms"))
    mo, mor = col("probe_map_output_bytes"), col("probe_map_output_records")
    rir, ro = col("probe_reduce_input_records"), col("probe_reduce_output_bytes")
    cir = col("probe_combine_input_records", 0.0)
    cfe = col("probe_combine_function_ms", 0.0) * _MS
    map_only = n_r == 0
    if form == "paper":
        q = {"MFE": mfe / f, "MO": mo / f, "MOR": mor / f, "RIR": rir / f, "RFE": rfe / f,
             "RO": ro / f, "CIR": cir / f, "CFE": cfe / f}
        q["SB"] = q["MO"]
    else:
        q = _per_task(cols, col, n_m, n_r, mi, f, mfe, rfe, mo, mor, rir, ro, cir, cfe,
                      key_cost)
    q.update({"N_m": n_m, "N_r": n_r, "MI": mi,
              "PO": _overhead(col("probe_wall_ms"), mfe, rfe, cfe)})
    for name in ("RIR", "SB", "RFE", "RO"):
        q[name] = np.where(map_only, 0.0, q[name])
    q["MO"] = np.where(map_only & (q["MO"] == 0), q.pop("RO_map", q["MO"]), q["MO"])
    return q


def _overhead(wall_ms: np.ndarray, *functions_s: np.ndarray) -> np.ndarray:
    """PO (s): the probe's wall time beyond its map, reduce and combine functions (s), never
    below nothing; NaN where the wall time is unknown (an unknown function time counts as
    none)."""
    return np.maximum(wall_ms * _MS - sum(np.nan_to_num(t) for t in functions_s), 0.0)


def _per_task(cols, col, n_m, n_r, mi, f, mfe, rfe, mo, mor, rir, ro, cir, cfe, key_cost
              ) -> dict[str, np.ndarray]:
    """Eq 8 in its per-task form (see the module docstring)."""
    k_m = col("probe_map_tasks", 1.0)
    processes = col("probe_map_processes", np.nan)
    processes = np.where(np.isfinite(processes), processes, k_m)
    k_r = col("probe_reduce_tasks", 1.0)
    a_m = col("probe_map_function_fixed_ms", 0.0) * _MS
    a_r = col("probe_reduce_function_fixed_ms", 0.0) * _MS
    paid_m = fixed_paid(a_m, processes, col("probe_map_function_startup_ms") * _MS)
    paid_r = fixed_paid(a_r, k_r, col("probe_reduce_function_startup_ms") * _MS)
    sample = np.where(np.isfinite(col("probe_input_bytes")), col("probe_input_bytes"), f * mi)
    w = col("probe_map_split", np.nan)
    per_map = mi / np.maximum(n_m, 1.0)

    scales: dict[str, np.ndarray] = {}

    def grow(total: np.ndarray, beta_column: str) -> np.ndarray:
        if beta_column not in scales:
            beta = col(beta_column, 1.0)
            scales[beta_column] = map_scale(beta, w, k_m, n_m, per_map, sample, f)
        return total * scales[beta_column]

    mor_o, mo_o = grow(mor, "probe_map_output_exponent"), grow(mo, "probe_map_output_exponent")
    rir_o = grow(rir, "probe_reduce_input_exponent")
    # over: a subnormal record count makes bytes per record infinite, as the one-job path does
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # reduces that read no record spent only fixed costs: each of the job's pays theirs
        per_record = np.where(rir > 0, rir_o / rir,
                              np.where((rir == 0) & (k_r > 0), n_r / k_r, 1.0 / f))
        delta = col("probe_key_exponent", 1.0)
        groups = col("probe_reduce_input_groups", np.nan)
        by_keys = np.where(groups > 0, f ** (-delta), 1.0 / f)
        # bytes per record times records: no product of two large counts to overflow
        sb_o = np.where(mor > 0, mo_o * (rir_o / np.where(mor > 0, mor_o, 1.0)), mo_o)
    keyed = key_cost_scale(key_cost, groups, rir, groups * by_keys, rir_o)
    # the combiner: its start-up c once per run, the rest with the records it reads
    c = col("probe_combine_function_fixed_ms", np.nan) * _MS
    runs_p = col("probe_combine_runs", np.nan)
    has_c = np.isfinite(c) & np.isfinite(runs_p) & (cir > 0)
    c, runs_p = np.where(has_c, c, 0.0), np.where(has_c, runs_p, 0.0)
    buffer = {name: col(name, DEFAULT_SORT_BUFFER[name]) for name in SORT_COLUMNS}
    spill_bytes = buffer["map_sort_mb"] * 2**20 * buffer["map_spill_percent"]
    runs_o = np.where(has_c, combiner_runs(n_m, mo_o, spill_bytes,
                                           buffer["combine_min_spills"]), 0.0)
    s_out = scales["probe_map_output_exponent"]
    cfe_o = runs_o * c + np.maximum(cfe - runs_p * c, 0.0) * s_out
    return {
        "MFE": n_m * a_m + np.maximum(mfe - paid_m, 0.0) / f,
        "RFE": n_r * a_r + np.maximum(rfe - paid_r, 0.0) * per_record * keyed,
        "MO": mo_o, "MOR": mor_o, "RIR": rir_o, "SB": sb_o,
        "RO": ro * by_keys, "RO_map": grow(ro, "probe_map_output_exponent"),
        "CIR": grow(cir, "probe_map_output_exponent"), "CFE": cfe_o,
    }


def key_cost_scale(key_cost: float, groups: np.ndarray, records: np.ndarray,
                   groups_o: np.ndarray, records_o: np.ndarray) -> np.ndarray:
    """What the probe's reduce function time, scaled by records, is multiplied by when a key
    (group) costs ``key_cost`` records: ``(1 + κ·G_o/R_o) / (1 + κ·G_p/R_p)`` for the probe's
    ``groups`` over ``records`` and the job's ``groups_o`` over ``records_o`` (at most one
    key per record). 1 where the keys are not known."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share_p = groups / records
        share_o = np.minimum(groups_o / records_o, 1.0)
        scale = (1.0 + key_cost * share_o) / (1.0 + key_cost * share_p)
    return np.where(np.isfinite(scale) & (groups > 0) & (records > 0), scale, 1.0)


def fit_key_cost(cols: Arrays, rows: np.ndarray) -> float:
    """κ from a history: the value of :data:`KEY_COSTS` with which the ``rows`` jobs' probes,
    scaled in the per-task form, come closest to the reduce function time the jobs reported
    themselves (median |log(probe / own)|) — the smallest within
    :data:`KEY_COST_TOLERANCE` of the closest. 0 with fewer than :data:`KEY_COST_MIN_JOBS`
    such jobs."""
    n = len(rows)
    own = function_time(_column(cols, "reduce_function_ms", n), _column(cols, "reduce_cpu_ms", n))
    rows = rows & np.isfinite(own) & (own > 0) & (_column(cols, "n_reduces", n) > 0)
    if rows.sum() < KEY_COST_MIN_JOBS:
        return 0.0
    sub = {k: np.asarray(v, dtype=float)[rows] for k, v in cols.items()}
    errors = []
    for key_cost in KEY_COSTS:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log(probe(sub, "tasks", key_cost)["RFE"] / own[rows])
        ratio = ratio[np.isfinite(ratio)]
        errors.append(float(np.median(np.abs(ratio))) if len(ratio) else math.inf)
    best = min(errors)
    if not math.isfinite(best):
        return 0.0
    return next(k for k, e in zip(KEY_COSTS, errors, strict=True)
                if e <= best + KEY_COST_TOLERANCE)


def fixed_paid(a: np.ndarray, k: np.ndarray, startup: np.ndarray) -> np.ndarray:
    """What the probe's ``k`` tasks (or mapper processes) of a kind paid in fixed costs: ``a``
    each, but the empty one among them only its ``startup`` (where measured; without it, no
    empty task ran or the record predates it, and every task paid ``a``)."""
    return np.where(np.isfinite(startup), startup + (k - 1) * a, k * a)


def combiner_runs(n_m: np.ndarray, mo: np.ndarray, spill_bytes: np.ndarray | float = SPILL_BYTES,
                  min_spills: np.ndarray | float = DEFAULT_SORT_BUFFER["combine_min_spills"]
                  ) -> np.ndarray:
    """Runs of the combiner in a job of N_m maps writing MO bytes: once per spill, a spill per
    ``spill_bytes`` of a map's output (at least one); ``min_spills`` spills or more add a run
    over their merge (``mapreduce.map.combine.minspills``; a single spill is never merged)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        spills = np.maximum(np.ceil(mo / np.maximum(n_m, 1.0) / spill_bytes), 1.0)
    spills = np.where(np.isfinite(spills), spills, 1.0)
    return n_m * (spills + (spills >= np.maximum(min_spills, 2)))


def map_scale(beta: np.ndarray, w: np.ndarray, k_m: np.ndarray, n_m: np.ndarray,
              per_map: np.ndarray, sample: np.ndarray, f: np.ndarray) -> np.ndarray:
    """What a probe total of a map output ``y = c·x^β`` is multiplied by to give the job's:
    the probe's k_m maps got ``w`` and ``1 − w`` of the sample, the job's N_m maps MI / N_m
    each. Without a split (k_m = 1 or β unknown) it is eq 8's ``1 / f_p``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        split = (w ** beta + (1 - w) ** beta)
        scale = n_m * (per_map / sample) ** beta / split
    usable = (k_m == 2) & np.isfinite(scale) & (sample > 0)
    return np.where(usable, scale, 1.0 / f)


def function_time(measured_ms: np.ndarray, cpu_ms: np.ndarray) -> np.ndarray:
    """A function time in seconds: as the timing wrapper measured it, else — on a cluster
    without the wrapper — the tasks' CPU time, which Hadoop always records."""
    return np.where(np.isfinite(measured_ms), measured_ms, cpu_ms) * _MS


def used_cpu_for_function_time(cols: Arrays, features: str) -> int:
    """How many jobs' function times come from CPU time (no timing wrapper)."""
    names = (("probe_map_function_ms", "probe_map_cpu_ms") if features == "probe"
             else ("map_function_ms", "map_cpu_ms"))
    measured = np.asarray(cols.get(names[0], []), dtype=float)
    cpu = np.asarray(cols.get(names[1], []), dtype=float)
    if not len(measured) or len(cpu) != len(measured):
        return 0
    return int((~np.isfinite(measured) & np.isfinite(cpu)).sum())


def _column(cols: Arrays, name: str, n: int) -> np.ndarray:
    return np.asarray(cols[name], dtype=float) if name in cols else np.full(n, np.nan)


def _known(values: np.ndarray | None, n: int, default: float) -> np.ndarray:
    if values is None:
        return np.full(n, default)
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    return values if finite.all() else np.where(finite, values, default)


# ---------------------------------------------------------------------------------------------
# One job in plain floats: the path a single prediction takes (a scheduler's call, a service
# request) does without numpy's per-call overhead. It computes exactly what :func:`probe` does
# in the per-task form; a property test holds the two equal.


def probe_one(job: Mapping[str, float], key_cost: float = 0.0) -> dict[str, float]:
    """:func:`probe` (per-task form) of one job given as column name → float (absent: unknown)."""
    n_m, n_r, mi, f = job["n_maps"], job["n_reduces"], job["map_input_bytes"], job[
        "probe_fraction"]

    def known(name: str, default: float = math.nan) -> float:
        return known_one(job, name, default)

    mfe = function_ms_one(job, "map") * _MS
    rfe = function_ms_one(job, "reduce") * _MS
    mo, mor = known("probe_map_output_bytes"), known("probe_map_output_records")
    rir, ro = known("probe_reduce_input_records"), known("probe_reduce_output_bytes")
    cir = known("probe_combine_input_records", 0.0)
    cfe = known("probe_combine_function_ms", 0.0) * _MS
    k_m = known("probe_map_tasks", 1.0)
    processes = known("probe_map_processes", k_m)
    k_r = known("probe_reduce_tasks", 1.0)
    a_m = known("probe_map_function_fixed_ms", 0.0) * _MS
    a_r = known("probe_reduce_function_fixed_ms", 0.0) * _MS
    s_m = known("probe_map_function_startup_ms") * _MS
    s_r = known("probe_reduce_function_startup_ms") * _MS
    paid_m, paid_r = _fixed_paid_one(a_m, processes, s_m), _fixed_paid_one(a_r, k_r, s_r)
    sample = known("probe_input_bytes", f * mi)
    w = known("probe_map_split")
    per_map = mi / max(n_m, 1.0)

    def scale(beta_column: str) -> float:
        beta = known(beta_column, 1.0)
        try:
            value = n_m * (per_map / sample) ** beta / (w ** beta + (1 - w) ** beta)
        except (ZeroDivisionError, OverflowError, ValueError):
            value = math.nan
        usable = k_m == 2 and sample > 0 and isinstance(value, float) and math.isfinite(value)
        return value if usable else 1.0 / f

    s_out = scale("probe_map_output_exponent")
    mor_o, mo_o, rir_o = mor * s_out, mo * s_out, rir * scale("probe_reduce_input_exponent")
    per_record = rir_o / rir if rir > 0 else n_r / k_r if rir == 0 and k_r > 0 else 1.0 / f
    groups = known("probe_reduce_input_groups")
    by_keys = f ** -known("probe_key_exponent", 1.0) if groups > 0 else 1.0 / f
    keyed = _key_cost_scale_one(key_cost, groups, rir, groups * by_keys, rir_o)
    sb_o = (mo_o * (rir_o / mor_o) if mor_o else math.nan) if mor > 0 else mo_o
    map_only = n_r == 0
    c, runs_p = known("probe_combine_function_fixed_ms") * _MS, known("probe_combine_runs")
    if not (math.isfinite(c) and math.isfinite(runs_p) and cir > 0):
        c = runs_p = 0.0
    runs_o = _combiner_runs_one(n_m, mo_o, *(known(name, DEFAULT_SORT_BUFFER[name])
                                             for name in SORT_COLUMNS)) if c or runs_p else 0.0
    q = {
        "N_m": n_m, "N_r": n_r, "MI": mi,
        "MFE": n_m * a_m + max(mfe - paid_m, 0.0) / f if math.isfinite(mfe) else
        math.nan,
        "RFE": 0.0 if map_only else (n_r * a_r + max(rfe - paid_r, 0.0) * per_record * keyed
                                     if math.isfinite(rfe) else math.nan),
        "MO": mo_o, "MOR": mor_o,
        "RIR": 0.0 if map_only else rir_o, "SB": 0.0 if map_only else sb_o,
        "RO": 0.0 if map_only else ro * by_keys,
        "CIR": cir * s_out, "CFE": runs_o * c + max(cfe - runs_p * c, 0.0) * s_out,
    }
    if map_only and q["MO"] == 0:
        q["MO"] = ro * s_out
    functions = sum(t for t in (mfe, rfe, cfe) if math.isfinite(t))
    q["PO"] = max(known("probe_wall_ms") * _MS - functions, 0.0)  # NaN stays NaN
    return q


def known_one(job: Mapping[str, float], name: str, default: float = math.nan) -> float:
    """``job[name]`` where it is a finite number, else ``default``."""
    value = job.get(name)
    return value if value is not None and math.isfinite(value) else default


def function_ms_one(job: Mapping[str, float], phase: str) -> float:
    """The probe's ``phase`` function time (ms) as the timing wrapper measured it, else — on a
    cluster without the wrapper — its tasks' CPU time (:func:`function_time` of one job)."""
    value = known_one(job, f"probe_{phase}_function_ms")
    return value if math.isfinite(value) else known_one(job, f"probe_{phase}_cpu_ms")


def _key_cost_scale_one(key_cost: float, groups: float, records: float, groups_o: float,
                        records_o: float) -> float:
    """:func:`key_cost_scale` of one job."""
    if not (groups > 0 and records > 0):
        return 1.0
    try:
        scale = ((1.0 + key_cost * min(groups_o / records_o, 1.0))
                 / (1.0 + key_cost * groups / records))
    except (ZeroDivisionError, OverflowError):
        return 1.0
    return scale if math.isfinite(scale) else 1.0


def _fixed_paid_one(a: float, k: float, startup: float) -> float:
    """:func:`fixed_paid` of one job."""
    return startup + (k - 1) * a if math.isfinite(startup) else k * a


def _combiner_runs_one(n_m: float, mo: float, sort_mb: float, spill_percent: float,
                       min_spills: float) -> float:
    """:func:`combiner_runs` of one job, its sort buffer given as its record columns."""
    per_map = mo / max(n_m, 1.0) / (sort_mb * 2**20 * spill_percent)
    spills = max(math.ceil(per_map), 1) if math.isfinite(per_map) else 1
    return n_m * (spills + (spills >= max(min_spills, 2)))
