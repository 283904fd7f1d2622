"""The bundled measured reference trace in ``datasets/`` — the default input of ``jobsize fit``.

It is found beside the package in a source checkout (``pip install -e .``), or wherever
``JOBSIZE_DATASET`` points.
"""

from __future__ import annotations

import os
from pathlib import Path

from jobsize.errors import InputError

#: File name of the reference trace inside ``datasets/``.
REFERENCE_TRACE = "reference.parquet"


def datasets_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "datasets"


def reference_trace() -> Path:
    """Path of the bundled reference trace, or an InputError saying how to pass one."""
    path = Path(os.environ.get("JOBSIZE_DATASET", datasets_dir() / REFERENCE_TRACE))
    if not path.is_file():
        raise InputError(
            "no measured reference trace is bundled here; pass a trace "
            "(jobsize fit TRACE.parquet) or produce one with `jobsize bench-trace`",
            source=path,
        )
    return path
