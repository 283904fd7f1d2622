"""Hypothesis strategies shared by the fuzz tests of every parser and loader.

Three kinds of damage: byte-level (truncation, flipped bytes, inserted and deleted runs),
structure-level for JSON documents (a value replaced by an odd or hostile one, a key removed),
and hostile JSON text that no ``json.dumps`` writes (numbers like ``1e999`` and integers of
thousands of digits, lone surrogates, nesting thousands deep). A parser passes when it raises a
:class:`jobsize.errors.JobsizeError` or returns tables whose every value its column can hold
(:func:`jobsize.validation.checked_frame`) — any other exception, or an impossible value
returned, is a bug.

Every pair of tests made by :func:`fuzz_pair` is registered in :data:`TARGETS`, so
``benchmarks/fuzz_figures.py`` can run each target alone and measure its time and memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobsize.errors import JobsizeError
from jobsize.schema import JOB_COLUMNS, TASK_COLUMNS
from jobsize.validation import checked_frame

#: Cases per parser in the default run and under ``-m slow``.
FAST_CASES = 300
SLOW_CASES = 10_000

_ODD_VALUES: tuple[Any, ...] = (None, "", "x", -1, -2, 0, 1.5, 2**70, -(2**70), True, [], {},
                                [1], {"a": 1}, float("1e308"), -1e308, 2**63, 2**63 - 1,
                                -(2**63), 10**400, 1e9, 2**62, "\udc80", "-5", "1e999",
                                "${x}", "9" * 30)

#: Number literals no encoder writes, for :func:`hostile_text`.
_HOSTILE_NUMBERS = ("1e999", "-1e999", "1" * 5000, "9223372036854775808", "-9223372036854775809",
                    "18446744073709551616", "-1", "-0.0", "1e-400", "123456789" * 50, "NaN",
                    "Infinity", "-Infinity")
_NUMBER = re.compile(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.\"])")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')

#: Every fuzz target: name → (strategy, check); filled by :func:`fuzz_pair`.
TARGETS: dict[str, tuple[st.SearchStrategy, Callable[[Any], None]]] = {}


@st.composite
def damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` truncated, with bytes flipped, inserted or deleted (one or more of these)."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("truncate", "flip", "insert", "delete")))
        if not out:
            break
        at = draw(st.integers(0, len(out) - 1))
        if kind == "truncate":
            del out[at:]
        elif kind == "flip":
            out[at] ^= draw(st.integers(1, 255))
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            del out[at:at + draw(st.integers(1, 64))]
    return bytes(out)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _copy_with(node: Any, path: tuple, action: str, value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        out = dict(node)
        if not rest and action == "delete":
            del out[head]
        else:
            out[head] = _copy_with(node[head], rest, action, value)
        return out
    out_list = list(node)
    if not rest and action == "delete":
        del out_list[head]
    else:
        out_list[head] = _copy_with(node[head], rest, action, value)
    return out_list


@st.composite
def damaged_json(draw: st.DrawFn, document: Any) -> Any:
    """``document`` with one to three values replaced by odd ones or removed."""
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(document)
        if not paths:
            return draw(st.sampled_from(_ODD_VALUES))
        path = paths[draw(st.integers(0, len(paths) - 1))]  # not sampled_from: it is cached
        action = draw(st.sampled_from(("delete", "replace", "replace")))
        value = draw(st.sampled_from(_ODD_VALUES))
        document = _copy_with(document, path, action, value)
    return document


@st.composite
def hostile_text(draw: st.DrawFn, document: Any) -> bytes:
    """``document`` as JSON text with one to three hostile edits: a number replaced by a literal
    out of every range, a string by a lone surrogate escape, a value nested thousands deep."""
    text = json.dumps(document, indent=1)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(("number", "string", "deep", "deep")))
        pattern = _STRING if kind == "string" else _NUMBER
        spans = [m.span() for m in pattern.finditer(text)] or [(0, len(text))]
        start, end = spans[draw(st.integers(0, len(spans) - 1))]
        if kind == "number":
            new = draw(st.sampled_from(_HOSTILE_NUMBERS))
        elif kind == "string":
            new = draw(st.sampled_from(('"\\udc80"', '"a\\ud800b"', '"\\u0000"')))
        else:
            depth = draw(st.sampled_from((50, 900, 5000, 100_000)))
            opener = draw(st.sampled_from(("[", '{"a":')))
            new = opener * depth + text[start:end] + ("]" if opener == "[" else "}") * depth
        text = text[:start] + new + text[end:]
    return text.encode("utf-8", "surrogatepass")


def storable(result: object) -> None:
    """Every job or task table in ``result`` holds only values its columns can hold."""
    frames = result if isinstance(result, tuple) else (result,)
    for frame in frames:
        if isinstance(frame, pd.DataFrame) and "job_id" in frame.columns:
            columns = TASK_COLUMNS if "attempt_id" in frame.columns else JOB_COLUMNS
            checked_frame(frame, columns=columns)  # raises BadRecordError: a failed test


def only_jobsize_errors(call: Callable[[], object]) -> object:
    """Run ``call``; a JobsizeError is fine, any other exception fails the test, and so does a
    returned table with an impossible value."""
    try:
        result = call()
    except JobsizeError as exc:
        assert str(exc), "a jobsize error must carry a message"
        assert "\n" not in str(exc), "a jobsize error is one line"
        return None
    storable(result)
    return result


def fuzz_pair(strategy: st.SearchStrategy, check: Callable[[Any], None], name: str = "",
              fast_cases: int = FAST_CASES):
    """A default-run fuzz test (``fast_cases``) and a ``slow`` one of ≥ 10k cases over the same
    check, registered in :data:`TARGETS` under ``name`` (the check's module and a counter if
    empty)."""
    name = name or f"{check.__module__}.{len(TARGETS)}"
    TARGETS[name] = (strategy, check)
    common = {"deadline": None, "derandomize": False,
              "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}

    @settings(max_examples=fast_cases, **common)
    @given(strategy)
    def fast(case: Any) -> None:
        check(case)

    @pytest.mark.slow
    @settings(max_examples=SLOW_CASES, **common)
    @given(strategy)
    def slow(case: Any) -> None:
        check(case)

    return fast, slow


def to_bytes(document: Any) -> bytes:
    return json.dumps(document, indent=1).encode()
