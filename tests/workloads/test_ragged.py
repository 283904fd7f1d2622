"""Vectorised record assembly and skewed draws, checked against plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.skew import Zipf
from jobsize.workloads.gen.text import vocabulary, word

ints = st.lists(st.integers(min_value=0, max_value=2**62), min_size=1, max_size=50)


@given(ints, st.integers(min_value=0, max_value=12))
def test_decimal_matches_python_formatting(values, width):
    lines = ragged.lines([ragged.decimal(np.array(values), width)], end=b"|")
    assert lines.rows() == [f"{v:0{width}d}|".encode() for v in values]


@given(st.lists(st.floats(min_value=-1e9, max_value=1e9), min_size=1, max_size=50),
       st.integers(min_value=0, max_value=4))
def test_fixed_point_matches_python_formatting(values, decimals):
    got = ragged.lines([ragged.fixed_point(np.array(values), decimals)], end=b"").rows()
    scaled = np.rint(np.array(values) * 10**decimals).astype(np.int64).tolist()
    expected = []
    for s in scaled:
        sign, magnitude = ("-" if s < 0 else ""), abs(s)
        whole, fraction = divmod(magnitude, 10**decimals)
        expected.append((f"{sign}{whole}" + (f".{fraction:0{decimals}d}" if decimals else ""))
                        .encode())
    assert got == expected


@given(st.lists(st.binary(max_size=30), min_size=1, max_size=20), st.data())
@settings(max_examples=50)
def test_table_take_and_lines_join_fields(values, data):
    table = ragged.Table.of(values)
    index = data.draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=40))
    column = table.take(np.array(index))
    n = len(index)
    lines = ragged.lines([column, [ragged.constant(b"<", n), column]], separator=b",")
    assert lines.rows() == [values[i] + b",<" + values[i] + b"\n" for i in index]


def test_zipf_draws_follow_the_law():
    law = Zipf(1000, 1.0)
    draws = law.draw(np.random.default_rng(0), 2_000_000)
    observed = np.bincount(draws, minlength=1000) / len(draws)
    expected = np.diff(np.concatenate(([0.0], law.cdf)))
    # Within 5 standard errors everywhere, head and tail.
    assert np.all(np.abs(observed - expected) < 5 * np.sqrt(expected / len(draws)) + 1e-6)
    assert draws.min() == 0 and draws.max() == 999


def test_zipf_with_one_key_and_steep_law():
    assert set(Zipf(1, 1.0).draw(np.random.default_rng(1), 100).tolist()) == {0}
    steep = Zipf(50, 3.0).draw(np.random.default_rng(1), 10_000)
    assert (steep == 0).mean() > 0.8


def test_vocabulary_words_are_unique_and_short_first():
    words = vocabulary()
    assert len(set(words)) == len(words)
    assert [len(w) for w in words[:85]] == [2] * 85 and len(words[85]) == 4
    assert word(0) == words[0] and words[-1] == word(len(words) - 1)
