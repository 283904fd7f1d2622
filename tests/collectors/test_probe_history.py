"""Probes and their jobs run on the local engine, collected from the history they write, and the
loop a cluster user runs on it: collect → fit → predict."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest
from jobsize.collectors.jhist import collect_jhist
from jobsize.collectors.probe_join import PROBE_COLUMNS, read_probes
from jobsize.sampler.probespec import (
    PROBE_LATER,
    PROBE_SHAPE,
    PROBE_START,
    PROBE_WRAPPER,
    ProbeSpec,
)

from jobsize.cli import main
from jobsize.engine import JobSpec, LocalEngine, run_probe
from jobsize.schema import PROBE_NAME_PREFIX, TASK_COLUMNS, read_trace, tasks_path
from jobsize.workloads import WORKLOADS

JOBS = 20


class Cluster:
    """What the local engine ran: each job's probe record as ``run_probe`` returned it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.history = root / "history"
        self.probe_records: dict[str, dict] = {}  # production job id → its probe's record
        self.job_ids: list[str] = []


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Cluster:
    """JOBS word counts of varied size, N_m and N_r, each probed just before it runs: odd ones
    carry a jobsize.probe.id on probe and job, even ones are joined by name. Then two probes
    whose job never runs: one with an identity, one by name."""
    root = tmp_path_factory.mktemp("cluster")
    wordcount = WORKLOADS["wordcount_nocombine"]
    mapper, reducer = wordcount.mapper, wordcount.reducer
    rng = random.Random(3)
    out = Cluster(root)
    with LocalEngine(2) as engine:
        for k in range(JOBS):
            (text,) = wordcount.generate(root / f"in{k}", rng.choice([50, 100, 200, 350]) << 10,
                                         k)
            n_maps, n_reduces = rng.choice([2, 3, 4]), rng.choice([1, 2])
            split = -(-text.stat().st_size // n_maps)
            conf = {"jobsize.probe.id": f"probe-{k}"} if k % 2 else {}
            name = f"wc{k % 3}"
            spec = ProbeSpec(mapper=mapper, reducer=reducer, inputs=(str(text),),
                             n_maps=n_maps, n_reduces=n_reduces, split_bytes=split, seed=k,
                             job_name=name, conf=conf)
            probe = run_probe(spec, engine=engine, history_dir=out.history)
            result = engine.run(JobSpec(inputs=text, output=root / f"out{k}", mapper=mapper,
                                        reducer=reducer, n_maps=n_maps, n_reduces=n_reduces,
                                        split_bytes=split, name=name, conf=conf),
                                history_dir=out.history)
            out.probe_records[result.job_id] = probe
            out.job_ids.append(result.job_id)
        for conf in ({"jobsize.probe.id": "never-ran"}, {}):
            spec = ProbeSpec(mapper=mapper, reducer=reducer, inputs=(str(text),),
                             n_maps=2, n_reduces=1, seed=1, job_name="wc0", conf=conf)
            run_probe(spec, engine=engine, history_dir=out.history)
    return out


def test_each_job_gets_exactly_the_probe_record_its_probe_produced(cluster):
    found = collect_jhist([cluster.history])
    jobs = found.jobs.set_index("job_id")
    assert sorted(jobs.index) == sorted(cluster.job_ids)  # probes are not jobs
    assert not jobs["job_name"].str.startswith(PROBE_NAME_PREFIX).any()
    for job_id, probe in cluster.probe_records.items():
        joined = jobs.loc[job_id, list(PROBE_COLUMNS)]
        for column in PROBE_COLUMNS:
            if column == "probe_wall_ms":  # the job's history times, not the sampler's clock
                assert 0 < joined[column] <= probe[column] + 5
            elif column in PROBE_SHAPE:  # per-task shapes are not read back from history
                assert pd.isna(joined[column])
            elif column == "probe_combine_runs":  # Hadoop's counters have no combiner runs
                assert (pd.isna(joined[column]) if probe["probe_combine_input_records"]
                        else joined[column] == 0)
            elif column == "probe_map_tasks":  # history cannot tell the empty map apart
                assert joined[column] == probe[column] + 1
            elif column in PROBE_LATER + PROBE_WRAPPER:
                # the local probe's empty map is not like a job's, its functions unwrapped
                assert probe[column] is None and pd.isna(joined[column])
            elif column in PROBE_START:  # the sampler does not see the launch, the history does
                assert probe[column] is None and joined[column] >= 0
            else:
                assert joined[column] == probe[column], (job_id, column)
    report = found.report
    assert (report.probes, report.by_id, report.by_name) == (JOBS + 2, JOBS // 2, JOBS // 2)
    assert len(report.unjoined) == 2
    assert sorted(p.probe_id or "" for p in found.probes if p.joined_job_id is None) == [
        "", "never-ran"]
    assert set(found.tasks["job_id"]) == set(cluster.job_ids)


def test_probe_history_carries_the_identity_properties(cluster):
    from jobsize.collectors.conf import read_conf

    confs = [read_conf(p) for p in cluster.history.glob("*_conf.xml")]
    probes = [c for c in confs if "jobsize.probe.for" in c]
    assert len(probes) == JOBS + 2
    for conf in probes:
        assert conf["mapreduce.job.name"] == PROBE_NAME_PREFIX + conf["jobsize.probe.for"]
        assert 0 < float(conf["jobsize.probe.fraction"]) <= 1
        assert int(conf["jobsize.probe.input.bytes"]) > 0
        assert int(conf["jobsize.probe.n_maps"]) >= 1 <= int(conf["jobsize.probe.n_reduces"])
    assert sum("jobsize.probe.id" in c for c in probes) == JOBS // 2 + 1


def test_collect_fit_predict_on_local_history_with_probes(cluster, tmp_path, capsys):
    trace, model = tmp_path / "h.parquet", tmp_path / "m.json"
    assert main(["collect", "jhist", str(cluster.history), "-o", str(trace)]) == 0
    out = capsys.readouterr()
    assert f"{JOBS} jobs from {2 * JOBS + 2} files" in out.out
    assert (f"{JOBS + 2} probe jobs: {JOBS} joined ({JOBS // 2} by jobsize.probe.id, "
            f"{JOBS // 2} by name and submit order), 2 not joined") in out.out
    assert out.err.count("not joined:") == 2
    records = read_trace(trace)
    measured = [c for c in PROBE_COLUMNS if c not in PROBE_SHAPE + PROBE_WRAPPER + PROBE_LATER]
    assert records[measured].notna().all().all()
    assert len(read_probes(trace)) == JOBS + 2
    assert set(read_trace(tasks_path(trace), columns=TASK_COLUMNS)["job_id"]) == set(
        cluster.job_ids)

    assert main(["fit", str(trace), "--cv", "3", "-o", str(model)]) == 0
    fitted = capsys.readouterr().out
    assert f"{JOBS} jobs" in fitted

    row = records.iloc[0]
    job = {"conf": {"mapreduce.job.maps": int(row["n_maps"]),
                    "mapreduce.job.reduces": int(row["n_reduces"]),
                    "map_input_bytes": int(row["map_input_bytes"]), "uberized": False},
           "probe": {c: float(row[c]) for c in measured}}
    (tmp_path / "job.json").write_text(json.dumps(job))
    assert main(["predict", "--model", str(model), "--job", str(tmp_path / "job.json")]) == 0
    prediction = json.loads(capsys.readouterr().out)
    assert prediction["SE_m_s"] > 0 and prediction["SE_r_s"] > 0
    low, high = prediction["intervals"]["SE_m_s"]
    assert 0 <= low < prediction["SE_m_s"] < high


def test_collect_jhist_removes_a_stale_probe_table(cluster, tmp_path):
    trace = tmp_path / "h.parquet"
    assert main(["collect", "jhist", str(cluster.history), "-o", str(trace)]) == 0
    only_jobs = tmp_path / "jobs"
    only_jobs.mkdir()
    for job_id in cluster.job_ids[:3]:
        for path in cluster.history.glob(f"{job_id}*"):
            (only_jobs / path.name).write_bytes(path.read_bytes())
    assert main(["collect", "jhist", str(only_jobs), "-o", str(trace)]) == 0
    assert read_probes(trace) == []
    assert pd.isna(read_trace(trace)["probe_fraction"]).all()
