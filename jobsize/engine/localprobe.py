"""The probing job on the local engine (paper §III-A), in this process.

:func:`run_probe` draws the job's sample with Algorithm 1 (``jobsize.sampler.sampling.sample``),
stores it on local disk first (as the paper's probing MapReduce does, so the map function reads
local data), runs the job's own functions over it as an uber job — its tasks one after the
other, inside the calling process — and turns the probe's counters into the job record's
``probe_*`` columns with ``jobsize.sampler.probespec.probe_record``. The probe is the split
probe of :mod:`jobsize.sampler.probeparts`: two map tasks over about 1/3 and 2/3 of the sample
and two reduce tasks over about 1/3 and 2/3 of the keys, so that what a task pays whatever its
input can be told from what grows with it. Each task also times its functions' start-up — until
they first read their input — so no task runs only to measure it: a function whose start-up no
task could time (a task fed less than a pipe holds) is run once more over no input.

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
from jobsize.engine.attempt import MapInput, exported, run_function
from jobsize.engine.spec import Containers, JobSpec
from jobsize.sampler.probeparts import REDUCE_PARTITIONS, SMALLER_SHARE
from jobsize.schema import (
    COMBINE_FUNCTION_STARTUP_COUNTER,
    COMBINE_RUNS_COUNTER,
    FUNCTION_TIME_GROUP,
    MAP_FUNCTION_STARTUP_COUNTER,
    REDUCE_FUNCTION_STARTUP_COUNTER,
)


def _pieces(sample: Any) -> list[tuple[str, bytes]]:
    """The sample's records as (original file, whole-record bytes), in sample order."""
    out = []
    for chosen, data in sample.parts():
        if data:
            out.append((str(chosen.path), data if data.endswith(b"\n") else data + b"\n"))
    return out


def _split(pieces: list[tuple[str, bytes]], share: float
           ) -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """Cut the pieces at a record boundary into about ``share`` and ``1 - share`` of the
    bytes; the first part is empty when no boundary falls before the end."""
    target = sum(len(d) for _, d in pieces) * share
    first: list[tuple[str, bytes]] = []
    second: list[tuple[str, bytes]] = []
    taken = 0
    for name, data in pieces:
        need = target - taken
        if need <= 0:
            second.append((name, data))
        elif len(data) <= need:
            first.append((name, data))
            taken += len(data)
        else:
            cut = data.find(b"\n", max(int(need) - 1, 0)) + 1
            if cut <= 0 or cut >= len(data):
                first.append((name, data))
            else:
                first.append((name, data[:cut]))
                second.append((name, data[cut:]))
            taken = target
    return first, second


def _sample_file(sample: Any, directory: Path) -> tuple[Path, list[list[MapInput]]]:
    """Write the sample, cut into the split probe's two map tasks (one when the sample holds
    too few records to cut); a task's pieces keep the file each record came from."""
    pieces = _pieces(sample)
    first, second = _split(pieces, SMALLER_SHARE)
    groups = [first, second] if first and second else [pieces]
    path = directory / "sample"
    tasks: list[list[MapInput]] = []
    with open(path, "wb") as handle:
        for group in groups:
            inputs = []
            for name, data in group:
                start = handle.tell()
                handle.write(data)
                inputs.append(MapInput(str(path), start, len(data), name, whole=True))
            tasks.append(inputs)
    if not tasks[0]:  # an empty sample still runs one (empty) map
        name = str(sample.splits_chosen[0].path) if sample.splits_chosen else str(path)
        tasks = [[MapInput(str(path), 0, 0, name, whole=True)]]
    return path, tasks


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
    ``split_options`` go to the sampler's split listing (WebHDFS user, ...). The probe's
    configuration names the job it probes (``jobsize.sampler.probespec.probe_properties``), as
    a cluster probe's does, so its history joins to the job's.
    """
    from jobsize.sampler.probespec import probe_properties, probe_record

    t0 = time.perf_counter()
    drawn = spec.take_sample(splits, **split_options)
    with tempfile.TemporaryDirectory(prefix="jobsize-probe-", dir=work_dir) as tmp:
        directory = Path(tmp)
        sample_path, map_tasks = _sample_file(drawn, directory)
        reduces = () if spec.reducer is None else REDUCE_PARTITIONS
        job = JobSpec(
            inputs=(sample_path,), output=directory / "output", mapper=spec.mapper,
            reducer=spec.reducer, combiner=spec.combiner, n_reduces=len(reduces),
            name=f"jobsize probe: {spec.job_name}", queue=spec.queue,
            containers=_containers(spec),
            conf={**spec.conf, **probe_properties(spec, fraction=drawn.fraction,
                                                  input_bytes=len(drawn.data))})
        result = (engine or default_engine()).run(job, history_dir=history_dir, uber=True,
                                                  map_tasks=map_tasks,
                                                  reduce_partitions=reduces,
                                                  count_map_keys=True, time_startup=True)
        done = [a for a in result.attempts if a.ok]
        alone = {kind: _startup_ms(job, kind, directory) for kind in _untimed(job, done)}
    wall_ms = (time.perf_counter() - t0) * 1000
    # a map runs one mapper process per input file it reads (see maptask._by_file)
    processes = [len({p.name for p in task}) for task in map_tasks]
    return probe_record(result.counters["total"], fraction=drawn.fraction,
                        input_bytes=len(drawn.data), wall_ms=wall_ms,
                        n_reduces=len(reduces),
                        tasks=[(a.task_type, a.counters) for a in done],
                        map_processes=processes,
                        task_ms=[a.elapsed_ms for a in done],
                        startup_ms=alone)


#: Where each function's start-up is reported, by the kind of task that runs it.
_STARTUP_COUNTERS = (("MAP", "MAP", MAP_FUNCTION_STARTUP_COUNTER),
                     ("REDUCE", "REDUCE", REDUCE_FUNCTION_STARTUP_COUNTER),
                     ("COMBINE", "MAP", COMBINE_FUNCTION_STARTUP_COUNTER))


def _untimed(job: JobSpec, done: Sequence[Any]) -> list[str]:
    """The functions (MAP, REDUCE, COMBINE) of which no probe task timed the start-up."""
    out = []
    for function, task_type, counter in _STARTUP_COUNTERS:
        ran = [a.counters.get(FUNCTION_TIME_GROUP, {}) for a in done if a.task_type == task_type]
        if function == "COMBINE":
            if job.combiner is None:
                continue
            ran = [c for c in ran if c.get(COMBINE_RUNS_COUNTER)]
        if ran and not any(counter in c for c in ran):
            out.append(function)
    return out


def _startup_ms(job: JobSpec, function: str, directory: Path) -> float | None:
    """A function's time over no input — its start-up — as a task's environment runs it (the
    job's configuration exported, as Hadoop Streaming does); None if it fails."""
    env = {**os.environ, **exported(job.conf), **job.env, "PWD": str(directory)}
    fn = {"MAP": job.mapper, "REDUCE": job.reducer, "COMBINE": job.combiner}[function]
    outcome = run_function(fn, function.lower(), (), lambda _chunk: None, env, directory)
    return outcome.function_seconds * 1000 if outcome.ok else None
