"""Algorithm 1: properties over random files and split layouts, and the edge cases."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jobsize.sampler.sampling import choose_splits, plan, read_records, sample
from jobsize.sampler.splits import Split, local_splits
from sampler_reference import longest, reader_records, records

from jobsize.errors import ConfigError

# ---------------------------------------------------------------------------------------------
# strategies

_body = st.binary(max_size=40).map(lambda b: b.replace(b"\r", b"x").replace(b"\n", b"y"))
_record = st.tuples(_body, st.sampled_from([b"\n", b"\r\n", b"\r"])).map(lambda t: t[0] + t[1])


@st.composite
def text_file(draw: st.DrawFn, max_records: int = 60) -> bytes:
    data = b"".join(draw(st.lists(_record, max_size=max_records)))
    if draw(st.booleans()):
        data += draw(_body)  # an unterminated last record
    return data


@st.composite
def layout(draw: st.DrawFn) -> tuple[list[bytes], int, int, int, int, int]:
    files = draw(st.lists(text_file(), min_size=1, max_size=4))
    split_bytes = draw(st.integers(1, 400))
    n_maps = draw(st.integers(1, 30))
    n_reduces = draw(st.integers(0, 30))
    max_splits = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**32))
    return files, split_bytes, n_maps, n_reduces, max_splits, seed


def _write(tmp: Path, files: list[bytes]) -> list[str]:
    paths = []
    for i, data in enumerate(files):
        path = tmp / f"part-{i:05d}"
        path.write_bytes(data)
        paths.append(str(path))
    return paths


_settings = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------------------------------------
# properties


@_settings
@given(layout())
def test_sample_is_exactly_what_line_record_reader_reads_from_the_chosen_ranges(
        tmp_path_factory: pytest.TempPathFactory, case: tuple) -> None:
    _check_sample(tmp_path_factory, case)


@pytest.mark.slow
@settings(_settings, max_examples=10_000)
@given(layout())
def test_sample_properties_long_run(tmp_path_factory: pytest.TempPathFactory,
                                    case: tuple) -> None:
    _check_sample(tmp_path_factory, case)


def _check_sample(tmp_path_factory: pytest.TempPathFactory, case: tuple) -> None:
    files, split_bytes, n_maps, n_reduces, max_splits, seed = case
    tmp = tmp_path_factory.mktemp("alg1")
    paths = _write(tmp, files)
    content = dict(zip(paths, files, strict=True))
    splits = local_splits(paths, split_bytes)
    s = sample(splits, n_maps, n_reduces, max_splits, seed)

    # the chosen ranges, read by an independent model of LineRecordReader, give the sample
    expected = b"".join(reader_records(content[c.path], c.offset, c.offset + c.range_bytes)
                        for c in s.splits_chosen if c.range_bytes > 0)
    assert s.data == expected

    # every piece is a run of whole records of its file: it starts and ends on record bounds
    for chosen, piece in s.parts():
        if not piece:
            continue
        data = content[chosen.path]
        starts = {a for a, _ in records(data)}
        ends = {b for _, b in records(data)}
        assert chosen.data_start in starts
        assert chosen.data_start + len(piece) in ends
        assert data[chosen.data_start: chosen.data_start + len(piece)] == piece
        assert chosen.split_start <= chosen.offset
        assert chosen.offset + chosen.range_bytes <= chosen.split_start + chosen.split_length

    # only about the sample is read: ≤ 1.1 × f_p × input plus one record per chosen split
    one_record = max(longest(d) for d in files) + 1
    k = len(s.splits_chosen)
    assert s.bytes_read <= 1.1 * s.fraction * s.input_bytes + k * one_record
    assert s.fraction == (len(s.data) / s.input_bytes if s.input_bytes else 1.0)

    # the ranges are distinct, from at most min(N_m, upper bound) map inputs (splits, or runs
    # of files combined when there are more splits than N_m)
    picked = [(c.path, c.split_start) for c in s.splits_chosen]
    assert len(set(picked)) == len(picked)
    assert len({c.unit for c in s.splits_chosen}) <= min(n_maps, max_splits)

    # the same seed gives the same sample
    again = sample(local_splits(paths, split_bytes), n_maps, n_reduces, max_splits, seed)
    assert again.data == s.data and again.splits_chosen == s.splits_chosen


@_settings
@given(st.integers(1, 12), st.integers(20, 300), st.integers(0, 60), st.integers(1, 16),
       st.integers(0, 2**32), st.data())
def test_fraction_is_close_to_one_over_max_of_maps_and_reduces(
        tmp_path_factory: pytest.TempPathFactory, n_splits: int, split_bytes: int,
        n_reduces: int, max_splits: int, seed: int, data: st.DataObject) -> None:
    # equal splits (the input is a whole number of splits) and N_m = the number of splits
    body = b"".join(data.draw(st.lists(_record, min_size=1, max_size=20)))
    content = (body * (n_splits * split_bytes // len(body) + 1))[: n_splits * split_bytes]
    path = tmp_path_factory.mktemp("frac") / "input"
    path.write_bytes(content)
    splits = local_splits(path, split_bytes)
    assert len(splits) == n_splits
    s = sample(splits, n_splits, n_reduces, max_splits, seed)
    target = 1 / max(n_splits, n_reduces)
    assert s.target_fraction == target
    k = min(n_splits, max_splits)
    assert len(s.splits_chosen) == k
    # each range is within rounding of its share; each piece within a record of its range
    slack = k * (longest(content) + 0.5)
    assert abs(len(s.data) - target * len(content)) <= slack


def test_fraction_is_unbiased_over_seeds_on_an_uneven_layout(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    lines = [b"w" * int(n) + b"\n" for n in rng.integers(0, 60, size=20000)]
    path = tmp_path / "input"
    path.write_bytes(b"".join(lines))  # ~610 kB: 9 splits of 64 kB and a short last one
    splits = local_splits(path, 64 * 1024)
    fractions = [sample(splits, len(splits), 40, 4, seed).fraction for seed in range(400)]
    assert statistics.mean(fractions) == pytest.approx(1 / 40, rel=0.03)


# ---------------------------------------------------------------------------------------------
# Algorithm 1 lines 1-9


def test_plan_follows_algorithm_1() -> None:
    p = plan(n_splits=100, n_maps=100, n_reduces=10, max_splits=16)
    assert p.target_fraction == 1 / 100
    assert p.n_chosen == 16
    assert p.frequency == pytest.approx((1 / 100) / (16 / 100))
    p = plan(n_splits=10, n_maps=10, n_reduces=50, max_splits=4)
    assert (p.target_fraction, p.n_chosen) == (1 / 50, 4)
    assert p.frequency == pytest.approx((1 / 50) / (4 / 10))


def test_the_probe_budget_caps_the_fraction_but_keeps_a_least_sample() -> None:
    mib = 1 << 20
    capped = plan(n_splits=20, n_maps=20, n_reduces=1, max_fraction=0.01,
                  input_bytes=100 * mib, min_bytes=128 * 1024)
    assert capped.target_fraction == 0.01  # not one map's share (1/20): 1 MiB
    small = plan(20, 20, 1, max_fraction=0.01, input_bytes=4 * mib, min_bytes=128 * 1024)
    assert small.target_fraction == pytest.approx(1 / 32)  # 128 KiB of 4 MiB
    tiny = plan(20, 20, 1, max_fraction=0.01, input_bytes=mib, min_bytes=128 * 1024)
    assert tiny.target_fraction == 1 / 20  # never above one map's share
    assert plan(20, 20, 1, max_fraction=0.01).target_fraction == 0.01  # size unknown
    with pytest.raises(ConfigError, match="smallest probe sample"):
        plan(20, 20, 1, max_fraction=0.01, input_bytes=mib, min_bytes=-1)


def test_an_upper_bound_above_n_maps_chooses_n_maps_splits(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"abcdefghi\n" * 500)
    splits = local_splits(path, 1000)
    assert len(splits) == 5
    s = sample(splits, 5, 2, max_splits=50, seed=1)
    assert len(s.splits_chosen) == 5
    assert plan(5, 5, 2, 50).frequency == pytest.approx(1 / 5)


def test_more_splits_than_n_maps_reads_no_split_more_than_once(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"abcdefghi\n" * 1000)
    splits = local_splits(path, 1000)  # 10 splits, but the job says N_m = 1, N_r = 0: f_p = 1
    p = plan(len(splits), 1, 0, 16)
    assert (p.n_units, p.n_chosen, p.frequency) == (1, 1, 1.0)  # one map reads all ten
    s = sample(splits, 1, 0, 16, seed=3)
    assert s.data == path.read_bytes()


def test_partial_fisher_yates_picks_distinct_splits_uniformly() -> None:
    rng = np.random.default_rng(0)
    counts = np.zeros(10)
    for _ in range(3000):
        picked = choose_splits(10, 3, rng)
        assert len(set(picked)) == 3
        counts[picked] += 1
    assert counts.min() > 0.8 * 900 and counts.max() < 1.2 * 900


@pytest.mark.parametrize(("n_maps", "n_reduces", "max_splits"), [(0, 1, 1), (1, -1, 1),
                                                                 (1, 1, 0)])
def test_bad_counts_are_config_errors(n_maps: int, n_reduces: int, max_splits: int) -> None:
    with pytest.raises(ConfigError, match="must be"):
        plan(3, n_maps, n_reduces, max_splits)


def test_bad_seed_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"a\n")
    with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
        sample(local_splits(tmp_path / "f"), 1, 0, seed=-1)


def test_numpy_counts_and_seed_give_plain_metadata(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"a\nb\n" * 100)
    s = sample(local_splits(tmp_path / "f", 50), np.int64(4), np.int64(1), np.int64(2),
               np.int64(3))
    assert json.loads(json.dumps(s.metadata()))["seed"] == 3


# ---------------------------------------------------------------------------------------------
# edge cases


def test_empty_input_gives_an_empty_sample_of_the_whole(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    splits = local_splits(tmp_path / "empty")
    assert [(s.start, s.length) for s in splits] == [(0, 0)]  # Hadoop: one empty split
    s = sample(splits, 1, 1, seed=1)
    assert (s.data, s.fraction, s.bytes_read, s.input_bytes) == (b"", 1.0, 0, 0)
    empty_dir = tmp_path / "dir"
    empty_dir.mkdir()
    s = sample(local_splits(empty_dir), 3, 0, seed=1)
    assert (s.data, s.fraction, s.n_splits, s.splits_chosen) == (b"", 1.0, 0, ())


def test_input_smaller_than_one_record(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"half a rec")  # no terminator: one partial record
    splits = local_splits(path)
    assert sample(splits, 1, 1, seed=0).data == b"half a rec"  # N_m = 1: all of it
    outcomes = {sample(splits, 1, 4, seed=seed).data for seed in range(50)}
    assert outcomes == {b"", b"half a rec"}  # the record or nothing, never a piece


def test_n_maps_one_reads_the_whole_split(tmp_path: Path) -> None:
    path = tmp_path / "in"
    data = b"".join(b"%d\r\n" % i for i in range(300))
    path.write_bytes(data)
    s = sample(local_splits(path), 1, 0, seed=5)
    assert s.data == data and s.fraction == 1.0 and s.bytes_read == len(data)


def test_map_only_job_uses_n_maps_alone(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"0123456789abcdef\n" * 4096)
    splits = local_splits(path, 4096)
    s = sample(splits, len(splits), 0, 16, seed=2)
    assert s.target_fraction == 1 / len(splits)
    assert s.fraction == pytest.approx(1 / len(splits), abs=16 * 17 / len(path.read_bytes()))


def test_non_utf8_bytes_pass_through(tmp_path: Path) -> None:
    data = b"\xff\xfe caf\xe9\n\x80\x81\x00\tv\r\n\xc3\x28 end"
    path = tmp_path / "latin1"
    path.write_bytes(data)
    assert sample(local_splits(path), 1, 1, seed=0).data == data


def test_a_split_with_no_newline_yields_the_record_or_nothing(tmp_path: Path) -> None:
    data = b"x" * 5000  # one record across five splits
    path = tmp_path / "in"
    path.write_bytes(data)
    splits = local_splits(path, 1000)
    for seed in range(30):
        s = sample(splits, 5, 0, 5, seed)
        assert s.data in (b"", data)
        # a range inside the record is read only as far as its own end, plus one byte
        for chosen in s.splits_chosen:
            if not chosen.data_bytes:
                assert chosen.bytes_read <= chosen.range_bytes + 1


# ---------------------------------------------------------------------------------------------
# record alignment at the edges of a range


def _split(tmp_path: Path, data: bytes) -> Split:
    path = tmp_path / "in"
    path.write_bytes(data)
    return local_splits(path)[0]


def test_record_crossing_the_range_end_is_read_to_its_end(tmp_path: Path) -> None:
    split = _split(tmp_path, b"aaaa\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\ncc\n")
    start, data, fetched = read_records(split, 0, 7)
    assert (start, data) == (0, b"aaaa\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n")
    assert fetched >= len(data)


def test_record_starting_before_the_offset_is_skipped(tmp_path: Path) -> None:
    split = _split(tmp_path, b"aaaa\nbbbb\ncccc\n")
    assert read_records(split, 2, 4)[:2] == (5, b"bbbb\n")
    # a record starting exactly at the offset belongs to the range before (Hadoop's rule) ...
    assert read_records(split, 5, 5)[:2] == (10, b"cccc\n")
    assert read_records(split, 5, 4)[:2] == (5, b"")  # nothing starts in (5, 9]
    # ... and one starting exactly at the range end belongs to this range
    assert read_records(split, 2, 8)[:2] == (5, b"bbbb\ncccc\n")


def test_crlf_straddling_the_range_edges(tmp_path: Path) -> None:
    split = _split(tmp_path, b"aa\r\nbb\r\ncc\r\n")
    # the range ends between CR and LF: the record ends after the LF, no empty record follows
    assert read_records(split, 0, 3)[1] == b"aa\r\n"
    # the range ends on the CR: the CR LF pair is one terminator, read whole
    assert read_records(split, 0, 2)[1] == b"aa\r\n"
    # the range starts on the CR: the next record starts after the LF
    assert read_records(split, 2, 2)[:2] == (4, b"bb\r\n")
    # the range starts between CR and LF: the LF is not a record of its own
    assert read_records(split, 3, 4)[:2] == (4, b"bb\r\n")
    # a lone CR ends a record too
    split = _split(tmp_path, b"aa\rbb\rcc")
    assert read_records(split, 1, 2)[:2] == (3, b"bb\r")
    assert read_records(split, 4, 4)[:2] == (6, b"cc")


def test_long_last_record_is_read_in_growing_steps(tmp_path: Path) -> None:
    calls: list[int] = []
    split = _split(tmp_path, b"a\n" + b"z" * 100_000 + b"\n")

    class Counting:
        name = split.path

        def read(self, offset: int, length: int) -> bytes:
            calls.append(length)
            return split.source.read(offset, length)

    counted = type(split)(split.path, split.start, split.length, split.file_length, Counting())
    _, data, fetched = read_records(counted, 0, 3)
    assert data == split.source.read(0, 100_003)
    assert fetched == sum(calls) <= 1.1 * len(data) + 2
    assert len(calls) < 200  # steps grow: not one read per byte


# ---------------------------------------------------------------------------------------------
# bounded memory: splits are made on demand, and many small splits are combined


def test_a_one_byte_split_size_lists_no_split(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"abcdefghijklmnopqrstuvw\n" * 200_000)  # 4.8 MB: 4.8 million splits
    splits = local_splits(path, 1)
    assert len(splits) == path.stat().st_size
    assert len(splits._files) == 1  # the file, not one object per split
    s = sample(splits, 10, 2, 16, seed=4)
    assert len({c.unit for c in s.splits_chosen}) == 10
    assert s.fraction == pytest.approx(0.1, abs=0.01)


def test_many_tiny_files_reach_the_target_fraction(tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(2000):
        (folder / f"part-{i:05d}").write_bytes(b"%05d some record\n" % i)
    splits = local_splits(folder)
    assert len(splits) == 2000
    fractions = [sample(splits, 4, 1, 16, seed=seed).fraction for seed in range(20)]
    assert statistics.mean(fractions) == pytest.approx(0.25, rel=0.05)


def test_sparse_fisher_yates_draws_what_the_list_version_draws() -> None:
    def listed(n: int, k: int, rng: np.random.Generator) -> list[int]:
        order = list(range(n))
        for i in range(k):
            j = int(rng.integers(i, n))
            order[i], order[j] = order[j], order[i]
        return order[:k]

    for seed in range(200):
        n = seed % 37 + 1
        k = min(n, seed % 7 + 1)
        assert choose_splits(n, k, np.random.default_rng(seed)) == listed(
            n, k, np.random.default_rng(seed))


def test_a_nonempty_sample_takes_the_first_record_after_an_empty_range(tmp_path: Path) -> None:
    # records of 100 bytes, a 0.1 % cap: every range is far shorter than one record
    path = tmp_path / "in"
    lines = [b"%03d" % i + b"x" * 96 + b"\n" for i in range(200)]
    path.write_bytes(b"".join(lines))
    splits = local_splits(path, 4096)
    empty = 0
    for seed in range(40):
        bare = sample(splits, 5, 1, seed=seed, max_fraction=0.001)
        if bare.data:  # a 4-byte range caught a record's start: nothing to make up
            assert sample(splits, 5, 1, seed=seed, max_fraction=0.001,
                          nonempty=True) == bare
            continue
        empty += 1
        taken = sample(splits, 5, 1, seed=seed, max_fraction=0.001, nonempty=True)
        assert taken.data and taken.fraction > 0
        assert taken.data in b"".join(lines) and taken.data.count(b"\n") <= 2
        assert taken.data.startswith(tuple(lines))  # whole records, from a record boundary
        (chosen,) = taken.splits_chosen
        assert chosen.data_bytes == len(taken.data)
    assert empty >= 20  # most ranges hold no record


def test_a_nonempty_sample_of_an_input_without_records_stays_empty(tmp_path: Path) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"")
    assert sample(local_splits(path), 1, 1, seed=0, nonempty=True).data == b""
