"""The bundled data is reachable by name from any directory, from Python as from the CLI."""

from __future__ import annotations

import pytest
from jobsize.collectors.swim import read_swim

import jobsize
from jobsize.bundled import datasets_dir, path, resolve
from jobsize.cli import main
from jobsize.errors import InputError, ParseError
from jobsize.sim.load import load_workload

FB2009 = "swim/FB-2009_samples_24_times_1hr_0.tsv"


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """An empty working directory with no ``datasets/`` in it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JOBSIZE_DATASET", raising=False)
    return tmp_path


@pytest.mark.parametrize("name", ["reference", "reference.parquet", "datasets/reference.parquet",
                                  "./datasets/reference.parquet"])
def test_the_reference_trace_reads_by_name_from_any_directory(elsewhere, name) -> None:
    assert len(jobsize.read_trace(name)) == 320


@pytest.mark.parametrize(("name", "relative"), [
    ("reference", "reference.parquet"), ("heldout", "heldout.parquet"),
    ("FB-2009", FB2009), ("datasets/" + FB2009, FB2009),
    ("reference.tasks.parquet", "reference.tasks.parquet"),
])
def test_path_names_the_bundled_file(elsewhere, name, relative) -> None:
    assert path(name) == datasets_dir() / relative


def test_path_refuses_a_name_nothing_is_bundled_under(elsewhere) -> None:
    with pytest.raises(InputError, match="no bundled data set of this name; bundled: reference"):
        path("datasets/nothing.parquet")


def test_a_file_here_wins_and_an_unknown_name_stays_as_given(elsewhere) -> None:
    (elsewhere / "datasets").mkdir()
    (elsewhere / "datasets" / "reference.parquet").write_bytes(b"not parquet")
    assert resolve("datasets/reference.parquet") == "datasets/reference.parquet"
    with pytest.raises(ParseError, match="not a readable parquet file"):
        jobsize.read_trace("datasets/reference.parquet")
    assert resolve("absent.parquet") == "absent.parquet"
    with pytest.raises(ParseError, match=r"absent\.parquet: no such file"):
        jobsize.read_trace("absent.parquet")
    assert resolve("../reference.parquet") == "../reference.parquet"


def test_the_bundled_workloads_read_by_file_name(elsewhere) -> None:
    assert len(read_swim("datasets/" + FB2009)) == 5894
    assert len(load_workload("datasets/reference.parquet").jobs) == 320


def test_report_reads_the_bundled_trace_from_any_directory(elsewhere, capsys) -> None:
    assert main(["report", "datasets/reference.parquet", "-o", "figures"]) == 0
    assert "Size-model accuracy on reference.parquet" in capsys.readouterr().out
    assert (elsewhere / "figures" / "accuracy.md").is_file()
