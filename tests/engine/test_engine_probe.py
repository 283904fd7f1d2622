"""The local probe: one map and one reduce over the job's sample, in the calling process."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from jobsize.collectors.jhist import read_jhist

from jobsize.engine import JobSpec, run_probe
from jobsize.engine import counters as C

sampler_probe = pytest.importorskip("jobsize.sampler.probespec")
ProbeSpec = sampler_probe.ProbeSpec


def zipf_text(path: Path, n_words: int, seed: int) -> Path:
    """Text of Zipf-distributed words (exponent 1.2), 10 to a line."""
    rng = np.random.default_rng(seed)
    ranks = rng.zipf(1.2, n_words)
    words = np.char.add("w", ranks.astype(str))
    lines = [" ".join(words[i:i + 10]) for i in range(0, n_words, 10)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return zipf_text(tmp_path_factory.mktemp("zipf") / "zipf.txt", 500_000, seed=5)


def test_probe_features_scale_to_the_full_job(engine, programs, text, tmp_path):
    n_maps, n_reduces = 8, 2
    full = engine.run(JobSpec(inputs=text, output=tmp_path / "full", mapper=programs["wc_map"],
                              reducer=programs["wc_reduce"], n_maps=n_maps,
                              n_reduces=n_reduces))
    assert full.n_maps == n_maps
    size = text.stat().st_size
    assert size > 2_000_000
    spec = ProbeSpec(mapper=programs["wc_map"], reducer=programs["wc_reduce"],
                     inputs=(str(text),), n_maps=n_maps, n_reduces=n_reduces,
                     split_bytes=math.ceil(size / n_maps), seed=11)
    probe = run_probe(spec, engine=engine, history_dir=tmp_path / "history")
    f_p = probe["probe_fraction"]
    assert f_p == pytest.approx(1 / n_maps, rel=0.05)
    task = full.counters["total"][C.TASK]
    for column, counter in (("probe_map_output_bytes", "MAP_OUTPUT_BYTES"),
                            ("probe_map_output_records", "MAP_OUTPUT_RECORDS"),
                            ("probe_reduce_input_records", "REDUCE_INPUT_RECORDS")):
        scaled = probe[column] / f_p  # eq 8
        assert scaled == pytest.approx(task[counter], rel=0.03), column
    assert probe["probe_input_bytes"] == pytest.approx(f_p * size, rel=1e-9)
    assert probe["probe_map_function_ms"] > 0 and probe["probe_reduce_function_ms"] > 0
    assert probe["probe_wall_ms"] >= probe["probe_map_function_ms"]
    # the split probe: an uber job of two maps and two reduces over uneven parts and one empty
    # map and reduce (start-up), with its own history
    (history,) = (tmp_path / "history").glob("*.jhist")
    record = read_jhist(history).record
    assert (record["n_maps"], record["n_reduces"], record["uberized"]) == (3, 3, True)
    assert (probe["probe_map_tasks"], probe["probe_reduce_tasks"]) == (2, 3)  # + empty reduce
    assert probe["probe_map_processes"] == 3  # two maps and the empty one
    assert 0.25 < probe["probe_map_split"] < 0.42 and 0.2 < probe["probe_reduce_split"] < 0.45
    # word count: every word is output (β = 1), the distinct words grow more slowly
    assert probe["probe_map_output_exponent"] == pytest.approx(1.0, abs=0.05)
    assert 0 < probe["probe_key_exponent"] < 0.95
    # the start-up part: within [0, the smaller map's time] (two noisy points may put it at 0)
    assert 0 <= probe["probe_map_function_fixed_ms"] < probe["probe_map_function_ms"] / 2
    assert record["queue"] == "probing"
    assert record["map_output_records"] == probe["probe_map_output_records"]  # empty adds 0


def test_map_only_probe_reports_no_reduce(engine, programs, text):
    spec = ProbeSpec(mapper=programs["wc_map"], reducer=None, inputs=(str(text),), n_maps=20,
                     n_reduces=0, split_bytes=text.stat().st_size // 20 + 1, seed=2)
    probe = run_probe(spec, engine=engine)
    assert probe["probe_reduce_input_records"] == 0
    assert probe["probe_reduce_function_ms"] == 0.0
    assert probe["probe_map_output_bytes"] == 0  # Hadoop counts none for map-only jobs
    assert probe["probe_map_output_records"] > 0
    assert probe["probe_reduce_output_bytes"] > 0  # what the map wrote


INPUT_LOG = """
import os, sys
with open(sys.argv[1], "a") as log:
    log.write(os.environ["mapreduce_map_input_file"] + "\\n")
for line in sys.stdin:
    sys.stdout.write(os.path.basename(os.environ["mapreduce_map_input_file"]) + "\\t1\\n")
"""


def test_probe_tells_the_mapper_the_original_file(engine, programs, tmp_path):
    left = zipf_text(tmp_path / "left.txt", 20_000, seed=1)
    right = zipf_text(tmp_path / "right.txt", 20_000, seed=2)
    program = tmp_path / "log_input.py"
    program.write_text(INPUT_LOG)
    log = tmp_path / "inputs.log"
    spec = ProbeSpec(mapper=(sys.executable, "-S", str(program), str(log)),
                     reducer=programs["wc_reduce"], inputs=(str(left), str(right)),
                     n_maps=4, n_reduces=1, split_bytes=left.stat().st_size // 2 + 1, seed=3)
    probe = run_probe(spec, engine=engine)
    # one mapper process per original file in each probe map, each told that file's name
    told = [Path(p).name for p in log.read_text().split()]
    assert set(told) == {"left.txt", "right.txt"} and len(told) <= 4
    assert probe["probe_reduce_input_records"] == probe["probe_map_output_records"] > 0


def test_a_capped_probe_of_long_records_still_probes_one(engine, programs, tmp_path):
    # 30 records of 2 KB and a 0.1 % cap: Algorithm 1's ranges (2 bytes each) hold no record
    path = tmp_path / "long.txt"
    path.write_text("".join(f"w{i} " * 500 + "\n" for i in range(30)))
    spec = ProbeSpec(mapper=programs["wc_map"], reducer=programs["wc_reduce"],
                     inputs=(str(path),), n_maps=4, n_reduces=1,
                     split_bytes=path.stat().st_size // 4 + 1, seed=2, max_fraction=0.001,
                     min_sample_bytes=0)  # no floor: 128 KiB is more than the whole input
    probe = run_probe(spec, engine=engine)
    assert 0 < probe["probe_fraction"] <= 2 / 30 + 1e-9  # one record (two at most)
    assert probe["probe_map_output_records"] >= 500
