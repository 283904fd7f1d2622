"""The one check every job record and task row passes before it is stored.

Collectors build rows (dicts keyed by column name) from files and servers; :func:`validated`
turns them into the typed tables of :mod:`jobsize.schema`, after checking each value against
its column: the type (an integer within Java's long, a finite number, a boolean, text that is
valid Unicode), the range its unit allows (:class:`jobsize.schema.Column` ``low``/``high``: no
negative count, time or size, no container of 0 MB, no fraction outside (0, 1]), the values a
state may take, required columns present, and one row per job id. The checks run column by
column on the whole table (vectorised), on an Arrow table of the record's Arrow schema
(:func:`arrow_schema`).

A job whose record or any of whose task rows fails is a *bad record*. With the policy
``"fail"`` (the default) the first one is a :class:`BadRecordError` naming the file, the place
in it (line, URL, job), the column and the value; with ``"skip"`` the job and its task rows are
left out and reported in :attr:`RecordCheck.rejected`. Either way nothing impossible is stored.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from jobsize.boundedjson import LONG
from jobsize.errors import ConfigError, SchemaError
from jobsize.schema import JOB_COLUMNS, TASK_COLUMNS, Column, conform

POLICIES = ("fail", "skip")

_ARROW_TYPES = {"string": pa.string(), "Int64": pa.int64(), "Float64": pa.float64(),
                "boolean": pa.bool_()}


def arrow_schema(columns: Sequence[Column] = JOB_COLUMNS) -> pa.Schema:
    """The Arrow schema of a job-record (or task) table."""
    return pa.schema([pa.field(c.name, _ARROW_TYPES[c.dtype], nullable=not c.required)
                      for c in columns])


class BadRecordError(SchemaError):
    """A job record or task row holds a value its column cannot hold."""


@dataclass(frozen=True)
class Rejection:
    """Why one row was refused: where it came from, the column, the value and the rule."""

    source: str | None
    place: str | None
    column: str
    value: str
    reason: str

    def __str__(self) -> str:
        parts = [p for p in (self.source, self.place) if p]
        return ": ".join([*parts, f"column {self.column!r}: {self.reason}, found {self.value}"])


@dataclass
class RecordCheck:
    """What to do with bad records (``policy``: "fail" or "skip") and those left out."""

    policy: str = "fail"
    rejected: list[Rejection] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ConfigError(f"bad-record policy must be one of {', '.join(POLICIES)}, "
                              f"not {self.policy!r}")


# ---------------------------------------------------------------------------------------------
# Column checks


def _show(value: object) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < LONG:
        value = int(value)  # an integer column read with nulls arrives as floats
    if isinstance(value, str):
        value = value.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
    return reprlib.repr(value)


def _integers(values: pd.Series) -> tuple[pd.Series, np.ndarray, str]:
    """(values as float-free Int64 where possible, bad mask, reason) for an integer column."""
    kind = values.dtype
    if pd.api.types.is_bool_dtype(kind):
        return values.astype("Int64"), values.notna().to_numpy(), "expected an integer"
    if pd.api.types.is_integer_dtype(kind):
        if str(kind) in ("uint64", "UInt64"):
            bad = (values >= LONG).fillna(False).to_numpy(dtype=bool)
            return values.where(~bad).astype("Int64"), bad, "expected an integer within ±2^63"
        return values.astype("Int64"), np.zeros(len(values), dtype=bool), ""
    if pd.api.types.is_float_dtype(kind):
        raw = values.to_numpy(dtype="float64", na_value=np.nan)
        finite = np.isfinite(raw)
        bad = (~np.isnan(raw) & ~finite) | (finite & (raw != np.round(raw)))
        bad |= finite & (np.abs(raw) >= float(LONG))
        return (pd.Series(np.where(bad, np.nan, raw)).astype("Int64"), bad,
                "expected an integer within ±2^63")
    # object: Python ints of any size, strings, lists... checked one by one
    out, bad = [], np.zeros(len(values), dtype=bool)
    for i, v in enumerate(values.to_numpy(dtype=object)):
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            out.append(None)
        elif _whole(v):
            out.append(int(v))
        else:
            out.append(None)
            bad[i] = True
    return pd.Series(pd.array(out, dtype="Int64")), bad, "expected an integer within ±2^63"


def _whole(v: object) -> bool:
    """An integer (not a boolean), or an integral float, within ±2^63."""
    if isinstance(v, bool | np.bool_):
        return False
    if isinstance(v, int | np.integer):
        return -LONG <= v < LONG
    return isinstance(v, float) and math.isfinite(v) and v.is_integer() and abs(v) < LONG


def _floats(values: pd.Series) -> tuple[pd.Series, np.ndarray, str]:
    numeric = pd.to_numeric(values.astype(object).where(values.notna(), None), errors="coerce")
    raw = numeric.to_numpy(dtype="float64", na_value=np.nan)
    bad = (np.isnan(raw) & values.notna().to_numpy()) | np.isinf(raw)
    if pd.api.types.is_bool_dtype(values.dtype) or values.dtype == object:
        bad |= np.array([isinstance(v, bool | np.bool_) for v in values], dtype=bool)
    return (pd.Series(np.where(bad, np.nan, raw)).astype("Float64"), bad,
            "expected a finite number")


def _booleans(values: pd.Series) -> tuple[pd.Series, np.ndarray, str]:
    if pd.api.types.is_bool_dtype(values.dtype):
        return values.astype("boolean"), np.zeros(len(values), dtype=bool), ""
    objects = values.to_numpy(dtype=object)
    bad = np.array([not (v is None or v is pd.NA or isinstance(v, bool | np.bool_)
                         or (isinstance(v, float) and math.isnan(v))) for v in objects],
                   dtype=bool)
    cleaned = [None if b or v is pd.NA or isinstance(v, float) else v
               for v, b in zip(objects, bad, strict=True)]
    return pd.Series(pd.array(cleaned, dtype="boolean")), bad, "expected true or false"


def _strings(values: pd.Series) -> tuple[pd.Series, np.ndarray, str]:
    objects = values.to_numpy(dtype=object)
    try:
        pa.array(objects, type=pa.string(), from_pandas=True)
        bad = np.zeros(len(values), dtype=bool)
    except (pa.ArrowException, UnicodeError):
        bad = np.array([not (v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))
                             or (isinstance(v, str) and _encodes(v))) for v in objects],
                       dtype=bool)
    cleaned = pd.Series(np.where(bad, None, objects), dtype=object)
    return cleaned.astype("string"), bad, "expected UTF-8 text"


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from a "\udc80" JSON escape
        return False
    return True


_TYPED = {"Int64": _integers, "Float64": _floats, "boolean": _booleans, "string": _strings}


def _range_checks(col: Column, array: pa.Array) -> list[tuple[np.ndarray, str]]:
    """(bad mask, reason) for each declared rule of ``col`` on its typed Arrow array."""
    out = []
    if col.required:
        out.append((pc.is_null(array), "required, missing"))
        if pa.types.is_string(array.type):
            out.append((pc.equal(pc.utf8_length(array), 0), "required, empty"))
    if col.low is not None:
        below = pc.less_equal(array, col.low) if col.low_open else pc.less(array, col.low)
        sign = ">" if col.low_open else "≥"
        out.append((below, f"expected {sign} {col.low:g}"))
    if col.high is not None:
        out.append((pc.greater(array, col.high), f"expected ≤ {col.high:g}"))
    if col.allowed is not None:
        outside = pc.and_(pc.invert(pc.is_in(array, value_set=pa.array(col.allowed))),
                          pc.is_valid(array))
        out.append((outside, f"expected one of {', '.join(col.allowed)}"))
    return [(np.asarray(pc.fill_null(mask, False)), reason) for mask, reason in out]


@dataclass
class _Problems:
    """Bad rows of one table: row → (column, value, reason) of its first problem."""

    rows: dict[int, tuple[str, str, str]] = field(default_factory=dict)

    def add(self, mask: np.ndarray, column: str, values: pd.Series, reason: str) -> None:
        for i in np.flatnonzero(mask):
            self.rows.setdefault(int(i), (column, _show(values.iloc[i]), reason))


def _check_table(frame: pd.DataFrame, columns: Sequence[Column]
                 ) -> tuple[pd.DataFrame, _Problems]:
    """The table with each schema column typed, and its bad rows."""
    problems = _Problems()
    n = len(frame)
    frame = frame.reset_index(drop=True)
    typed: dict[str, Any] = {}
    for col in columns:
        raw = frame[col.name] if col.name in frame.columns else None
        if raw is None or not raw.notna().any():  # absent or all null: only "required" applies
            if col.required and n:
                problems.add(np.ones(n, dtype=bool), col.name, pd.Series([None] * n),
                             "required, missing")
            if raw is not None:
                typed[col.name] = pd.Series(pd.array([pd.NA] * n, dtype=col.dtype))
            continue
        values, bad, reason = _TYPED[col.dtype](raw)
        problems.add(bad, col.name, raw, reason)
        array = pa.array(values, type=_ARROW_TYPES[col.dtype], from_pandas=True)
        for mask, why in _range_checks(col, array):
            problems.add(mask, col.name, raw, why)
        typed[col.name] = values
    out = {name: typed.get(name, frame[name]) for name in frame.columns}
    return pd.DataFrame(out, index=pd.RangeIndex(n)), problems


# ---------------------------------------------------------------------------------------------
# Jobs and their tasks, together


def validated(
    jobs: Iterable[Mapping[str, object]],
    tasks: Iterable[Mapping[str, object]] | None = None,
    *,
    source: object = None,
    places: Sequence[str | None] | None = None,
    check: RecordCheck | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Checked, typed job records (and task rows, when given) ready to store.

    ``places`` says where each job came from (``"line 12"``, a URL) for the report. A job
    that fails — or one of whose tasks does — is refused or left out as ``check`` says; a job
    id seen before in ``jobs`` is a bad record too.
    """
    check = check or RecordCheck()
    job_frame, unencodable = _frame(jobs)
    job_frame, job_problems = _check_table(job_frame, JOB_COLUMNS)
    for row, column, value in unencodable:
        job_problems.rows.setdefault(row, (column, value, "expected UTF-8 text"))
    if "job_id" in job_frame.columns and len(job_frame):
        repeated = job_frame["job_id"].duplicated(keep="first") & job_frame["job_id"].notna()
        job_problems.add(repeated.to_numpy(dtype=bool), "job_id", job_frame["job_id"],
                         "the job appears twice")
    bad_jobs: dict[int, tuple[str, str, str]] = dict(job_problems.rows)
    task_frame = None
    if tasks is not None:
        task_frame, unencodable = _frame(tasks)
        task_frame, task_problems = _check_table(task_frame, TASK_COLUMNS)
        for row, column, value in unencodable:
            task_problems.rows.setdefault(row, (column, value, "expected UTF-8 text"))
        _charge_tasks_to_jobs(job_frame, task_frame, task_problems, bad_jobs)
    source_text = None if source is None else str(source)
    for row in sorted(bad_jobs):
        column, value, reason = bad_jobs[row]
        place = places[row] if places is not None and row < len(places) else None
        if place is None and "job_id" in job_frame.columns:
            job_id = job_frame["job_id"].iloc[row]
            place = None if pd.isna(job_id) else f"job {_show(job_id)}"
        rejection = Rejection(source_text, place, column, value, reason)
        if check.policy == "fail":
            raise BadRecordError(f"column {column!r}: {reason}, found {value} "
                                 "(--on-bad-record skip leaves such jobs out)",
                                 source=source_text, where=place)
        check.rejected.append(rejection)
    keep = np.ones(len(job_frame), dtype=bool)
    keep[list(bad_jobs)] = False
    jobs_out = conform(job_frame[keep], source=source)
    if task_frame is None:
        return jobs_out, None
    kept_ids = set(jobs_out["job_id"].dropna())
    task_keep = task_frame["job_id"].isin(kept_ids).fillna(False).to_numpy(dtype=bool) \
        if "job_id" in task_frame.columns else np.zeros(len(task_frame), dtype=bool)
    return jobs_out, conform(task_frame[task_keep], source=source, columns=TASK_COLUMNS)


def _frame(rows: Iterable[Mapping[str, object]]) -> tuple[pd.DataFrame, list[tuple]]:
    """The rows as a frame, and (row, column, value) of text that is not valid Unicode (a lone
    surrogate from a JSON escape), which is blanked: an Arrow-backed frame cannot hold it."""
    rows = list(rows)
    if not rows:
        return pd.DataFrame(), []
    try:
        return pd.DataFrame.from_records(rows), []
    except UnicodeError:
        pass
    bad, clean = [], []
    for i, row in enumerate(rows):
        fixed = dict(row)
        for key, value in row.items():
            if isinstance(value, str) and not _encodes(value):
                bad.append((i, str(key), _show(value)))
                fixed[key] = None
        clean.append(fixed)
    return pd.DataFrame.from_records(clean), bad


def _charge_tasks_to_jobs(job_frame: pd.DataFrame, task_frame: pd.DataFrame,
                          task_problems: _Problems,
                          bad_jobs: dict[int, tuple[str, str, str]]) -> None:
    """A bad task row makes its job bad: the job's sums were built from it."""
    if not task_problems.rows:
        return
    row_of_job = {}
    if "job_id" in job_frame.columns:
        for i, job_id in enumerate(job_frame["job_id"]):
            row_of_job.setdefault(job_id, i)
    for task_row, (column, value, reason) in task_problems.rows.items():
        job_id = task_frame["job_id"].iloc[task_row] if "job_id" in task_frame.columns else None
        job_row = row_of_job.get(job_id)
        if job_row is None:
            continue  # a task of no listed job is not kept anyway
        attempt = task_frame["attempt_id"].iloc[task_row] \
            if "attempt_id" in task_frame.columns else None
        label = f"task row {task_row}" if attempt is None or pd.isna(attempt) \
            else f"attempt {_show(attempt)}"
        bad_jobs.setdefault(job_row, (f"{column}", value, f"{label}: {reason}"))


def checked_frame(frame: pd.DataFrame, *, source: object = None,
                  columns: Sequence[Column] = JOB_COLUMNS) -> pd.DataFrame:
    """``frame`` conformed, or a BadRecordError naming its first impossible value.

    The last guard before a table is written: whatever produced it, no impossible value is
    stored.
    """
    typed, problems = _check_table(frame, columns)
    if problems.rows:
        row = min(problems.rows)
        column, value, reason = problems.rows[row]
        raise BadRecordError(f"column {column!r}: {reason}, found {value}", source=source,
                             where=f"row {row}")
    return conform(typed, source=source, columns=columns)
