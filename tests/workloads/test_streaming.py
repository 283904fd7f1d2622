"""The streaming protocol helpers and how programs fail on bad usage."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jobsize.workloads import WORKLOADS
from jobsize.workloads.streaming import grouped, records, split_key


def test_split_key_at_first_tab():
    assert split_key("a\tb\tc") == ("a", "b\tc")
    assert split_key("no tab") == ("no tab", "")
    assert split_key("k\t") == ("k", "")


def test_records_strip_line_ends():
    assert list(records(["a\n", "b\r\n", "c"])) == ["a", "b", "c"]


def test_grouped_groups_runs_of_equal_keys():
    lines = ["a\t1", "a\t2", "b", "b\t", "c\tx\ty"]
    assert [(k, list(v)) for k, v in grouped(lines)] == [
        ("a", ["1", "2"]), ("b", ["", ""]), ("c", ["x\ty"])
    ]


def _run(argv, data=b"", env=None):
    return subprocess.run(argv, input=data, capture_output=True, env=env)


def test_unknown_role_is_a_usage_error():
    done = _run([sys.executable, "-m", "jobsize.workloads.wordcount", "shuffle"])
    assert done.returncode == 2
    assert b"usage:" in done.stderr and b"map|combine|reduce" in done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["jobsize.workloads.grep", "map"], b"a regular expression is required"),
        (["jobsize.workloads.grep", "map", "(unclosed"], b"invalid regular expression"),
        (["jobsize.workloads.topk", "map", "zero"], b"K must be an integer, got 'zero'"),
        (["jobsize.workloads.cooccur", "map", "0"], b"WINDOW must be at least 1"),
        (["jobsize.workloads.groupby", "map", "-1"], b"KEY_COLUMN must be a column number"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, message):
    done = _run([sys.executable, "-m", *argv], b"x\n")
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count(b"\n") == 1


def test_join_mapper_needs_the_input_file_variable():
    env = {k: v for k, v in os.environ.items()
           if k not in ("mapreduce_map_input_file", "map_input_file")}
    done = _run(WORKLOADS["join"].mapper, b"u1,Ann\n", env)
    assert done.returncode == 2 and b"mapreduce_map_input_file" in done.stderr


def test_join_mapper_reads_a_uri_and_the_old_variable_name():
    env = {**os.environ, "map_input_file": "hdfs://nn:8020/data/users.csv"}
    env.pop("mapreduce_map_input_file", None)
    done = _run(WORKLOADS["join"].mapper, b"u1,Ann,DE\n", env)
    assert done.stdout == b"u1\tL\tAnn\tDE\n"
    env["map_input_file"] = "hdfs://nn:8020/data/orders.csv"
    done = _run(WORKLOADS["join"].mapper, b"7,u1,2.50\n", env)
    assert done.stdout == b"u1\tR\t7\t2.50\n"


def test_programs_pass_non_utf8_bytes_through():
    done = _run((*WORKLOADS["sort"].mapper,), b"k\xff\tv\xfe\n")
    assert done.returncode == 0 and done.stdout == b"k\xff\tv\xfe\n"


def test_malformed_records_are_counted_on_stderr():
    done = _run(WORKLOADS["groupby"].mapper, b"1,2,3,p1,c,1,9.5\nshort\n1,2,3,p1,c,1,abc\n")
    assert done.stdout == b"p1\t1\t9.5\n"
    assert b"reporter:counter:jobsize.workloads,MALFORMED_RECORDS,2\n" in done.stderr
