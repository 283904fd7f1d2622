"""Probe jobs joined to the jobs they probed: the rules, and a JobHistory Server on loopback."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jhs_fake import DOC_JOB, answering_on
from jobsize.collectors.counter_columns import record_columns
from jobsize.collectors.jhs import HistoryServer, collect_jhs
from jobsize.collectors.probe_join import (
    PROBE_COLUMNS,
    Probe,
    find_probe,
    join_probes,
    probes_path,
    read_probes,
)
from jobsize.collectors.rest import HttpOptions

from jobsize.cli import main
from jobsize.errors import ParseError
from jobsize.schema import TASK_COLUMNS, read_trace, records, tasks_path

FAST = HttpOptions(timeout=(2.0, 0.5), retries=3, backoff=0.01, pool=4)


def _job(job_id: str, name: str, submit: int, **extra) -> dict:
    return {"job_id": job_id, "job_name": name, "submit_time_ms": submit, "state": "SUCCEEDED",
            "n_maps": 10, "n_reduces": 2, "map_input_bytes": 1000, **extra}


def _probe(job_id: str, target: str, submit: int, probe_id: str | None = None,
           state: str = "SUCCEEDED", fraction: float | None = 0.1, mor: int = 7) -> Probe:
    columns = {c: 1 for c in PROBE_COLUMNS}
    columns.update(probe_fraction=fraction, probe_input_bytes=100, probe_map_output_records=mor)
    return Probe(job_id=job_id, probe_for=target, probe_id=probe_id, submit_time_ms=submit,
                 state=state, columns=columns)


def _joined(jobs, probes, identities=None):
    out = join_probes(records(jobs), probes, identities or {})
    return out.jobs.set_index("job_id"), out


# -- the rules ------------------------------------------------------------------------------------

def test_identity_wins_over_name_and_order():
    jobs = [_job("j1", "wc", 100), _job("j2", "wc", 200)]
    probes = [_probe("p1", "wc", 90, "A", mor=1), _probe("p2", "wc", 95, "B", mor=2)]
    frame, out = _joined(jobs, probes, {"j1": "B", "j2": "A"})
    assert frame.loc["j1", "probe_map_output_records"] == 2
    assert frame.loc["j2", "probe_map_output_records"] == 1
    assert (out.report.by_id, out.report.by_name, out.report.unjoined) == (2, 0, {})
    assert {p.job_id: p.joined_job_id for p in out.probes} == {"p1": "j2", "p2": "j1"}


def test_a_recurring_identity_joins_each_run_to_the_probe_just_before_it():
    jobs = [_job("j1", "daily", 100), _job("j2", "daily", 200)]
    probes = [_probe("p1", "daily", 90, "D", mor=1), _probe("p2", "daily", 190, "D", mor=2)]
    frame, _ = _joined(jobs, probes, {"j1": "D", "j2": "D"})
    assert list(frame["probe_map_output_records"]) == [1, 2]


def test_by_name_each_job_takes_the_probe_submitted_since_the_previous_job_of_its_name():
    jobs = [_job("j1", "wc", 100), _job("j2", "wc", 300), _job("j3", "grep", 310)]
    probes = [_probe("p1", "wc", 80, mor=1), _probe("p2", "wc", 290, mor=2),
              _probe("p3", "wc", 400, mor=3)]
    frame, out = _joined(jobs, probes)
    assert frame.loc["j1", "probe_map_output_records"] == 1
    assert frame.loc["j2", "probe_map_output_records"] == 2
    assert pd.isna(frame.loc["j3", "probe_map_output_records"])  # no grep probe
    assert out.report.by_name == 2
    assert set(out.report.unjoined) == {"p3"}
    assert "no job named 'wc' submitted after it" in out.report.unjoined["p3"]


def test_two_jobs_of_one_name_probed_before_either_ran_are_refused_not_crossed():
    jobs = [_job("a", "wc", 100), _job("b", "wc", 110)]
    probes = [_probe("pa", "wc", 50, mor=1), _probe("pb", "wc", 60, mor=2)]
    frame, out = _joined(jobs, probes)
    assert frame[list(PROBE_COLUMNS)].isna().all().all()
    assert out.report.joined == 0
    assert set(out.report.unjoined) == {"pa", "pb"}
    assert all(why.startswith("ambiguous: 2 probes named 'wc' were submitted before job a")
               for why in out.report.unjoined.values())


def test_a_job_probed_again_joins_its_latest_probe_by_identity():
    frame, out = _joined([_job("j1", "wc", 100)],
                         [_probe("p1", "wc", 50, "X", mor=1), _probe("p2", "wc", 60, "X", mor=2)],
                         {"j1": "X"})
    assert frame.loc["j1", "probe_map_output_records"] == 2
    assert out.report.by_id == 1 and list(out.report.unjoined) == ["p1"]


def test_a_probe_whose_identity_a_job_carries_is_not_taken_by_name():
    jobs = [_job("j1", "wc", 100), _job("j2", "wc", 200)]
    probes = [_probe("p1", "wc", 150, "A")]
    frame, out = _joined(jobs, probes, {"j1": "A"})
    assert frame.loc["j1", "probe_input_bytes"] == 100  # joined by id though submitted after
    assert pd.isna(frame.loc["j2", "probe_input_bytes"])
    assert out.report.by_id == 1


def test_a_job_with_an_identity_takes_no_probe_by_name():
    frame, out = _joined([_job("j1", "wc", 100)], [_probe("p1", "wc", 90)], {"j1": "Z"})
    assert pd.isna(frame.loc["j1", "probe_input_bytes"])
    assert list(out.report.unjoined) == ["p1"]


def test_failed_probes_join_nothing_and_probed_jobs_keep_their_columns():
    already = _job("j2", "wc", 200, **{c: 5 for c in PROBE_COLUMNS})
    jobs = [_job("j1", "wc", 100), already]
    probes = [_probe("p1", "wc", 90, state="FAILED"), _probe("p2", "wc", 150)]
    frame, out = _joined(jobs, probes)
    assert pd.isna(frame.loc["j1", "probe_input_bytes"])
    assert frame.loc["j2", "probe_input_bytes"] == 5
    assert out.report.unjoined["p1"] == "the probe FAILED"
    assert "p2" in out.report.unjoined
    assert out.report.summary() == ("2 probe jobs: 0 joined (0 by jobsize.probe.id, 0 by name "
                                    "and submit order), 2 not joined")


def test_without_a_recorded_fraction_f_p_is_the_sample_over_the_jobs_input():
    frame, _ = _joined([_job("j1", "wc", 100, map_input_bytes=400)],
                       [_probe("p1", "wc", 90, fraction=None)])
    assert frame.loc["j1", "probe_fraction"] == pytest.approx(100 / 400)


def test_probes_already_joined_stay_as_they_are():
    probe = _probe("p1", "wc", 90)
    done = dataclasses.replace(probe, joined_job_id="j0")
    frame, out = _joined([_job("j1", "wc", 100)], [done])
    assert pd.isna(frame.loc["j1", "probe_input_bytes"])
    assert out.report.unjoined == {} and out.probes == [done]


# -- recognising a probe --------------------------------------------------------------------------

def _record(**extra):
    return {"job_id": "job_1_1", "job_name": "x", "submit_time_ms": 1000,
            "finish_time_ms": 4500, "state": "SUCCEEDED", "n_maps": 1, "n_reduces": 1,
            "reduce_input_groups": 2, "map_cpu_ms": 900, "reduce_cpu_ms": 300,
            "map_input_bytes": 77, "map_output_bytes": 10, "map_output_records": 2,
            "reduce_input_records": 2, "reduce_output_bytes": 3, "map_function_ms": 11.0,
            "reduce_function_ms": 12.0, "map_time_ms": 400, "reduce_time_ms": 150, **extra}


def test_a_probe_is_recognised_by_its_properties_and_reads_them():
    conf = {"jobsize.probe.for": "wc", "jobsize.probe.id": " u-1 ",
            "jobsize.probe.fraction": "0.125", "jobsize.probe.input.bytes": "64",
            "jobsize.probe.n_maps": "8", "jobsize.probe.n_reduces": "2"}
    probe = find_probe(_record(), conf)
    assert (probe.probe_for, probe.probe_id, probe.submit_time_ms) == ("wc", "u-1", 1000)
    assert probe.columns == {
        "probe_fraction": 0.125, "probe_input_bytes": 64, "probe_map_function_ms": 11.0,
        "probe_reduce_function_ms": 12.0, "probe_map_output_bytes": 10,
        "probe_map_output_records": 2, "probe_reduce_input_records": 2,
        "probe_reduce_output_bytes": 3, "probe_wall_ms": 3500.0,
        "probe_map_tasks": 1, "probe_reduce_tasks": 1, "probe_reduce_input_groups": 2,
        "probe_map_processes": 1,
        "probe_combine_function_ms": 0.0, "probe_combine_input_records": 0,
        "probe_map_cpu_ms": 900.0, "probe_reduce_cpu_ms": 300.0,
        # one map and one reduce: no shape to tell
        "probe_map_split": None, "probe_reduce_split": None,
        "probe_map_function_fixed_ms": None, "probe_reduce_function_fixed_ms": None,
        "probe_map_function_startup_ms": None, "probe_reduce_function_startup_ms": None,
        "probe_map_output_exponent": None, "probe_reduce_input_exponent": None,
        "probe_key_exponent": None,
        # the probe's task times from its history; no empty tasks, no combiner
        "probe_map_task_ms": 400.0, "probe_reduce_task_ms": 150.0,
        "probe_map_task_fixed_ms": None, "probe_reduce_task_fixed_ms": None,
        "probe_combine_runs": 0, "probe_combine_function_fixed_ms": None,
        # no attempts given: no later maps timed apart, no first task's start; no timing
        # wrapper's own time
        "probe_map_later_task_ms": None, "probe_map_later_function_ms": None,
        "probe_map_later_input_share": None,
        "probe_map_wrapper_ms": None, "probe_reduce_wrapper_ms": None,
        "probe_task_start_ms": None}
    combined = find_probe(_record(combine_input_records=50, combine_function_ms=4.0), conf)
    assert combined.columns["probe_combine_function_ms"] == 4.0
    # the wrapper's own time, as a history's counters hold it (a side's, or the total)
    own = record_columns({"total": {}, "map": {"jobsize": {"MAP_WRAPPER_MILLIS": 90,
                                                          "COMBINE_WRAPPER_MILLIS": 40}},
                          "reduce": {"jobsize": {"REDUCE_WRAPPER_MILLIS": 70}}})
    wrapped = find_probe(_record(**{k: v for k, v in own.items() if "wrapper" in k}),
                         conf).columns
    assert (wrapped["probe_map_wrapper_ms"], wrapped["probe_reduce_wrapper_ms"]) == (130.0, 70.0)
    java_mapper = find_probe(_record(combine_wrapper_ms=40.0, n_reduces=0), conf).columns
    assert (java_mapper["probe_map_wrapper_ms"], java_mapper["probe_reduce_wrapper_ms"]) == \
        (40.0, None)
    assert combined.columns["probe_combine_input_records"] == 50
    assert combined.columns["probe_combine_runs"] is None  # Hadoop counts no combiner runs


def _attempt(task: str, kind: str, start: int, finish: int | None,
             status: str = "SUCCEEDED") -> dict:
    return {"task_id": task, "task_type": kind, "status": status, "start_time_ms": start,
            "finish_time_ms": finish}


def test_the_maps_after_the_probes_first_are_timed_apart_from_their_own_counters():
    conf = {"jobsize.probe.for": "wc", "jobsize.probe.fraction": "0.125"}
    tasks = [_attempt("m1", "MAP", 1500, 1700), _attempt("m0", "MAP", 1000, 1450),
             _attempt("m2", "MAP", 1720, 1800), _attempt("r0", "REDUCE", 1800, 2000),
             _attempt("m1", "MAP", 1400, 1420, "KILLED")]
    tc = "org.apache.hadoop.mapreduce.TaskCounter"
    counters = {t: {"jobsize": {"MAP_FUNCTION_MILLIS": ms, "COMBINE_FUNCTION_MILLIS": 5},
                    tc: {"MAP_INPUT_RECORDS": records}}
                for t, ms, records in (("m0", 300, 60), ("m1", 90, 20), ("m2", 40, 40))}
    columns = find_probe(_record(n_maps=3), conf, tasks=tasks, task_counters=counters).columns
    # m0 started first; m1 and m2 ran warm: 200 + 80 ms, 90 + 40 ms of functions + 2 × 5
    assert columns["probe_map_later_task_ms"] == 280.0
    assert columns["probe_map_later_function_ms"] == 140.0
    # the later maps' share of the records, not of the maps: 60 of 120
    assert columns["probe_map_later_input_share"] == pytest.approx(0.5)
    # an attempt with no start (a history server's row may lack it) is not a map that ran
    unstarted = [*tasks[:2], {**tasks[2], "start_time_ms": None}]
    columns = find_probe(_record(), conf, tasks=unstarted, task_counters=counters).columns
    assert (columns["probe_map_later_task_ms"], columns["probe_map_later_function_ms"]) == \
        (200.0, 95.0)
    assert columns["probe_map_later_input_share"] == pytest.approx(20 / 80)
    # a later map without the wrapper's counter, an empty map (the local engine's probe has
    # one), or one map: nothing to tell apart
    bare = {**counters, "m2": {tc: {"MAP_INPUT_RECORDS": 40, "CPU_MILLISECONDS": 9}}}
    empty = {**counters, "m2": {**counters["m2"], tc: {"MAP_INPUT_RECORDS": 0}}}
    for args in ((tasks, bare), (tasks, empty), (tasks[1:2] + tasks[3:], counters), ((), {})):
        columns = find_probe(_record(), conf, tasks=args[0], task_counters=args[1]).columns
        assert columns["probe_map_later_task_ms"] is None
        assert columns["probe_map_later_function_ms"] is None
        assert columns["probe_map_later_input_share"] is None


def test_the_probes_first_task_start_is_timed_from_its_launch():
    conf = {"jobsize.probe.for": "wc", "jobsize.probe.fraction": "0.125"}
    tasks = [_attempt("r0", "REDUCE", 1800, 2000), _attempt("m0", "MAP", 1250, 1450),
             _attempt("m1", "MAP", None, None)]
    columns = find_probe(_record(launch_time_ms=1100), conf, tasks=tasks).columns
    assert columns["probe_task_start_ms"] == 150.0
    # no launch time, or no attempt that started: nothing to tell
    for record, attempts in ((_record(), tasks), (_record(launch_time_ms=1100), tasks[2:])):
        assert find_probe(record, conf, tasks=attempts).columns["probe_task_start_ms"] is None


def test_a_probe_whose_functions_the_timing_wrapper_started_empty_has_fixed_costs():
    """The wrapper's start-up counters (summed over the probe's tasks and combiner runs) give
    what each task and run pays whatever its input: the mean start-up, at most the mean
    function time."""
    conf = {"jobsize.probe.for": "wc", "jobsize.probe.fraction": "0.125"}
    record = _record(n_maps=2, map_function_ms=11.0, map_function_startup_ms=6.0,
                     reduce_function_ms=12.0, reduce_function_startup_ms=20.0,
                     combine_input_records=50, combine_function_ms=9.0,
                     combine_function_startup_ms=4.5, combine_runs=3)
    columns = find_probe(record, conf).columns
    assert columns["probe_map_function_fixed_ms"] == 3.0  # 6 ms over two maps
    assert columns["probe_reduce_function_fixed_ms"] == 12.0  # no more than the function's time
    assert columns["probe_combine_function_fixed_ms"] == 1.5  # 4.5 ms over three runs
    assert columns["probe_combine_runs"] == 3
    # no empty task ran: every probe task paid its start-up
    assert columns["probe_map_function_startup_ms"] is None
    assert columns["probe_reduce_function_startup_ms"] is None
    # a map-only probe has no reduce side; without a combiner, no combiner cost
    map_only = find_probe(_record(n_reduces=0, map_function_startup_ms=2.0,
                                  reduce_function_startup_ms=5.0), conf).columns
    assert map_only["probe_reduce_function_fixed_ms"] is None
    assert map_only["probe_map_function_fixed_ms"] == 2.0
    assert map_only["probe_combine_function_fixed_ms"] is None


def test_a_probe_is_recognised_by_its_name_alone():
    probe = find_probe(_record(job_name="jobsize probe: grep -c", n_reduces=0,
                               reduce_function_ms=None, reduce_input_records=None), {})
    assert (probe.probe_for, probe.probe_id) == ("grep -c", None)
    assert probe.columns["probe_fraction"] is None
    assert probe.columns["probe_input_bytes"] == 77  # what it read
    # a map-only probe reports zeros for the reduce side
    assert probe.columns["probe_reduce_function_ms"] == 0.0
    assert probe.columns["probe_reduce_input_records"] == 0
    assert probe.columns["probe_reduce_input_groups"] == 0
    assert probe.columns["probe_reduce_cpu_ms"] == 0.0


def test_other_jobs_are_not_probes():
    assert find_probe(_record(job_name="jobsize probes"), {"jobsize.probe.id": "u"}) is None


@pytest.mark.parametrize("value", ["0", "1.5", "half", "nan"])
def test_a_bad_fraction_names_the_property(value):
    with pytest.raises(ParseError, match=r"c\.xml: property 'jobsize.probe.fraction': f_p"):
        find_probe(_record(), {"jobsize.probe.for": "wc", "jobsize.probe.fraction": value},
                   source="c.xml")


# -- a JobHistory Server on loopback --------------------------------------------------------------

PROBE_JOB = "job_1326381300833_7_7"
PRODUCTION_JOB = "job_1326381300833_8_8"
TIMING = {"jobsize": {"MAP_FUNCTION_MILLIS": (2100, 2100, 0),
                      "REDUCE_FUNCTION_MILLIS": (900, 0, 900)},
          "org.apache.hadoop.mapreduce.TaskCounter": {"CPU_MILLISECONDS": (1830, 1200, 630)}}


@pytest.fixture
def history(server, shared):
    """The documented job alone on a loopback JobHistory Server; tests add probes and jobs."""
    fake = answering_on(server, shared)
    fake.only([DOC_JOB])
    return fake


def _add_probe(history, job_id=PROBE_JOB, probe_id="5f0c", submit=1326381600000):
    history.add_job(job_id, name="jobsize probe: wordcount", submit=submit, finish=submit + 4000,
                conf={"jobsize.probe.for": "wordcount", "jobsize.probe.id": probe_id,
                      "jobsize.probe.fraction": "0.05", "jobsize.probe.input.bytes": "4096",
                      "jobsize.probe.n_maps": "20", "jobsize.probe.n_reduces": "1"},
                counters=TIMING)


def _add_production(history, job_id=PRODUCTION_JOB, probe_id="5f0c", submit=1326381700000):
    history.add_job(job_id, name="wordcount", submit=submit, finish=submit + 90000,
                conf={"jobsize.probe.id": probe_id})


def test_jhs_probe_counters_join_the_job_it_probed(history, tmp_path):
    _add_probe(history)
    _add_production(history)
    out = tmp_path / "t.parquet"
    result = collect_jhs(history.url, out, options=FAST)
    assert (result.listed, result.collected, result.probes, result.probes_joined) == (3, 2, 1, 1)
    assert result.probes_unjoined == {} and result.failed == {}
    jobs = read_trace(out).set_index("job_id")
    assert sorted(jobs.index) == sorted([DOC_JOB, PRODUCTION_JOB])  # the probe is no job
    job = jobs.loc[PRODUCTION_JOB]
    # job-counters.json's TaskCounter values, the wrapper's counters, the probe's properties
    assert job["probe_map_function_ms"] == 2100 and job["probe_reduce_function_ms"] == 900
    assert (job["probe_map_output_bytes"], job["probe_map_output_records"]) == (4800, 1200)
    assert job["probe_reduce_input_records"] == 1200
    assert job["probe_reduce_output_bytes"] == 0
    assert (job["probe_fraction"], job["probe_input_bytes"]) == (0.05, 4096)
    assert job["probe_wall_ms"] == 4000
    assert (job["probe_map_cpu_ms"], job["probe_reduce_cpu_ms"]) == (1200, 630)
    assert jobs.loc[DOC_JOB, list(PROBE_COLUMNS)].isna().all()
    tasks = read_trace(tasks_path(out), columns=TASK_COLUMNS)
    assert not tasks["job_id"].str.contains("_7_7").any()
    (probe,) = read_probes(out)
    assert (probe.job_id, probe.joined_job_id, probe.probe_id) == (PROBE_JOB, PRODUCTION_JOB,
                                                                   "5f0c")


def test_jhs_a_probe_collected_before_its_job_joins_it_in_a_later_run(history, tmp_path):
    _add_probe(history)
    _add_probe(history, "job_1326381300833_9_9", probe_id="lost", submit=1326381650000)
    out = tmp_path / "t.parquet"
    first = collect_jhs(history.url, out, options=FAST)
    assert (first.collected, first.probes, first.probes_joined) == (1, 2, 0)
    assert set(first.probes_unjoined) == {PROBE_JOB, "job_1326381300833_9_9"}
    assert probes_path(out).exists()

    _add_production(history)
    second = collect_jhs(history.url, out, options=FAST)
    # the probes are not fetched again; the stored one joins the new job
    assert (second.listed, second.skipped, second.collected, second.probes) == (4, 3, 1, 0)
    assert second.probes_joined == 1
    assert list(second.probes_unjoined) == ["job_1326381300833_9_9"]
    assert "no job with jobsize.probe.id=lost" in second.probes_unjoined[
        "job_1326381300833_9_9"]
    assert read_trace(out).set_index("job_id").loc[PRODUCTION_JOB, "probe_input_bytes"] == 4096
    requests = [r for r in history.requests if r.endswith(f"{PROBE_JOB}/counters")]
    assert len(requests) == 1


def test_jhs_without_identity_the_probe_joins_by_name_and_order(history, tmp_path):
    history.add_job("job_1326381300833_7_7", name="jobsize probe: wordcount", submit=100,
                finish=200, counters=TIMING)
    _add_production(history, probe_id="")
    result = collect_jhs(history.url, tmp_path / "t.parquet", options=FAST, attempts=False)
    assert (result.probes, result.probes_joined) == (1, 1)
    job = read_trace(tmp_path / "t.parquet").set_index("job_id").loc[PRODUCTION_JOB]
    # no recorded f_p: the probe read 0 bytes (BYTES_READ in the documented counters)
    assert job["probe_map_function_ms"] == 2100 and job["probe_input_bytes"] == 0


def test_jhs_collect_job_says_which_jobs_are_probes(history):
    _add_probe(history)
    _add_production(history)
    client = HistoryServer(history.url, FAST)
    probe = client.collect_job(PROBE_JOB, attempts=False)
    assert probe.probe is not None and probe.probe.probe_for == "wordcount"
    job = client.collect_job(PRODUCTION_JOB, attempts=False)
    assert job.probe is None and job.identity == "5f0c"


def test_cli_collect_jhs_reports_the_probes(history, tmp_path, capsys):
    _add_probe(history)
    _add_probe(history, "job_1326381300833_9_9", probe_id="lost", submit=1326381650000)
    _add_production(history)
    out = tmp_path / "t.parquet"
    assert main(["collect", "jhs", history.url, "-o", str(out), "--retries", "1"]) == 0
    captured = capsys.readouterr()
    assert "2 jobs collected" in captured.out
    assert "2 probe jobs collected, 1 joined to their jobs, 1 not joined" in captured.out
    assert "probe job_1326381300833_9_9 not joined: no job with jobsize.probe.id=lost" \
        in captured.err


# -- properties of the join -----------------------------------------------------------------------

_NAMES = st.sampled_from(["wc", "grep", "join"])
_IDS = st.one_of(st.none(), st.sampled_from(["A", "B", "C"]))


@st.composite
def _histories(draw):
    jobs, identities, probes = [], {}, []
    for k in range(draw(st.integers(0, 8))):
        job_id = f"j{k}"
        jobs.append(_job(job_id, draw(_NAMES), draw(st.integers(0, 50))))
        identities[job_id] = draw(_IDS)
    for k in range(draw(st.integers(0, 8))):
        probes.append(_probe(f"p{k}", draw(_NAMES), draw(st.integers(0, 50)), draw(_IDS),
                             state=draw(st.sampled_from(["SUCCEEDED", "FAILED"])), mor=k))
    return jobs, identities, probes


@given(_histories())
@settings(max_examples=150, deadline=None)
def test_every_join_is_one_probe_to_one_job_by_its_rules(history):
    jobs, identities, probes = history
    out = join_probes(records(jobs), probes, identities)
    frame = out.jobs.set_index("job_id")
    by_id = {p.job_id: p for p in probes}
    joined = {p.job_id: p.joined_job_id for p in out.probes if p.joined_job_id}
    assert len(set(joined.values())) == len(joined)  # a job takes at most one probe
    assert set(joined) | set(out.report.unjoined) == set(by_id)
    assert out.report.joined == len(joined) and out.report.probes == len(probes)
    carried = {v for v in identities.values() if v}
    for probe_id, job_id in joined.items():
        probe, job = by_id[probe_id], frame.loc[job_id]
        assert probe.state == "SUCCEEDED"
        assert frame.loc[job_id, "probe_map_output_records"] == probe.columns[
            "probe_map_output_records"]
        if identities[job_id] is not None:  # by identity
            assert probe.probe_id == identities[job_id]
        else:  # by name, submitted before the job, its identity carried by no job
            assert probe.probe_for == job["job_name"]
            assert probe.submit_time_ms <= job["submit_time_ms"]
            assert probe.probe_id not in carried
    for job_id in frame.index.difference(list(joined.values())):
        assert frame.loc[job_id, list(PROBE_COLUMNS)].isna().all()
