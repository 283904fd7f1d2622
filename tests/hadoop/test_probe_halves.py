"""An uber job's probe sample in two files (jobsize.hadoop.probe), without a cluster."""

from __future__ import annotations

from jobsize.hadoop.probe import write_sample
from jobsize.sampler.probespec import ProbeSpec
from jobsize.sampler.splits import input_splits


def _spec(tmp_path, text: bytes, maps: int) -> ProbeSpec:
    data = tmp_path / "in.txt"
    data.write_bytes(text)
    return ProbeSpec(inputs=(str(data),), mapper=("cat",), reducer=("cat",), n_maps=maps,
                     n_reduces=1, seed=5)


def _written(tmp_path, spec, halves: bool) -> list[bytes]:
    splits = input_splits(list(spec.inputs), split_bytes=4096)
    sample, paths = write_sample(spec, splits, tmp_path / ("h" if halves else "w"),
                                 halves=halves)
    files = [(tmp_path / ("h" if halves else "w") / p).read_bytes() for p in paths]
    assert b"".join(files) == sample.data  # the same records, in the same order
    assert all(p.endswith("/in.txt") for p in paths)  # the mapper still sees the file's name
    return files


def test_halves_write_the_first_half_of_the_map_inputs_then_the_rest(tmp_path):
    text = b"".join(b"line %05d of the input\n" % i for i in range(2000))
    spec = _spec(tmp_path, text, maps=8)
    whole = _written(tmp_path, spec, halves=False)
    two = _written(tmp_path, spec, halves=True)
    assert len(whole) == 1 and len(two) == 2
    assert all(two) and abs(len(two[0]) - len(two[1])) < len(whole[0]) / 2


def test_one_map_input_stays_one_file(tmp_path):
    spec = _spec(tmp_path, b"one short line\n", maps=1)
    assert len(_written(tmp_path, spec, halves=True)) == 1
