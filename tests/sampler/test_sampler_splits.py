"""Local input splits: Hadoop's FileInputFormat rules and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jobsize.sampler.sampling import sample
from jobsize.sampler.splits import (
    DEFAULT_SPLIT_BYTES,
    Split,
    input_splits,
    local_splits,
    total_bytes,
)

from jobsize.errors import ConfigError, InputError


def _layout(splits: list[Split]) -> list[tuple[str, int, int]]:
    return [(Path(s.path).name, s.start, s.length) for s in splits]


def test_files_are_cut_into_split_size_pieces_with_hadoops_slop(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 105)  # 1.05 splits: one split (slop 1.1)
    (tmp_path / "b").write_bytes(b"x" * 111)  # 1.11 splits: two
    (tmp_path / "c").write_bytes(b"x" * 300)
    splits = local_splits(tmp_path, 100)
    assert _layout(splits) == [("a", 0, 105), ("b", 0, 100), ("b", 100, 11),
                               ("c", 0, 100), ("c", 100, 100), ("c", 200, 100)]
    assert total_bytes(splits) == 516
    assert all(s.file_length == {"a": 105, "b": 111, "c": 300}[Path(s.path).name]
               for s in splits)


def test_a_map_hint_cuts_at_hadoops_goal_size(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 300)
    (tmp_path / "b").write_bytes(b"x" * 100)
    listed = local_splits(tmp_path, 1000)
    assert len(listed) == 2
    # goal = 400 / 4 = 100 bytes, below the split size: 3 + 1 splits
    assert _layout(listed.for_maps(4)) == [("a", 0, 100), ("a", 100, 100), ("a", 200, 100),
                                           ("b", 0, 100)]
    # a goal above the split size leaves the splits as listed
    assert _layout(listed.for_maps(1)) == _layout(listed)
    assert total_bytes(listed.for_maps(7)) == 400


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=5),
       split=st.integers(1, 4000), hint=st.integers(1, 50))
def test_the_probes_splits_are_the_ones_the_engine_runs(tmp_path_factory, sizes, split, hint):
    """The sampler's splits for a map hint are the local engine's (Hadoop Streaming's), so
    ``jobsize probe`` and ``jobsize run`` agree on N_m."""
    from jobsize.engine.inputformat import compute_splits, input_files

    root = tmp_path_factory.mktemp("hint")
    for i, size in enumerate(sizes):
        (root / f"part-{i}").write_bytes(b"y" * size)
    engine = compute_splits(input_files([root]), hint, split)
    probe = local_splits(root, split).for_maps(hint)
    assert _layout(probe) == [(Path(s.path).name, s.start, s.length) for s in engine]


def test_default_split_size_is_64_mb() -> None:
    assert DEFAULT_SPLIT_BYTES == 64 * 1024 * 1024


def test_hidden_and_underscore_files_are_skipped_in_directories(tmp_path: Path) -> None:
    for name in ("part-00000", "part-00001", "_SUCCESS", ".part-00000.crc", "_logs.txt"):
        (tmp_path / name).write_bytes(b"data\n")
    assert [n for n, *_ in _layout(local_splits(tmp_path))] == ["part-00000", "part-00001"]
    # a file named explicitly is taken even if its name is hidden
    assert len(local_splits(tmp_path / "_SUCCESS")) == 1


def test_inputs_keep_their_order_and_mix_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "y").write_bytes(b"1\n")
    (tmp_path / "d" / "x").write_bytes(b"2\n")
    (tmp_path / "z").write_bytes(b"3\n")
    names = [n for n, *_ in _layout(input_splits([tmp_path / "z", tmp_path / "d"]))]
    assert names == ["z", "x", "y"]


def test_nested_directory_is_an_error_unless_recursive(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f").write_bytes(b"1\n")
    (tmp_path / "g").write_bytes(b"2\n")
    with pytest.raises(InputError, match=r"sub: not a file"):
        local_splits(tmp_path)
    assert [n for n, *_ in _layout(local_splits(tmp_path, recursive=True))] == ["g", "f"]


def test_missing_input_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope: no such file or directory"):
        local_splits(tmp_path / "nope")


def test_compressed_input_is_refused(tmp_path: Path) -> None:
    (tmp_path / "logs.gz").write_bytes(b"\x1f\x8b")
    with pytest.raises(InputError, match=r"logs.gz: compressed input"):
        local_splits(tmp_path)


@pytest.mark.parametrize("size", [0, -5])
def test_bad_split_size_is_a_config_error(tmp_path: Path, size: int) -> None:
    with pytest.raises(ConfigError, match="split size"):
        local_splits(tmp_path, size)


def test_a_file_that_shrinks_after_listing_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc\n" * 1000)
    splits = local_splits(path, 1000)
    path.write_bytes(b"abc\n")
    with pytest.raises(InputError, match=r"f: offset \d+: expected \d+ bytes, got \d+"):
        sample(splits, len(splits), 0, seed=1)


def test_file_urls_are_local(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abc\n")
    assert _layout(input_splits(f"file://{tmp_path / 'f'}")) == [("f", 0, 4)]


def test_split_reads_only_what_it_is_asked(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(bytes(range(256)) * 4)
    split = local_splits(path, 512)[1]
    assert split.read(600, 5) == bytes([88, 89, 90, 91, 92])
    assert split.read(1020, 100) == bytes([252, 253, 254, 255])  # clipped at the end
