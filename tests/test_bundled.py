"""The data shipped in datasets/: found by name, complete, and with its licence."""

from __future__ import annotations

import hashlib

import pytest

from jobsize.bundled import datasets_dir, reference_trace, resolve_workload
from jobsize.errors import InputError
from jobsize.sim.load import load_workload

FB2009_SHA256 = "5033ea98faed398b132957e4555c9ba88653d1ffaac470f370b761b79cd44c19"


def test_fb2009_is_bundled_unchanged_with_its_licence() -> None:
    swim = datasets_dir() / "swim"
    data = (swim / "FB-2009_samples_24_times_1hr_0.tsv").read_bytes()
    assert hashlib.sha256(data).hexdigest() == FB2009_SHA256
    assert "Regents of the University of California" in (swim / "LICENSE").read_text()
    assert "SWIMProjectUCB/SWIM" in (swim / "README.md").read_text()


@pytest.mark.parametrize("name", ["FB-2009", "fb-2009.tsv", "FB-2009_samples_24_times_1hr_0.tsv"])
def test_the_bundled_workload_loads_by_name(name) -> None:
    w = load_workload(name)
    assert len(w.jobs) == 5894
    assert resolve_workload(name).endswith("swim/FB-2009_samples_24_times_1hr_0.tsv")


def test_a_file_of_that_name_here_wins(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FB-2009.tsv").write_text("job0\t0\t0\t1\t1\t1\n")
    assert resolve_workload("FB-2009.tsv") == "FB-2009.tsv"


def test_a_known_workload_that_is_not_bundled_says_where_to_get_it() -> None:
    with pytest.raises(InputError, match=r"FB-2010.*not bundled.*SWIMProjectUCB/SWIM"):
        load_workload("FB-2010_samples_24_times_1hr_0.tsv")


def test_the_reference_trace_is_bundled() -> None:
    assert reference_trace().name == "reference.parquet"
