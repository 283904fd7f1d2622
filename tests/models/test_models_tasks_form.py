"""The per-task form: the split probe's shape, eq 8 per task, the new terms — checked against
jobs whose per-task and per-record costs are known by construction."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jobsize.models import scaling
from jobsize.models.design import design_matrix, design_row, sorted_per_task, terms
from jobsize.sampler.probeparts import (
    Point,
    TaskCounts,
    fixed_part,
    fixed_per_process,
    growth_exponent,
    split_columns,
)

# -- the split probe's two-point fits -----------------------------------------------------------


def test_a_fixed_part_and_a_proportional_part_are_told_apart():
    # t = 40 ms + 2 ms per KB: tasks of 100 KB and 200 KB
    assert fixed_part(Point(100, 240), Point(200, 440)) == pytest.approx(40)
    # all proportional, all fixed
    assert fixed_part(Point(100, 200), Point(200, 400)) == pytest.approx(0)
    assert fixed_part(Point(100, 50), Point(200, 50)) == pytest.approx(50)
    # noise that would make it negative or larger than a task is clamped
    assert fixed_part(Point(100, 100), Point(200, 260)) == 0.0
    assert fixed_part(Point(100, 90), Point(200, 70)) == 70.0
    # tasks too alike to tell: None
    assert fixed_part(Point(100, 90), Point(110, 95)) is None


def test_a_map_reading_two_files_paid_two_start_ups():
    # t = 40 ms per process + 2 ms per KB; task 1 read one file, task 2 two files
    assert fixed_per_process(Point(100, 240), Point(300, 680), 1, 2) == pytest.approx(40)
    assert fixed_per_process(Point(100, 280), Point(200, 480), 2, 2) == pytest.approx(40)


def test_growth_exponents_of_linear_fixed_and_saturating_outputs():
    assert growth_exponent(Point(100, 1000), Point(200, 2000)) == pytest.approx(1.0)
    assert growth_exponent(Point(100, 64), Point(200, 64)) == pytest.approx(0.0)
    sat = growth_exponent(Point(100, 1000), Point(200, 1500))
    assert sat == pytest.approx(math.log(1.5) / math.log(2))
    assert growth_exponent(Point(100, 0), Point(200, 10)) is None  # nothing to compare


@given(a=st.floats(0, 1e4), b=st.floats(0, 100), x1=st.floats(1, 1e6), ratio=st.floats(1.5, 10))
def test_exact_affine_costs_are_recovered(a, b, x1, ratio):
    x2 = x1 * ratio
    got = fixed_part(Point(x1, a + b * x1), Point(x2, a + b * x2))
    assert got == pytest.approx(a, rel=1e-6, abs=1e-6 * (1 + b * x2))


def test_split_columns_from_two_maps_and_two_reduces():
    tasks = [TaskCounts("MAP", 1000, 70.0, 300, 100, 0, keys=80),
             TaskCounts("MAP", 2000, 110.0, 600, 150, 0, keys=120),
             TaskCounts("REDUCE", 80, 35.0, 80, 0, 800),
             TaskCounts("REDUCE", 170, 40.0, 170, 0, 1700)]
    cols = split_columns(tasks)
    assert cols["probe_map_tasks"] == 2 and cols["probe_reduce_tasks"] == 2
    assert cols["probe_map_split"] == pytest.approx(1 / 3)
    assert cols["probe_map_function_fixed_ms"] == pytest.approx(30.0)
    assert cols["probe_map_output_exponent"] == pytest.approx(1.0)
    assert cols["probe_reduce_input_exponent"] == pytest.approx(math.log(1.5) / math.log(2))
    assert cols["probe_reduce_function_fixed_ms"] == pytest.approx(35 - 5 / 90 * 80)
    one = split_columns(tasks[:1] + tasks[2:3])
    assert one["probe_map_tasks"] == 1 and one["probe_map_function_fixed_ms"] is None


def test_a_task_with_input_may_pay_more_than_the_empty_tasks_start_up():
    # t = 30 ms + 0.04 ms per byte for a map with input; its empty map starts in 20 ms (the
    # 10 ms more are paid once by a task that reads anything: its first record, its output)
    tasks = [TaskCounts("MAP", 1000, 70.0, 300, 100, 0),
             TaskCounts("MAP", 2000, 110.0, 600, 150, 0),
             TaskCounts("REDUCE", 80, 35.0, 80, 0, 800),
             TaskCounts("REDUCE", 170, 40.0, 170, 0, 1700)]
    empty = [TaskCounts("MAP", 0, 20.0, 0, 0, 0), TaskCounts("REDUCE", 0, 25.0, 0, 0, 0)]
    cols = split_columns(tasks, empty)
    assert cols["probe_map_function_fixed_ms"] == pytest.approx(30.0)  # the line's intercept
    assert cols["probe_map_function_startup_ms"] == 20.0
    assert cols["probe_reduce_function_fixed_ms"] == pytest.approx(35 - 5 / 90 * 80)
    assert cols["probe_reduce_function_startup_ms"] == 25.0
    # a line below the start-up is noise: the start-up stands
    slow_start = [TaskCounts("MAP", 0, 45.0, 0, 0, 0), empty[1]]
    assert split_columns(tasks, slow_start)["probe_map_function_fixed_ms"] == 45.0
    # ... but never above the smaller task
    slower = [TaskCounts("MAP", 0, 90.0, 0, 0, 0), empty[1]]
    assert split_columns(tasks, slower)["probe_map_function_fixed_ms"] == 70.0
    # one map (too few records to cut in two) still has its start-up measured
    one = split_columns(tasks[:1] + tasks[2:3], empty)
    assert one["probe_map_tasks"] == 1 and one["probe_map_function_fixed_ms"] == 20.0
    assert one["probe_reduce_function_fixed_ms"] == 25.0
    assert one["probe_map_output_exponent"] is None  # no shape from one task


# -- eq 8 per task --------------------------------------------------------------------------------


def _probe(**over):
    """A job of 40 maps over 400 MB whose probe read f_p = 1/40 as two tasks (1/3, 2/3)."""
    job = {"n_maps": 40.0, "n_reduces": 4.0, "map_input_bytes": 400e6, "probe_fraction": 1 / 40,
           "probe_input_bytes": 10e6, "probe_map_tasks": 2.0, "probe_reduce_tasks": 2.0,
           "probe_map_split": 1 / 3, "probe_reduce_split": 1 / 3,
           "probe_map_function_ms": 2 * 50 + 1000.0, "probe_map_function_fixed_ms": 50.0,
           "probe_reduce_function_ms": 2 * 40 + 300.0, "probe_reduce_function_fixed_ms": 40.0,
           "probe_map_output_bytes": 2e6, "probe_map_output_records": 20_000.0,
           "probe_reduce_input_records": 20_000.0, "probe_reduce_output_bytes": 1e5,
           "probe_map_output_exponent": 1.0, "probe_reduce_input_exponent": 1.0,
           "probe_key_exponent": 1.0, "probe_reduce_input_groups": 5000.0,
           "probe_combine_function_ms": 0.0, "probe_combine_input_records": 0.0}
    job.update(over)
    return {k: np.array([v]) for k, v in job.items()}


def test_per_task_costs_scale_by_the_task_count_and_the_rest_by_the_input():
    q = scaling.probe(_probe(), "tasks")
    # MFE: 40 maps × 50 ms start-up + 1000 ms of work × 40
    assert q["MFE"][0] == pytest.approx(40 * 0.05 + 1.0 * 40)
    # RFE: 4 reduces × 40 ms + the variable part × RIR_o / RIR_p (= 40)
    assert q["RFE"][0] == pytest.approx(4 * 0.04 + 0.3 * 40)
    # the paper's eq 8 counts the start-ups 1/f_p = 40 times
    paper = scaling.probe(_probe(), "paper")
    assert paper["MFE"][0] == pytest.approx((2 * 0.05 + 1.0) * 40)
    assert paper["RFE"][0] == pytest.approx((2 * 0.04 + 0.3) * 40)
    assert q["MOR"][0] == pytest.approx(paper["MOR"][0])  # linear outputs: the same


def test_the_empty_task_paid_its_start_up_and_the_others_their_fixed_cost():
    # two maps of 60 ms fixed + the empty map's 20 ms start-up, 1000 ms of work in all
    job = _probe(probe_map_processes=3.0, probe_map_function_ms=2 * 60 + 20 + 1000.0,
                 probe_map_function_fixed_ms=60.0, probe_map_function_startup_ms=20.0,
                 probe_reduce_tasks=3.0, probe_reduce_function_ms=2 * 40 + 25 + 300.0,
                 probe_reduce_function_startup_ms=25.0)
    q = scaling.probe(job, "tasks")
    assert q["MFE"][0] == pytest.approx(40 * 0.06 + 1.0 * 40)
    assert q["RFE"][0] == pytest.approx(4 * 0.04 + 0.3 * 40)
    one = {k: float(v[0]) for k, v in job.items()}
    assert scaling.probe_one(one)["MFE"] == pytest.approx(q["MFE"][0])
    assert scaling.probe_one(one)["RFE"] == pytest.approx(q["RFE"][0])


def test_reduces_that_read_no_record_are_scaled_as_fixed_costs_not_per_record_work():
    """A filtering map whose sample yields nothing: the probe's reduces read no record, so all
    they spent is per-task cost — each of the job's 4 reduces pays what one of the probe's 2
    paid, not 1/f_p = 40 times the probe's time (found on a drawn kind: 12 s predicted for
    0.04 s)."""
    job = _probe(probe_map_output_bytes=0.0, probe_map_output_records=0.0,
                 probe_reduce_input_records=0.0, probe_reduce_input_groups=0.0,
                 probe_reduce_function_ms=2 * 40 + 60.0)
    q = scaling.probe(job, "tasks")
    assert q["RFE"][0] == pytest.approx(4 * 0.04 + 0.06 * 4 / 2)
    one = {k: float(v[0]) for k, v in job.items()}
    assert scaling.probe_one(one)["RFE"] == pytest.approx(q["RFE"][0])
    # a probe record that says it ran no reduce task (Hadoop's counters of a map-only probe)
    job["probe_reduce_tasks"] = np.array([0.0])
    one["probe_reduce_tasks"] = 0.0
    assert scaling.probe_one(one)["RFE"] == pytest.approx(scaling.probe(job, "tasks")["RFE"][0])


def test_a_cluster_probes_start_ups_scale_by_the_task_count():
    """A probe on a cluster: one map and one reduce, each timed by the wrapper with its
    function's start-up measured over no input first (no empty task, no shape columns)."""
    from jobsize.collectors.probe_join import find_probe

    record = {"job_id": "job_1_1", "job_name": "jobsize probe: wc", "submit_time_ms": 0,
              "finish_time_ms": 9000, "state": "SUCCEEDED", "n_maps": 1, "n_reduces": 1,
              "map_input_bytes": 10e6, "map_output_bytes": 2e6, "map_output_records": 20_000,
              "reduce_input_records": 20_000, "reduce_output_bytes": 1e5,
              "map_function_ms": 50 + 1000.0, "map_function_startup_ms": 50.0,
              "reduce_function_ms": 40 + 300.0, "reduce_function_startup_ms": 40.0}
    columns = find_probe(record, {"jobsize.probe.fraction": repr(1 / 40)}).columns
    job = {"n_maps": 40.0, "n_reduces": 4.0, "map_input_bytes": 400e6,
           **{k: v for k, v in columns.items() if v is not None}}
    q = scaling.probe({k: np.array([float(v)]) for k, v in job.items()}, "tasks")
    assert q["MFE"][0] == pytest.approx(40 * 0.05 + 1.0 * 40)
    assert q["RFE"][0] == pytest.approx(4 * 0.04 + 0.3 * 40)
    assert scaling.probe_one({k: float(v) for k, v in job.items()})["MFE"] == pytest.approx(
        q["MFE"][0])


def test_a_fixed_size_map_output_does_not_grow_with_the_job():
    # an in-map top-100: each probe map emits 100 records (β = 0): the job's 40 maps emit 4000
    job = _probe(probe_map_output_records=200.0, probe_map_output_exponent=0.0,
                 probe_reduce_input_records=200.0, probe_reduce_input_exponent=0.0)
    q = scaling.probe(job, "tasks")
    assert q["MOR"][0] == pytest.approx(40 * 100)
    assert q["RIR"][0] == pytest.approx(40 * 100)
    assert scaling.probe(job, "paper")["MOR"][0] == pytest.approx(200 * 40)


def test_reduce_output_follows_the_distinct_keys():
    # 64 centroids: keys do not grow (δ = 0), so the job writes what the probe wrote
    fixed = scaling.probe(_probe(probe_key_exponent=0.0, probe_reduce_input_groups=64.0),
                          "tasks")
    assert fixed["RO"][0] == pytest.approx(1e5)
    assert scaling.probe(_probe(), "tasks")["RO"][0] == pytest.approx(1e5 * 40)


def test_a_key_costs_the_reduce_function_kappa_records():
    """The sample has one key per 4 records; its keys grow as f^-0.5, so the job's 40× the
    records hold only √40× the keys (one per 25.3 records): the part of the reduce time paid
    per key grows with the keys, not with the records."""
    job = _probe(probe_key_exponent=0.5)
    records_only = scaling.probe(job, "tasks")["RFE"][0]
    keyed = scaling.probe(job, "tasks", key_cost=4.0)["RFE"][0]
    share_o = 5000 * 40 ** 0.5 / (20_000 * 40)
    expected = (1 + 4 * share_o) / (1 + 4 * 0.25)
    assert keyed == pytest.approx(4 * 0.04 + 0.3 * 40 * expected)
    assert records_only == pytest.approx(4 * 0.04 + 0.3 * 40)
    one = scaling.probe_one({k: float(v[0]) for k, v in job.items()}, key_cost=4.0)
    assert one["RFE"] == pytest.approx(keyed)
    # keys that grow like the records (δ = 1), or unknown keys: the records alone
    assert scaling.probe(_probe(), "tasks", key_cost=4.0)["RFE"][0] == pytest.approx(
        records_only)
    unknown = _probe(probe_key_exponent=0.5, probe_reduce_input_groups=np.nan)
    assert scaling.probe(unknown, "tasks", key_cost=4.0)["RFE"][0] == pytest.approx(
        records_only)


@pytest.mark.parametrize("true_key_cost", [0.0, 4.0, 16.0])
def test_the_key_cost_is_the_one_that_matches_the_jobs_own_reduce_times(true_key_cost):
    rng = np.random.default_rng(int(true_key_cost))
    n = 40
    jobs = {k: np.repeat(v, n) for k, v in _probe().items()}
    jobs["probe_key_exponent"] = rng.uniform(0.1, 1.0, n)
    jobs["probe_reduce_input_groups"] = rng.uniform(0.05, 1.0, n) * 20_000
    own = scaling.probe(jobs, "tasks", key_cost=true_key_cost)["RFE"]
    jobs["reduce_function_ms"] = own * 1000 * rng.lognormal(0, 0.02, n)
    assert scaling.fit_key_cost(jobs, np.ones(n, dtype=bool)) == true_key_cost
    # too few jobs with their own reduce times: the records alone
    assert scaling.fit_key_cost(jobs, np.arange(n) < 5) == 0.0


def test_without_split_columns_the_tasks_form_scales_like_eq8():
    bare = {k: v for k, v in _probe().items()
            if k not in scaling.PROBE_OPTIONAL or k.endswith("function_ms")}
    tasks, paper = scaling.probe(bare, "tasks"), scaling.probe(bare, "paper")
    for name in ("MFE", "RFE", "MO", "MOR", "RIR"):
        assert tasks[name][0] == pytest.approx(paper[name][0]), name


def test_the_combiners_start_up_is_paid_once_per_run():
    """Two probe maps ran the combiner once each (40 ms start-up, 200 ms over their records);
    the job's 40 maps run it once each, and the records' part grows with the input."""
    job = _probe(probe_combine_input_records=20_000.0, probe_combine_function_ms=280.0,
                 probe_combine_runs=2.0, probe_combine_function_fixed_ms=40.0)
    q = scaling.probe(job, "tasks")
    assert q["CFE"][0] == pytest.approx(40 * 0.04 + 0.2 * 40)
    assert scaling.probe_one({k: float(v[0]) for k, v in job.items()})["CFE"] == pytest.approx(
        q["CFE"][0])
    big = scaling.combiner_runs(np.array([10.0]), np.array([10 * 3 * scaling.SPILL_BYTES]))
    assert big[0] == 10 * 4  # three spills a map, and a run over their merge


def test_the_jobs_own_sort_buffer_decides_its_combiner_runs():
    """300 MB of map output a map: three spills of Hadoop's default 80 MB buffer and a run
    over their merge; one spill of a 512 MB buffer at 0.8; with minspills 5, no merge run."""
    mo = np.array([10 * 300 * 2.0**20])
    n_m = np.array([10.0])
    assert scaling.combiner_runs(n_m, mo)[0] == 10 * (4 + 1)
    assert scaling.combiner_runs(n_m, mo, 512 * 2**20 * 0.8)[0] == 10 * 1
    assert scaling.combiner_runs(n_m, mo, scaling.SPILL_BYTES, 5)[0] == 10 * 4
    assert scaling.combiner_runs(n_m, mo / 4, scaling.SPILL_BYTES, 0)[0] == 10 * 1  # one spill
    # through the probe's scaling: the job's columns, and one job's plain-float path alike
    job = _probe(probe_combine_input_records=20_000.0, probe_combine_function_ms=280.0,
                 probe_combine_runs=2.0, probe_combine_function_fixed_ms=40.0,
                 probe_map_output_bytes=300 * 2.0**20, map_sort_mb=512.0)
    q = scaling.probe(job, "tasks")
    default = scaling.probe({k: v for k, v in job.items() if k != "map_sort_mb"}, "tasks")
    # 300 MB a map: one run a map with 512 MB, five with the default 100 MB
    assert default["CFE"][0] - q["CFE"][0] == pytest.approx(40 * 4 * 0.04)
    one = scaling.probe_one({k: float(v[0]) for k, v in job.items()})
    assert one["CFE"] == pytest.approx(q["CFE"][0])


def test_a_map_only_job_sorts_nothing():
    job = {k: float(v[0]) for k, v in _probe(n_reduces=0.0).items()}
    row = design_row(job, "SE_m", "probe", form="tasks")
    assert row[terms("SE_m", "tasks").index("MOR·log(MOR/N_m)")] == 0.0
    batch = design_matrix({k: np.array([v]) for k, v in job.items()}, "SE_m", "probe",
                          form="tasks")[0]
    assert batch[terms("SE_m", "tasks").index("MOR·log(MOR/N_m)")] == 0.0


def test_the_sort_term_is_per_task():
    assert sorted_per_task(np.array([1000.0]), np.array([10.0]))[0] == pytest.approx(
        1000 * math.log(100))
    assert sorted_per_task(np.array([5.0]), np.array([10.0]))[0] == 0.0  # < 1 record per map
    row = design_row({k: float(v[0]) for k, v in _probe().items()}, "SE_m", "probe",
                     form="tasks")
    assert len(row) == len(terms("SE_m", "tasks")) == 10
    mor = 20_000 * 40
    assert row[terms("SE_m", "tasks").index("MOR·log(MOR/N_m)")] == pytest.approx(
        mor * math.log(mor / 40))


def test_a_combiner_enters_as_its_records_and_its_time():
    job = _probe(probe_combine_input_records=20_000.0, probe_combine_function_ms=400.0)
    row = design_row({k: float(v[0]) for k, v in job.items()}, "SE_m", "probe", form="tasks")
    names = terms("SE_m", "tasks")
    assert row[names.index("CIR")] == pytest.approx(20_000 * 40)
    assert row[names.index("CFE")] == pytest.approx(0.4 * 40)


def test_without_a_timing_wrapper_function_times_come_from_cpu_time():
    """A cluster without the timing wrapper records no MFE/RFE; the tasks' CPU time stands in
    and fit says so."""
    import pandas as pd
    from jobsize.models.size_model import SizeModel
    from jobsize.models.synthetic import linear_trace

    trace = linear_trace(300, seed=9)
    cluster = trace.copy()
    for phase in ("map", "reduce"):
        cluster[f"{phase}_cpu_ms"] = (cluster[f"{phase}_function_ms"] * 1.1).round()
        cluster[f"{phase}_function_ms"] = pd.NA
    with pytest.raises(Exception, match="map_function_ms"):
        SizeModel.fit(cluster, "actual", form="paper")  # the paper's eq 6 needs MFE
    model = SizeModel.fit(cluster, "actual", form="tasks")
    assert model.training["function_time_from_cpu"] == model.training["SE_m_jobs"] > 250
    from jobsize.models.evaluation import Scores, in_sample_pairs

    assert Scores.of(in_sample_pairs(model, cluster)).r2["S"] > 0.9


_COLUMNS = ("probe_map_function_ms", "probe_reduce_function_ms", "probe_map_cpu_ms",
            "probe_map_output_bytes", "probe_map_output_records", "probe_reduce_input_records",
            "probe_reduce_output_bytes", "probe_map_function_fixed_ms",
            "probe_reduce_function_fixed_ms", "probe_map_output_exponent",
            "probe_reduce_input_exponent", "probe_key_exponent", "probe_reduce_input_groups",
            "probe_combine_function_ms", "probe_combine_input_records", "probe_input_bytes",
            "probe_map_split", "probe_map_processes", "probe_combine_runs",
            "probe_combine_function_fixed_ms", "probe_map_function_startup_ms",
            "probe_reduce_function_startup_ms", "map_sort_mb", "map_spill_percent",
            "combine_min_spills")


@given(n_m=st.integers(1, 2000), n_r=st.integers(0, 64), mi=st.floats(1e3, 1e12),
       f=st.floats(1e-4, 1.0), split=st.booleans(),
       values=st.lists(st.one_of(st.none(), st.floats(0, 1e9)), min_size=len(_COLUMNS),
                       max_size=len(_COLUMNS)),
       key_cost=st.sampled_from(scaling.KEY_COSTS), reduce_tasks=st.sampled_from([0, 1, 2]),
       map_slots=st.sampled_from([0.0, 2.0, 7.0, 64.0]))
def test_one_jobs_plain_float_row_equals_the_batch_row(n_m, n_r, mi, f, split, values,
                                                       key_cost, reduce_tasks, map_slots):
    """The single-prediction path and the batch path compute the same eq 6 and 7 rows (a
    probe may report no reduce task: Hadoop's counters of a map-only probe)."""
    job = {"n_maps": float(n_m), "n_reduces": float(n_r), "map_input_bytes": mi,
           "probe_fraction": f, "probe_map_tasks": 2.0 if split else 1.0,
           "probe_reduce_tasks": float(reduce_tasks)}
    for name, value in zip(_COLUMNS, values, strict=True):
        if value is not None:
            job[name] = value
    if "split" in str(job) or "probe_map_split" in job:
        job["probe_map_split"] = min(max(job["probe_map_split"] / 1e9, 0.05), 0.95)
    for name in ("probe_map_output_exponent", "probe_reduce_input_exponent",
                 "probe_key_exponent"):
        if name in job:
            job[name] = min(job[name] / 1e9, 1.0)
    for name in ("probe_map_output_bytes", "probe_map_output_records",
                 "probe_reduce_output_bytes", "probe_reduce_input_records"):
        job.setdefault(name, 0.0)
    # the sort buffer within what Hadoop accepts: 1-2047 MB, a spill share in (0, 1]
    if "map_sort_mb" in job:
        job["map_sort_mb"] = 1.0 + math.floor(job["map_sort_mb"]) % 2047
    if "map_spill_percent" in job:
        job["map_spill_percent"] = min(max(job["map_spill_percent"] / 1e9, 0.01), 1.0)
    if "combine_min_spills" in job:
        job["combine_min_spills"] = float(math.floor(job["combine_min_spills"]) % 6)
    cols = {k: np.array([v]) for k, v in job.items()}
    for phase in ("SE_m", "SE_r"):
        one = design_row(job, phase, "probe", se_m=3.0, form="tasks", key_cost=key_cost,
                         map_slots=map_slots)
        batch = design_matrix(cols, phase, "probe", se_m=np.array([3.0]), form="tasks",
                              key_cost=key_cost, map_slots=map_slots)[0]
        np.testing.assert_allclose(one, batch, rtol=1e-9, equal_nan=True)


def test_shuffle_bytes_of_huge_counts_do_not_overflow():
    """SB is bytes per map output record times the records the reduces read: computed as that
    product, not as MO·RIR / MOR, whose numerator overflows for counts near 1e160 (a
    randomised case once warned of it)."""
    huge = 1e160
    job = _probe(probe_map_output_bytes=huge, probe_map_output_records=huge,
                 probe_reduce_input_records=huge)
    with np.errstate(over="raise"):
        q = scaling.probe(job, "tasks")
        one = scaling.probe_one({k: float(v[0]) for k, v in job.items()})
    assert np.isfinite(q["SB"][0]) and q["SB"][0] == pytest.approx(one["SB"])
    assert q["SB"][0] == pytest.approx(q["MO"][0] * (q["RIR"][0] / q["MOR"][0]))


def test_a_subnormal_record_count_gives_the_one_job_paths_infinite_shuffle_without_a_warning():
    """Records read per map output record overflow when the map output records are a subnormal
    count (a randomised case once warned of it): both paths give an infinite SB, silently."""
    job = _probe(probe_map_output_records=5e-324, probe_reduce_input_records=1e9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = scaling.probe(job, "tasks")
        one = scaling.probe_one({k: float(v[0]) for k, v in job.items()})
    assert q["SB"][0] == one["SB"] == math.inf
