"""Hadoop's split computation and LineRecordReader semantics over local files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.engine.inputformat import (
    FileSplit,
    ReadStats,
    aligned_range,
    compute_splits,
    input_files,
    read_lines,
    split_bytes_for,
)
from jobsize.errors import InputError


def _file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_goal_size_comes_from_the_map_hint(tmp_path):
    f = _file(tmp_path, "a", b"x" * 1000)
    assert [(s.start, s.length) for s in compute_splits([f], 3)] == [(0, 333), (333, 333),
                                                                      (666, 334)]
    assert [(s.start, s.length) for s in compute_splits([f], None)] == [(0, 1000)]


@pytest.mark.parametrize(("size", "last"), [(1000, 100), (1005, 105), (1050, 50), (1090, 90)])
def test_block_size_and_split_slop(tmp_path, size, last):
    f = _file(tmp_path, "a", b"x" * size)
    splits = compute_splits([f], 1, block_bytes=100)
    assert all(s.length == 100 for s in splits[:-1])
    assert splits[-1].length == last  # a remainder up to 10% joins the last split
    assert sum(s.length for s in splits) == size


def test_every_file_is_split_on_its_own_and_empty_files_get_a_split(tmp_path):
    a, b = _file(tmp_path, "a", b"12345\n" * 10), _file(tmp_path, "b", b"")
    splits = compute_splits([a, b], 2)  # goal size: 60 bytes in total / 2 maps
    assert splits == [FileSplit(str(a), 0, 30), FileSplit(str(a), 30, 30),
                      FileSplit(str(b), 0, 0)]


def test_input_directories_skip_hidden_files(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    for name in ("b.txt", "a.txt", "_SUCCESS", ".crc"):
        _file(d, name, b"x\n")
    assert [p.name for p in input_files([d])] == ["a.txt", "b.txt"]
    with pytest.raises(InputError, match="no input files"):
        input_files([])


def _read_all(path: Path, splits, chunk: int) -> tuple[bytes, int, int]:
    stats = ReadStats()
    data = b""
    for s in splits:
        begin, end = aligned_range(s.path, s.start, s.length)
        data += b"".join(read_lines(s.path, begin, end, stats, chunk_bytes=chunk))
    return data, stats.records, stats.bytes_read


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r\n", b"\r", b"\t", b"\xff"]),
                  max_size=60).map(b"".join),
    split=st.integers(min_value=1, max_value=40),
    chunk=st.integers(min_value=1, max_value=9),
)
def test_every_line_is_read_by_exactly_one_split(tmp_path_factory, data, split, chunk):
    path = _file(tmp_path_factory.mktemp("lines"), "f", data)
    splits = compute_splits([path], None, block_bytes=split)
    got, records, read = _read_all(path, splits, chunk)
    expected = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if expected and not expected.endswith(b"\n"):
        expected += b"\n"
    assert got == expected
    assert records == expected.count(b"\n")
    assert read == len(data)  # each byte consumed once over all splits


@pytest.mark.parametrize("n_maps", [1, 3, 7, 40])
def test_the_sampler_sees_the_splits_the_job_runs(tmp_path, n_maps):
    from jobsize.sampler.splits import local_splits

    files = [_file(tmp_path, "a", b"line\n" * 997), _file(tmp_path, "b", b"x" * 4001)]
    size = split_bytes_for(files, n_maps)
    job = compute_splits(files, n_maps)
    sampled = local_splits(files, size)
    assert [(s.path, s.start, s.length) for s in job] == [
        (str(s.path), s.start, s.length) for s in sampled]
