"""An uber job's probe sample in two files (jobsize.hadoop.probe), without a cluster."""

from __future__ import annotations

from jobsize.hadoop.probe import write_sample
from jobsize.sampler.probespec import ProbeSpec
from jobsize.sampler.splits import input_splits

UBER = {"mapreduce.job.ubertask.enable": "true"}
LINES = b"".join(b"line %05d of the input\n" % i for i in range(2000))


def _spec(tmp_path, files: dict[str, bytes], maps: int, reduces: int = 1,
          conf: dict | None = None) -> ProbeSpec:
    for name, text in files.items():
        (tmp_path / name).write_bytes(text)
    return ProbeSpec(inputs=tuple(str(tmp_path / n) for n in files), mapper=("cat",),
                     reducer=("cat",) if reduces else None, n_maps=maps, n_reduces=reduces,
                     seed=5, conf=UBER if conf is None else conf)


def _written(tmp_path, spec) -> list[tuple[str, bytes]]:
    splits = input_splits(list(spec.inputs), split_bytes=4096)
    out = tmp_path / "sample"
    sample, paths = write_sample(spec, splits, out)
    files = [(p, (out / p).read_bytes()) for p in paths]
    assert b"".join(data for _, data in files) == sample.data  # the same records, in order
    return files


def test_an_uber_job_with_reduces_gets_its_sample_in_two_halves(tmp_path):
    files = _written(tmp_path, _spec(tmp_path, {"in.txt": LINES}, maps=8))
    assert [p for p, _ in files] == ["0/in.txt", "1/in.txt"]  # the mapper sees its file's name
    assert all(data for _, data in files)
    assert abs(len(files[0][1]) - len(files[1][1])) < sum(len(d) for _, d in files) / 2


def test_other_jobs_keep_one_file_per_input_file(tmp_path):
    for maps, reduces, conf in ((8, 0, UBER),  # map-only: its maps commit, the poll decides
                                (8, 1, {}),  # uber mode off: not an uber job
                                (1, 1, UBER)):  # one map: no later map to time
        spec = _spec(tmp_path, {"in.txt": LINES}, maps=maps, reduces=reduces, conf=conf)
        assert [p for p, _ in _written(tmp_path, spec)] == ["0/in.txt"], (maps, reduces, conf)
    two = _spec(tmp_path, {"a.txt": LINES, "b.txt": LINES}, maps=8)
    assert [p for p, _ in _written(tmp_path, two)] == ["0/a.txt", "1/b.txt"]
