"""The one check every job record and task row passes before it is stored.

Collectors build rows (dicts keyed by column name) from files and servers; :func:`validated`
turns them into the typed tables of :mod:`jobsize.schema`, after checking each value against
its column: the type (an integer within Java's long, a finite number, a boolean, text that is
valid Unicode), the range its unit allows (:class:`jobsize.schema.Column` ``low``/``high``: no
negative count, time or size, no container of 0 MB, no fraction outside (0, 1]), the values a
state may take, required columns present, and one row per job id. Each column becomes an
Arrow array of its type in the record's Arrow schema (:func:`arrow_schema`) — at C speed when
its Python values allow, value by value otherwise — and the rules run on those arrays with
Arrow's compute functions; the kept rows become one pandas frame.

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
from jobsize.errors import ConfigError, ParseError, SchemaError
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


def _null(v: object) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _whole(v: object) -> bool:
    """An integer (not a boolean), or an integral float, within ±2^63."""
    if isinstance(v, bool | np.bool_):
        return False
    if isinstance(v, int | np.integer):
        return -LONG <= v < LONG
    return isinstance(v, float) and math.isfinite(v) and v.is_integer() and abs(v) < LONG


def _finite(v: object) -> bool:
    if isinstance(v, bool | np.bool_):
        return False
    if isinstance(v, int | np.integer):
        return -LONG <= v < LONG
    return isinstance(v, float | np.floating) and math.isfinite(v)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from a "\udc80" JSON escape
        return False
    return True


_NA = type(pd.NA)
#: Per dtype: Python types Arrow converts exactly (anything else is checked value by value),
#: the test of one value, its plain form and what a bad value is told.
_KINDS: dict[str, tuple[frozenset, Any, Any, str]] = {
    "Int64": (frozenset({int, type(None), _NA, np.int64}), _whole, int,
              "expected an integer within ±2^63"),
    "Float64": (frozenset({float, int, type(None), _NA, np.float64}), _finite, float,
                "expected a finite number"),
    "boolean": (frozenset({bool, type(None), _NA, np.bool_}),
                lambda v: isinstance(v, bool | np.bool_), bool, "expected true or false"),
    "string": (frozenset({str, type(None), _NA}), lambda v: isinstance(v, str) and _encodes(v),
               str, "expected UTF-8 text"),
}


def _typed(values: list, dtype: str) -> tuple[pa.Array, np.ndarray | None, str]:
    """``values`` as an Arrow array of the column's type, the mask of those that cannot be
    (None: all can) and the reason. Arrow converts at C speed; a column holding other Python
    types, or one Arrow refuses (an integer past 2^63, a lone surrogate), is checked one value
    at a time."""
    fast, ok, plain, reason = _KINDS[dtype]
    arrow_type = _ARROW_TYPES[dtype]
    if set(map(type, values)) <= fast:
        try:
            array = pa.array(values, type=arrow_type, from_pandas=True)
        except (pa.ArrowException, OverflowError, UnicodeError, TypeError, ValueError):
            pass
        else:
            if dtype != "Float64":
                return array, None, reason
            infinite = np.asarray(pc.fill_null(pc.is_inf(array), False))
            return array, (infinite if infinite.any() else None), reason
    bad = np.array([not (_null(v) or ok(v)) for v in values], dtype=bool)
    clean = [None if b or _null(v) else plain(v) for v, b in zip(values, bad, strict=True)]
    return pa.array(clean, type=arrow_type), bad, reason


def _range_checks(col: Column, array: pa.Array) -> list[tuple[np.ndarray, str]]:
    """(bad mask, reason) for each declared rule of ``col`` on its typed Arrow array."""
    out = []
    if col.required:
        out.append((pc.is_null(array), "required, missing"))
        if pa.types.is_string(array.type):
            out.append((pc.equal(pc.utf8_length(array), 0), "required, empty"))
    if array.null_count == len(array):
        return [(np.asarray(pc.fill_null(mask, False)), reason) for mask, reason in out]
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

    def add(self, mask: np.ndarray, column: str, values: Sequence[object], reason: str) -> None:
        for i in np.flatnonzero(mask):
            self.rows.setdefault(int(i), (column, _show(values[i]), reason))


@dataclass
class _Table:
    """One checked table: the schema columns as Arrow arrays, the other columns as lists."""

    n: int
    arrays: dict[str, pa.Array]
    extra: dict[str, list]
    problems: _Problems

    def frame(self, keep: np.ndarray | None = None, *,
              columns: Sequence[Column] = JOB_COLUMNS) -> pd.DataFrame:
        """The kept rows as a conformed frame of the schema's nullable dtypes."""
        mask = pa.array(np.ones(self.n, dtype=bool) if keep is None else keep)
        kept = int(np.count_nonzero(np.asarray(mask)))
        arrays = [self.arrays[c.name].filter(mask) if c.name in self.arrays
                  else pa.nulls(kept, _ARROW_TYPES[c.dtype]) for c in columns]
        table = pa.Table.from_arrays(arrays, schema=arrow_schema(columns))
        frame = table.to_pandas(types_mapper=_PANDAS_TYPES.get)  # the schema's dtypes
        index = np.flatnonzero(np.asarray(mask))
        for name, values in self.extra.items():
            frame[name] = pd.Series([values[i] for i in index], dtype=object).infer_objects()
        return frame


_PANDAS_TYPES = {pa.int64(): pd.Int64Dtype(), pa.float64(): pd.Float64Dtype(),
                 pa.bool_(): pd.BooleanDtype(), pa.string(): pd.StringDtype()}


def _check_columns(values: Mapping[str, list], n: int, columns: Sequence[Column]) -> _Table:
    """Type and check each schema column of a table given column by column."""
    problems = _Problems()
    arrays: dict[str, pa.Array] = {}
    for col in columns:
        raw = values.get(col.name)
        if raw is None:
            if col.required and n:
                problems.add(np.ones(n, dtype=bool), col.name, [None] * n, "required, missing")
            continue
        array, bad, reason = _typed(raw, col.dtype)
        if bad is not None:
            problems.add(bad, col.name, raw, reason)
        for mask, why in _range_checks(col, array):
            problems.add(mask, col.name, raw, why)
        arrays[col.name] = array
    known = {c.name for c in columns}
    extra = {name: column for name, column in values.items() if name not in known}
    return _Table(n, arrays, extra, problems)


def _columns_of_rows(rows: list[Mapping[str, object]]) -> dict[str, list]:
    names = dict.fromkeys(name for row in rows for name in row)
    return {str(name): [row.get(name) for row in rows] for name in names}


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
    job_rows = list(jobs)
    job_table = _check_columns(_columns_of_rows(job_rows), len(job_rows), JOB_COLUMNS)
    job_ids = job_table.arrays.get("job_id")
    if job_ids is not None:
        seen: set[object] = set()
        repeated = np.zeros(len(job_rows), dtype=bool)
        for i, job_id in enumerate(job_ids.to_pylist()):
            repeated[i] = job_id is not None and job_id in seen
            seen.add(job_id)
        job_table.problems.add(repeated, "job_id", job_ids.to_pylist(), "the job appears twice")
    bad_jobs: dict[int, tuple[str, str, str]] = dict(job_table.problems.rows)
    task_table = None
    if tasks is not None:
        task_rows = list(tasks)
        task_table = _check_columns(_columns_of_rows(task_rows), len(task_rows), TASK_COLUMNS)
        _charge_tasks_to_jobs(job_table, task_table, bad_jobs)
    source_text = None if source is None else str(source)
    ids = job_ids.to_pylist() if job_ids is not None else [None] * len(job_rows)
    for row in sorted(bad_jobs):
        column, value, reason = bad_jobs[row]
        place = places[row] if places is not None and row < len(places) else None
        if place is None and ids[row] is not None:
            place = f"job {_show(ids[row])}"
        if check.policy == "fail":
            raise BadRecordError(f"column {column!r}: {reason}, found {value} "
                                 "(--on-bad-record skip leaves such jobs out)",
                                 source=source_text, where=place)
        check.rejected.append(Rejection(source_text, place, column, value, reason))
    keep = np.ones(len(job_rows), dtype=bool)
    keep[list(bad_jobs)] = False
    jobs_out = job_table.frame(keep)
    if task_table is None:
        return jobs_out, None
    kept_ids = {ids[i] for i in np.flatnonzero(keep)} - {None}
    task_ids = task_table.arrays["job_id"].to_pylist() if "job_id" in task_table.arrays \
        else [None] * task_table.n
    task_keep = np.array([t in kept_ids for t in task_ids], dtype=bool)
    return jobs_out, task_table.frame(task_keep, columns=TASK_COLUMNS)


def _charge_tasks_to_jobs(job_table: _Table, task_table: _Table,
                          bad_jobs: dict[int, tuple[str, str, str]]) -> None:
    """A bad task row makes its job bad: the job's sums were built from it."""
    if not task_table.problems.rows or "job_id" not in job_table.arrays:
        return
    row_of_job: dict[object, int] = {}
    for i, job_id in enumerate(job_table.arrays["job_id"].to_pylist()):
        row_of_job.setdefault(job_id, i)
    task_ids = task_table.arrays["job_id"].to_pylist() if "job_id" in task_table.arrays \
        else [None] * task_table.n
    attempts = task_table.arrays["attempt_id"].to_pylist() \
        if "attempt_id" in task_table.arrays else [None] * task_table.n
    for task_row, (column, value, reason) in task_table.problems.rows.items():
        job_row = row_of_job.get(task_ids[task_row])
        if job_row is None:
            continue  # a task of no listed job is not kept anyway
        attempt = attempts[task_row]
        label = f"task row {task_row}" if attempt is None else f"attempt {_show(attempt)}"
        bad_jobs.setdefault(job_row, (column, value, f"{label}: {reason}"))


class ImpossibleValueError(ParseError, BadRecordError):
    """A parser assembled a record holding a value its column cannot hold; ``rejection`` says
    which, for a collector that leaves such jobs out."""

    def __init__(self, reason: str, *, rejection: Rejection, source: object = None,
                 where: object = None) -> None:
        super().__init__(reason, source=source, where=where)
        self.rejection = rejection


def check_parsed(record: Mapping[str, object], rows: Iterable[Mapping[str, object]] = (), *,
                 source: object = None) -> None:
    """Refuse, where a parser assembles them, a job record or attempt rows holding a value
    their column cannot hold — a negative count or time, an integer beyond 2^63 — so that a
    caller of the parser's API never receives one: an :class:`ImpossibleValueError` (a
    ParseError) naming the job and the column. Missing values are the store's business."""
    job = record.get("job_id")
    place = None if job is None else f"job {_show(job)}"
    tables = [(_check_columns({k: [v] for k, v in record.items()}, 1, JOB_COLUMNS), None)]
    task_rows = list(rows)
    if task_rows:
        tables.append((_check_columns(_columns_of_rows(task_rows), len(task_rows),
                                      TASK_COLUMNS), task_rows))
    for table, of in tables:
        for row in sorted(table.problems.rows):
            column, value, reason = table.problems.rows[row]
            if reason.startswith("required"):
                continue
            if of is not None:
                attempt = of[row].get("attempt_id")
                label = f"task row {row}" if attempt is None else f"attempt {_show(attempt)}"
                reason = f"{label}: {reason}"
            rejection = Rejection(None if source is None else str(source), place, column, value,
                                  reason)
            raise ImpossibleValueError(f"column {column!r}: {reason}, found {value}",
                                       rejection=rejection, source=source, where=place)


def checked_frame(frame: pd.DataFrame, *, source: object = None,
                  columns: Sequence[Column] = JOB_COLUMNS) -> pd.DataFrame:
    """``frame`` conformed, or a BadRecordError naming its first impossible value.

    The last guard before a table is written: whatever produced it, no impossible value is
    stored.
    """
    if frame.columns.duplicated().any():
        conform(frame, source=source, columns=columns)  # names the duplicated column
    known = {c.name for c in columns}
    values = {name: frame[name].tolist() for name in frame.columns if name in known}
    table = _check_columns(values, len(frame), columns)
    if table.problems.rows:
        row = min(table.problems.rows)
        column, value, reason = table.problems.rows[row]
        raise BadRecordError(f"column {column!r}: {reason}, found {value}", source=source,
                             where=f"row {row}")
    out = table.frame(columns=columns)
    for name in frame.columns:
        if name not in known:
            out[name] = frame[name].reset_index(drop=True)
    return out
