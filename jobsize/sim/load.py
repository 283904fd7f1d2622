"""Open a workload by file type: SWIM TSV, Rumen JSON, SLS JSON (a trace or a SYNTH spec), a
jobsize trace, synthetic."""

from __future__ import annotations

import os
from pathlib import Path

from jobsize.bundled import resolve_workload
from jobsize.errors import ConfigError, InputError
from jobsize.sim.costmodel import CostModel, read_swim_workload
from jobsize.sim.synthetic_workload import SyntheticFB2009
from jobsize.sim.traces import (
    read_local_workload,
    read_rumen_workload,
    read_sls_synth_workload,
    read_sls_workload,
)
from jobsize.sim.workload import Workload

FORMATS = ("swim", "rumen", "sls", "sls-synth", "trace", "synthetic")


def guess_format(spec: str) -> str:
    if spec.startswith("synthetic"):
        return "synthetic"
    name = Path(spec).name.lower()
    if name.endswith(".tsv"):
        return "swim"
    if name.endswith(".parquet"):
        return "trace"
    if name.endswith(".json"):
        if name.startswith("syn"):  # SLS's synthetic specs: syn.json, syn_generic.json, …
            return "sls-synth"
        return "sls" if "sls" in name else "rumen"
    raise ConfigError(f"cannot tell the format of workload {spec!r}; pass --format "
                      f"({', '.join(FORMATS)})")


def load_workload(spec: str | os.PathLike[str], fmt: str | None = None, *,
                  cost_model: CostModel | None = None, seed: int = 0) -> Workload:
    """Load ``spec``: a file, a bundled workload by name (``FB-2009``), or ``synthetic[:N]``
    for the FB-2009-bin generator."""
    text = str(spec)
    if not text.startswith("synthetic"):
        text = resolve_workload(text)
    fmt = fmt or guess_format(text)
    if fmt == "synthetic":
        _, _, count = text.partition(":")
        try:
            n = int(count) if count else 100
        except ValueError:
            raise ConfigError(f"workload {text!r}: expected synthetic:N") from None
        return SyntheticFB2009(n_jobs=n, seed=seed).generate()
    if not Path(text).exists():
        raise InputError("no such workload file", source=text)
    if fmt == "swim":
        return read_swim_workload(text, cost_model or CostModel(seed=seed))
    if fmt == "rumen":
        return read_rumen_workload(text)
    if fmt == "sls":
        return read_sls_workload(text)
    if fmt == "sls-synth":
        return read_sls_synth_workload(text, seed=seed)
    if fmt == "trace":
        return read_local_workload(text)
    raise ConfigError(f"unknown workload format {fmt!r}; known: {', '.join(FORMATS)}")
