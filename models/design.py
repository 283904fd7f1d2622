"""Design matrices of the SE_m and SE_r models (paper eq 6-8; eq 7 rebuilt from the text).

eq 6 (map phase, seven coefficients α0..α6)::

    SE_m = α0 + α1·N_m + α2·MI + α3·MFE + α4·MO + α5·MOR + α6·MOR·log(MOR)

eq 7 (reduce phase). The paper prints eq 7 as a copy of eq 6; its text names eight coefficients
β0..β7 and the quantities that enter — the reduce count, the reduce function time, the reduce
output, the reduce input records with the same n·log n (sort/merge) term, the map output that is
shuffled to the reduces, and SE_m "because early launched reduce tasks have to wait until all map
tasks are finished". Rebuilt from that text::

    SE_r = β0 + β1·N_r + β2·MO + β3·RFE + β4·RO + β5·RIR + β6·RIR·log(RIR) + β7·SE_m

When SE_r is predicted, the SE_m term takes the *predicted* SE_m; when the model is fitted it
takes the job's actual SE_m.

eq 8: with ``features="probe"`` the counters of the probing job scale to the whole job as
``P_o = P_p / f_p`` (MFE, RFE, MO, MOR, RIR, RO); N_m, MI and N_r always come from the job
itself. With ``features="actual"`` the job's own counters are used — the upper bound on what the
probe can achieve.

Which record columns each model reads is defined once, in :data:`jobsize.schema.MODEL_INPUTS`;
this module maps them, in order, to the symbols above. Units: times enter in seconds (MFE and RFE
are recorded in ms), bytes in bytes, records in records. ``log`` is the natural logarithm and
``0·log 0`` is defined as 0 (an empty output).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError
from jobsize.schema import MODEL_INPUTS, TARGETS

PHASES: tuple[str, ...] = ("SE_m", "SE_r")
FEATURE_SETS: tuple[str, ...] = ("probe", "actual")

#: Paper symbols of the record columns in MODEL_INPUTS[(phase, features)], in that order.
_SYMBOLS: dict[str, tuple[str, ...]] = {
    "SE_m": ("N_m", "MI", "MFE", "MO", "MOR"),
    "SE_r": ("N_r", "MO", "RFE", "RO", "RIR"),
}
#: The quantity whose n·log n term each equation carries (the sort of map output / reduce input).
_NLOGN: dict[str, str] = {"SE_m": "MOR", "SE_r": "RIR"}
EQUATION: dict[str, int] = {"SE_m": 6, "SE_r": 7}

PROBE_FRACTION = "probe_fraction"
_MS = 1e-3


@dataclass(frozen=True)
class Variable:
    """One variable of eq 6 or 7 and the record column it is read from."""

    symbol: str
    column: str
    scaled: bool  # a probe counter, divided by f_p (eq 8)
    factor: float  # unit conversion to the model's units (ms → s)


def check_phase(phase: str) -> None:
    if phase not in PHASES:
        raise ConfigError(f"unknown model {phase!r}; expected one of {', '.join(PHASES)}")


def check_features(features: str) -> None:
    if features not in FEATURE_SETS:
        raise ConfigError(
            f"unknown feature set {features!r}; expected one of {', '.join(FEATURE_SETS)}")


def variables(phase: str, features: str) -> tuple[Variable, ...]:
    """The variables of eq 6 (``"SE_m"``) or eq 7 (``"SE_r"``) for a feature set."""
    check_phase(phase)
    check_features(features)
    columns = [c for c in MODEL_INPUTS[(phase, features)] if c != PROBE_FRACTION]
    symbols = _SYMBOLS[phase]
    if len(columns) != len(symbols):  # schema and equations must stay in step
        raise AssertionError(f"MODEL_INPUTS{(phase, features)} does not match eq {EQUATION[phase]}")
    return tuple(
        Variable(symbol, column, scaled=column.startswith("probe_"),
                 factor=_MS if column.endswith("_ms") else 1.0)
        for symbol, column in zip(symbols, columns, strict=True)
    )


def terms(phase: str) -> tuple[str, ...]:
    """Names of the design columns (coefficients) of eq 6 or eq 7, intercept first."""
    check_phase(phase)
    nlogn = _NLOGN[phase]
    tail = ("SE_m",) if phase == "SE_r" else ()
    return ("const", *_SYMBOLS[phase], f"{nlogn}·log {nlogn}", *tail)


#: Units of each term's *variable* (the coefficient's unit is seconds per that unit).
TERM_UNITS: dict[str, str] = {
    "const": "", "N_m": "tasks", "N_r": "tasks", "MI": "bytes", "MO": "bytes", "RO": "bytes",
    "MFE": "s", "RFE": "s", "MOR": "records", "RIR": "records", "MOR·log MOR": "records",
    "RIR·log RIR": "records", "SE_m": "s",
}


def input_columns(phase: str, features: str) -> tuple[str, ...]:
    """Record columns a prediction with this model reads (the target excluded)."""
    check_phase(phase)
    check_features(features)
    return MODEL_INPUTS[(phase, features)]


def training_columns(phase: str, features: str) -> tuple[str, ...]:
    """Record columns a job needs to enter the fit of this model (inputs, target, SE_m)."""
    extra = (TARGETS["SE_m"],) if phase == "SE_r" else ()
    return (*input_columns(phase, features), TARGETS[phase], *extra)


# ---------------------------------------------------------------------------------------------
# Batch: arrays of many jobs


def xlogx(x: np.ndarray) -> np.ndarray:
    """``x·log x`` elementwise with ``0·log 0 = 0`` (and 0 for any x ≤ 0)."""
    out = np.zeros_like(x, dtype=float)
    pos = x > 0
    out[pos] = x[pos] * np.log(x[pos])
    return out


def design_matrix(
    columns: Mapping[str, np.ndarray], phase: str, features: str,
    se_m: np.ndarray | None = None,
) -> np.ndarray:
    """The n × p design matrix of eq 6 or eq 7 from float arrays keyed by column name.

    ``se_m`` (seconds) fills eq 7's SE_m column; it is required for ``"SE_r"``. Missing values
    propagate as NaN; the caller decides which rows are usable.
    """
    vs = variables(phase, features)
    n = len(columns[vs[0].column])
    fraction = columns[PROBE_FRACTION] if features == "probe" else None
    x = np.empty((n, len(terms(phase))))
    x[:, 0] = 1.0
    for j, v in enumerate(vs, start=1):
        values = columns[v.column] * v.factor
        if v.scaled:
            values = values / fraction
        x[:, j] = values
    x[:, len(vs) + 1] = xlogx(x[:, len(vs)])  # the last variable is MOR / RIR
    if phase == "SE_r":
        if se_m is None:
            raise ValueError("eq 7 needs SE_m")
        x[:, -1] = se_m
    return x


# ---------------------------------------------------------------------------------------------
# One job: plain floats, no numpy or pandas on this path (it serves one prediction in µs)


def design_row(
    job: Mapping[str, float], phase: str, features: str, se_m: float | None = None
) -> list[float]:
    """One row of :func:`design_matrix` from a mapping of column name → float."""
    vs = _VARIABLES[(phase, features)]
    row = [1.0]
    if features == "probe":
        fraction = job[PROBE_FRACTION]
        for v in vs:
            value = job[v.column] * v.factor
            row.append(value / fraction if v.scaled else value)
    else:
        row.extend(job[v.column] * v.factor for v in vs)
    last = row[-1]
    row.append(last * math.log(last) if last > 0 else 0.0)
    if phase == "SE_r":
        if se_m is None:
            raise ValueError("eq 7 needs SE_m")
        row.append(se_m)
    return row


_VARIABLES: dict[tuple[str, str], tuple[Variable, ...]] = {
    (p, f): variables(p, f) for p in PHASES for f in FEATURE_SETS
}
