"""Answers as JSON: a prediction with every field it has, non-finite numbers as null."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np


def render(doc: Any) -> bytes:
    """JSON text as Starlette's JSONResponse writes it."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def plain(value: Any) -> Any:
    """A value as JSON: non-finite numbers (unbounded interval ends) become null, numpy
    scalars and nested dataclasses plain values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def prediction_dict(prediction: Any) -> dict[str, Any]:
    """Every field the predictor's prediction has, whatever they are."""
    return plain(prediction.to_dict() if hasattr(prediction, "to_dict") else prediction)
