"""A SWIM window scaled to the mini cluster (jobsize.hadoop.replay), without a cluster."""

from __future__ import annotations

import pandas as pd
import pytest
from jobsize.collectors.swim import read_swim
from jobsize.hadoop.cluster import ClusterError, check_queues
from jobsize.hadoop.replay import LINE, QUEUES, plan_from_swim, plan_text, write_input

from jobsize.errors import ConfigError


def _swim(rows):
    return pd.DataFrame(rows, columns=["job_id", "submit_time_ms", "map_input_bytes",
                                       "reduce_shuffle_bytes", "reduce_output_bytes"])


def test_bytes_and_gaps_are_scaled_and_sizes_give_reduces_and_queues():
    frame = _swim([("a", 10_000, 6_000_000, 0, 300_000),
                   ("b", 30_000, 600_000_000, 1_200_000_000, 60_000_000),
                   ("c", 31_000, 0, 0, 0),
                   ("d", 50_000, 3_000_000_000, 60_000_000_000, 600_000)])
    plan = plan_from_swim(frame, jobs=4, data_scale=100, time_scale=0.5,
                          reduce_bytes=8_000_000, max_reduces=8, max_input_bytes=20_000_000)
    a, b, c, d = plan
    assert [p.submit_s for p in plan] == [0.0, 10.0, 10.5, 20.0]
    # a: map-only, 60 KB in, output/input as the trace's
    assert (a.reduces, a.input_bytes, a.shuffle_ratio) == (0, 60_000, 0.0)
    assert a.output_ratio == pytest.approx(0.05)
    # b: 6 MB in, 12 MB of shuffle: two reduces of at most 8 MB
    assert (b.reduces, b.input_bytes) == (2, 6_000_000)
    assert b.shuffle_ratio == pytest.approx(2.0) and b.output_ratio == pytest.approx(0.05)
    # c: no bytes at all still reads one line
    assert (c.reduces, c.input_bytes) == (0, LINE)
    # d: input capped, shuffle kept (the ratio carries it), reduces capped
    assert d.input_bytes == 20_000_000 and d.reduces == 8
    assert d.shuffle_ratio * d.input_bytes == pytest.approx(600_000_000)
    # the smaller half to adhoc, the rest to prod
    assert [p.queue for p in plan] == ["adhoc", "prod", "adhoc", "prod"]
    assert all(p.input_bytes % LINE == 0 for p in plan)


def test_a_window_outside_the_trace_is_one_line():
    frame = read_swim("FB-2009")
    with pytest.raises(ConfigError, match="not in the trace"):
        plan_from_swim(frame, start=len(frame) - 10, jobs=20)
    plan = plan_from_swim(frame, start=2000, jobs=60)
    assert len(plan) == 60 and plan[0].submit_s == 0.0
    assert [p.submit_s for p in plan] == sorted(p.submit_s for p in plan)


def test_plan_file_is_what_the_java_client_reads(tmp_path):
    plan = plan_from_swim(_swim([("a", 0, 1000, 2000, 500), ("b", 2000, 5000, 0, 100)]),
                          jobs=2, data_scale=1)
    text = plan_text(plan, tmp_path / "in", tmp_path / "out", queue="default").splitlines()
    assert text[0].split("\t") == ["name", "submit_s", "queue", "reduces", "shuffle_ratio",
                                   "output_ratio", "input", "output"]
    first = text[1].split("\t")
    assert first[:4] == ["swim-a", "0.0", "default", "1"]
    assert float(first[4]) == pytest.approx(2.0) and float(first[5]) == pytest.approx(0.25)
    assert first[6] == str((tmp_path / "in" / "swim-a.txt").resolve())
    second = text[2].split("\t")
    # a map-only job's map pays output/input, given as the output ratio over a shuffle of 1
    assert second[3:6] == ["0", "1.0", repr(100 / 5000)]


def test_inputs_are_whole_lines_of_the_size_and_kept(tmp_path):
    path = write_input(tmp_path / "x.txt", 3 * LINE)
    data = path.read_bytes()
    assert len(data) == 3 * LINE and data.count(b"\n") == 3
    before = path.stat().st_mtime_ns
    write_input(path, 3 * LINE)
    assert path.stat().st_mtime_ns == before
    big = write_input(tmp_path / "y.txt", (1 << 14) * LINE + 5 * LINE)
    assert big.stat().st_size == (1 << 14) * LINE + 5 * LINE


@pytest.mark.parametrize("scheduler, queues, message", [
    ("deadline", QUEUES, "unknown scheduler"),
    ("fair", "prod:70,adhoc:20", "sum to 90"),
    ("capacity", "prod", "NAME:PERCENT"),
    ("capacity", "a b:100", "letters, digits"),
])
def test_a_cluster_is_refused_before_it_starts(scheduler, queues, message):
    with pytest.raises(ClusterError, match=message):
        check_queues(scheduler, queues)
