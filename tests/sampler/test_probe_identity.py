"""The probe's identity in its configuration: rendered for a cluster, and printed by
``jobsize probe --hadoop`` with the property to give the job itself."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from jobsize.sampler.probespec import ProbeSpec, probe_properties, render_hadoop

from jobsize.cli import main


def _spec(**kw) -> ProbeSpec:
    args = {"mapper": "python3 wc.py map", "reducer": "python3 wc.py reduce",
            "inputs": ("/data/in.txt",), "n_maps": 40, "n_reduces": 4, "job_name": "wordcount"}
    args.update(kw)
    return ProbeSpec(**args)


def _conf(command: str) -> dict[str, str]:
    argv = shlex.split(command.replace("\\\n", " "))
    return dict(argv[i + 1].split("=", 1) for i, a in enumerate(argv) if a == "-D")


def test_render_hadoop_names_the_job_it_probes():
    command = render_hadoop(_spec(), sample="/s", sample_bytes=4096, output="/o",
                            fraction=0.025, probe_id="u-1")
    conf = _conf(command)
    assert conf["mapreduce.job.name"] == "jobsize probe: wordcount"
    assert conf["jobsize.probe.for"] == "wordcount" and conf["jobsize.probe.id"] == "u-1"
    assert float(conf["jobsize.probe.fraction"]) == 0.025
    assert conf["jobsize.probe.input.bytes"] == "4096"
    assert (conf["jobsize.probe.n_maps"], conf["jobsize.probe.n_reduces"]) == ("40", "4")


def test_the_jobs_own_identity_is_used_and_none_is_made_up():
    spec = _spec(conf={"jobsize.probe.id": "given"})
    assert probe_properties(spec)["jobsize.probe.id"] == "given"
    props = probe_properties(_spec())
    assert "jobsize.probe.id" not in props and "jobsize.probe.fraction" not in props
    # a name with spaces and quotes survives the shell
    conf = _conf(render_hadoop(_spec(job_name="it's a \"job\""), sample="/s", sample_bytes=1,
                               output="/o"))
    assert conf["jobsize.probe.for"] == "it's a \"job\""


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "in.txt"
    path.write_text("".join(f"line {i} of the input\n" for i in range(5000)))
    return path


def test_cli_probe_hadoop_prints_the_identity_to_run_the_job_with(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["probe", "--hadoop", "--print-commands", "--input", str(_input(tmp_path)),
                 "--mapper", "cat", "--reducer", "cat", "--maps", "8", "--reduces", "2",
                 "--name", "wc", "--seed", "3"])
    assert code == 0
    out = capsys.readouterr().out
    said = re.search(r"run the job itself with -D jobsize\.probe\.id=(\S+) ", out)
    assert said is not None
    from jobsize.sampler.identity import job_identity

    # derived from the job: its user, input, programs and reduces, as `jobsize run` derives it
    assert said.group(1) == job_identity(inputs=[str(_input(tmp_path))], mapper="cat",
                                         reducer="cat", n_reduces=2)
    conf = _conf(out.split("\n", 3)[3])
    assert conf["jobsize.probe.id"] == said.group(1)
    f_p = float(re.search(r"# f_p = (\S+):", out).group(1))
    assert float(conf["jobsize.probe.fraction"]) == pytest.approx(f_p, rel=1e-5)


def test_cli_probe_hadoop_keeps_a_given_identity(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["probe", "--hadoop", "--print-commands", "--input", str(_input(tmp_path)),
                 "--mapper", "cat", "--reducer", "cat", "--maps", "8", "--reduces", "2",
                 "--seed", "3", "-D", "jobsize.probe.id=nightly-wc"]) == 0
    out = capsys.readouterr().out
    assert "-D jobsize.probe.id=nightly-wc so that" in out
    assert _conf(out.split("\n", 3)[3])["jobsize.probe.id"] == "nightly-wc"
