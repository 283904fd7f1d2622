"""Helpers shared by the model tests."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from jobsize.models.modelfile import load_model, save_model
from jobsize.models.size_model import SizeModel


def as_job(row: pd.Series) -> dict[str, object]:
    """A record row as the plain mapping the one-job path takes (pandas NA → None)."""
    return {k: (None if v is pd.NA else v) for k, v in row.to_dict().items()}


def kept_in_the_model_file(model: SizeModel, trace: pd.DataFrame, path: Path, key: str
                           ) -> SizeModel:
    """Save ``model``, check its file holds its ``key`` attribute and that the model read back
    has it and predicts ``trace`` exactly as ``model`` does; return the model read back."""
    path = save_model(model, path)
    assert json.loads(path.read_text())[key] == getattr(model, key)
    back = load_model(path)
    assert getattr(back, key) == getattr(model, key)
    pd.testing.assert_frame_equal(back.predict_frame(trace, errors="nan"),
                                  model.predict_frame(trace, errors="nan"), check_exact=True)
    return back
