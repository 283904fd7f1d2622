"""The probing job on the local engine (paper §III-A): one map and one reduce, in this process.

:func:`run_probe` draws the job's sample with Algorithm 1 (``jobsize.sampler.sampling.sample``),
stores it on local disk first (as the paper's probing MapReduce does, so the map function reads
local data), runs the job's own functions over it as an uber job — one map task and one reduce task,
one after the other, inside the calling process — and turns the probe's counters into the job
record's ``probe_*`` columns with ``jobsize.sampler.probespec.probe_record``.

The map task tells the mapper which original file each record came from
(``mapreduce_map_input_file``): records of different files are fed by one mapper process per
file, so a reduce-side join probes like the job it stands for.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jobsize.engine.appmaster import LocalEngine, default_engine
from jobsize.engine.attempt import MapInput
from jobsize.engine.spec import Containers, JobSpec


def _sample_file(sample: Any, directory: Path) -> tuple[Path, list[MapInput]]:
    """Write the sample grouped by original file; one map input per file."""
    by_file: dict[str, list[bytes]] = {}
    for chosen, data in sample.parts():
        if data:
            by_file.setdefault(chosen.path, []).append(data)
    path = directory / "sample"
    inputs: list[MapInput] = []
    with open(path, "wb") as handle:
        for name, pieces in by_file.items():
            start = handle.tell()
            for piece in pieces:
                handle.write(piece)
                if not piece.endswith(b"\n"):
                    handle.write(b"\n")
            inputs.append(MapInput(str(path), start, handle.tell() - start, name, whole=True))
    if not inputs:  # an empty sample still runs one (empty) map
        inputs.append(MapInput(str(path), 0, 0, str(sample.splits_chosen[0].path)
                               if sample.splits_chosen else str(path), whole=True))
    return path, inputs


def _containers(spec: Any) -> Containers:
    return Containers(spec.map_memory_mb, spec.map_vcores, spec.reduce_memory_mb,
                      spec.reduce_vcores, spec.am_memory_mb, spec.am_vcores)


def run_probe(
    spec: Any,
    *,
    history_dir: str | os.PathLike[str] | None = None,
    engine: LocalEngine | None = None,
    work_dir: str | os.PathLike[str] | None = None,
    splits: Sequence[Any] | None = None,
    **split_options: Any,
) -> dict[str, Any]:
    """Probe the job ``spec`` (a ``jobsize.sampler.probespec.ProbeSpec``) locally; its probe record.

    The record holds the schema's ``probe_*`` columns: f_p, the sample's bytes, MFE, RFE, MO,
    MOR, RIR, RO and the probe's wall time (sampling included). A map-only job (no reducer)
    runs no reduce and reports zeros for it. ``history_dir`` also keeps the probe's own
    .jhist (an uber job). ``splits`` are the job's input splits if already listed;
    ``split_options`` go to the sampler's split listing (WebHDFS user, ...).
    """
    from jobsize.sampler.probespec import probe_record
    from jobsize.sampler.sampling import sample as draw

    t0 = time.perf_counter()
    if splits is None:
        splits = spec.splits(**split_options)
    drawn = draw(splits, spec.n_maps, spec.n_reduces, max_splits=spec.max_splits,
                 seed=spec.seed)
    with tempfile.TemporaryDirectory(prefix="jobsize-probe-", dir=work_dir) as tmp:
        directory = Path(tmp)
        sample_path, inputs = _sample_file(drawn, directory)
        job = JobSpec(
            inputs=(sample_path,), output=directory / "output", mapper=spec.mapper,
            reducer=spec.reducer, combiner=spec.combiner,
            n_reduces=0 if spec.reducer is None else 1,
            name=f"jobsize probe: {spec.job_name}", queue=spec.queue,
            containers=_containers(spec), conf=dict(spec.conf))
        result = (engine or default_engine()).run(job, history_dir=history_dir, uber=True,
                                                  map_tasks=[inputs])
    wall_ms = (time.perf_counter() - t0) * 1000
    return probe_record(result.counters["total"], fraction=drawn.fraction,
                        input_bytes=len(drawn.data), wall_ms=wall_ms,
                        n_reduces=job.n_reduces)

