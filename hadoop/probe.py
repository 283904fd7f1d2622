"""The probing job (paper §III-A, Algorithm 1) run by Hadoop itself.

The sample is written into the cluster's file system — the mini cluster's is this machine's,
so writing it there is its upload — and the probe is submitted as a Hadoop Streaming job in
uber mode on the probing queue (:func:`jobsize.sampler.probespec.streaming_probe`). Hadoop runs
at most one reduce in uber mode, so the probe is one map per sample file and one reduce over
all the sample's keys: MFE, RFE and the combiner's time come from the timing wrapper, each
function's start-up from its run over no input first (the per-task fixed costs), MO, MOR, RIR,
RO and CPU time from Hadoop's own counters. A Java task (:mod:`jobsize.javatask`) runs as
itself, unwrapped, and reports the same counters (jobsize's module is shipped with the probe).
The split probe's shape columns, which need two uneven tasks of each kind, stay null. The
probe of a job that Hadoop runs in uber mode with several maps and a reduce has two maps
(the sample in two files): its maps run one after another in one JVM, as the job's do, and
the second's time is read apart from the first's (``probe_map_later_*``). The probe
record is read back from the probe's own history as ``jobsize collect`` reads it
(:func:`jobsize.collectors.probe_join.find_probe`).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

from jobsize.collectors.probe_join import find_probe
from jobsize.hadoop.client import STREAMING, HadoopClient
from jobsize.sampler.probespec import ProbeSpec, streaming_probe

from jobsize.atomic import atomic_write
from jobsize.errors import InputError, JobFailedError
from jobsize.schema import PROBE_ID_KEY


def write_sample(spec: ProbeSpec, splits: Any, directory: Path) -> tuple[Any, list[str]]:
    """Draw the job's sample (Algorithm 1) and write it to ``directory``, one file per input
    file (the mapper keeps seeing each file's name): ``i/<file name>``. Returns the sample and
    the files' paths relative to ``directory``.

    A job that Hadoop would run in uber mode with several maps and reduces runs its maps one
    after another in one JVM, the later ones warm: a sample of one input file, drawn from two
    map inputs or more that hold records, is written for it as two files — the ranges of the
    first half of those map inputs, then the rest — so that its probe runs two maps, the
    second warm (:func:`jobsize.collectors.probe_join.later_maps`)."""
    sample = spec.take_sample(splits)
    halves = (spec.n_maps >= 2 and spec.n_reduces > 0
              and spec.plan(sample.input_bytes).uberized)
    by_file = _files(list(sample.parts()), halves)
    if not any(b"".join(v) for v in by_file.values()):
        raise InputError("the sample is empty (no record starts in the sampled ranges); "
                         "try another --seed", source=", ".join(spec.inputs))
    paths = []
    for i, ((name, _), pieces) in enumerate(by_file.items()):
        base = Path(name.rstrip("/")).name or "input"
        with atomic_write(directory / str(i) / base) as handle:
            handle.write(b"".join(pieces))
        paths.append(f"{i}/{base}")
    return sample, paths


def _files(parts: list[tuple[Any, bytes]], halves: bool) -> dict[tuple[str, int], list[bytes]]:
    """The sample's pieces grouped into files: by input file, and with ``halves`` one input
    file's in two by the map inputs that hold records (:func:`write_sample`)."""
    def grouped(key: Any) -> dict[tuple[str, int], list[bytes]]:
        out: dict[tuple[str, int], list[bytes]] = {}
        for chosen, data in parts:
            out.setdefault(key(chosen), []).append(data)
        return out

    by_file = grouped(lambda chosen: (chosen.path, 0))
    if halves and len(by_file) == 1:
        units = sorted({chosen.unit for chosen, data in parts if data})
        later = set(units[(len(units) + 1) // 2:])
        split = grouped(lambda chosen: (chosen.path, int(chosen.unit in later)))
        if len(split) == 2 and all(any(pieces) for pieces in split.values()):
            return split
    return by_file


def probe_on_hadoop(spec: ProbeSpec, splits: Any, client: HadoopClient, *,
                    directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Run ``spec``'s probe on ``client``'s cluster; return its probe record (the job
    record's ``probe_*`` columns) with the probe's job id and history file.

    ``directory`` (default: a new one under the cluster's ``probes/``) holds the sample, the
    probe's output and its client's log. ``spec.conf`` must carry ``jobsize.probe.id``.
    """
    identity = spec.conf.get(PROBE_ID_KEY)
    if not identity:
        raise InputError(f"the probe has no {PROBE_ID_KEY}", source="probe spec")
    where = Path(directory or Path(client.cluster.directory, "probes",
                                   f"{identity}-{time.time_ns()}")).resolve()
    sample, paths = write_sample(spec, splits, where / "sample")
    # Commands run in the cluster's containers on this machine, with this interpreter.
    local = dataclasses.replace(spec, **{
        name: _this_python(getattr(spec, name)) for name in ("mapper", "reducer", "combiner")
        if getattr(spec, name) is not None})
    job = streaming_probe(local, sample=[str(where / "sample" / p) for p in paths],
                          sample_bytes=len(sample.data), output=str(where / "output"),
                          python=sys.executable, fraction=sample.fraction, probe_id=identity,
                          java_jar=client.cluster.module_jar)
    path = os.environ.get("PATH", "/usr/bin:/bin")
    ran = client.run(STREAMING, [*job.argv(), "-cmdenv", f"PATH={path}"]).job
    history = ran.history()
    record = history.record
    if record["state"] != "SUCCEEDED":
        raise JobFailedError(f"the probe {record['state']} (see its history: "
                             f"{ran.history_path})", source=ran.job_id)
    if not record.get("uberized"):
        raise JobFailedError("Hadoop did not run the probe in uber mode", source=ran.job_id)
    probe = find_probe(record, history.conf, source=ran.conf_path,
                       tasks=history.tasks, task_counters=history.task_counters)
    if probe is None:  # its configuration names it a probe; a history without it is damaged
        raise JobFailedError("the probe's history does not name it a probe",
                             source=ran.conf_path)
    return {**probe.columns, "probe_job_id": ran.job_id,
            "probe_history": str(ran.history_path)}


def _this_python(function: Any) -> Any:
    """A command whose program is ``python``/``python3`` run by this interpreter instead."""
    if not callable(function) and function and function[0] in ("python", "python3"):
        return (sys.executable, *function[1:])
    return function
