"""One job given as a mapping — job conf values plus a probe record — read as floats.

Keys are job-record column names (:mod:`jobsize.schema`) or Hadoop's own names for them: conf
keys such as ``mapreduce.map.memory.mb`` and ``mapreduce.job.maps``, counter names, history
fields. Values may be numbers or numeric strings, as a Hadoop configuration gives them. ``None``,
NaN and ``pandas.NA`` mean "not known". This path serves one prediction in microseconds, so it
uses plain Python only.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Mapping

from pandas import NA

from jobsize.errors import ConfigError, InputError
from jobsize.schema import DEFAULT_CONTAINERS, JOB_COLUMNS
from jobsize.ubermode import is_uber as hadoop_uber

#: Numeric record columns.
NUMERIC: frozenset[str] = frozenset(c.name for c in JOB_COLUMNS if c.dtype in ("Int64", "Float64"))

#: Columns the size models may read: every numeric record column and the uber flag.
USED: frozenset[str] = NUMERIC | {"uberized"}

#: Columns counting tasks, and their largest value (Hadoop counts tasks in a Java int).
TASK_COUNTS: frozenset[str] = frozenset(c.name for c in JOB_COLUMNS if c.unit == "tasks")
MOST_TASKS = float(2**31 - 1)

#: Sections a job document may nest its values in, merged over the top level in this order.
SECTIONS = ("conf", "job", "probe")

#: Hadoop's names → record column names.
ALIASES: dict[str, str] = {
    **{c.hadoop: c.name for c in JOB_COLUMNS if c.hadoop and c.name in NUMERIC},
    "mapreduce.job.maps": "n_maps",
    "mapreduce.job.reduces": "n_reduces",
    "uberized": "uberized",
}

#: Upper bound of every value: Hadoop's counters and sizes are Java longs.
LARGEST = float(2**63)

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


def _number(key: str, value: object, source: object) -> float | None:
    if value is None or value is NA:
        return None
    if isinstance(value, str) and len(value) > 64:
        value = value.strip()
        if len(value) > 64:  # no number is this long; float() of megabytes would be slow
            raise InputError(f"expected a number, found {value[:40]!r}...", source=source,
                             where=f"key {key!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"expected a number, found {reprlib.repr(value)}", source=source,
                         where=f"key {key!r}") from None
    except OverflowError:  # an int beyond any double
        number = math.inf
    if number != number:  # NaN: not known
        return None
    if not 0 <= number < LARGEST:
        raise InputError(f"expected a non-negative number below 2^63, found {reprlib.repr(value)}",
                         source=source, where=f"key {key!r}")
    return number


def _flag(key: str, value: object, source: object) -> bool | None:
    if value is None or value is NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return value
    text = (value[:16] if isinstance(value, str) else str(value) if isinstance(value, int)
            else "").strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise InputError(f"expected true or false, found {reprlib.repr(value)}", source=source,
                     where=f"key {key!r}")


def flatten(doc: Mapping[str, object], source: object = None) -> dict[str, object]:
    """One job mapping from a job document: its top-level keys, then the ``conf``, ``job`` and
    ``probe`` objects merged over them — the shape ``jobsize probe`` prints, and the shape of a
    flat job record, alike."""
    job = {k: v for k, v in doc.items() if k not in SECTIONS}
    for section in SECTIONS:
        part = doc.get(section)
        if part is None:
            continue
        if not isinstance(part, Mapping):
            raise InputError("expected an object", source=source, where=f"$.{section}")
        job.update(part)
    return job


def job_values(job: Mapping[str, object], source: object = None) -> dict[str, float]:
    """The values a size model reads from ``job``, keyed by record column; ``uberized`` as
    1.0 / 0.0. Other keys are ignored; a bad value raises :class:`InputError` naming its key.
    """
    out: dict[str, float] = {}
    for key, value in job.items():
        name = ALIASES.get(key, key)
        if name not in USED:
            continue
        if name == "uberized":
            flag = _flag(key, value, source)
            if flag is not None:
                out[name] = 1.0 if flag else 0.0
        elif type(value) is float and 0.0 <= value < LARGEST and name not in TASK_COUNTS:
            out[name] = value  # the common case, quickly
        else:
            number = _number(key, value, source)
            if number is not None and name in TASK_COUNTS and not (
                    number.is_integer() and number <= MOST_TASKS):
                raise InputError(f"expected a whole number of tasks up to {MOST_TASKS:.0f}, "
                                 f"found {reprlib.repr(value)}", source=source,
                                 where=f"key {key!r}")
            if number is not None:
                out[name] = number
    return out


def containers(values: Mapping[str, float]) -> tuple[float, float, float, float, float, float]:
    """(R_m memory, R_m vcores, R_r memory, R_r vcores, R_am memory, R_am vcores), with
    Hadoop's defaults where the job does not say."""
    d = DEFAULT_CONTAINERS
    return (values.get("map_memory_mb", d["map_memory_mb"]),
            values.get("map_vcores", d["map_vcores"]),
            values.get("reduce_memory_mb", d["reduce_memory_mb"]),
            values.get("reduce_vcores", d["reduce_vcores"]),
            values.get("am_memory_mb", d["am_memory_mb"]),
            values.get("am_vcores", d["am_vcores"]))


def is_uber(values: Mapping[str, float], conf: Mapping[str, object]) -> bool:
    """Whether the job runs in uber mode: as recorded, else by Hadoop's rule on its conf."""
    flag = values.get("uberized")
    if flag is not None:
        return flag == 1.0
    n_m, n_r, mi = values.get("n_maps"), values.get("n_reduces"), values.get("map_input_bytes")
    if n_m is None or n_r is None or mi is None:
        return False
    try:
        return hadoop_uber(int(n_m), int(n_r), int(mi), conf)
    except (TypeError, ValueError, ConfigError) as exc:
        raise InputError(f"bad uber-mode setting ({exc})",
                         where="mapreduce.job.ubertask.*") from None
