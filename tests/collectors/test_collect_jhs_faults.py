"""The JobHistory Server collector against a fault-injecting server on loopback.

Slow (trickled) bodies and long Retry-After answers must not stretch a run past its deadline,
jobs listed twice are fetched once, and a run killed (SIGKILL) or interrupted (SIGINT,
SIGTERM) at any step of any commit resumes to a trace holding every job exactly once, with its
task rows exactly once, and no temporary file left. Kills run ``jobsize collect jhs`` in a
subprocess that signals itself at the N-th file operation of its commits.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jhs_fake import FakeHistoryServer
from jobsize.collectors.jhs import collect_jhs
from jobsize.collectors.rest import HttpOptions

from jobsize import fetch
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path

#: A client that gives up quickly: one attempt may take 1.5 s, body included.
TIGHT = HttpOptions(timeout=(1.0, 1.5), retries=1, backoff=0.05, pool=4)
FAST = HttpOptions(timeout=(2.0, 5.0), retries=3, backoff=0.01, pool=4)

#: File operations of one commit: fsync of the two tables and of the journal, the journal's
#: rename, the two renames into place, the folder's fsync.
STEPS_PER_COMMIT = 7

_HARNESS = r"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with it ignored
kill_at, how = int(sys.argv[1]), sys.argv[2]
count = [0]
signals = {"kill": signal.SIGKILL, "int": signal.SIGINT, "term": signal.SIGTERM}

def counted(real):
    def call(*args, **kwargs):
        count[0] += 1
        if count[0] == kill_at:
            os.kill(os.getpid(), signals[how])
        return real(*args, **kwargs)
    return call

os.replace = counted(os.replace)
os.fsync = counted(os.fsync)
from jobsize.cli import main
sys.exit(main(sys.argv[3:]))
"""


@pytest.fixture
def jhs(server, shared):
    server.clear()
    fake = FakeHistoryServer(shared)
    server.expect_request(re.compile(r"^/ws/v1/history/.*")).respond_with_handler(fake)
    fake.url = server.url_for("/")
    return fake


def _exactly_once(out: Path, ids: set[str]) -> None:
    """Every job once, each with its two attempt rows once, and no temporary file left."""
    jobs = read_trace(out)
    assert sorted(jobs["job_id"]) == sorted(ids)
    tasks = read_trace(tasks_path(out), columns=TASK_COLUMNS)
    assert len(tasks) == 2 * len(ids)
    assert not tasks.duplicated(subset=["job_id", "attempt_id"]).any()
    assert set(tasks["job_id"]) == ids
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".")] == []


def test_a_trickled_body_is_cut_at_the_deadline(jhs, tmp_path):
    ids = jhs.clone(3)
    slow = f"/ws/v1/history/mapreduce/jobs/{ids[1]}/counters"
    jhs.slow.add(slow)
    jhs.trickle = 0.2  # ~1 kB at 5 bytes a second: minutes if read to the end
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=TIGHT, workers=2)
    assert list(result.failed) == [ids[1]]
    assert "took longer than 1.5 s after 2 attempts" in result.failed[ids[1]]
    assert jhs.requests.count(slow) == 2  # the attempt and one retry, each cut short
    assert ids[1] not in set(read_trace(out)["job_id"])
    assert result.collected == 4


def test_retry_after_is_capped_at_the_timeout(jhs, tmp_path, monkeypatch):
    waits = []
    real = fetch._sleep
    monkeypatch.setattr(fetch, "_sleep", lambda s, cancel: (waits.append(s), real(s, cancel)))
    ids = jhs.clone(2)
    path = f"/ws/v1/history/mapreduce/jobs/{ids[0]}/conf"
    jhs.faults[path] = ["busy", "busy"]
    jhs.retry_after = "120"
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=HttpOptions(timeout=(1.0, 1.0), retries=3,
                                                            backoff=0.01, pool=4))
    assert result.failed == {} and result.collected == 4
    assert jhs.requests.count(path) == 3
    assert len(waits) == 2 and max(waits) == 1.0  # not 120 s: the cap is the timeout


def test_an_http_date_retry_after_is_read_and_capped():
    assert fetch._retry_after("7") == 7.0
    assert fetch._retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert fetch._retry_after("Fri, 31 Dec 9999 23:59:59 GMT") > 1e9  # capped by the caller
    assert fetch._retry_after("soon") is None and fetch._retry_after("9" * 400) > 0


def test_jobs_listed_twice_are_collected_once(jhs, tmp_path):
    ids = jhs.clone(4)
    jhs.duplicates = True
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=FAST, workers=3)
    assert (result.listed, result.collected) == (6, 6)
    everyone = {*ids, "job_1326381300833_2_2", "job_1326381300833_1_1"}
    _exactly_once(out, everyone)
    for job_id in ids:
        assert jhs.requests.count(f"/ws/v1/history/mapreduce/jobs/{job_id}") == 1


def test_a_body_larger_than_the_cap_is_refused(jhs, tmp_path):
    ids = jhs.clone(1)
    out = tmp_path / "t.parquet"
    small = HttpOptions(timeout=(2.0, 5.0), retries=0, backoff=0.01, pool=2, max_body=2000)
    result = collect_jhs(jhs.url, out, options=small)
    assert ids[0] in result.failed and "more than the 2,000 accepted" in result.failed[ids[0]]


def interruptible() -> None:
    """In a child about to start: Ctrl-C's default, even where the tests run with SIGINT
    ignored (a background job of a non-interactive shell), so the child sees what a user's
    Ctrl-C does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _run(url: str, out: Path, kill_at: int, how: str) -> subprocess.CompletedProcess:
    args = ["collect", "jhs", url, "-o", str(out), "--checkpoint", "3", "--workers", "2",
            "--retries", "1", "--timeout", "5"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-c", _HARNESS, str(kill_at), how, *args],
                          capture_output=True, text=True, timeout=120, env=env)


def _kill_and_resume(jhs, tmp_path: Path, kill_at: int, how: str) -> None:
    ids = {*jhs.clone(6), "job_1326381300833_2_2", "job_1326381300833_1_1"}  # 8 jobs
    out = tmp_path / "t.parquet"
    first = _run(jhs.url, out, kill_at, how)
    expected = {"kill": -signal.SIGKILL, "int": 130, "term": 143}[how]
    assert first.returncode == expected, first.stderr
    assert "Traceback" not in first.stderr
    result = collect_jhs(jhs.url, out, options=FAST, workers=2)
    assert result.failed == {}
    _exactly_once(out, ids)


#: Kill points in the default run: inside the first commit before its journal, between the
#: two renames of the second commit, and just after the last commit's journal.
@pytest.mark.parametrize(("kill_at", "how"), [(2, "kill"), (STEPS_PER_COMMIT + 5, "kill"),
                                              (2 * STEPS_PER_COMMIT + 4, "int"),
                                              (STEPS_PER_COMMIT + 5, "term")])
def test_killed_mid_commit_then_resumed_every_job_once(jhs, tmp_path, kill_at, how):
    _kill_and_resume(jhs, tmp_path, kill_at, how)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill", "int"])
@pytest.mark.parametrize("kill_at", range(1, 3 * STEPS_PER_COMMIT + 1))
def test_killed_at_every_step_of_every_commit_then_resumed(jhs, tmp_path, kill_at, how):
    _kill_and_resume(jhs, tmp_path, kill_at, how)


def test_ctrl_c_while_workers_wait_exits_at_once_and_keeps_what_was_fetched(jhs, tmp_path):
    ids = jhs.clone(6)
    for job_id in ids[3:]:  # these never finish answering
        jhs.slow.add(f"/ws/v1/history/mapreduce/jobs/{job_id}/counters")
    jhs.trickle = 5.0
    out = tmp_path / "t.parquet"
    args = [sys.executable, "-m", "jobsize", "collect", "jhs", jhs.url, "-o", str(out),
            "--workers", "3", "--timeout", "300", "--retries", "0"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    try:
        for _ in range(600):  # until the fast jobs have been fetched (each asks for its conf)
            done = {p.split("/")[6] for p in jhs.requests if p.endswith("/conf")}
            if {*ids[:3], "job_1326381300833_2_2", "job_1326381300833_1_1"} <= done:
                break
            time.sleep(0.1)
        time.sleep(1.0)  # let the main thread store them
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)  # a hang fails here, not after minutes
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    saved = set(read_trace(out)["job_id"])
    assert {*ids[:3], "job_1326381300833_2_2", "job_1326381300833_1_1"} <= saved
    jhs.slow.clear()
    collect_jhs(jhs.url, out, options=FAST)
    _exactly_once(out, {*ids, "job_1326381300833_2_2", "job_1326381300833_1_1"})
