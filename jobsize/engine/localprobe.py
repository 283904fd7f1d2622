"""The probing job on the local engine (paper §III-A), in this process.

:func:`run_probe` draws the job's sample with Algorithm 1 (``jobsize.sampler.sampling.sample``),
stores it on local disk first (as the paper's probing MapReduce does, so the map function reads
local data), runs the job's own functions over it as an uber job — its tasks one after the
other, inside the calling process — and turns the probe's counters into the job record's
``probe_*`` columns with ``jobsize.sampler.probespec.probe_record``. The probe is the split
probe of :mod:`jobsize.sampler.probeparts`: two map tasks over about 1/3 and 2/3 of the sample
and two reduce tasks over about 1/3 and 2/3 of the keys, so that what a task pays whatever its
input can be told from what grows with it, and one empty map and reduce whose time is the
functions' start-up.

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
from jobsize.sampler.probeparts import (
    REDUCE_PARTITIONS,
    REDUCE_PARTITIONS_WITH_EMPTY,
    SMALLER_SHARE,
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
        # one more map and one more reduce on no input: the functions' start-up alone
        empty_map = [MapInput(str(sample_path), 0, 0, map_tasks[0][0].name, whole=True)]
        reduces = () if spec.reducer is None else REDUCE_PARTITIONS_WITH_EMPTY
        job = JobSpec(
            inputs=(sample_path,), output=directory / "output", mapper=spec.mapper,
            reducer=spec.reducer, combiner=spec.combiner, n_reduces=len(reduces),
            name=f"jobsize probe: {spec.job_name}", queue=spec.queue,
            containers=_containers(spec),
            conf={**spec.conf, **probe_properties(spec, fraction=drawn.fraction,
                                                  input_bytes=len(drawn.data))})
        result = (engine or default_engine()).run(job, history_dir=history_dir, uber=True,
                                                  map_tasks=[*map_tasks, empty_map],
                                                  reduce_partitions=reduces,
                                                  count_map_keys=True)
        combine_startup_ms = (None if job.combiner is None else
                              _combiner_startup_ms(job, directory))
    wall_ms = (time.perf_counter() - t0) * 1000
    empty_ids = {f"_m_{len(map_tasks):06d}", f"_r_{len(REDUCE_PARTITIONS):06d}"}
    done = [a for a in result.attempts if a.ok]
    empty = [a for a in done if a.task_id[-9:] in empty_ids]
    tasks = [a for a in done if a not in empty]
    # a map runs one mapper process per input file it reads (see maptask._by_file)
    processes = [len({p.name for p in task}) for task in map_tasks]
    return probe_record(result.counters["total"], fraction=drawn.fraction,
                        input_bytes=len(drawn.data), wall_ms=wall_ms,
                        n_reduces=0 if spec.reducer is None else len(REDUCE_PARTITIONS),
                        tasks=[(a.task_type, a.counters) for a in tasks],
                        map_processes=processes,
                        empty_tasks=[(a.task_type, a.counters) for a in empty],
                        task_ms=[a.elapsed_ms for a in tasks],
                        empty_task_ms=[a.elapsed_ms for a in empty],
                        combine_startup_ms=combine_startup_ms)


def _combiner_startup_ms(job: JobSpec, directory: Path) -> float | None:
    """The combiner's time over no records — its start-up — as a task's environment runs it
    (the job's configuration exported, as Hadoop Streaming does); None if it fails. The
    engine runs a combiner only over records, so the probe's empty map cannot measure this."""
    env = {**os.environ, **exported(job.conf), **job.env, "PWD": str(directory)}
    outcome = run_function(job.combiner, "combine", (), lambda _chunk: None, env, directory)
    return outcome.function_seconds * 1000 if outcome.ok else None

