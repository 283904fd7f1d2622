"""Sampler: input splits, Algorithm 1 sampling and the probing-job specification.

- :mod:`jobsize.sampler.splits` — a job's input as Hadoop's FileInputFormat splits it, local or
  WebHDFS
- :mod:`jobsize.sampler.webhdfs` — the WebHDFS client (GETFILESTATUS, LISTSTATUS, OPEN)
- :mod:`jobsize.sampler.sampling` — Algorithm 1, record-aligned like LineRecordReader
- :mod:`jobsize.sampler.probespec` — the probe spec, the uber-mode rule, counters → probe record,
  and the Hadoop Streaming command for a cluster
- :mod:`jobsize.sampler.timing_wrapper` — the standalone script that reports MFE/RFE as counters

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`; it never
imports an engine or a collector. Public names are imported on first use, so importing one
submodule does not load the others.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "ProbePlan": "probespec",
    "ProbeSpec": "probespec",
    "plan_probe": "probespec",
    "probe_record": "probespec",
    "render_hadoop": "probespec",
    "Sample": "sampling",
    "sample": "sampling",
    "Split": "splits",
    "input_splits": "splits",
    "local_splits": "splits",
    "webhdfs_splits": "splits",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobsize.sampler' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
