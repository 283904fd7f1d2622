"""Hypothesis strategies shared by the collectors' fuzz tests.

Two kinds of damage: byte-level (truncation, flipped bytes, inserted and deleted runs) and
structure-level for JSON documents (a value replaced by one of another type, a key removed).
A parser passes when it returns or raises a :class:`jobsize.errors.JobsizeError` — any other
exception is a bug.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobsize.errors import JobsizeError

#: Cases per parser in the default run and under ``-m slow``.
FAST_CASES = 300
SLOW_CASES = 10_000

_ODD_VALUES: tuple[Any, ...] = (None, "", "x", -1, 0, 1.5, 2**70, -(2**70), True, [], {}, [1],
                                {"a": 1}, float("1e308"))


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
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(("delete", "replace", "replace")))
        value = draw(st.sampled_from(_ODD_VALUES))
        document = _copy_with(document, path, action, value)
    return document


def only_jobsize_errors(call: Callable[[], object]) -> None:
    """Run ``call``; a JobsizeError is fine, any other exception fails the test."""
    try:
        call()
    except JobsizeError as exc:
        assert str(exc), "a jobsize error must carry a message"


def fuzz_pair(strategy: st.SearchStrategy, check: Callable[[Any], None]):
    """A default-run fuzz test and a ``slow`` one of ≥ 10k cases over the same check."""
    common = {"deadline": None, "derandomize": False,
              "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}

    @settings(max_examples=FAST_CASES, **common)
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
