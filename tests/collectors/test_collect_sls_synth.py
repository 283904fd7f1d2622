"""collectors.sls_synth: jobs drawn from SLS SYNTH specs (Hadoop's syn.json and small specs)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from collect_fuzz import damaged_json, fuzz_pair, hostile_text, only_jobsize_errors, to_bytes
from conftest import shared_root
from jobsize.collectors.sls_synth import draw_sls_synth, generate_sls_synth

from jobsize.errors import ParseError
from jobsize.sim.load import guess_format, load_workload


def _spec(job_class: dict, *, num_jobs: int = 1, seed: int = 1,
          times: list | None = None) -> bytes:
    base = {"class_name": "c", "user_name": "u", "class_weight": 1.0}
    return json.dumps({
        "num_jobs": num_jobs, "rand_seed": seed,
        "workloads": [{"workload_name": "w", "workload_weight": 1, "queue_name": "q",
                       "job_classes": [{**base, **job_class}],
                       "time_distribution": times or [{"time": 0, "weight": 1}]}],
    }).encode()


LEGACY = {"mtasks_avg": 1, "mtime_avg": 1, "rtasks_avg": 1, "rtime_avg": 1,
          "map_max_memory_avg": 1, "reduce_max_memory_avg": 1, "map_max_vcores_avg": 1,
          "reduce_max_vcores_avg": 1}


def _tasks(**samples: dict) -> dict:
    def task(kind: str, count: dict, time: dict) -> dict:
        return {"type": kind, "count": count, "time": time, "max_memory": {"val": 2048},
                "max_vcores": {"val": 1}}
    return {"tasks": [task("map", samples["mcount"], samples["mtime"]),
                      task("reduce", samples["rcount"], samples["rtime"])]}


def test_hadoops_sample_spec(shared):
    # syn.json: 10 jobs of class_1 (user foobar, queue sls_queue_1), submitted in [1, 60) s;
    # maps of 1024 MB / 1 vcore, reduces of 2048 MB / 2 vcores (stddev 0.001)
    path = shared / "hadoop" / "sls" / "syn.json"
    jobs, tasks = generate_sls_synth(path)
    assert len(jobs) == 10
    assert set(jobs["user"]) == {"foobar"} and set(jobs["queue"]) == {"sls_queue_1"}
    submit = jobs["submit_time_ms"].to_numpy()
    assert (np.diff(submit) >= 0).all() and submit.min() >= 1000 and submit.max() < 60_000
    assert set(jobs["map_memory_mb"]) == {1024} and set(jobs["reduce_memory_mb"]) == {2048}
    assert set(jobs["reduce_vcores"]) == {2}
    per_job = tasks.groupby(["job_id", "task_type"]).size().unstack(fill_value=0)
    per_job = per_job.reindex(jobs["job_id"])
    assert per_job["MAP"].tolist() == jobs["n_maps"].tolist()
    assert per_job["REDUCE"].tolist() == jobs["n_reduces"].tolist()
    dur = (tasks["finish_time_ms"] - tasks["start_time_ms"]).groupby(
        [tasks["job_id"], tasks["task_type"]]).sum().unstack().reindex(jobs["job_id"])
    assert dur["MAP"].tolist() == jobs["map_time_ms"].tolist()
    # the same seed draws the same jobs; another seed others
    again, _ = generate_sls_synth(path)
    assert again.equals(jobs)
    other, _ = generate_sls_synth(path, seed=7)
    assert other["submit_time_ms"].tolist() != jobs["submit_time_ms"].tolist()


def test_log_normal_samples_have_the_given_mean_and_std():
    # SLS parameterizes its log-normal by its mean and standard deviation, not by μ and σ
    data = _spec({"mtasks_avg": 20, "mtasks_stddev": 20, "mtime_avg": 30, "mtime_stddev": 15,
                  "rtasks_avg": 1, "rtime_avg": 5, "map_max_memory_avg": 1024,
                  "reduce_max_memory_avg": 1024, "map_max_vcores_avg": 1,
                  "reduce_max_vcores_avg": 1}, num_jobs=3000)
    jobs, tasks = draw_sls_synth(data)
    counts = jobs["n_maps"].to_numpy(float)
    assert counts.mean() == pytest.approx(20, abs=1.2)
    assert np.median(counts) == pytest.approx(20 / math.sqrt(2), abs=1)  # e^μ, μ = ln m − σ²/2
    maps = tasks[tasks["task_type"] == "MAP"]
    secs = (maps["finish_time_ms"] - maps["start_time_ms"]).to_numpy(float) / 1000
    assert secs.mean() == pytest.approx(30, abs=0.5)
    assert set(jobs["n_reduces"]) == {1}  # no stddev: a constant


def test_new_format_samples_normal_constant_and_discrete():
    data = _spec(_tasks(mcount={"discrete": [2, 4], "weights": [0, 1]},
                        mtime={"val": 10, "std": 2, "dist": "NORM"},
                        rcount={"val": 3}, rtime={"discrete": [7]}), num_jobs=200)
    jobs, tasks = draw_sls_synth(data)
    assert set(jobs["n_maps"]) == {4} and set(jobs["n_reduces"]) == {3}
    reds = tasks[tasks["task_type"] == "REDUCE"]
    assert set(reds["finish_time_ms"] - reds["start_time_ms"]) == {7000}
    maps = tasks[tasks["task_type"] == "MAP"]
    secs = (maps["finish_time_ms"] - maps["start_time_ms"]) / 1000
    assert secs.mean() == pytest.approx(10, abs=0.3) and secs.std() == pytest.approx(2, rel=0.2)


def test_submission_times_follow_the_time_distribution():
    # buckets [0, 10) weight 3 and [10, 20) weight 1; the last entry only closes the range
    data = _spec({"mtasks_avg": 1, "mtime_avg": 1, "rtasks_avg": 0, "rtime_avg": 1,
                  "map_max_memory_avg": 1, "reduce_max_memory_avg": 1,
                  "map_max_vcores_avg": 1, "reduce_max_vcores_avg": 1}, num_jobs=4000,
                 times=[{"time": 0, "weight": 3}, {"time": 10, "weight": 1},
                        {"time": 20, "weight": 0}])
    jobs, _ = draw_sls_synth(data)
    s = jobs["submit_time_ms"].to_numpy() / 1000
    assert s.min() >= 0 and s.max() < 20 and (s == np.floor(s)).all()
    assert (s < 10).mean() == pytest.approx(0.75, abs=0.03)
    assert set(jobs["map_memory_mb"]) == {1024} and set(jobs["n_reduces"]) == {0}  # minimums


@pytest.mark.parametrize(("change", "message"), [
    ({"mtasks_avg": None}, r"\$\.workloads\[0\]\.job_classes\[0\]\.mtasks_avg: a sample "
                           "needs val or discrete"),
    ({"tasks": [{"type": "shuffle"}]}, r"tasks\[0\]\.type: task type must be map or reduce"),
    (_tasks(mcount={"val": 1, "std": 1, "dist": "GAMMA"}, mtime={"val": 1},
            rcount={"val": 1}, rtime={"val": 1}), r"count\.dist: dist must be LOGNORM or NORM"),
    (_tasks(mcount={"val": 1e12}, mtime={"val": 1}, rcount={"val": 1}, rtime={"val": 1}),
     r"drew a task count = 1e\+12, more than 1,000,001"),
    (_tasks(mcount={"discrete": [1, 2], "weights": [1]}, mtime={"val": 1},
            rcount={"val": 1}, rtime={"val": 1}), "weights must be a list as long as discrete"),
])
def test_errors_name_the_place(change, message):
    with pytest.raises(ParseError, match=message) as info:
        draw_sls_synth(_spec({**LEGACY, **change}), source="syn.json")
    assert str(info.value).startswith("syn.json")


def test_class_weights_must_be_positive():
    data = json.loads(_spec(LEGACY))
    data["workloads"][0]["job_classes"][0]["class_weight"] = 0
    with pytest.raises(ParseError, match=r"job_classes: weights must be ≥ 0 with a positive"):
        draw_sls_synth(json.dumps(data).encode(), source="syn.json")


def test_simulator_loads_a_spec(shared):
    path = shared / "hadoop" / "sls" / "syn.json"
    assert guess_format(str(path)) == "sls-synth"
    w = load_workload(path, seed=3)  # the simulator's seed draws the jobs
    jobs, _ = generate_sls_synth(path, seed=3)
    assert len(w.jobs) == 10 and w.jobs["submit_s"].min() == 0
    assert math.isclose(w.map_s.sum(), jobs["map_time_ms"].sum() / 1000)


# -- fuzzing ----------------------------------------------------------------------------------

def _synth() -> dict:
    path = shared_root().joinpath("hadoop", "sls", "syn.json")
    return json.loads(path.read_bytes()) if path.exists() else {}


def _check(data: bytes) -> None:
    only_jobsize_errors(lambda: draw_sls_synth(data, source="fuzz.json", num_jobs=3))


def _check_spec_jobs(data: bytes) -> None:
    only_jobsize_errors(lambda: draw_sls_synth(data, source="fuzz.json"))


test_fuzz_synth_draw, test_fuzz_synth_draw_slow = fuzz_pair(
    damaged_json(_synth()).map(to_bytes), _check, name="sls_synth_draw")
test_fuzz_synth_hostile, test_fuzz_synth_hostile_slow = fuzz_pair(
    hostile_text(_synth()), _check_spec_jobs, name="sls_synth_hostile_text")


@pytest.mark.parametrize("num_jobs", [10**9, 2**62, -1])
def test_num_jobs_out_of_bounds_is_refused_at_once(num_jobs):
    # a spec of its own: the test must not need the shared syn.json to reach num_jobs
    with pytest.raises(ParseError, match="num_jobs"):
        draw_sls_synth(_spec(LEGACY, num_jobs=num_jobs), source="syn.json")
