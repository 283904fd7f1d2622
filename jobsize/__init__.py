"""jobsize — predict Hadoop MapReduce job sizes before they run, and prove it in a simulator.

The two calls a scheduler makes::

    import jobsize
    model = jobsize.SizePredictor().fit(history)        # job records (pandas / parquet)
    size = jobsize.predict(model, job)                    # SE_m, SE_r, S, minE, APB, intervals

Public names are imported on first use, so ``import jobsize`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "SizePredictor": "jobsize.predictor",
    "predict": "jobsize.predictor",
    "Prediction": "jobsize.predictor",
    "read_trace": "jobsize.schema",
    "write_trace": "jobsize.schema",
    "JobsizeError": "jobsize.errors",
}

__all__ = [*sorted(_LAZY), "__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobsize' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
