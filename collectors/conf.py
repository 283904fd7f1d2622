"""Hadoop configuration: the job's ``_conf.xml`` and what the job record takes from it.

A job configuration is Hadoop's XML (``<configuration><property><name>…</name><value>…</value>
</property>…``). The record takes the container sizes (R_m, R_r, R_am: the
``mapreduce.{map,reduce}.memory.mb`` / ``cpu.vcores`` and ``yarn.app.mapreduce.am.resource.*``
keys), the map's sort buffer (``mapreduce.task.io.sort.mb``, ``mapreduce.map.sort.spill.percent``,
``mapreduce.map.combine.minspills``), the reduce count and the uber settings from it; keys a
configuration leaves out take Hadoop's defaults (:data:`jobsize.schema.DEFAULT_CONTAINERS`,
:data:`jobsize.schema.DEFAULT_SORT_BUFFER`), as the job did when it ran.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from jobsize.errors import ParseError
from jobsize.schema import DEFAULT_CONTAINERS, DEFAULT_SORT_BUFFER, JOB_SCHEMA

#: Record column → configuration key, for the container sizes.
CONTAINER_KEYS: dict[str, str] = {
    name: JOB_SCHEMA[name].hadoop or "" for name in DEFAULT_CONTAINERS
}

_VARIABLE = re.compile(r"\$\{([^}$\s]+)\}")
#: Hadoop's Configuration.MAX_SUBST: rounds of ``${name}`` substitution in one value.
MAX_SUBSTITUTIONS = 20
#: Longest value an expansion may produce, in characters.
MAX_EXPANDED = 1 << 20
#: Largest configuration file read (a job's ``_conf.xml`` is a few hundred KB).
MAX_CONF_BYTES = 64 << 20


def parse_conf(data: bytes, *, source: object = "<conf>") -> dict[str, str]:
    """Parse Hadoop configuration XML into ``{name: value}`` (a later duplicate wins)."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        line, column = exc.position
        reason = str(exc).split(":")[0]
        raise ParseError(f"not valid XML ({reason})", source=source,
                         where=f"line {line}, column {column + 1}") from None
    except (ValueError, LookupError, RecursionError) as exc:  # e.g. an unknown encoding
        raise ParseError(f"not valid XML ({exc})", source=source) from None
    if root.tag != "configuration":
        raise ParseError(f"root element is <{root.tag}>, expected <configuration>", source=source)
    conf: dict[str, str] = {}
    for index, prop in enumerate(root.iter("property"), start=1):
        name = prop.findtext("name")
        if name is None or not name.strip():
            raise ParseError("property without a <name>", source=source,
                             where=f"property {index}")
        conf[name.strip()] = (prop.findtext("value") or "").strip()
    return conf


def read_conf(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a Hadoop configuration XML file (a job's ``_conf.xml``) into ``{name: value}``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONF_BYTES + 1)
    except FileNotFoundError:
        raise ParseError("no such file", source=path) from None
    except IsADirectoryError:
        raise ParseError("is a directory, expected a configuration XML file",
                         source=path) from None
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror})", source=path) from None
    if len(data) > MAX_CONF_BYTES:
        raise ParseError(f"larger than {MAX_CONF_BYTES:,} bytes: not a job configuration",
                         source=path)
    return parse_conf(data, source=path)


def expand(conf: Mapping[str, str], value: str, *, source: object = None,
           key: str | None = None) -> str:
    """Substitute ``${name}`` references from ``conf`` as Hadoop's Configuration.get does.

    One reference (the first) is replaced per round, for at most :data:`MAX_SUBSTITUTIONS`
    rounds; an unbound name ends the expansion (the rest stays literal) and so does a value
    that refers to itself (the original text is kept). More rounds than that is Hadoop's
    "Variable substitution depth too large", a ParseError here; so is a result longer than
    :data:`MAX_EXPANDED` characters. (Hadoop also looks names up in the environment and the
    JVM's system properties; a job's recorded configuration has no such context.)
    """
    text = value
    for _ in range(MAX_SUBSTITUTIONS):
        match = _VARIABLE.search(text)
        if match is None:
            return text
        replacement = conf.get(match.group(1))
        if replacement is None:
            return text
        if match.group(0) in replacement:
            return value
        text = text[:match.start()] + replacement + text[match.end():]
        if len(text) > MAX_EXPANDED:
            raise ParseError(f"expands to more than {MAX_EXPANDED:,} characters",
                             source=source, where=None if key is None else f"property {key!r}")
    if _VARIABLE.search(text) is None:
        return text
    raise ParseError(f"variable substitution depth too large: {MAX_SUBSTITUTIONS} "
                     f"{value[:80]!r}", source=source,
                     where=None if key is None else f"property {key!r}")


def conf_int(conf: Mapping[str, str], key: str, *, source: object = None) -> int | None:
    """``conf[key]`` as an integer; None when absent. A malformed value is a ParseError."""
    value = _conf_number(conf, key, int, "an integer", source)
    if value is not None and abs(value) > 2**53:
        raise ParseError(f"integer out of range: {conf[key]}"[:200], source=source,
                         where=f"property {key!r}")
    return value


def conf_float(conf: Mapping[str, str], key: str, *, source: object = None) -> float | None:
    """``conf[key]`` as a finite number, as Hadoop's ``getFloat`` reads it; None when absent. A
    malformed value is a ParseError."""
    value = _conf_number(conf, key, float, "a number", source)
    if value is not None and not math.isfinite(value):
        raise ParseError(f"expected a number, found {conf[key]!r}"[:200], source=source,
                         where=f"property {key!r}")
    return value


def _conf_number(conf: Mapping[str, str], key: str, kind: type, what: str, source: object):
    if key not in conf:
        return None
    text = expand(conf, conf[key], source=source, key=key).strip()
    try:
        return kind(text)
    except ValueError:
        raise ParseError(f"expected {what}, found {text!r}"[:200], source=source,
                         where=f"property {key!r}") from None


#: The sort buffer's settings: record column → (key, Hadoop 1's deprecated key, which Hadoop
#: still reads; its reader; what a value must satisfy, as ``MapTask.MapOutputBuffer`` refuses a
#: buffer outside 1-2047 MB and a spill share outside (0, 1]).
SORT_KEYS: dict[str, tuple[tuple[str, str], Any, Any, str]] = {
    "map_sort_mb": (("mapreduce.task.io.sort.mb", "io.sort.mb"), conf_int,
                    lambda v: 1 <= v <= 2047, "a whole number of MB in 1-2047"),
    "map_spill_percent": (("mapreduce.map.sort.spill.percent", "io.sort.spill.percent"),
                          conf_float, lambda v: 0 < v <= 1, "a share in (0, 1]"),
    "combine_min_spills": (("mapreduce.map.combine.minspills", "min.num.spills.for.combine"),
                           conf_int, lambda v: v >= 0, "a whole number of spills, 0 or more"),
}


def sort_buffer(conf: Mapping[str, str], *, source: object = None) -> dict[str, float]:
    """A map's sort buffer as record columns (:data:`SORT_KEYS`): the size, the share that
    starts a spill, the spills from which the combiner runs over their merge; Hadoop's
    defaults (:data:`jobsize.schema.DEFAULT_SORT_BUFFER`) for keys the configuration leaves
    out. A value Hadoop would refuse is a ParseError naming its property."""
    out: dict[str, float] = {}
    for column, (keys, read, valid, what) in SORT_KEYS.items():
        key = next((k for k in keys if k in conf), None)
        if key is None:
            out[column] = DEFAULT_SORT_BUFFER[column]
            continue
        value = read(conf, key, source=source)
        if value is None or not valid(value):
            raise ParseError(f"expected {what}, found {conf[key]!r}"[:200], source=source,
                             where=f"property {key!r}")
        out[column] = value
    return out


def job_settings(conf: Mapping[str, str], *, source: object = None) -> dict[str, float]:
    """The record columns a job's configuration sets: its container sizes and sort buffer."""
    return {**container_sizes(conf, source=source), **sort_buffer(conf, source=source)}


def container_sizes(conf: Mapping[str, str], *, source: object = None) -> dict[str, int]:
    """Container sizes R_m, R_r, R_am (memory MB and vcores) as record columns.

    A key the configuration does not set, or sets to a value below 1, takes Hadoop's default.
    (Hadoop 3 derives a memory size of -1 from the task's heap; that derivation is not
    reproduced here.)
    """
    sizes = {}
    for column, key in CONTAINER_KEYS.items():
        value = conf_int(conf, key, source=source)
        sizes[column] = value if value is not None and value > 0 else DEFAULT_CONTAINERS[column]
    return sizes
