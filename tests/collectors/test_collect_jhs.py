"""collectors.jhs against a JobHistory Server on loopback serving the documented examples."""

from __future__ import annotations

import json

import pytest
from collect_fuzz import damaged_json, fuzz_pair, hostile_text, only_jobsize_errors
from conftest import require_shared
from hypothesis import strategies as st
from jhs_fake import DOC_JOB, REDUCE_ATTEMPT, answering_on
from jobsize.collectors.jhs import HistoryServer, JobFilter, collect_jhs
from jobsize.collectors.rest import HttpOptions, RestClient
from pytest_httpserver import HTTPServer
from urllib3.exceptions import InsecureRequestWarning

from jobsize.errors import ConfigError, JobsizeError, ParseError, RemoteError
from jobsize.schema import TASK_COLUMNS, read_trace, tasks_path

FAST = HttpOptions(timeout=(2.0, 0.5), retries=3, backoff=0.01, pool=4)


@pytest.fixture
def jhs(server, shared):
    return answering_on(server, shared)


def _jobs(path):
    return read_trace(path).set_index("job_id")


def test_documented_examples_become_the_expected_records(jhs, tmp_path):
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=FAST)
    assert (result.listed, result.collected, result.failed) == (2, 2, {})
    job = _jobs(out).loc[DOC_JOB]
    # job.json
    assert (job["job_name"], job["user"], job["queue"], job["state"]) == (
        "Sleep job", "user1", "default", "SUCCEEDED")
    assert (job["submit_time_ms"], job["launch_time_ms"], job["finish_time_ms"]) == (
        1326381446500, 1326381446529, 1326381582106)
    assert (job["n_maps"], job["n_reduces"], job["uberized"]) == (1, 1, False)
    # job-counters.json totalCounterValue
    assert job["map_input_records"] == 1
    assert job["map_output_records"] == 1200
    assert job["map_output_bytes"] == 4800
    assert job["reduce_shuffle_bytes"] == 2235
    assert job["reduce_input_records"] == 1200
    assert job["reduce_input_groups"] == 1200
    assert job["reduce_output_records"] == 0
    # task-attempts.json: the map attempt ran 1326381450680 → 1326381453318
    assert job["map_time_ms"] == 1326381453318 - 1326381450680 == 2638
    assert job["reduce_time_ms"] == 2540 + 2589 + 124961
    assert (job["map_wasted_ms"], job["reduce_wasted_ms"]) == (0, 0)
    # job-conf.json sets no container sizes: Hadoop's defaults
    assert (job["map_memory_mb"], job["reduce_memory_mb"], job["am_memory_mb"]) == (
        1024, 1024, 1536)
    assert job["source"] == "jhs" and job["complete"]
    tasks = read_trace(tasks_path(out), columns=TASK_COLUMNS)
    assert sorted(tasks["attempt_id"]) == sorted([
        "attempt_1326381300833_1_1_m_0_0", "attempt_1326381300833_1_1_r_0_0",
        "attempt_1326381300833_2_2_m_0_0", "attempt_1326381300833_2_2_r_0_0"])
    other = _jobs(out).loc["job_1326381300833_1_1"]
    assert other["job_name"] == "word count" and other["finish_time_ms"] == 1326381356010


def test_without_attempts_times_come_from_job_averages(jhs, tmp_path):
    out = tmp_path / "t.parquet"
    collect_jhs(jhs.url, out, attempts=False, options=FAST)
    job = _jobs(out).loc[DOC_JOB]
    assert job["map_time_ms"] == 2638 * 1  # avgMapTime × successfulMapAttempts
    assert job["reduce_time_ms"] == (2540 + 2589 + 124961) * 1
    assert not any("/attempts" in p for p in jhs.requests)


def test_filters_are_sent_as_query_parameters(jhs):
    client = HistoryServer(jhs.url, FAST)
    assert [j.job_id for j in client.jobs(JobFilter(finished_begin_ms=1326381400000))] == [
        DOC_JOB]
    assert client.jobs(JobFilter(user="nobody")) == []
    assert len(client.jobs(JobFilter(state="SUCCEEDED", queue="default", limit=1))) == 1
    with pytest.raises(ConfigError, match="state must be one of"):
        client.jobs(JobFilter(state="RUNNING"))


def test_since_last_asks_only_for_newer_jobs(jhs, tmp_path):
    out = tmp_path / "t.parquet"
    jhs.only(["job_1326381300833_1_1"])
    collect_jhs(jhs.url, out, options=FAST)
    jhs.jobs.clear()
    jhs._add(jhs.docs["jobs"]["jobs"]["job"][0])
    jhs._add(jhs.docs["jobs"]["jobs"]["job"][1])
    jhs.requests.clear()
    result = collect_jhs(jhs.url, out, since_last=True, options=FAST)
    assert (result.listed, result.skipped, result.collected) == (2, 1, 1)
    assert len(read_trace(out)) == 2


@pytest.mark.parametrize("fault", ["500", "timeout", "reset", "truncate", "short"])
def test_transient_faults_are_retried(jhs, tmp_path, fault):
    ids = jhs.clone(4)
    for job_id in ids:
        base = f"/ws/v1/history/mapreduce/jobs/{job_id}"
        for path in (base, f"{base}/counters", f"{base}/conf", f"{base}/tasks"):
            jhs.faults[path] = [fault, fault]
    jhs.faults["/ws/v1/history/mapreduce/jobs"] = [fault]
    jhs.sleep = 1.0
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=FAST, workers=4)
    assert result.failed == {}
    assert set(_jobs(out).index) == {*ids, DOC_JOB, "job_1326381300833_1_1"}
    assert _jobs(out).loc[ids[0], "map_time_ms"] == 2638
    first = f"/ws/v1/history/mapreduce/jobs/{ids[0]}/counters"
    assert jhs.requests.count(first) == 3  # two faults, then the answer


def test_a_job_that_keeps_failing_is_reported_by_id(jhs, tmp_path):
    ids = jhs.clone(3)
    jhs.broken.add(f"/ws/v1/history/mapreduce/jobs/{ids[1]}/counters")
    out = tmp_path / "t.parquet"
    result = collect_jhs(jhs.url, out, options=FAST)
    assert list(result.failed) == [ids[1]]
    assert "HTTP 500" in result.failed[ids[1]] and ids[1] in result.failed[ids[1]]
    assert ids[1] not in set(_jobs(out).index)
    assert result.collected == 4
    # the next run retries only the job that failed
    jhs.broken.clear()
    again = collect_jhs(jhs.url, out, options=FAST)
    assert (again.collected, again.skipped, again.failed) == (1, 4, {})
    assert len(read_trace(out)) == 5


def test_interrupted_run_resumes_without_losing_or_repeating_jobs(jhs, tmp_path):
    ids = jhs.clone(10)
    out = tmp_path / "t.parquet"
    seen = []

    def interrupt(n=1):
        seen.append(n)
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        collect_jhs(jhs.url, out, options=FAST, workers=2, advance=interrupt)
    saved = set(read_trace(out)["job_id"])
    assert len(saved) >= 5  # everything fetched before the interruption was written
    jhs.requests.clear()
    result = collect_jhs(jhs.url, out, options=FAST, workers=2)
    final = read_trace(out)
    assert sorted(final["job_id"]) == sorted({*ids, DOC_JOB, "job_1326381300833_1_1"})
    assert result.skipped == len(saved)
    fetched_again = {p.split("/")[6] for p in jhs.requests if p.count("/") >= 6}
    assert not fetched_again & saved
    tasks = read_trace(tasks_path(out), columns=TASK_COLUMNS)
    assert len(tasks) == 2 * len(final)  # no duplicated attempt rows


def test_checkpoints_write_the_trace_during_the_run(jhs, tmp_path):
    jhs.clone(5)
    out = tmp_path / "t.parquet"
    sizes = []

    def look(n=1):
        sizes.append(len(read_trace(out)) if out.exists() else 0)

    collect_jhs(jhs.url, out, options=FAST, workers=1, checkpoint=2, advance=look)
    assert sizes[-1] >= 4 and sizes[0] == 0
    assert len(read_trace(out)) == 7


def test_unreachable_server_is_a_remote_error(tmp_path):
    with pytest.raises(RemoteError, match=r"http://127.0.0.1:9/ws/v1/history/mapreduce/jobs"):
        collect_jhs("http://127.0.0.1:9", tmp_path / "t.parquet",
                    options=HttpOptions(retries=1, backoff=0.01, timeout=(0.5, 0.5)))


def test_malformed_document_names_url_and_json_path(jhs):
    jhs.jobs[DOC_JOB]["job"]["mapsTotal"] = "one"
    with pytest.raises(ParseError, match=r"jobs/job_1326381300833_2_2: \$\.job\.mapsTotal: "
                                         r"expected an integer"):
        HistoryServer(jhs.url, FAST).collect_job(DOC_JOB)


def test_404_is_not_retried(jhs):
    client = HistoryServer(jhs.url, FAST)
    with pytest.raises(RemoteError, match="HTTP 404") as info:
        client.job("job_0_0")
    assert info.value.status == 404
    assert jhs.requests.count("/ws/v1/history/mapreduce/jobs/job_0_0") == 1


def test_tls_and_kerberos_options_are_checked(tmp_path):
    with pytest.raises(ConfigError, match="CA bundle not found"):
        RestClient("https://jhs:19890", HttpOptions(verify=str(tmp_path / "ca.pem")))
    with pytest.raises(ConfigError, match="not an http"):
        RestClient("jhs:19888")
    try:
        import requests_gssapi  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match="kerberos"):
            RestClient("http://jhs:19888", HttpOptions(kerberos=True))
    else:
        client = RestClient("http://jhs:19888", HttpOptions(kerberos=True))
        assert type(client._session().auth).__name__ == "HTTPSPNEGOAuth"


# -- fuzzing the JSON documents ----------------------------------------------------------------

class _Documents:
    """Stands in for the HTTP client: answers each endpoint with a (possibly damaged) doc."""

    def __init__(self, docs: dict[str, object]) -> None:
        self.docs = docs

    def url(self, path: str) -> str:
        return f"http://jhs/{path}"

    def get_json(self, path: str, params=None):
        tail = path.split("/")[-1]
        if path.endswith("/attempts"):
            return self.docs["attempts_r" if "_r_" in path else "attempts_m"]
        return self.docs[{"counters": "counters", "conf": "conf", "tasks": "tasks"}.get(
            tail, "jobs" if tail == "jobs" else "job")]


def _documented() -> dict[str, object]:
    from conftest import shared_root

    rest = shared_root() / "hadoop" / "jhs-rest"
    if not rest.is_dir():
        return {}
    load = lambda name: json.loads((rest / f"{name}.json").read_text())  # noqa: E731
    return {"jobs": load("jobs"), "job": load("job"), "counters": load("job-counters"),
            "conf": load("job-conf"), "tasks": load("tasks"),
            "attempts_m": load("task-attempts"),
            "attempts_r": {"taskAttempts": {"taskAttempt": [REDUCE_ATTEMPT]}}}


_DOCS = _documented()


@st.composite
def _damaged_documents(draw):
    docs = dict(_DOCS)
    if docs:
        key = draw(st.sampled_from(sorted(docs)))
        docs[key] = draw(damaged_json(docs[key]))
    return docs


@st.composite
def _hostile_documents(draw):
    """One document as hostile text, decoded as the client decodes answers."""
    from jobsize.boundedjson import loads

    docs = dict(_DOCS)
    if docs:
        key = draw(st.sampled_from(sorted(docs)))
        text = draw(hostile_text(docs[key]))
        try:
            docs[key] = loads(text, source="http://jhs/doc")
        except JobsizeError:
            docs[key] = {}  # the client would retry, then report the job as failed
    return docs


def _parse_documents(docs) -> None:
    if not docs:  # the documents are the shared JobHistory Server examples
        require_shared()
    server = HistoryServer.__new__(HistoryServer)
    server.client = _Documents(docs)
    for mode in (True, False):
        only_jobsize_errors(lambda mode=mode: _stored(server, mode))
    only_jobsize_errors(lambda: server.jobs())


def _stored(server: HistoryServer, attempts: bool):
    """One job as the collector stores it: fetched, then checked."""
    from jobsize.validation import validated

    job = server.collect_job(DOC_JOB, attempts=attempts)
    return validated([job.record], job.rows, source="http://jhs")


test_fuzz_jhs_documents, test_fuzz_jhs_documents_slow = fuzz_pair(
    _damaged_documents(), _parse_documents, name="jhs_documents")
test_fuzz_jhs_hostile_text, test_fuzz_jhs_hostile_text_slow = fuzz_pair(
    _hostile_documents(), _parse_documents, name="jhs_hostile_text")


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    """A loopback HTTPS server with a self-signed certificate for localhost."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    srv = HTTPServer(ssl_context=context)
    srv.start()
    srv.expect_request("/ws/v1/history/mapreduce/jobs").respond_with_json(
        {"jobs": {"job": [{"id": DOC_JOB, "state": "SUCCEEDED", "finishTime": 1}]}})
    yield srv, cert
    srv.clear()
    srv.stop()


def test_tls_is_verified_against_the_ca_bundle(tls_server):
    srv, cert = tls_server
    url = srv.url_for("/")
    assert url.startswith("https://")
    trusted = HistoryServer(url, HttpOptions(verify=str(cert), retries=0))
    assert [j.job_id for j in trusted.jobs()] == [DOC_JOB]
    with pytest.raises(RemoteError, match=r"TLS failure|CERTIFICATE_VERIFY_FAILED"):
        HistoryServer(url, HttpOptions(retries=0)).jobs()
    unverified = HistoryServer(url, HttpOptions(verify=False, retries=0))
    with pytest.warns(InsecureRequestWarning):
        assert len(unverified.jobs()) == 1
