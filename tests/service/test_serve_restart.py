"""``jobsize serve`` as a process: SIGKILL it while jobs are being observed, start it again, and
every acknowledged observation is in the rebuilt model; SIGHUP reloads the model file."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import requests
from service_helpers import WAIT, as_jobs, expected, fit_model, same, usable

import jobsize
from jobsize.service.journal import read_journal


@contextlib.contextmanager
def _serving(model, journal, log) -> Iterator[tuple[subprocess.Popen, str]]:
    """``jobsize serve`` in a process of its own, its URL, and its end."""
    with open(log, "a") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jobsize", "serve", "--model", str(model), "--journal",
             str(journal), "--port", "0"],
            stdout=subprocess.PIPE, stderr=err, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            line = proc.stdout.readline()
            assert line.startswith("jobsize serve: http://"), (line, log.read_text())
            yield proc, line.split()[2]
        finally:
            proc.terminate()
            proc.wait(10)
            proc.stdout.close()


def _observe_until_killed(url: str, jobs: list[dict], acked: list[str]) -> None:
    session = requests.Session()
    for job in jobs:
        try:
            answer = session.post(url + "/observe", data=json.dumps(job), timeout=WAIT)
        except requests.RequestException:  # refused, reset, or an answer cut off by the kill
            return
        if answer.status_code == 200:
            acked.append(job["job_id"])


def test_sigkill_loses_no_acknowledged_observation(tmp_path, trace):
    model = fit_model(tmp_path / "m.json", trace.iloc[:200])
    journal = tmp_path / "observed.journal"
    finished = usable(jobsize.SizePredictor.load(model), as_jobs(trace.iloc[200:]))
    acked: list[str] = []
    with _serving(model, journal, tmp_path / "log") as (proc, url):
        clients = [threading.Thread(target=_observe_until_killed,
                                    args=(url, finished[k::6], acked)) for k in range(6)]
        for client in clients:
            client.start()
        deadline = time.monotonic() + 60
        while len(acked) < 40 and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)  # with observations in flight
        for client in clients:
            client.join(30)
    assert 40 <= len(acked) < len(finished)

    entries, _ = read_journal(journal)
    journaled = [e.job["job_id"] for e in entries]
    assert set(acked) <= set(journaled)
    assert len(journaled) == len(set(journaled))

    with _serving(model, journal, tmp_path / "log") as (proc, url):
        health = requests.get(url + "/health", timeout=WAIT).json()
        assert health["journal_entries"] == health["observed"] == len(entries)
        assert health["model"]["training"]["observed"] == len(entries)
        rebuilt = jobsize.SizePredictor.load(model)
        for entry in entries:
            rebuilt.observe(entry.job)
        for job in finished[-10:]:
            answer = requests.post(url + "/predict", data=json.dumps(job), timeout=WAIT).json()
            assert same(answer, expected(rebuilt, job))

        # a job observed before the kill is a duplicate after it; learning goes on where the
        # journal left off
        first = entries[0]
        answer = requests.post(url + "/observe", data=json.dumps(first.job), timeout=WAIT).json()
        assert answer["duplicate"] and answer["seq"] == first.seq
        fresh = next(job for job in finished if job["job_id"] not in journaled)
        answer = requests.post(url + "/observe", data=json.dumps(fresh), timeout=WAIT).json()
        assert answer["seq"] == entries[-1].seq + 1 and not answer["duplicate"]

        # SIGHUP reloads a refitted model file, keeping what was observed
        fit_model(model, trace.iloc[50:250])
        proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while requests.get(url + "/health", timeout=WAIT).json()["reloads"] < 1:
            assert time.monotonic() < deadline, "SIGHUP did not reload the model"
            time.sleep(0.05)
        refitted = jobsize.SizePredictor.load(model)
        for entry in read_journal(journal)[0]:
            refitted.observe(entry.job)
        job = finished[-1]
        answer = requests.post(url + "/predict", data=json.dumps(job), timeout=WAIT).json()
        assert same(answer, expected(refitted, job))
        assert not same(answer, expected(rebuilt, job))
