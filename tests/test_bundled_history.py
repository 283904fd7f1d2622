"""The bundled histories: traces of one engine stacked, read by name, fitted by default."""

from __future__ import annotations

import pytest
from jobsize.models.evaluation import calibration_groups
from rich.console import Console

import jobsize
from jobsize.bundled import (
    BUNDLED_TRACES,
    DEFAULT_HISTORY,
    HADOOP_HISTORY,
    HISTORIES,
    datasets_dir,
    default_trace,
    history_members,
    path,
)
from jobsize.cli.evaluate import _warn_seen
from jobsize.heldout import HELD_OUT


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JOBSIZE_DATASET", raising=False)
    return tmp_path


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_a_history_reads_as_its_traces_stacked(elsewhere, name) -> None:
    members = [jobsize.read_trace(m) for m in HISTORIES[name]]
    stacked = jobsize.read_trace(name)
    assert len(stacked) == sum(map(len, members))
    assert stacked["job_id"].is_unique
    assert set(stacked["job_type"]) == set().union(*(set(m["job_type"]) for m in members))
    assert jobsize.read_trace(name.upper())["job_id"].tolist() == stacked["job_id"].tolist()
    # its kinds are told apart, so leaving one out at a time calibrates its intervals
    assert calibration_groups(stacked) == "job_type"


def test_the_histories_are_of_one_engine_each_and_leave_the_development_kinds_out(
        elsewhere) -> None:
    local, hadoop = (jobsize.read_trace(n) for n in (DEFAULT_HISTORY, HADOOP_HISTORY))
    assert not set(local["job_type"]) & set(HELD_OUT)
    assert set(local["source"].dropna().astype(str)) <= {"bench-trace", "jobsize evaluate"}
    assert set(hadoop["source"].dropna().astype(str)) <= {"bench-trace:hadoop",
                                                          "jobsize evaluate:hadoop"}
    assert {"reference", "drawn-20261131"} <= set(HISTORIES[DEFAULT_HISTORY])
    assert "heldout" not in HISTORIES[DEFAULT_HISTORY]


def test_jobsize_fit_fits_the_history_unless_another_trace_is_named(elsewhere,
                                                                   monkeypatch) -> None:
    assert default_trace() == DEFAULT_HISTORY
    monkeypatch.setenv("JOBSIZE_DATASET", str(path("reference")))
    assert default_trace() == str(path("reference"))


def test_a_folder_of_a_historys_name_and_jobsize_dataset_change_nothing(elsewhere,
                                                                        monkeypatch) -> None:
    """A collector's ``history/`` folder does not hide the bundled history, and
    ``JOBSIZE_DATASET`` (another reference trace) does not enter it."""
    (elsewhere / "history").mkdir()
    (elsewhere / "history" / "job_1.jhist").write_text("{}")
    monkeypatch.setenv("JOBSIZE_DATASET", str(path("hadoop-trace")))
    stacked = jobsize.read_trace("history")
    assert set(stacked["source"].dropna().astype(str)) <= {"bench-trace", "jobsize evaluate"}
    assert len(stacked) == sum(len(jobsize.read_trace(datasets_dir() / BUNDLED_TRACES[m]))
                               for m in HISTORIES["history"])


def test_a_file_of_a_historys_name_wins(elsewhere) -> None:
    assert history_members("history") == [path(m) for m in HISTORIES["history"]]
    assert history_members("reference") is None
    jobsize.read_trace("reference").head(20).to_parquet(elsewhere / "history")
    assert history_members("history") is None
    assert len(jobsize.read_trace("history")) == 20


def test_evaluating_kinds_the_model_has_seen_says_so(elsewhere) -> None:
    trace = elsewhere / "t.parquet"
    jobsize.read_trace("drawn-20261131").to_parquet(trace)
    trace = str(trace)
    console = Console(record=True, width=200)
    _warn_seen(console, ("drawn-20261131-3", "drawn-20261216-0"), str(trace))
    said = console.export_text()
    assert "1 of these kinds are in" in said and "drawn-20261131-3" in said
    assert "not a new kind's" in said
    for quiet in (("drawn-20261216-0",), trace), (("drawn-20261131-3",), None), (
            ("drawn-20261131-3",), str(elsewhere / "gone.parquet")):
        console = Console(record=True, width=200)
        _warn_seen(console, *quiet)  # a new kind; a model naming no trace, or one not here
        assert console.export_text() == ""


def test_every_member_of_a_history_is_a_bundled_trace_of_its_engine(elsewhere) -> None:
    """A draw joins a history after it has been evaluated against it, so the latest draws
    may stand outside; every member is a bundled trace, the Hadoop history's all Hadoop's."""
    for name, members in HISTORIES.items():
        assert set(members) <= set(BUNDLED_TRACES), name
    assert all(m.startswith(("hadoop-", "drawn-hadoop-")) for m in HISTORIES[HADOOP_HISTORY])
    assert not any("hadoop" in m for m in HISTORIES[DEFAULT_HISTORY])
