"""The data bundled with jobsize in ``datasets/``: the measured reference trace (the default input
of ``jobsize fit``) and the SWIM FB-2009 workload (the default workload of ``jobsize simulate``).

The folder is found inside the installed package (``jobsize/datasets`` in a wheel) or beside it
in a source checkout (``pip install -e .``). ``JOBSIZE_DATASET`` names another reference trace.
"""

from __future__ import annotations

import os
from pathlib import Path

from jobsize.errors import InputError

#: File name of the reference trace inside ``datasets/``.
REFERENCE_TRACE = "reference.parquet"

#: Workloads shipped in ``datasets/``, by the name ``--workload`` accepts.
BUNDLED_WORKLOADS = {"FB-2009": "swim/FB-2009_samples_24_times_1hr_0.tsv"}

#: Well-known workloads that are not shipped, and where to get them.
KNOWN_WORKLOADS = {
    "FB-2010": "FB-2010_samples_24_times_1hr_0.tsv, in the workloadSuite folder of the SWIM "
               "project (github.com/SWIMProjectUCB/SWIM, BSD licence)",
}

#: The workload ``jobsize simulate`` replays when none is named.
DEFAULT_WORKLOAD = "FB-2009"


def datasets_dir() -> Path:
    """``datasets/`` inside the installed package, else beside it in a source checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "datasets"
    return installed if installed.is_dir() else package.parent / "datasets"


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


def resolve_workload(spec: str) -> str:
    """The file a ``--workload`` value names: a bundled workload by name (``FB-2009``, with or
    without ``.tsv``, or its SWIM file name where no such file exists here), else ``spec``.

    Naming a well-known workload that is not bundled (``FB-2010``) is an InputError saying
    where to get it.
    """
    if Path(spec).exists():
        return spec
    stem = Path(spec).name.removesuffix(".tsv")
    for name, relative in BUNDLED_WORKLOADS.items():
        if stem.lower() in (name.lower(), Path(relative).stem.lower()):
            return str(datasets_dir() / relative)
    for name, where in KNOWN_WORKLOADS.items():
        if stem.lower().startswith(name.lower()):
            raise InputError(f"the {name} workload is not bundled with jobsize; get {where}",
                             source=spec)
    return spec
