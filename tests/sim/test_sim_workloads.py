"""Workloads: SWIM cost model, recorded traces, local runs, the FB-2009 synthetic generator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from jobsize.errors import ConfigError, InputError, SimulationError
from jobsize.schema import TASK_COLUMNS, records, tasks_frame, tasks_path, write_trace
from jobsize.sim.cluster import Cluster
from jobsize.sim.costmodel import CostModel, MiB, from_bytes, read_swim_workload
from jobsize.sim.eventloop import simulate
from jobsize.sim.load import guess_format, load_workload
from jobsize.sim.schedulers import Fair
from jobsize.sim.synthetic_workload import FB2009_BINS, SyntheticFB2009
from jobsize.sim.traces import read_rumen_workload, read_sls_workload


def test_cost_model_counts_and_durations() -> None:
    model = CostModel(noise_sigma=0.0, map_overhead_s=2.0, reduce_overhead_s=1.0)
    w = from_bytes("t", np.array(["a", "b"]), np.array([0.0, 5.0]),
                   mi=np.array([130 * MiB, 0]), shuffle=np.array([3 * 1024 * MiB, 0]),
                   output=np.array([1024 * MiB, 10 * MiB]), model=model)
    assert w.n_maps.tolist() == [3, 1]  # ⌈130/64⌉ maps; an empty input still gets one map
    assert w.n_reduces.tolist() == [3, 0]  # ⌈3 GiB / 1 GiB⌉; no shuffle → map-only
    first = w.map_s[0]
    # 64 MiB read at 8 MiB/s plus its third of... its share of the shuffle written at 32 MiB/s
    written = 3 * 1024 * MiB * 64 / 130
    assert first == pytest.approx(2.0 + 8.0 + written / (32 * MiB))
    assert w.map_s[2] < w.map_s[1]  # the last split is the 2 MiB remainder
    # reduce: 1 GiB shuffle at 32 MiB/s, then 1 GiB at 16 MiB/s and ⅓ GiB written at 32 MiB/s
    tail = 1.0 + 64.0 + (1024 / 3) / 32
    assert w.reduce_tail_s[0] == pytest.approx(tail)
    assert w.reduce_s[0] == pytest.approx(32.0 + tail)
    assert w.jobs["uber"].tolist() == [False, True]


def test_cost_model_noise_is_seeded() -> None:
    args = ("t", np.array(["a"]), np.array([0.0]), np.array([640 * MiB]), np.array([0]),
            np.array([0]))
    a = from_bytes(*args, model=CostModel(seed=1)).map_s
    b = from_bytes(*args, model=CostModel(seed=1)).map_s
    c = from_bytes(*args, model=CostModel(seed=2)).map_s
    assert (a == b).all() and not (a == c).all()
    with pytest.raises(ConfigError, match="block_bytes"):
        CostModel(block_bytes=0)


def test_swim_fb2009_day_has_the_published_task_count(shared) -> None:
    w = read_swim_workload(str(shared / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"))
    assert w.n_jobs == 5894
    assert w.n_tasks == 427_900
    assert w.first_gap_s is not None
    small = read_swim_workload(str(shared / "swim" /
                                   "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"))
    res = simulate(small, Cluster.parse("8x8g×8"), Fair())
    assert res.jobs["finish_s"].notna().all()


def test_rumen_and_sls_replay_recorded_durations(shared) -> None:
    rumen = read_rumen_workload(shared / "hadoop" / "rumen" / "wordcount.json")
    assert rumen.n_maps.tolist() == [3] and rumen.n_reduces.tolist() == [1]
    # attempt times of the trace: 1285322651366 → 1285322658262 is the first map
    assert 6.896 in rumen.map_s.round(3).tolist()
    sls = read_sls_workload(shared / "hadoop" / "sls" / "inputsls.json")
    assert sls.n_jobs == 2 and sls.submit_s().tolist()[0] == 0.0
    assert set(sls.jobs["queue"]) == {"sls_queue_1", "sls_queue_2"}
    res = simulate(sls, Cluster.parse("2x8g×8"), Fair())
    # alone on an idle cluster each job lasts as long as its longest map
    assert res.jobs.response_s.tolist() == pytest.approx(
        [max(sls.map_s[sls.map_off[j]:sls.map_off[j + 1]]) for j in range(2)])


def test_local_run_trace(tmp_path) -> None:
    jobs = records([{"job_id": "job_1", "submit_time_ms": 1000, "n_maps": 2, "n_reduces": 1,
                     "map_memory_mb": 2048, "queue": "q", "uberized": False},
                    {"job_id": "job_2", "submit_time_ms": 4000, "n_maps": 1, "n_reduces": 0}])
    rows = [
        {"job_id": "job_1", "task_id": "m0", "attempt_id": "a0", "task_type": "MAP",
         "status": "SUCCEEDED", "start_time_ms": 1500, "finish_time_ms": 3500},
        {"job_id": "job_1", "task_id": "m1", "attempt_id": "a1", "task_type": "MAP",
         "status": "FAILED", "start_time_ms": 1500, "finish_time_ms": 2000},
        {"job_id": "job_1", "task_id": "m1", "attempt_id": "a2", "task_type": "MAP",
         "status": "SUCCEEDED", "start_time_ms": 2000, "finish_time_ms": 3000},
        {"job_id": "job_1", "task_id": "r0", "attempt_id": "a3", "task_type": "REDUCE",
         "status": "SUCCEEDED", "start_time_ms": 3500, "finish_time_ms": 9500,
         "shuffle_finish_time_ms": 5500},
        {"job_id": "job_2", "task_id": "m0", "attempt_id": "a4", "task_type": "MAP",
         "status": "SUCCEEDED", "start_time_ms": 4100, "finish_time_ms": 4600},
    ]
    path = tmp_path / "runs.parquet"
    write_trace(jobs, path)
    write_trace(tasks_frame(rows), tasks_path(path), columns=TASK_COLUMNS)
    w = load_workload(path)
    assert w.n_maps.tolist() == [2, 1]  # the failed attempt is not replayed
    assert w.map_s.tolist() == [2.0, 1.0, 0.5]
    assert w.reduce_s.tolist() == [6.0] and w.reduce_tail_s.tolist() == [4.0]
    assert w.jobs["map_mb"].tolist() == [2048, 1024] and w.submit_s().tolist() == [0.0, 3.0]
    (tmp_path / "runs.tasks.parquet").unlink()
    with pytest.raises(SimulationError, match="no task table"):
        load_workload(path)


def test_synthetic_fb2009_follows_the_bins() -> None:
    w = SyntheticFB2009(n_jobs=4000, seed=3).generate()
    n_maps = w.n_maps
    share_small = float((n_maps <= 25).mean())
    assert share_small == pytest.approx(0.58, abs=0.03)
    assert n_maps.max() <= 6400 and n_maps.min() >= 1
    ratio = w.n_reduces / n_maps
    assert ((ratio >= 0.05 - 1e-9) & (ratio <= 0.25 + 1 / n_maps + 1e-9)).all()
    # map task times ~ LogNormal(9.9511, 1.6764) ms: the median is e^9.9511 ms ≈ 21 s
    assert np.median(w.map_s) == pytest.approx(np.exp(9.9511) / 1000, rel=0.1)
    assert np.median(w.reduce_s) == pytest.approx(np.exp(12.375) / 1000, rel=0.15)
    again = SyntheticFB2009(n_jobs=4000, seed=3).generate()
    assert (again.map_s == w.map_s).all()
    assert sum(s for *_, s in FB2009_BINS) == pytest.approx(1.0)


def test_formats_and_errors(tmp_path) -> None:
    assert guess_format("x/FB.tsv") == "swim"
    assert guess_format("trace.parquet") == "trace"
    assert guess_format("synthetic:20") == "synthetic"
    with pytest.raises(ConfigError):
        guess_format("what.bin")
    with pytest.raises(InputError, match="no such workload"):
        load_workload(tmp_path / "missing.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("job0\t1\t1\t10\n")
    with pytest.raises(InputError, match=r"bad\.tsv"):
        load_workload(bad)


def test_segments_rebase_and_keep_the_gap() -> None:
    w = SyntheticFB2009(n_jobs=30, seed=1).generate()
    seg = w.segment(10, 20)
    assert seg.n_jobs == 10 and seg.submit_s()[0] == 0.0
    assert seg.first_gap_s == pytest.approx(w.submit_s()[10] - w.submit_s()[9])
    assert (seg.map_s == w.map_s[w.map_off[10]:w.map_off[20]]).all()
    assert isinstance(seg.jobs, pd.DataFrame)
