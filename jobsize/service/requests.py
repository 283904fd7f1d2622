"""Request bodies as the service accepts them: bounded JSON, numbers only where numbers belong.

A body is at most :attr:`Limits.body_bytes` long and is JSON text whose nesting, object size,
array length and numbers are bounded: integers of at most 19 digits, finite numbers of magnitude
at most 1e18 (an exabyte, or 30 million years in milliseconds: past any real job, and far from
where the model's sums of squares could overflow). ``NaN`` and ``Infinity`` are refused. Every
refusal is a :class:`BadRequest` with a one-line reason; nothing a client sends is evaluated.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MAX_MAGNITUDE = 1e18


class BadRequest(Exception):
    """A request the service refuses: ``status`` (400; 408 for a body not sent in time, 413 for
    a body too large, 503 with ``retry_after`` seconds when the service is too busy to read
    it)."""

    def __init__(self, reason: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.status, self.retry_after = reason, status, retry_after


@dataclass(frozen=True)
class Limits:
    """What one request may hold, how long its body may take to arrive (seconds), and how many
    body bytes all the requests being read at once may hold together."""

    body_bytes: int = 1 << 20
    read_seconds: float = 10.0
    inflight_bytes: int = 16 << 20
    depth: int = 8
    keys: int = 1000
    batch: int = 1000


def _int(text: str) -> int:
    if len(text) < 19:  # at most 18 digits: within the bound whatever they are
        return int(text)
    if len(text.lstrip("-")) > 19:
        raise BadRequest(f"integer {text[:30]}… has too many digits")
    return _bounded(int(text), text)


def _float(text: str) -> float:
    return _bounded(float(text), text)


def _bounded(value: Any, text: str) -> Any:
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise BadRequest(f"number {text[:30]} is out of range (magnitude at most 1e18)")
    return value


def _constant(name: str) -> Any:
    raise BadRequest(f"{name} is not a number the service accepts")


def parse_body(body: bytes, limits: Limits) -> Any:
    """The JSON document in ``body``, within ``limits``; BadRequest otherwise."""
    if len(body) > limits.body_bytes:
        raise BadRequest(f"body of {len(body)} bytes exceeds {limits.body_bytes}", 413)
    if not body.strip():
        raise BadRequest("empty body: expected a JSON object")
    try:
        text = body.decode("utf-8")
        doc = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except UnicodeDecodeError:
        raise BadRequest("body is not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise BadRequest(f"not valid JSON ({exc.msg} at line {exc.lineno} column "
                         f"{exc.colno})") from None
    except RecursionError:
        raise BadRequest(f"JSON nested deeper than {limits.depth}") from None
    try:
        _check_shape(doc, limits, 0)
    except _Misshapen as exc:
        path = "$" + "".join(reversed(exc.path))
        raise BadRequest(f"{path}: {exc.args[0]}") from None
    return doc


class _Misshapen(Exception):
    """A shape limit broken; ``path`` collects the keys and indices on the way out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.path: list[str] = []


def _check_shape(value: Any, limits: Limits, depth: int) -> None:
    # Only containers are descended into (a scalar only where it is itself too deep), and the
    # path of the offending value is built on the way out: this runs on every request.
    if depth > limits.depth:
        raise _Misshapen(f"JSON nested deeper than {limits.depth}")
    if isinstance(value, dict):
        if len(value) > limits.keys:
            raise _Misshapen(f"more than {limits.keys} keys")
        items: Any = value.items()
        step = "key"
    elif isinstance(value, list):
        if len(value) > limits.batch:
            raise _Misshapen(f"more than {limits.batch} items")
        items = enumerate(value)
        step = "index"
    else:
        return
    deep = depth + 1 > limits.depth
    for key, item in items:
        if deep or isinstance(item, dict | list):
            try:
                _check_shape(item, limits, depth + 1)
            except _Misshapen as exc:
                exc.path.append(f".{_printable(key)}" if step == "key" else f"[{key}]")
                raise


def _printable(key: str) -> str:
    """A key as it may appear in a one-line reason: escaped, at most 40 characters."""
    return json.dumps(key)[1:-1][:40]


def job_object(doc: Any, where: str = "$") -> dict[str, Any]:
    """A job given as a JSON object; BadRequest for anything else."""
    if not isinstance(doc, dict):
        raise BadRequest(f"{where}: expected a JSON object (a job), found {_kind(doc)}")
    return doc


def job_list(doc: Any) -> list[dict[str, Any]]:
    """The jobs of a batch body ``{"jobs": [...]}``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise BadRequest('expected {"jobs": [job, ...]}')
    return [job_object(job, f"$.jobs[{i}]") for i, job in enumerate(doc["jobs"])]


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")
