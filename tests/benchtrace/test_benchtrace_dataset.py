"""The committed reference trace (datasets/): its size, spread and probe columns."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from jobsize.sampler.probespec import PROBE_COLUMNS, PROBE_MEASURED

from jobsize.benchtrace.summary import type_table
from jobsize.bundled import REFERENCE_TRACE, datasets_dir
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path, uber_eligible
from jobsize.workloads import WORKLOADS

TRACE = datasets_dir() / REFERENCE_TRACE
SETTINGS = datasets_dir() / "reference.bench-trace.json"


@pytest.fixture(scope="module")
def trace():
    return read_trace(TRACE)


@pytest.fixture(scope="module")
def settings():
    return json.loads(SETTINGS.read_text())


def test_counts_of_the_reference_trace(trace):
    assert len(trace) >= 300
    assert (trace["state"] == "SUCCEEDED").all()
    se_m = trace["map_time_ms"].to_numpy(dtype=float)
    assert (se_m > 0).all()
    assert math.log10(se_m.max() / se_m.min()) >= 2  # two orders of magnitude of SE_m
    assert (trace["n_reduces"] == 0).mean() >= 0.2  # map-only jobs
    assert trace["uberized"].sum() >= 5  # some uber-eligible tiny jobs
    assert set(trace["source"]) == {"bench-trace"}
    assert set(trace["job_type"]) <= set(WORKLOADS) and trace["job_type"].nunique() >= 10
    assert trace["draw_index"].is_unique and trace["job_id"].is_unique


def test_probe_columns_are_consistent(trace):
    uber = trace["uberized"].to_numpy(dtype=bool)
    probed = trace[~uber]
    assert probed[list(PROBE_MEASURED)].notna().all().all()
    two_maps = probed["probe_map_tasks"] == 2
    split = probed.loc[two_maps, ["probe_map_split", "probe_map_function_fixed_ms"]]
    assert split.notna().all().all()
    f_p = probed["probe_fraction"].to_numpy(dtype=float)
    assert ((f_p > 0) & (f_p <= 1)).all()
    # Algorithm 1: f_p near 1 / max(N_m, N_r)
    target = 1 / np.maximum(probed["n_maps"], probed["n_reduces"]).to_numpy(dtype=float)
    assert np.median(np.abs(f_p / target - 1)) < 0.05
    assert trace[uber][list(PROBE_COLUMNS)].isna().all().all()
    map_only = probed["n_reduces"] == 0
    assert (probed.loc[map_only, "probe_reduce_input_records"] == 0).all()
    assert (probed.loc[~map_only, "probe_reduce_input_records"] > 0).all()


def test_uber_jobs_are_those_hadoops_rule_picks(trace, settings):
    # bench traces run on a cluster that enables uber mode, with the job's own block (split)
    # size bounding an uber job's input
    default = settings["distribution"]["split_bytes"]
    splits = (trace["split_bytes"].fillna(default) if "split_bytes" in trace
              else pd.Series(default, index=trace.index))
    rule = [uber_eligible(int(r.n_maps), int(r.n_reduces), int(r.map_input_bytes),
                          {"mapreduce.job.ubertask.enable": "true",
                           "mapreduce.job.ubertask.maxbytes": int(split)})
            for r, split in zip(trace.itertuples(), splits, strict=True)]
    assert list(trace["uberized"]) == rule


def test_input_bytes_are_not_a_multiple_of_the_map_count(trace):
    # several split sizes and partial last splits: MI is not N_m times one constant, so the
    # models can tell the cost of a map from the cost of a byte
    multi = trace[trace["n_maps"] > 1]
    per_map = multi["map_input_bytes"] / multi["n_maps"]
    assert per_map.std() / per_map.mean() > 0.1


def test_task_table_matches(trace):
    tasks = read_trace(tasks_path(TRACE), columns=TASK_COLUMNS)
    ok = tasks[tasks["status"] == "SUCCEEDED"]
    per_job = ok.groupby("job_id").size()
    expected = (trace.set_index("job_id")["n_maps"] + trace.set_index("job_id")["n_reduces"])
    assert per_job.reindex(expected.index).tolist() == expected.tolist()
    maps = ok[ok["task_type"] == "MAP"]
    se_m = (maps["finish_time_ms"] - maps["start_time_ms"]).groupby(maps["job_id"]).sum()
    assert se_m.reindex(trace["job_id"]).tolist() == trace["map_time_ms"].tolist()


def test_dataset_md_states_the_trace(trace, settings):
    text = (datasets_dir() / "DATASET.md").read_text()
    assert type_table(trace) in text  # the per-type counts are this trace's
    assert f"--jobs {len(trace)} --seed {settings['seed']}" in text
