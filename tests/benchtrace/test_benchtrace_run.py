"""Measuring a bench trace end to end: probe, run, record from .jhist, resume."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from jobsize.collectors.jhist import collect_jhist
from jobsize.sampler.probespec import PROBE_COLUMNS, PROBE_MEASURED

import jobsize.benchtrace.inputs as inputs_module
import jobsize.benchtrace.runner as runner_module
from jobsize.benchtrace import BenchTrace, Distribution, Draw
from jobsize.benchtrace.inputs import InputCache
from jobsize.errors import ConfigError
from jobsize.schema import JOB_COLUMNS, TASK_COLUMNS, read_trace

SPLIT = 16 * 1024
DIST = Distribution(split_bytes=SPLIT, workloads=("grep", "wordcount", "csvfilter", "grepcount"))


def draws() -> list[Draw]:
    """An uber job, a probed job with reduces, a probed map-only job, and a job that reads the
    same input as the second."""
    return [
        Draw(0, "grep", 0, 1, 1, 0, SPLIT // 2, 5, 1),
        Draw(1, "wordcount", 0, 20, 3, 1, 3 * SPLIT, 5, 2),
        Draw(2, "csvfilter", 0, 20, 3, 0, 3 * SPLIT, 5, 3),
        Draw(3, "grepcount", 0, 30, 4, 1, 3 * SPLIT, 5, 4),
    ]


@pytest.fixture
def generated(monkeypatch):
    """Count the inputs each generator makes."""
    calls: list[tuple[str, int, int]] = []
    real = dict(inputs_module.GENERATORS)

    def counting(kind):
        def generate(directory, size, seed):
            calls.append((kind, size, seed))
            return real[kind](directory, size, seed)
        return generate

    monkeypatch.setattr(inputs_module, "GENERATORS", {k: counting(k) for k in real})
    return calls


def test_records_come_from_the_jobs_history_with_probe_columns(tmp_path, generated):
    bench = BenchTrace(tmp_path / "bench", seed=5, distribution=DIST, workers=2)
    outcomes = bench.run(draws())
    assert [o.draw.index for o in outcomes] == [0, 1, 2, 3]
    trace = read_trace(tmp_path / "bench" / "trace.parquet")
    assert list(trace["draw_index"]) == [0, 1, 2, 3]
    assert list(trace["job_type"]) == ["grep", "wordcount", "csvfilter", "grepcount"]
    assert set(trace["source"]) == {"bench-trace"}
    assert list(trace["state"]) == ["SUCCEEDED"] * 4
    assert list(trace["n_maps"]) == [1, 3, 3, 3]
    assert list(trace["n_reduces"]) == [0, 1, 0, 1]

    # the job columns are exactly what the collectors read from the jobs' own .jhist files
    found = collect_jhist([tmp_path / "bench" / "history" / "jobs"])
    jobs, tasks = found.jobs, found.tasks
    assert sorted(jobs["job_id"]) == sorted(trace["job_id"])
    history = jobs.set_index("job_id").loc[trace["job_id"]].reset_index()
    for col in JOB_COLUMNS:
        if col.name in PROBE_COLUMNS or col.name in ("job_type", "source"):
            continue
        pd.testing.assert_series_equal(trace[col.name], history[col.name], check_names=False)
    assert (trace["map_time_ms"] > 0).all() and (trace["map_function_ms"] > 0).all()

    # uber: recorded as such and never probed; the others probed with f_p in (0, 1]
    assert list(trace["uberized"]) == [True, False, False, False]
    assert trace.loc[0, list(PROBE_COLUMNS)].isna().all()
    probed = trace.iloc[1:]
    assert probed[list(PROBE_MEASURED)].notna().all().all()
    two_maps = probed["probe_map_tasks"] == 2
    split = probed.loc[two_maps, ["probe_map_split", "probe_map_function_fixed_ms"]]
    assert split.notna().all().all()
    assert ((probed["probe_fraction"] > 0) & (probed["probe_fraction"] <= 1)).all()
    wc = trace.iloc[1]
    scaled = wc["probe_map_output_records"] / wc["probe_fraction"]  # eq 8
    assert scaled == pytest.approx(wc["map_output_records"], rel=0.25)
    assert trace.loc[2, "probe_reduce_input_records"] == 0  # map-only probe
    assert sorted(p.name for p in (tmp_path / "bench" / "history" / "probes").iterdir()) == \
        ["1", "2", "3"]

    # task attempts of every job beside the trace
    task_rows = read_trace(tmp_path / "bench" / "trace.tasks.parquet", columns=TASK_COLUMNS)
    assert len(task_rows) == len(tasks) == int((trace["n_maps"] + trace["n_reduces"]).sum())

    # inputs: one generation per (kind, size, seed), all deleted once no job needs them
    assert sorted(generated) == sorted({("text", SPLIT // 2, 5), ("text", 3 * SPLIT, 5),
                                        ("sales", 3 * SPLIT, 5)})
    assert list((tmp_path / "bench" / "inputs").iterdir()) == []
    assert not (tmp_path / "bench" / "scratch").exists()
    settings = json.loads((tmp_path / "bench" / "bench-trace.json").read_text())
    assert settings["seed"] == 5 and settings["runs"][0]["jobs"] == 4
    assert settings["machine"]["cores"] >= 1


class Interrupt(KeyboardInterrupt):
    pass


def test_an_interrupted_run_resumes_without_duplicates_or_losses(tmp_path, monkeypatch):
    bench = BenchTrace(tmp_path / "bench", seed=5, distribution=DIST, workers=2)
    real = runner_module.read_jhist
    seen: list[str] = []

    def interrupt_second(path, *args, **kwargs):
        seen.append(str(path))
        if len(seen) == 2:  # the second job ran and wrote its history, then the run died
            raise Interrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner_module, "read_jhist", interrupt_second)
    with pytest.raises(Interrupt):
        bench.run(draws()[:3])
    trace = read_trace(tmp_path / "bench" / "trace.parquet")
    assert list(trace["draw_index"]) == [0]
    assert len(list((tmp_path / "bench" / "history" / "jobs").glob("*.jhist"))) == 2

    monkeypatch.setattr(runner_module, "read_jhist", real)
    assert [d.index for d in bench.pending(draws()[:3])] == [1, 2]
    bench.run(draws()[:3])
    trace = read_trace(tmp_path / "bench" / "trace.parquet")
    assert list(trace["draw_index"]) == [0, 1, 2]
    assert trace["job_id"].is_unique
    # the history of the job that ran but was never recorded is gone
    jhists = sorted(p.stem for p in (tmp_path / "bench" / "history" / "jobs").glob("*.jhist"))
    assert jhists == sorted(trace["job_id"])
    tasks = read_trace(tmp_path / "bench" / "trace.tasks.parquet", columns=TASK_COLUMNS)
    assert set(tasks["job_id"]) == set(trace["job_id"])
    settings = json.loads((tmp_path / "bench" / "bench-trace.json").read_text())
    assert [r["jobs"] for r in settings["runs"]] == [1, 2]


def test_a_truncated_trace_is_completed(tmp_path):
    bench = BenchTrace(tmp_path / "bench", seed=5, distribution=DIST, workers=2)
    bench.run(draws()[:3])
    path = tmp_path / "bench" / "trace.parquet"
    full = read_trace(path)
    from jobsize.schema import write_trace

    write_trace(full.drop(index=[1]), path)  # as if job 1 had never been appended
    assert [d.index for d in bench.pending(draws()[:3])] == [1]
    bench.run(draws()[:3])
    again = read_trace(path)
    assert sorted(again["draw_index"]) == [0, 1, 2] and again["job_id"].is_unique
    assert again.set_index("draw_index").loc[1, "job_id"] != full.loc[1, "job_id"]
    assert again.set_index("draw_index").loc[1, "job_type"] == "wordcount"
    assert bench.run(draws()[:3]) == []  # nothing left to do


def test_resuming_with_other_settings_is_refused(tmp_path):
    BenchTrace(tmp_path / "bench", seed=5, distribution=DIST).run(draws()[:1])
    with pytest.raises(ConfigError, match="seed"):
        BenchTrace(tmp_path / "bench", seed=6, distribution=DIST).run(draws()[:1])
    other = Distribution(split_bytes=2 * SPLIT, workloads=DIST.workloads)
    with pytest.raises(ConfigError, match="distribution"):
        BenchTrace(tmp_path / "bench", seed=5, distribution=other).run(draws()[:1])


def test_the_input_cache_keeps_what_is_needed_and_evicts_the_latest_needed(tmp_path,
                                                                         generated):
    a, b = ("text", 4096, 1), ("sales", 8192, 1)
    cache = InputCache(tmp_path / "in", {a: [0, 5], b: [1, 2]}, budget=1 << 30)
    first = [p.read_bytes() for p in cache.get(a)]
    cache.used(a, 0)
    assert cache.path(a).is_dir()  # draw 5 still reads it
    assert [p.read_bytes() for p in cache.get(a)] == first and len(generated) == 1
    cache.get(b)
    cache.used(b, 1)
    cache.budget = sum(cache.on_disk().values()) - 1  # over budget: drop the one needed last
    cache._evict()
    assert not cache.path(a).is_dir() and cache.path(b).is_dir()
    assert [p.read_bytes() for p in cache.get(a)] == first  # made again, byte-identical
    cache.used(a, 5)
    cache.used(b, 2)
    assert cache.on_disk() == {}
    # a leftover temporary of an interrupted generation is cleared on start
    (tmp_path / "in" / ".tmp-text-4096-s1-123").mkdir()
    InputCache(tmp_path / "in", {a: [7]}, budget=1 << 30)
    assert list((tmp_path / "in").iterdir()) == []
