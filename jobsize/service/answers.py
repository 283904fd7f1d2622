"""Answers as JSON: a prediction with every field it has, non-finite numbers as null."""

from __future__ import annotations

import json
from typing import Any

from jobsize.models.modelfile import plain

__all__ = ["plain", "prediction_dict", "render"]


def render(doc: Any) -> bytes:
    """JSON text as Starlette's JSONResponse writes it."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def prediction_dict(prediction: Any) -> dict[str, Any]:
    """Every field the predictor's prediction has, whatever they are."""
    return plain(prediction.to_dict() if hasattr(prediction, "to_dict") else prediction)
