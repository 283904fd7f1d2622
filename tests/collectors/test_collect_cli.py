"""``jobsize collect`` end to end."""

from __future__ import annotations

import re

import pytest
from jhs_fake import DOC_JOB, FakeHistoryServer
from pytest_httpserver import HTTPServer

from jobsize.cli import main
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path


def test_collect_jhist_directory(shared, tmp_path, capsys):
    out = tmp_path / "h.parquet"
    assert main(["collect", "jhist", str(shared / "hadoop" / "jhist"), "-o", str(out)]) == 0
    jobs = read_trace(out)
    assert len(jobs) == 5
    assert len(read_trace(tasks_path(out), columns=TASK_COLUMNS)) > 0
    assert "5 jobs from 5 files" in capsys.readouterr().out


@pytest.mark.parametrize(("kind", "path", "rows"), [
    ("swim", "swim/FB-2009_samples_24_times_1hr_0_first50jobs.tsv", 50),
    ("rumen", "hadoop/rumen/wordcount.json", 1),
    ("sls", "hadoop/sls/inputsls.json", 2),
])
def test_collect_trace_files(shared, tmp_path, kind, path, rows):
    out = tmp_path / f"{kind}.parquet"
    assert main(["collect", kind, str(shared / path), "-o", str(out)]) == 0
    jobs = read_trace(out)
    assert len(jobs) == rows and set(jobs["source"]) == {kind}
    if kind == "swim":
        assert "gap_ms" in jobs.columns


def test_collect_sls_synth_draws_jobs(shared, tmp_path, capsys):
    out = tmp_path / "syn.parquet"
    spec = str(shared / "hadoop" / "sls" / "syn.json")
    assert main(["collect", "sls-synth", spec, "-o", str(out), "--jobs", "4", "--seed", "5"]) == 0
    jobs = read_trace(out)
    tasks = read_trace(tasks_path(out), columns=TASK_COLUMNS)
    assert len(jobs) == 4 and set(jobs["source"]) == {"sls-synth"}
    assert len(tasks) == (jobs["n_maps"] + jobs["n_reduces"]).sum()
    assert f"4 jobs and {len(tasks)} task rows" in capsys.readouterr().out


def test_bad_file_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "w.tsv"
    bad.write_text("job0\t1\t1\n")
    out = tmp_path / "w.parquet"
    assert main(["collect", "swim", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith(f"jobsize: error: {bad}: line 1: expected 6 tab-separated fields")
    assert not out.exists()


def test_collect_rm_prints_cluster_resources(httpserver: HTTPServer, shared, capsys):
    rest = shared / "hadoop" / "rm-rest"
    httpserver.expect_request("/ws/v1/cluster/metrics").respond_with_data(
        (rest / "cluster-metrics.json").read_bytes(), content_type="application/json")
    httpserver.expect_request("/ws/v1/cluster/nodes").respond_with_data(
        (rest / "nodes.json").read_bytes(), content_type="application/json")
    assert main(["collect", "rm", httpserver.url_for("/"), "--nodes", "--retries", "0"]) == 0
    out = capsys.readouterr().out
    assert "17408 MB memory, 8 vcores" in out
    assert "h1:1234" in out


def test_collect_jhs_reports_failed_jobs_and_exits_1(httpserver: HTTPServer, shared, tmp_path,
                                                     capsys):
    fake = FakeHistoryServer(shared)
    fake.broken.add(f"/ws/v1/history/mapreduce/jobs/{DOC_JOB}/conf")
    httpserver.expect_request(re.compile(r"^/ws/v1/history/.*")).respond_with_handler(fake)
    out = tmp_path / "j.parquet"
    code = main(["collect", "jhs", httpserver.url_for("/"), "-o", str(out), "--retries", "1",
                 "--since", "2012-01-01", "--user", "user1"])
    assert code == 1
    captured = capsys.readouterr()
    assert "1 jobs collected" in captured.out
    assert f"  {DOC_JOB}: " in captured.err and "HTTP 500" in captured.err
    assert list(read_trace(out)["job_id"]) == ["job_1326381300833_1_1"]
    listing = next(r for r in httpserver.log if r[0].path.endswith("/jobs"))[0]
    assert listing.args["finishedTimeBegin"] == "1325376000000"
    assert listing.args["user"] == "user1"


def test_since_rejects_nonsense(capsys):
    with pytest.raises(SystemExit):
        main(["collect", "jhs", "http://x", "-o", "t.parquet", "--since", "yesterdayish"])
    assert "expected epoch ms" in capsys.readouterr().err
