"""A probed job and its run join by default, on the local engine: `jobsize probe` and
`jobsize run` derive one jobsize.probe.id from the job's user, input and programs."""

from __future__ import annotations

import json

import pandas as pd

from jobsize.cli import main

WC = "python -m jobsize.workloads.wordcount"


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


def test_two_probed_jobs_of_one_name_join_their_own_probes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "a" / "in.txt", [f"alpha beta w{i % 50}" for i in range(4000)])
    _write(tmp_path / "b" / "in.txt", [f"gamma w{i % 7}" for i in range(9000)])
    probes = {}
    for name in ("a", "b"):  # both probed before either runs, under one job name
        job = ["--input", name, "--mapper", f"{WC} map", "--reducer", f"{WC} reduce",
               "--maps", "4", "--reduces", "2", "--split-size", "16K", "--name", "wc"]
        assert main(["probe", *job, "--seed", "1", "--history", "probes"]) == 0
        probes[name] = json.loads(capsys.readouterr().out)
    runs = {}
    for name in ("a", "b"):
        job = ["--input", name, "--mapper", f"{WC} map", "--reducer", f"{WC} reduce",
               "--maps", "4", "--reduces", "2", "--split-size", "16K", "--name", "wc"]
        assert main(["run", *job, "--history", "jobs", "-o", f"{name}.out"]) == 0
        runs[name] = json.loads(capsys.readouterr().out)
    assert probes["a"]["conf"]["jobsize.probe.id"] != probes["b"]["conf"]["jobsize.probe.id"]
    assert main(["collect", "jhist", "probes", "jobs", "-o", "trace.parquet"]) == 0
    trace = pd.read_parquet(tmp_path / "trace.parquet").set_index("job_id")
    for name in ("a", "b"):
        row = trace.loc[runs[name]["job_id"]]
        assert row["probe_input_bytes"] == probes[name]["probe_input_bytes"]
        assert row["probe_map_output_records"] == probes[name]["probe_map_output_records"]
