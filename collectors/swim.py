"""SWIM workload files (Statistical Workload Injector for MapReduce) → a workload table.

A SWIM workload is a tab-separated file with one job per line and six fields::

    job_id  submit_s  gap_s  map_input_bytes  shuffle_bytes  reduce_output_bytes

``submit_s`` is the submission time in seconds from the start of the workload and ``gap_s`` the
gap in seconds since the previous submission (as the file gives it; it is not recomputed). The
table has the job-record columns ``job_id``, ``submit_time_ms``, ``map_input_bytes``,
``reduce_shuffle_bytes``, ``reduce_output_bytes`` and ``source="swim"``, plus ``gap_ms``; every
other job-record column is present and null. Task counts and durations are the simulator's
business (its cost model), not this reader's.
"""

from __future__ import annotations

import os
import re

import pandas as pd

from jobsize.boundedjson import decode_text
from jobsize.bundled import resolve
from jobsize.errors import ParseError
from jobsize.validation import RecordCheck, validated

#: The fields of one SWIM line, in file order, with the column each becomes.
FIELDS: tuple[tuple[str, str], ...] = (
    ("job id", "job_id"),
    ("submit time (s)", "submit_time_ms"),
    ("inter-arrival gap (s)", "gap_ms"),
    ("map input bytes", "map_input_bytes"),
    ("shuffle bytes", "reduce_shuffle_bytes"),
    ("reduce output bytes", "reduce_output_bytes"),
)
_SECONDS = {"submit_time_ms", "gap_ms"}
#: Largest value accepted: milliseconds of it still fit a 64-bit integer column.
_LARGEST = 2**53


#: A number as SWIM writes one: ASCII digits, a decimal point, an exponent. Python's int() and
#: float() also take ``1_000``, other scripts' digits (``١٢٣``) and ``inf``; a SWIM file has none.
_NUMERIC = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _number(text: str, name: str, *, source: object, where: str) -> int | float:
    if not _NUMERIC.fullmatch(text):
        raise ParseError(f"{name}: expected a number in ASCII digits, found {text!r}",
                         source=source, where=where)
    if _INTEGER.fullmatch(text) and len(text) < 20:  # longer: out of range, as a float says
        value: int | float = int(text)
    else:
        value = float(text)
        if value != value or value in (float("inf"), float("-inf")):
            raise ParseError(f"{name}: expected a finite number, found {text!r}",
                             source=source, where=where) from None
    if not 0 <= value <= _LARGEST:
        raise ParseError(f"{name}: expected a number from 0 to {_LARGEST}, found {text!r}",
                         source=source, where=where)
    return value


def _parse_line(line: str, *, source: object, where: str) -> dict[str, object]:
    parts = line.split("\t")
    if len(parts) != len(FIELDS):
        raise ParseError(f"expected {len(FIELDS)} tab-separated fields, found {len(parts)}",
                         source=source, where=where)
    job_id = parts[0].strip()
    if not job_id:
        raise ParseError("empty job id", source=source, where=where)
    row: dict[str, object] = {"job_id": job_id}
    for (name, column), text in zip(FIELDS[1:], parts[1:], strict=True):
        value = _number(text.strip(), name, source=source, where=where)
        if column in _SECONDS:
            row[column] = round(value * 1000)
        elif isinstance(value, float):
            if value != int(value):
                raise ParseError(f"{name}: expected a whole number of bytes, found {text!r}",
                                 source=source, where=where)
            row[column] = int(value)
        else:
            row[column] = value
    return row


def parse_swim(data: bytes, *, source: object = "<swim>", check: RecordCheck | None = None
               ) -> pd.DataFrame:
    """Parse SWIM TSV content; see :func:`read_swim`."""
    rows, places = [], []
    for number, line in enumerate(decode_text(data, source=source).splitlines(), start=1):
        if not line.strip():
            continue
        row = _parse_line(line.rstrip("\r"), source=source, where=f"line {number}")
        rows.append({**row, "source": "swim"})
        places.append(f"line {number}")
    if not rows:
        raise ParseError("no jobs in the file", source=source)
    frame, _ = validated(rows, source=source, places=places, check=check)
    frame["gap_ms"] = frame["gap_ms"].astype("Int64")
    return frame


def read_swim(path: str | os.PathLike[str], *, check: RecordCheck | None = None
              ) -> pd.DataFrame:
    """Read a SWIM workload TSV: one row per job (job-record columns plus ``gap_ms``).

    ``path`` may name a bundled workload where no such file is here (``FB-2009``,
    ``datasets/swim/FB-2009_samples_24_times_1hr_0.tsv``: :func:`jobsize.bundled.resolve`).
    Raises :class:`~jobsize.errors.ParseError` naming the file and line for a malformed line.
    """
    path = resolve(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise ParseError("no such file", source=path) from None
    except IsADirectoryError:
        raise ParseError("is a directory, expected a SWIM .tsv file", source=path) from None
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror})", source=path) from None
    return parse_swim(data, source=path, check=check)
