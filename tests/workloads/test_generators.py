"""Input generators: deterministic, seeded, size-scaled, and shaped as documented."""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import itertools
from pathlib import Path

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.workloads import GENERATORS, HELD_OUT, WORKLOADS


def _digest(paths: list[Path]) -> list[tuple[str, str]]:
    return [(p.name, hashlib.sha256(p.read_bytes()).hexdigest()) for p in paths]


def _size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_same_seed_and_size_give_identical_files(kind, tmp_path):
    generate = GENERATORS[kind]
    a = generate(tmp_path / "a", 150_000, 42)
    b = generate(tmp_path / "b", 150_000, 42)
    c = generate(tmp_path / "c", 150_000, 43)
    assert _digest(a) == _digest(b)
    assert _digest(a) != _digest(c)


@pytest.mark.parametrize("kind", sorted(GENERATORS))
@pytest.mark.parametrize("size", [30_000, 400_000, 3_000_000])
def test_size_is_met_within_one_line(kind, size, tmp_path):
    paths = GENERATORS[kind](tmp_path, size, 5)
    total = _size(paths)
    longest = max(len(line) for p in paths for line in p.read_bytes().splitlines(keepends=True))
    lines = sum(p.read_bytes().count(b"\n") for p in paths)
    assert total <= size or lines == len(paths)  # a file holds one line even if it is longer
    assert total > size - len(paths) * longest
    for p in paths:
        data = p.read_bytes()
        assert data.endswith(b"\n") and b"\n\n" not in data


# Not the join: its orders' key space follows the size of its users table.
@pytest.mark.parametrize("kind", sorted(set(GENERATORS) - {"join"}))
def test_smaller_input_is_a_prefix_of_a_larger_one(kind, tmp_path):
    small = GENERATORS[kind](tmp_path / "s", 50_000, 9)[0].read_bytes()
    large = GENERATORS[kind](tmp_path / "l", 2_000_000, 9)[0].read_bytes()
    assert large.startswith(small) and len(large) > 30 * len(small)


def test_tiny_request_still_writes_one_line(tmp_path):
    paths = GENERATORS["sales"](tmp_path, 5, 1)
    assert paths[0].read_bytes().count(b"\n") == 1


@pytest.mark.parametrize(
    ("size", "seed", "message"),
    [(0, 1, "size_bytes must be positive"), (-5, 1, "size_bytes must be positive"),
     (1.5, 1, "size_bytes must be an integer"), (10, -1, "seed must be a non-negative"),
     (True, 1, "size_bytes must be an integer")],
)
def test_bad_requests_raise_config_errors(size, seed, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        GENERATORS["text"](tmp_path, size, seed)


def test_directory_that_is_a_file_is_refused(tmp_path):
    clash = tmp_path / "file"
    clash.write_text("x")
    with pytest.raises(ConfigError, match="not a directory"):
        GENERATORS["text"](clash, 100, 1)


def test_text_word_frequencies_follow_zipf(tmp_path):
    text = GENERATORS["text"](tmp_path, 2_000_000, 1)[0].read_text()
    counts = collections.Counter(text.lower().replace(",", " ").replace(".", " ").split())
    freq = np.array(sorted(counts.values(), reverse=True), dtype=float)
    ranks = np.arange(1, len(freq) + 1)
    head = slice(0, 200)
    slope = np.polyfit(np.log(ranks[head]), np.log(freq[head]), 1)[0]
    assert -1.2 < slope < -0.8  # Zipf exponent 1
    lines = text.splitlines()
    assert all(line[0].isupper() and line.endswith(".") for line in lines)
    assert 8 < np.mean([len(line.split()) for line in lines]) < 16


def test_sales_keys_are_skewed(tmp_path):
    rows = [line.split(",") for line in
            GENERATORS["sales"](tmp_path, 1_000_000, 1)[0].read_text().splitlines()]
    assert all(len(r) == 7 for r in rows)
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    regions = collections.Counter(r[2] for r in rows)
    assert len(regions) <= 40 and regions.most_common(1)[0][1] > 0.15 * len(rows)
    products = collections.Counter(r[3] for r in rows)
    assert products.most_common(1)[0][1] > 20 * len(rows) / len(products)
    # One price per product.
    price = {}
    for r in rows:
        assert price.setdefault(r[3], r[6]) == r[6]


def test_join_inputs_share_keys_with_skew(tmp_path):
    users_path, orders_path = GENERATORS["join"](tmp_path, 1_000_000, 1)
    users = [line.split(",")[0] for line in users_path.read_text().splitlines()]
    orders = collections.Counter(
        line.split(",")[1] for line in orders_path.read_text().splitlines())
    assert len(set(users)) == len(users)
    assert 0.08 < users_path.stat().st_size / 1_000_000 < 0.14
    matched = sum(n for key, n in orders.items() if key in set(users))
    assert 0.8 * orders.total() < matched < orders.total()  # most, not all, orders match
    assert orders.most_common(1)[0][1] > 50 * orders.total() / len(users)


def test_weblog_users_are_skewed_and_time_moves_forward(tmp_path):
    lines = GENERATORS["weblog"](tmp_path, 1_000_000, 1)[0].read_text().splitlines()
    users = collections.Counter(line.split()[2] for line in lines)
    assert users.most_common(1)[0][1] > 0.05 * len(lines)
    assert len(users) > 200
    stamps = [dt.datetime.strptime(line[line.index("[") + 1 : line.index("]")],
                                   "%d/%b/%Y:%H:%M:%S %z") for line in lines]
    # In time order within each chunk of the file: time goes back only at chunk boundaries.
    backwards = sum(b < a for a, b in itertools.pairwise(stamps))
    assert backwards < 0.01 * len(stamps)
    assert stamps[-1] > stamps[0]


def test_records_are_100_bytes_with_uniform_keys(tmp_path):
    data = GENERATORS["records"](tmp_path, 1_000_000, 1)[0].read_bytes()
    lines = data.splitlines(keepends=True)
    assert len(lines) == 10_000 and {len(line) for line in lines} == {100}
    assert all(line[10:11] == b"\t" and line[:10].isalpha() for line in lines)
    first_letters = collections.Counter(line[0] for line in lines)
    assert len(first_letters) == 26 and max(first_letters.values()) < 2 * 10_000 / 26


def test_points_have_eight_coordinates(tmp_path):
    points = np.loadtxt(GENERATORS["points"](tmp_path, 500_000, 1)[0], delimiter=",")
    assert points.shape[1] == 8 and len(points) > 5000
    assert np.abs(points).max() < 200


def test_pages_are_long_records_with_a_site_and_links(tmp_path):
    from jobsize.workloads.gen.pages import MAX_WORDS, MIN_WORDS

    lines = GENERATORS["pages"](tmp_path, 4_000_000, 1)[0].read_text().splitlines()
    assert len(lines) >= 10
    lengths = sorted(len(line) for line in lines)
    assert lengths[len(lengths) // 2] > 30_000  # the median page is tens of kilobytes
    for line in lines:
        url, text = line.split("\t")
        assert url.startswith("http://www.") and url.count("/") == 4
        words = text.split(" ")
        assert MIN_WORDS <= len(words) <= MAX_WORDS
    links = sum(line.count("[[") for line in lines)
    words = sum(line.count(" ") + 1 for line in lines)
    assert 0.005 < links / words < 0.02
    sites = collections.Counter(line.split("/")[2] for line in lines)
    assert len(sites) > 3


def test_each_workload_generates_its_input_kind(tmp_path):
    for name, w in {**WORKLOADS, **HELD_OUT}.items():
        paths = w.generate(tmp_path / name, 10_000, 1)
        assert len(paths) == w.n_inputs and all(p.parent == tmp_path / name for p in paths)
