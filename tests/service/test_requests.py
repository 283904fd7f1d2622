"""Request bodies: whatever bytes a client sends, the parser returns JSON within the limits or
refuses with a one-line reason."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jobsize.service.requests import MAX_MAGNITUDE, BadRequest, Limits, parse_body

LIMITS = Limits(body_bytes=4096, depth=4, keys=10, batch=10)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(max_size=3), inner,
                                                                  max_size=12),
    max_leaves=60)


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _numbers(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []


_BODIES = st.one_of(st.binary(max_size=200), _JSON.map(lambda v: json.dumps(v).encode()))


def _parses_within_the_limits_or_is_refused_in_one_line(body):
    try:
        doc = parse_body(body, LIMITS)
    except BadRequest as exc:
        assert exc.status in (400, 413) and "\n" not in exc.reason and exc.reason
        return
    assert _depth(doc) <= LIMITS.depth + 1
    assert all(abs(n) <= MAX_MAGNITUDE for n in _numbers(doc))


# 150 bodies (and the examples that once broke it) in the default run, 5,000 under -m slow.
@given(_BODIES)
@example(b"[" * 5000 + b"]" * 5000)
@example(b'{"a": 1e999}')
@example(b"-" + b"9" * 30)
@example(b'{"\\n": [' + b"null," * 10 + b"null]}")  # a key with a line break in the reason
@settings(max_examples=150, deadline=None)
def test_bodies_parse_within_the_limits_or_are_refused_in_one_line(body):
    _parses_within_the_limits_or_is_refused_in_one_line(body)


@pytest.mark.slow
@given(_BODIES)
@settings(max_examples=5000, deadline=None)
def test_bodies_parse_within_the_limits_or_are_refused_in_one_line_slow(body):
    _parses_within_the_limits_or_is_refused_in_one_line(body)
