"""Records in bulk: key hashes, canonical lines, Hadoop's serialized sizes, grouping."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobsize.engine import keyhash
from jobsize.engine.records import count_groups, partition_lines, scan, split_lines

keys = st.binary(max_size=40).map(lambda b: b.replace(b"\t", b"").replace(b"\n", b""))
values = st.binary(max_size=300).map(lambda b: b.replace(b"\n", b""))
records = st.lists(st.tuples(keys, values, st.booleans()), min_size=1, max_size=40)


def _chunk(recs) -> bytes:
    return b"".join(k + b"\t" + v + b"\n" if tab else k + b"\n" for k, v, tab in recs)


def _vint(n: int) -> int:
    return 1 if n < 128 else 1 + (n.bit_length() + 7) // 8


@pytest.fixture
def small_blocks(monkeypatch):
    """Prefix sums over 16-byte windows, so chunks span many windows and long keys exist."""
    monkeypatch.setattr(keyhash, "_BLOCK", 8)
    monkeypatch.setattr(keyhash, "_POW", None)
    monkeypatch.setattr(keyhash, "_INV_POW", None)
    yield
    keyhash._POW = keyhash._INV_POW = None


@settings(max_examples=300, deadline=None)
@given(recs=records)
def test_scan_agrees_with_one_record_at_a_time(recs):
    s = scan(_chunk(recs))
    assert s.records == len(recs)
    # a line without a tab becomes "key\t" — what Hadoop Streaming passes on
    assert s.data == b"".join(k + b"\t" + (v if tab else b"") + b"\n" for k, v, tab in recs)
    assert s.serialized == sum(len(k) + _vint(len(k)) + (len(v) if tab else 0)
                               + _vint(len(v) if tab else 0) for k, v, tab in recs)
    assert [int(h) for h in s.hashes] == [keyhash.key_hash(k) for k, _, _ in recs]


# the fixture only sets a constant, so sharing it between examples is what is wanted
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(recs=records)
def test_hashes_across_prefix_sum_windows(small_blocks, recs):
    assert [int(h) for h in scan(_chunk(recs)).hashes] == [keyhash.key_hash(k)
                                                            for k, _, _ in recs]


def test_hash_depends_only_on_the_key():
    assert keyhash.key_hash(b"apple") == keyhash.key_hash(b"apple")
    assert keyhash.key_hash(b"apple") != keyhash.key_hash(b"apples")
    a = scan(b"apple\t1\n").hashes[0]
    b = scan(b"pear\t2\napple\t3\n").hashes[1]
    assert a == b
    # spread: 4000 distinct keys land evenly on 4 partitions
    parts = np.bincount([keyhash.partition_of(f"k{i}".encode(), 4) for i in range(4000)])
    assert parts.min() > 850


def test_partition_keeps_order_and_groups_are_counted():
    chunk = b"b\t1\na\t2\nb\t3\nc\t4\na\t5\n"
    s = scan(chunk)
    parts = partition_lines(split_lines(s.data), s.hashes, 3)
    assert sorted(line for p in parts for line in p) == sorted(split_lines(chunk))
    for p in parts:
        assert p == [line for line in split_lines(chunk) if line in p]  # order kept
        keys = {line.split(b"\t")[0] for line in p}
        assert all(keyhash.partition_of(k, 3) == parts.index(p) for k in keys)
    ordered = scan(b"a\t1\na\t2\nb\t1\nc\t1\nc\t2\n").hashes
    assert count_groups(ordered, None) == 3
    assert count_groups(ordered, int(ordered[0])) == 2  # "a" continues the previous batch
