"""An uber job sized from its probe: the probe's task times scaled, not eq 6 and 7's per-task
costs of a container the job never starts."""

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jobsize.models.job import job_values
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace
from jobsize.models.uberprobe import uber_task_times
from models_helpers import as_job

#: A probe of a quarter of a 4-map, 1-reduce job's input: 2 map tasks of 900 ms, 600 ms of it
#: in the map function and 100 in the combiner; 1 reduce task of 500 ms, 200 in the function.
PROBE = {"n_maps": 4.0, "n_reduces": 1.0, "map_input_bytes": 4e6, "probe_fraction": 0.25,
         "probe_map_tasks": 2.0, "probe_map_task_ms": 1800.0, "probe_map_function_ms": 1200.0,
         "probe_combine_function_ms": 200.0, "probe_reduce_tasks": 1.0,
         "probe_reduce_task_ms": 500.0, "probe_reduce_function_ms": 200.0,
         "probe_map_output_records": 1000.0, "probe_reduce_input_records": 1000.0}


def test_each_task_takes_what_a_probe_task_took_beyond_its_functions():
    se_m, se_r = uber_task_times(PROBE)
    # functions scaled by 1/f (no start-up or fixed cost recorded): 1.2 s / 0.25 and the
    # combiner's 0.2 s / 0.25; plus 4 maps × (1.8 - 1.2 - 0.2) s / 2 probe tasks
    assert se_m == pytest.approx(1.2 / 0.25 + 0.2 / 0.25 + 4 * 0.2)
    # the reduce: 0.2 s × (1000 records over 1000 of the probe's: the job's own count is
    # scaled from the probe's map output, 1/f) plus one reduce × 0.3 s
    assert se_r == pytest.approx(0.2 / 0.25 + 1 * 0.3)


def test_the_empty_tasks_count_among_the_tasks_their_times_are_in():
    # an empty map beside the two: its time and start-up are in the totals, not in the count
    # of map tasks; an empty reduce is in the count of reduce tasks already
    job = {**PROBE, "probe_map_task_fixed_ms": 60.0, "probe_map_task_ms": 1800.0 + 60.0,
           "probe_map_function_ms": 1200.0 + 30.0, "probe_reduce_tasks": 2.0,
           "probe_reduce_task_ms": 500.0 + 50.0, "probe_reduce_function_ms": 200.0 + 20.0}
    se_m, se_r = uber_task_times(job)
    assert se_m == pytest.approx(1.23 / 0.25 + 0.2 / 0.25 + 4 * (1.86 - 1.23 - 0.2) / 3)
    # the reduce's function time is scaled per record (eq 8), its task time per reduce
    reduce_functions = uber_task_times({**job, "probe_reduce_task_ms": 220.0})[1]
    assert se_r == pytest.approx(reduce_functions + (0.55 - 0.22) / 2)


def test_a_map_only_job_has_no_reduce_time_and_a_probe_without_task_times_gives_none():
    map_only = {**PROBE, "n_reduces": 0.0}
    assert uber_task_times(map_only)[1] == 0.0
    for missing in ("probe_map_task_ms", "probe_map_tasks", "probe_reduce_task_ms"):
        assert uber_task_times({k: v for k, v in PROBE.items() if k != missing}) is None
    # no timing wrapper: the tasks' CPU time stands for the function time, on both sides
    cpu = {**{k: v for k, v in PROBE.items() if k != "probe_map_function_ms"},
           "probe_map_cpu_ms": 1000.0}
    assert uber_task_times(cpu)[0] == pytest.approx(1.0 / 0.25 + 0.2 / 0.25 + 4 * 0.3)


@given(task=st.floats(0.0, 1e5), function=st.floats(0.0, 1e5), tasks=st.integers(1, 8))
def test_a_task_never_takes_less_than_its_functions(task, function, tasks):
    job = {**PROBE, "probe_map_task_ms": task, "probe_map_function_ms": function,
           "probe_combine_function_ms": 0.0, "probe_map_tasks": float(tasks)}
    se_m, _ = uber_task_times(job)
    assert se_m >= function / 1000 / 0.25 - 1e-9 and math.isfinite(se_m)


def test_predict_sizes_a_probed_uber_job_from_its_probes_task_times():
    history = linear_trace(400, seed=3, uber=0.1)
    model = SizeModel.fit(history, form="tasks")
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    job = {**as_job(row), "job_name": None, "am_memory_mb": 2048.0, "am_vcores": 1.0,
           "uberized": True}
    timed = {**job, "probe_map_tasks": 2.0, "probe_reduce_tasks": 1.0,
             "probe_map_task_ms": job["probe_map_function_ms"] + 300.0,
             "probe_reduce_task_ms": job["probe_reduce_function_ms"] + 80.0}
    values = job_values(timed)
    expected = uber_task_times(values, model.key_cost)
    uber = model.predict_one(values)
    assert (uber.SE_m, uber.SE_r) == pytest.approx(expected)
    assert uber.S.memory == pytest.approx(2048 * sum(expected))
    assert uber.S_interval[0].memory <= uber.S.memory <= uber.S_interval[1].memory
    assert any("beyond its functions" in note for note in uber.notes)
    # the batch path says the same
    frame = pd.DataFrame([row]).assign(uberized=True, am_memory_mb=2048, am_vcores=1,
                                       job_name=pd.NA, **{k: timed[k] for k in timed
                                                          if k.endswith(("_tasks", "_task_ms"))})
    batch = model.predict_frame(frame).iloc[0]
    assert batch["SE_m_s"] == pytest.approx(uber.SE_m)
    assert batch["S_mb_s"] == pytest.approx(uber.S.memory)
    # a job that does not run in uber mode is sized by eq 6 and 7 all the same
    normal = model.predict_one(job_values({**timed, "uberized": False}))
    assert normal.SE_m != pytest.approx(uber.SE_m)


@pytest.mark.parametrize("form", ["paper", "tasks"])
def test_one_job_and_the_batch_agree_on_a_probed_uber_job_in_either_form(form):
    history = linear_trace(400, seed=3, uber=0.1)
    model = SizeModel.fit(history, form=form)
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    timed = {"uberized": True, "am_memory_mb": 2048, "am_vcores": 1, "probe_map_tasks": 2.0,
             "probe_reduce_tasks": 1.0,
             "probe_map_task_ms": row["probe_map_function_ms"] + 300.0,
             "probe_reduce_task_ms": row["probe_reduce_function_ms"] + 80.0}
    frame = pd.DataFrame([row]).assign(job_name=pd.NA, **timed)
    batch = model.predict_frame(frame).iloc[0]
    one = model.predict_one(job_values({**as_job(row), "job_name": None, **timed}))
    assert one.SE_m == pytest.approx(uber_task_times(job_values({**as_job(row), **timed}))[0])
    assert (batch["SE_m_s"], batch["SE_r_s"]) == pytest.approx((one.SE_m, one.SE_r))


def test_a_cpu_clock_model_sizes_a_probed_uber_job_by_eq_6_and_7():
    """The probe times its tasks on the wall clock only; a CPU-clock model keeps to its own."""
    history = linear_trace(400, seed=3, uber=0.1)
    history["map_cpu_ms"], history["reduce_cpu_ms"] = history["map_time_ms"], \
        history["reduce_time_ms"]
    model = SizeModel.fit(history, form="tasks", clock="cpu")
    row = history[~history["uberized"] & (history["n_reduces"] > 0)].iloc[0]
    job = {**as_job(row), "job_name": None, "probe_map_tasks": 2.0, "probe_reduce_tasks": 1.0,
           "probe_map_task_ms": row["probe_map_function_ms"] + 300.0,
           "probe_reduce_task_ms": row["probe_reduce_function_ms"] + 80.0}
    uber = model.predict_one(job_values({**job, "uberized": True}))
    normal = model.predict_one(job_values({**job, "uberized": False}))
    assert uber.uber and (uber.SE_m, uber.SE_r) == pytest.approx((normal.SE_m, normal.SE_r))


#: A map-only uber job of 5 maps whose probe, one map over a fifth of its input, took 1.5 s:
#: 0.2 s in the map function, 1.3 s beyond it — of which a second was the commit poll's wait.
MAP_ONLY = {"n_maps": 5.0, "n_reduces": 0.0, "map_input_bytes": 5e6, "probe_fraction": 0.2,
            "probe_map_tasks": 1.0, "probe_map_task_ms": 1500.0, "probe_map_function_ms": 200.0,
            "probe_map_output_records": 1000.0}


def test_a_map_only_job_pays_the_probes_commit_poll_once_not_once_per_map():
    se_m, _ = uber_task_times(MAP_ONLY)
    # the function scaled (0.2 s / 0.2) and the poll's second once; each of the 5 maps takes
    # the 0.3 s the probe's map took besides — not 5 × 1.3 s
    assert se_m == pytest.approx(0.2 / 0.2 + 1.0 + 5 * 0.3)
    # a one-map job is its probe: nothing changes
    one = {**MAP_ONLY, "n_maps": 1.0, "map_input_bytes": 1e6, "probe_fraction": 1.0}
    assert uber_task_times(one)[0] == pytest.approx(0.2 + 1.3)


def test_below_a_poll_no_wait_is_taken_out_and_maps_that_do_not_commit_keep_their_time():
    quick = {**MAP_ONLY, "probe_map_task_ms": 600.0}
    assert uber_task_times(quick)[0] == pytest.approx(0.2 / 0.2 + 5 * 0.4)
    # with a reduce the maps commit nothing: their 1.3 s is what each of them takes
    with_reduce = {**MAP_ONLY, "n_reduces": 1.0, "probe_reduce_tasks": 1.0,
                   "probe_reduce_task_ms": 1300.0, "probe_reduce_function_ms": 100.0,
                   "probe_reduce_input_records": 1000.0}
    se_m, se_r = uber_task_times(with_reduce)
    assert se_m == pytest.approx(0.2 / 0.2 + 5 * 1.3)
    # the one reduce, the job's first committing task, takes what the probe's took
    assert se_r == pytest.approx(0.1 / 0.2 + 1.2)


@given(task=st.floats(0.0, 1e5), function=st.floats(0.0, 1e5), tasks=st.integers(1, 8),
       maps=st.integers(1, 9))
def test_a_map_only_job_never_takes_less_than_its_functions_or_more_than_per_map_scaling(
        task, function, tasks, maps):
    job = {**MAP_ONLY, "n_maps": float(maps), "probe_map_task_ms": task,
           "probe_map_function_ms": function, "probe_map_tasks": float(tasks)}
    se_m, _ = uber_task_times(job)
    functions = function / 1000 / 0.2
    per_task = max(task - function, 0.0) / 1000 / tasks
    assert math.isfinite(se_m) and se_m >= functions - 1e-9
    if maps >= tasks:
        assert se_m <= functions + maps * per_task + 1e-9


def test_no_committing_tasks_take_no_time():
    from jobsize.models.uberprobe import _committing
    assert _committing(0.0, 1.4, 1.0, 0.0) == 0.0
    assert _committing(3.0, 1.4, 1.0, 0.0) == pytest.approx(1.0 + 3 * 0.4)


def test_the_later_maps_of_a_job_with_reduces_take_what_the_probes_later_map_took():
    # the probe's second map (warm) took 300 ms, 250 of it in its functions: 0.05 s beyond;
    # its first map took the rest of the 0.4 s beyond the two maps' functions: 0.35 s
    job = {**PROBE, "probe_map_later_task_ms": 300.0, "probe_map_later_function_ms": 250.0}
    se_m, se_r = uber_task_times(job)
    assert se_m == pytest.approx(1.2 / 0.25 + 0.2 / 0.25 + 0.35 + 3 * 0.05)
    assert se_r == uber_task_times(PROBE)[1]
    # a map-only job's maps commit: the commit poll decides there, not the warm maps
    map_only = {**PROBE, "n_reduces": 0.0}
    assert uber_task_times({**map_only, "probe_map_later_task_ms": 300.0,
                            "probe_map_later_function_ms": 250.0}) == uber_task_times(map_only)


def test_without_the_later_maps_timed_apart_every_map_takes_the_mean():
    timed = {"probe_map_later_task_ms": 300.0, "probe_map_later_function_ms": 250.0}
    mean = uber_task_times(PROBE)
    assert uber_task_times({**PROBE, **timed, "probe_map_later_task_ms": math.nan}) == mean
    assert uber_task_times({**PROBE, "probe_map_later_task_ms": 300.0}) == mean
    assert uber_task_times({**PROBE, **timed, "probe_map_tasks": 1.0}) == \
        uber_task_times({**PROBE, "probe_map_tasks": 1.0})
    # a local probe's empty map is in the totals: the later maps are not told apart there
    empty = {**PROBE, "probe_map_task_fixed_ms": 60.0, "probe_map_task_ms": 1860.0}
    assert uber_task_times({**empty, **timed}) == uber_task_times(empty)


@given(first=st.floats(0.0, 1e4), later=st.floats(0.0, 1e4), n_maps=st.integers(2, 9))
def test_the_job_takes_its_first_map_cold_and_the_rest_warm(first, later, n_maps):
    # the probe's maps took `first` and `later` ms beyond 700 ms of functions each: the job's
    # first map takes `first`, its other n - 1 maps `later` each; the mean rule's n × the mean
    # is the same only where the two are equal
    job = {**PROBE, "n_maps": float(n_maps), "probe_combine_function_ms": 0.0,
           "probe_map_function_ms": 1400.0, "probe_map_task_ms": 1400.0 + first + later,
           "probe_map_later_task_ms": 700.0 + later, "probe_map_later_function_ms": 700.0}
    mean = {k: v for k, v in job.items() if not k.startswith("probe_map_later")}
    functions = uber_task_times({**mean, "probe_map_task_ms": 1400.0})[0]
    assert uber_task_times(job)[0] == pytest.approx(functions + (first + (n_maps - 1) * later)
                                                    / 1000, rel=1e-9, abs=1e-9)
    assert uber_task_times(mean)[0] == pytest.approx(functions + n_maps * (first + later) / 2000,
                                                     rel=1e-9, abs=1e-9)


def test_each_task_takes_a_probe_tasks_timing_wrapper_less():
    # the probe's two maps spent 0.12 s in their wrappers (mapper and combiner), its reduce
    # 0.05 s: the job's tasks, unwrapped, take the mean less each
    wrapped = {**PROBE, "probe_map_wrapper_ms": 120.0, "probe_reduce_wrapper_ms": 50.0}
    se_m, se_r = uber_task_times(wrapped)
    assert se_m == pytest.approx(uber_task_times(PROBE)[0] - 4 * 0.06)
    assert se_r == pytest.approx(uber_task_times(PROBE)[1] - 0.05)
    # never below the functions' own time
    huge = uber_task_times({**PROBE, "probe_map_wrapper_ms": 1e6, "probe_reduce_wrapper_ms": 1e6})
    assert huge == pytest.approx((1.2 / 0.25 + 0.2 / 0.25, 0.2 / 0.25))


def test_the_commit_poll_is_told_from_the_wrapped_task_time_and_kept_whole():
    # a map-only probe whose map waited the poll: 1.05 s beyond its functions, 0.1 s of it its
    # wrapper's (0.95 s without); the job's five maps pay the poll once, and nothing besides
    job = {**PROBE, "n_maps": 5.0, "n_reduces": 0.0, "probe_map_tasks": 1.0,
           "probe_combine_function_ms": 0.0, "probe_map_function_ms": 400.0,
           "probe_map_task_ms": 1450.0, "probe_map_wrapper_ms": 100.0}
    assert uber_task_times(job)[0] == pytest.approx(0.4 / 0.25 + 1.0)
    # a wrapper longer than what the probe's map took besides the poll takes none of it away
    assert uber_task_times({**job, "probe_map_wrapper_ms": 300.0})[0] == \
        pytest.approx(0.4 / 0.25 + 1.0)
    # nor from the cold first map's time where the later maps are timed apart
    warm = {**PROBE, "probe_map_later_task_ms": 300.0, "probe_map_later_function_ms": 250.0,
            "probe_map_wrapper_ms": 120.0}
    # first map 0.35 s beyond, less 0.06; the later 0.05 s, less 0.06: none
    assert uber_task_times(warm)[0] == pytest.approx(1.2 / 0.25 + 0.2 / 0.25 + 0.29)


#: A one-map, one-reduce uber job probed over all its input, its probe's first task started
#: 0.3 s after its launch: map 0.2 s (0.1 s its function), reduce 0.25 s (0.1 s its function).
#: Its reduce asks to commit 0.3 + 0.2 + 0.25 = 0.75 s after its launch.
EARLY = {"n_maps": 1.0, "n_reduces": 1.0, "map_input_bytes": 1e6, "probe_fraction": 1.0,
         "probe_map_tasks": 1.0, "probe_map_task_ms": 200.0, "probe_map_function_ms": 100.0,
         "probe_reduce_tasks": 1.0, "probe_reduce_task_ms": 1250.0,
         "probe_reduce_function_ms": 100.0, "probe_map_output_records": 1000.0,
         "probe_reduce_input_records": 1000.0, "probe_task_start_ms": 300.0}


def test_a_reduce_that_asks_before_the_first_heartbeat_waits_a_poll_whatever_its_probe_did():
    # the probe's reduce waited (1.15 s beyond its function): the job's asks as early, waits
    assert uber_task_times(EARLY)[1] == pytest.approx(0.1 + 1.0 + 0.15)
    # a probe slowed by its timing wrappers (0.15 s a task) asked after the heartbeat
    # (0.3 + 0.55 + 0.35 s) and did not wait; the job, unwrapped, asks at 0.3 + 0.4 + 0.1 +
    # 0.1 s, before it, and waits
    wrapped = {**EARLY, "probe_map_task_ms": 550.0, "probe_reduce_task_ms": 350.0,
               "probe_map_wrapper_ms": 150.0, "probe_reduce_wrapper_ms": 150.0}
    assert uber_task_times(wrapped) == pytest.approx((0.1 + 0.3, 0.1 + 1.0 + 0.1))
    # without the probe's start, the job waits where its probe did (it did not)
    assert uber_task_times({**wrapped, "probe_task_start_ms": math.nan})[1] == (
        pytest.approx(0.1 + 0.1))


def test_a_reduce_asking_after_the_first_heartbeat_pays_no_poll_though_its_probe_waited():
    # eight times the input: the maps take 8 × 0.1 s of function beyond the probe's set-up, so
    # the reduce asks after the heartbeat; the probe's wait was the early refusal, not the job's
    big = {**EARLY, "n_maps": 8.0, "map_input_bytes": 8e6, "probe_fraction": 0.125}
    assert uber_task_times(big)[1] == pytest.approx(0.8 + 0.15)
    # the same job read from counters alone (no start time): the probe's wait is the job's
    assert uber_task_times({**big, "probe_task_start_ms": math.nan})[1] == (
        pytest.approx(0.8 + 1.0 + 0.15))


def test_a_probe_that_asked_early_and_did_not_wait_turns_the_heartbeat_rule_off():
    # the local engine refuses no early commit: its probe asked at 0.75 s and went on
    local = {**EARLY, "probe_reduce_task_ms": 250.0}
    assert uber_task_times(local)[1] == pytest.approx(0.1 + 0.15)
    # on Hadoop the same job would have waited
    assert uber_task_times(EARLY)[1] == pytest.approx(0.1 + 1.0 + 0.15)


def test_a_map_only_job_whose_first_map_asks_late_pays_no_poll():
    # 1 s of map function in the probe's one map (a fifth of the input), 1.3 s beyond it, a
    # second of that the wait; the job's first map asks at 0.3 + 5 s / 5 + 0.3 s: after the
    # heartbeat
    slow = {**MAP_ONLY, "probe_map_task_ms": 2300.0, "probe_map_function_ms": 1000.0,
            "probe_task_start_ms": 300.0}
    assert uber_task_times(slow)[0] == pytest.approx(1.0 / 0.2 + 5 * 0.3)
    # a quick one asks at 0.3 + 0.2 + 0.3 s: before it, and waits once
    quick = {**MAP_ONLY, "probe_task_start_ms": 300.0}
    assert uber_task_times(quick)[0] == pytest.approx(0.2 / 0.2 + 1.0 + 5 * 0.3)


#: PROBE's maps run warm after the first: its second map read half the records and spent
#: 250 ms of the 1.4 s in the map and combine functions; the functions run in the JVM.
WARM = {**PROBE, "probe_map_later_task_ms": 300.0, "probe_map_later_function_ms": 250.0,
        "probe_map_later_input_share": 0.5}


def test_functions_in_the_jvm_run_warm_after_the_first_map_paid_for_compiling_them():
    # the whole sample at the warm rate: 500 ms, so the first map paid 900 ms cold excess once;
    # the job's functions, scaled from the probe's 1.4 s to 5.6 s, take 500 / 1400 of that
    # plus the excess
    beyond = 0.35 + 3 * 0.05
    assert uber_task_times(WARM)[0] == pytest.approx(5.6 * 500 / 1400 + 0.9 + beyond)
    # the reduce is one task: cold as the probe's
    assert uber_task_times(WARM)[1] == uber_task_times(PROBE)[1]


def test_functions_that_start_cold_in_every_task_or_not_timed_apart_keep_the_scaled_time():
    functions, beyond = 1.2 / 0.25 + 0.2 / 0.25, 0.35 + 3 * 0.05
    # the timing wrapper runs them: a process of their own in every map (0.06 s of wrapper a
    # task: the first map 0.29 s beyond its functions, the later ones nothing)
    wrapped = uber_task_times({**WARM, "probe_map_wrapper_ms": 120.0})[0]
    assert wrapped == pytest.approx(functions + 0.29)
    for share in (math.nan, 0.0, 1.0):
        assert uber_task_times({**WARM, "probe_map_later_input_share": share})[0] == (
            pytest.approx(functions + beyond))
    # the later map no faster than the first (700 of the 1.4 s for half the records): nothing
    # to take off
    slow = {**WARM, "probe_map_later_task_ms": 750.0, "probe_map_later_function_ms": 700.0}
    assert uber_task_times(slow)[0] == pytest.approx(functions + beyond)


def test_an_ask_just_after_the_heartbeat_is_not_refused_and_a_probe_with_empty_tasks_is_not_timed():
    # the job's reduce asks 0.45 s after its first task's start: with the start 1 ms either
    # side of 0.55 s it asks just after the heartbeat, or just before it
    assert uber_task_times({**EARLY, "probe_task_start_ms": 551.0})[1] == pytest.approx(0.25)
    assert uber_task_times({**EARLY, "probe_task_start_ms": 549.0})[1] == pytest.approx(1.25)
    # a local probe: its empty map's time is in its totals, and nothing refuses its commits
    # (its reduce took 1.2 s beyond its function here, say: the job waits where it did)
    local = {**EARLY, "n_maps": 8.0, "map_input_bytes": 8e6, "probe_fraction": 0.125,
             "probe_map_task_fixed_ms": 50.0, "probe_map_task_ms": 250.0,
             "probe_map_function_ms": 110.0}
    assert uber_task_times(local)[1] == pytest.approx(0.8 + 1.0 + 0.15)


def test_warm_functions_count_in_when_a_map_only_jobs_first_map_asks():
    # a map-only Java job of 4 maps: its functions warm after the first map (the probe's
    # second map read half the records, 100 of the 1.2 s of map function); its first map, cold,
    # asks at 0.3 + 1.2 s / 0.5 / 4 + 0.3 s: after the heartbeat, though the probe's waited
    job = {"n_maps": 4.0, "n_reduces": 0.0, "map_input_bytes": 4e6, "probe_fraction": 0.5,
           "probe_map_tasks": 2.0, "probe_map_task_ms": 2800.0, "probe_map_function_ms": 1200.0,
           "probe_map_output_records": 1000.0, "probe_map_later_task_ms": 400.0,
           "probe_map_later_function_ms": 100.0, "probe_map_later_input_share": 0.5,
           "probe_task_start_ms": 300.0}
    # warm: 200 ms for the whole sample, 1 s cold excess; 2.4 s of function scaled to 0.4 s
    functions = 2.4 * 200 / 1200 + 1.0
    # beyond the functions: (2.8 - 1.2 - 1.0 s of the probe's poll) / 2 tasks each
    assert uber_task_times(job)[0] == pytest.approx(functions + 4 * 0.3)
    # the later maps' functions took no whole millisecond: nothing to tell a warm rate from
    none = {**job, "probe_map_later_function_ms": 0.0}
    assert uber_task_times(none)[0] == pytest.approx(2.4 + 4 * 0.3)
