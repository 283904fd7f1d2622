"""Fixtures for the model tests: synthetic job records from a known linear process.

These traces are generated test data (models.synthetic), never measured data.
"""

from __future__ import annotations

import pandas as pd
import pytest
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace


@pytest.fixture(scope="session")
def trace() -> pd.DataFrame:
    """1200 synthetic jobs: 20 % map-only, 5 % uber, heteroscedastic noise."""
    return linear_trace(1200, seed=11, uber=0.05)


@pytest.fixture(scope="session")
def model(trace: pd.DataFrame) -> SizeModel:
    return SizeModel.fit(trace, "probe", "gls", form="paper")
