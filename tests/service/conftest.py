"""Fixtures of the service's tests: the bundled reference trace and a model fitted on 200 of its
jobs (the other 120 are the finished jobs the tests observe), once per module."""

from __future__ import annotations

import pytest
from service_helpers import fit_model, reference


@pytest.fixture(scope="module")
def trace():
    return reference()


@pytest.fixture(scope="module")
def model_file(tmp_path_factory, trace):
    return fit_model(tmp_path_factory.mktemp("model") / "m.json", trace.iloc[:200])
