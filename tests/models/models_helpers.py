"""Helpers shared by the model tests."""

from __future__ import annotations

import pandas as pd


def as_job(row: pd.Series) -> dict[str, object]:
    """A record row as the plain mapping the one-job path takes (pandas NA → None)."""
    return {k: (None if v is pd.NA else v) for k, v in row.to_dict().items()}
