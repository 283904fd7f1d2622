"""The mini cluster starts, answers on its REST APIs, runs a job, and stops without a trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import requests

pytestmark = pytest.mark.hadoop

JSON = {"Accept": "application/json"}


def test_rest_apis_answer_as_hadoop_documents_them(hadoop_cluster):
    info = requests.get(f"{hadoop_cluster.rm_web}/ws/v1/cluster/info", headers=JSON,
                        timeout=10).json()["clusterInfo"]
    assert info["state"] == "STARTED"
    assert info["hadoopVersion"] == hadoop_cluster.hadoop_version
    metrics = requests.get(f"{hadoop_cluster.rm_web}/ws/v1/cluster/metrics", headers=JSON,
                           timeout=10).json()["clusterMetrics"]
    assert metrics["activeNodes"] == hadoop_cluster.nodemanagers
    assert metrics["totalMB"] == hadoop_cluster.nodemanagers * hadoop_cluster.nm_memory_mb
    history = requests.get(f"{hadoop_cluster.jhs_web}/ws/v1/history/info", headers=JSON,
                           timeout=10).json()["historyInfo"]
    assert history["hadoopVersion"] == hadoop_cluster.hadoop_version


def test_binds_loopback_only(hadoop_cluster):
    from urllib.parse import urlsplit

    for url in (hadoop_cluster.rm_web, hadoop_cluster.jhs_web):
        assert urlsplit(url).hostname == "localhost"


def test_state_file_is_what_find_reads(hadoop_cluster):
    from jobsize.hadoop import find

    assert find(hadoop_cluster.directory) == hadoop_cluster
    state = json.loads(hadoop_cluster.state_file.read_text())
    assert state["rm_web"] == hadoop_cluster.rm_web


def test_a_streaming_job_runs_and_its_history_is_read(hadoop_client, tmp_path):
    words = tmp_path / "in" / "words.txt"
    words.parent.mkdir()
    words.write_text("a b a\nc a b\n" * 500)
    job = hadoop_client.streaming(inputs=[str(words.parent)], output=str(tmp_path / "out"),
                                  mapper="tr ' ' '\\n'", reducer="uniq -c", n_reduces=1,
                                  name="words")
    assert job.state == "SUCCEEDED"
    record = job.record()
    assert record["job_name"] == "words"
    assert record["map_input_records"] == 1000
    assert record["map_output_records"] == 3000
    assert record["reduce_output_records"] == 3
    assert record["map_time_ms"] > 0 and record["reduce_time_ms"] > 0
    counts = (tmp_path / "out" / "part-00000").read_text().split()
    assert counts == ["1500", "a", "1000", "b", "500", "c"]


def test_up_again_returns_the_running_cluster(hadoop_cluster):
    from jobsize.hadoop import up

    assert up(hadoop_cluster.directory).pids == hadoop_cluster.pids


def test_status_and_errors_from_the_command_line(hadoop_cluster, tmp_path):
    env = {**os.environ, "JOBSIZE_HADOOP_DIR": hadoop_cluster.directory}
    shown = subprocess.run([sys.executable, "-m", "jobsize", "hadoop", "status"], env=env,
                           capture_output=True, text=True, check=True)
    assert json.loads(shown.stdout)["jhs_web"] == hadoop_cluster.jhs_web
    missing = subprocess.run([sys.executable, "-m", "jobsize", "hadoop", "status", "--dir",
                              str(tmp_path)], capture_output=True, text=True, check=False)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"jobsize: error: {tmp_path}: no mini cluster is running here (start one with "
        "`jobsize hadoop up`)"]


def test_down_leaves_no_process_behind(tmp_path):
    """A second cluster, started and stopped here (the session's keeps running)."""
    from jobsize.hadoop import down, java_available, up
    from jobsize.hadoop.cluster import _processes_under

    if java_available():
        pytest.skip(java_available())
    cluster = up(tmp_path / "c", nodemanagers=1)
    pids = list(cluster.pids.values())
    assert all(_alive(p) for p in pids)
    assert down(tmp_path / "c") is True
    assert not any(_alive(p) for p in pids)
    assert _processes_under((tmp_path / "c").resolve()) == []
    assert not (tmp_path / "c" / "cluster.json").exists()
    assert down(tmp_path / "c") is False


def _alive(pid: int) -> bool:
    from jobsize.hadoop.cluster import _alive as alive

    return alive(pid)
