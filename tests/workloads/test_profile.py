"""The cost-profile measurement over a plain pipeline."""

from __future__ import annotations

import subprocess
import sys

from jobsize.workloads import WORKLOADS
from jobsize.workloads.profile import HEADER, measure, table_row


def test_measure_sees_the_combiner_and_map_only_jobs(tmp_path):
    wc = measure(WORKLOADS["wordcount"], tmp_path / "wc", 60_000)
    assert 55_000 < wc.input_bytes <= 60_000
    assert wc.map_output_bytes > wc.input_bytes  # "word\t1" per word
    assert 0 < wc.shuffle_bytes < 0.6 * wc.map_output_bytes  # the combiner ran
    assert wc.output_bytes == wc.shuffle_bytes  # the combiner already summed each map's words
    assert wc.map_cpu_s > 0
    grep = measure(WORKLOADS["grep"], tmp_path / "grep", 60_000)
    assert grep.shuffle_bytes == 0 and grep.reduce_cpu_s == 0
    assert 0 < grep.output_bytes == grep.map_output_bytes < grep.input_bytes / 10
    row = table_row(WORKLOADS["grep"], grep)
    assert row.startswith("| grep | map-only |") and row.count("|") == HEADER.count("|") // 2


def test_command_line_rejects_an_unknown_workload():
    done = subprocess.run([sys.executable, "-m", "jobsize.workloads.profile", "nope"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: unknown workload 'nope'")
    assert done.stdout == ""
