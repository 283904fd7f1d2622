"""``jobsize probe --hadoop``: the probe as a real uber-mode job on the mini cluster."""

from __future__ import annotations

import json

import pytest

from jobsize.cli import main

pytestmark = pytest.mark.hadoop

WC = "python -m jobsize.workloads.wordcount"


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    from jobsize.workloads import WORKLOADS

    where = tmp_path_factory.mktemp("books")
    WORKLOADS["wordcount"].generate(str(where / "books"), 600_000, 7)
    return where / "books"


def _probe(capsys, cluster, *args):
    assert main(["probe", *args, "--seed", "3", "--hadoop", "--cluster", cluster.directory]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_probe_runs_in_uber_mode_on_the_probing_queue(hadoop_cluster, books, capsys):
    from jobsize.collectors.jhist import read_jhist

    job = _probe(capsys, hadoop_cluster, "--input", str(books), "--mapper", f"{WC} map",
                 "--reducer", f"{WC} reduce", "--maps", "6", "--reduces", "2")
    history = read_jhist(job["probe_history"])
    record = history.record
    assert record["uberized"] is True and record["state"] == "SUCCEEDED"
    assert record["queue"] == "root.probing"
    assert record["job_name"] == "jobsize probe: job"
    assert history.conf["jobsize.probe.id"] == job["conf"]["jobsize.probe.id"]
    assert job["conf"]["jobsize.probe.id"].startswith("jobsize-")
    # Algorithm 1: f_p = 1/max(N_m, N_r), what was read over the input
    assert job["probe_fraction"] == pytest.approx(1 / 6, rel=0.05)
    assert job["probe_input_bytes"] == record["map_input_bytes"]
    # the timing wrapper's counters, Hadoop's own counters, one reduce (uber mode's limit)
    assert job["probe_map_function_ms"] > 0 and job["probe_reduce_function_ms"] > 0
    assert 0 < job["probe_map_function_fixed_ms"] <= job["probe_map_function_ms"]
    assert job["probe_map_output_records"] == record["map_output_records"]
    assert job["probe_reduce_input_records"] == record["reduce_input_records"]
    assert job["probe_reduce_output_bytes"] == record["reduce_output_bytes"]
    assert (job["probe_map_tasks"], job["probe_reduce_tasks"]) == (1, 1)
    assert record["n_reduces"] == 1
    assert job["probe_map_later_task_ms"] is None  # one map: none ran after another
    # the timing wrapper's own time around each function: its start-up run at least
    assert job["probe_map_wrapper_ms"] >= job["probe_map_function_fixed_ms"]
    assert job["probe_reduce_wrapper_ms"] > 0


def test_an_uber_jobs_probe_times_a_warm_map_apart(hadoop_cluster, books, capsys):
    """A job Hadoop would run in uber mode, with several maps and a reduce: its probe runs two
    maps, and the second one's time and functions come from its own attempt and counters."""
    job = _probe(capsys, hadoop_cluster, "--input", str(books), "--mapper", f"{WC} map",
                 "--reducer", f"{WC} reduce", "--maps", "4", "--reduces", "1",
                 "-D", "mapreduce.job.ubertask.enable=true")
    assert job["uberized"] is True
    assert (job["probe_map_tasks"], job["probe_reduce_tasks"]) == (2, 1)
    later, function = job["probe_map_later_task_ms"], job["probe_map_later_function_ms"]
    assert 0 < function < job["probe_map_function_ms"]
    assert 0 < later < job["probe_map_task_ms"]
    assert 0 < job["probe_map_later_input_share"] < 1  # the second file's records
    assert job["probe_fraction"] == pytest.approx(1 / 4, rel=0.05)
    # the ApplicationMaster's set-up before the uber task ran: its attempts start after launch
    assert 0 <= job["probe_task_start_ms"] < job["probe_wall_ms"]


def test_a_map_only_probe(hadoop_cluster, books, capsys):
    job = _probe(capsys, hadoop_cluster, "--input", str(books), "--mapper", f"{WC} map",
                 "--reduces", "0", "--maps", "4")
    assert job["probe_map_output_records"] > 0
    assert job["probe_reduce_input_records"] == 0
    assert job["probe_fraction"] == pytest.approx(1 / 4, rel=0.05)


def test_the_same_job_probed_twice_carries_one_identity(hadoop_cluster, books, capsys):
    args = ["--input", str(books), "--mapper", f"{WC} map", "--reduces", "0", "--maps", "3"]
    first = _probe(capsys, hadoop_cluster, *args)
    second = _probe(capsys, hadoop_cluster, *args)
    assert first["conf"]["jobsize.probe.id"] == second["conf"]["jobsize.probe.id"]
    assert first["probe_job_id"] != second["probe_job_id"]
