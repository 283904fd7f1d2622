"""``jobsize serve`` as an HTTP service: /v1/ paths and their aliases, JSON errors, the OpenAPI
document, liveness and readiness, process metrics, the bearer token, TLS, read timeouts and
bounds, clients that leave mid-body, batches that let single predictions through, and retryable
conditions answered 503 with Retry-After.

No test here asserts a time: a timeout is made small and the test waits for its answer.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import logging
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from service_helpers import WAIT, Running, as_jobs, expected, usable

import jobsize
from jobsize.cli import build_parser
from jobsize.errors import ConfigError
from jobsize.service.app import create_app
from jobsize.service.journal import read_journal
from jobsize.service.model_state import ModelState
from jobsize.service.requests import Limits
from jobsize.service.server import ServerSettings, bind, is_loopback, url_of

TOKEN = "s3cret-t0ken"



@pytest.fixture(scope="module")
def finished(model_file, trace):
    jobs = usable(jobsize.SizePredictor.load(model_file), as_jobs(trace.iloc[200:]))
    assert len(jobs) >= 60
    return jobs


@pytest.fixture
def serving(tmp_path, model_file):
    """A factory of services on this test's journal, each stopped at the end."""
    started: list[Running] = []

    def start(**kw) -> Running:
        started.append(Running(model_file, tmp_path / f"journal{len(started)}", **kw))
        return started[-1]

    yield start
    for service in started:
        service.stop()


@pytest.fixture
def service(serving):
    return serving()


def _post(url: str, body=b"", **kw) -> requests.Response:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return requests.post(url, data=data, timeout=WAIT, **kw)


def _raw(service: Running, data: bytes) -> bytes:
    """What the service answers ``data`` sent on a fresh connection, until it closes it."""
    with socket.create_connection(service.address, timeout=30) as conn:
        conn.sendall(data)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


# ---------------------------------------------------------------------------------------------
# Paths, errors, documents


def test_unknown_paths_and_methods_answer_json(service):
    answer = requests.get(service.url + "/v1/predict", timeout=WAIT)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert "GET is not allowed" in answer.json()["error"]
    for path in ("/nope", "/v1/nope", "/predict/", "/v1/predict/"):
        answer = _post(service.url + path, "{}", allow_redirects=False)
        assert answer.status_code == 404, path  # not a redirect to the path without the slash
        assert answer.headers["content-type"] == "application/json"
        assert list(answer.json()) == ["error"]


def test_v1_paths_and_their_old_aliases_answer_alike(service, model_file, finished):
    model = jobsize.SizePredictor.load(model_file)
    job = finished[0]
    for path in ("/v1/predict", "/predict"):
        assert _post(service.url + path, job).json() == expected(model, job)
    for path in ("/v1/predict/batch", "/predict/batch"):
        answer = _post(service.url + path, {"jobs": [job]}).json()
        assert answer == {"predictions": [{"prediction": expected(model, job)}]}
    for path in ("/v1/observe", "/observe"):
        answer = _post(service.url + path, finished[1])
        assert answer.status_code == 200
        assert set(answer.json()) == {"seq", "key", "learned", "held", "duplicate", "observed"}
    for path in ("/v1/health", "/health"):
        assert requests.get(service.url + path, timeout=WAIT).json()["status"] == "ok"
    for path in ("/v1/reload", "/reload"):
        assert _post(service.url + path).status_code == 200


def test_the_openapi_document_lists_every_route(service):
    answer = requests.get(service.url + "/v1/openapi.json", timeout=WAIT)
    assert answer.status_code == 200
    doc = answer.json()
    assert doc["openapi"].startswith("3.1")
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "description": "jobsize serve --token-file"}
    assert doc["components"]["schemas"]["Error"]["required"] == ["error"]
    served = {(route.path, method.lower()) for route in service.app.routes
              for method in route.methods if method != "HEAD"}
    aliases = {"/predict", "/predict/batch", "/observe", "/reload", "/health"}
    documented = {(path, method) for path, item in doc["paths"].items()
                  for method in item if method != "parameters"}
    assert documented == {(p, m) for p, m in served if p not in aliases}
    for path in ("/v1/observe", "/v1/reload", "/v1/held/{key}/accept", "/v1/held/{key}/drop"):
        assert doc["paths"][path]["post"]["security"] == [{"bearer": []}]
    assert "security" not in doc["paths"]["/v1/predict"]["post"]


def test_liveness_readiness_and_a_journal_that_failed(service, finished):
    assert requests.get(service.url + "/livez", timeout=WAIT).json() == {"status": "alive"}
    answer = requests.get(service.url + "/readyz", timeout=WAIT)
    assert answer.status_code == 200 and answer.json() == {"status": "ready"}

    service.state.failure = "journal write failed: No space left on device"
    answer = requests.get(service.url + "/readyz", timeout=WAIT)
    assert answer.status_code == 503 and int(answer.headers["retry-after"]) > 0
    assert "No space left" in answer.json()["error"]
    answer = _post(service.url + "/v1/observe", finished[0])
    assert answer.status_code == 503 and int(answer.headers["retry-after"]) > 0
    assert requests.get(service.url + "/livez", timeout=WAIT).status_code == 200
    assert _post(service.url + "/v1/predict", finished[0]).status_code == 200


def test_metrics_include_the_process_and_the_held_observations(service):
    text = requests.get(service.url + "/metrics", timeout=WAIT).text
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                 "process_open_fds", "python_info", "jobsize_held_observations",
                 "jobsize_duplicate_observations", "jobsize_request_body_bytes_in_flight"):
        assert f"\n{name}" in text, name


def test_a_bug_is_an_internal_error_in_json_and_one_logged_traceback(service, finished,
                                                                     monkeypatch):
    def broken(*args, **kw):
        raise RuntimeError("a bug")

    records = _Records()
    with records.attached():
        monkeypatch.setattr(jobsize, "predict", broken)
        answer = _post(service.url + "/v1/predict", finished[0])
    assert answer.status_code == 500 and answer.json() == {"error": "internal error"}
    assert "a bug" not in answer.text
    tracebacks = [r for r in records.records if r.exc_info]
    assert len(tracebacks) == 1 and tracebacks[0].name == "jobsize.service"


# ---------------------------------------------------------------------------------------------
# Authentication and TLS


def test_a_token_guards_what_changes_the_model_and_nothing_else(serving, finished):
    service = serving(token=TOKEN)
    url = service.url
    good = {"Authorization": f"Bearer {TOKEN}"}
    for path, body in (("/v1/observe", finished[0]), ("/observe", finished[0]),
                       ("/v1/reload", b""), ("/v1/held/k1/accept", b""),
                       ("/v1/held/k1/drop", b"")):
        answer = _post(url + path, body)
        assert answer.status_code == 401, path
        assert answer.headers["www-authenticate"].startswith("Bearer")
        answer = _post(url + path, body, headers={"Authorization": "Bearer not-it"})
        assert answer.status_code == 403, path
        answer = _post(url + path, body, headers={"Authorization": f"Basic {TOKEN}"})
        assert answer.status_code == 401, path
        assert list(answer.json()) == ["error"]
    assert read_journal(service.state.journal.path)[0] == []

    assert _post(url + "/v1/observe", finished[0], headers=good).status_code == 200
    assert _post(url + "/v1/reload", headers=good).status_code == 200
    assert _post(url + "/v1/predict", finished[1]).status_code == 200
    assert _post(url + "/v1/predict/batch", {"jobs": [finished[1]]}).status_code == 200
    for path in ("/v1/health", "/metrics", "/livez", "/readyz", "/v1/openapi.json"):
        assert requests.get(url + path, timeout=WAIT).status_code == 200, path


def _serve_args(tmp_path, *extra: str):
    return build_parser().parse_args(["serve", "--model", str(tmp_path / "absent.json"),
                                      *extra])


def test_the_cli_refuses_a_public_host_without_a_token(tmp_path, monkeypatch):
    monkeypatch.delenv("JOBSIZE_SERVE_TOKEN", raising=False)
    for host in ("0.0.0.0", "::", "10.1.2.3", "scheduler.example.com"):
        args = _serve_args(tmp_path, "--host", host)
        with pytest.raises(ConfigError, match=r"not loopback.*--insecure") as info:
            args.func(args)  # refused before the model is read or a port bound
        assert "\n" not in str(info.value)

    empty, token = tmp_path / "empty", tmp_path / "token"
    empty.write_text("  \n")
    token.write_text(f"\n{TOKEN}\n")
    for extra, reason in (((), "absent.json"),  # passes the checks, fails at the model
                          (("--token-file", str(tmp_path / "missing")), "missing: cannot read"),
                          (("--token-file", str(empty)), "empty: the file is empty"),
                          (("--token-file", str(token), "--tls-cert", str(token)),
                           "--tls-cert and --tls-key go together")):
        args = _serve_args(tmp_path, "--host", "0.0.0.0", *extra)
        if not extra:
            monkeypatch.setenv("JOBSIZE_SERVE_TOKEN", TOKEN)
        with pytest.raises(jobsize.JobsizeError, match=reason):
            args.func(args)
        monkeypatch.delenv("JOBSIZE_SERVE_TOKEN", raising=False)
    from jobsize.cli.serve import read_token
    assert read_token(str(token)) == TOKEN


def test_loopback_hosts():
    assert all(map(is_loopback, ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost")))
    assert not any(map(is_loopback, ("0.0.0.0", "::", "10.0.0.1", "example.com")))


def _self_signed(directory: Path) -> tuple[Path, Path]:
    pytest.importorskip("cryptography", reason="generating a test certificate needs the "
                        "cryptography package (the test extra)")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def test_tls_serves_https(serving, tmp_path, finished):
    cert, key = _self_signed(tmp_path)
    service = serving(token=TOKEN, settings=ServerSettings(tls_cert=str(cert),
                                                           tls_key=str(key)))
    assert service.url.startswith("https://127.0.0.1:")
    answer = requests.get(service.url + "/livez", timeout=WAIT, verify=str(cert))
    assert answer.json() == {"status": "alive"}
    answer = _post(service.url + "/v1/observe", finished[0], verify=str(cert),
                   headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    with pytest.raises(requests.exceptions.ConnectionError):  # plain HTTP is not served
        requests.get(service.url.replace("https", "http") + "/livez", timeout=WAIT)


# ---------------------------------------------------------------------------------------------
# Slow, partial and departing clients; bounds


def test_a_body_not_sent_in_time_is_answered_408(serving):
    service = serving(limits=Limits(read_seconds=0.3))
    answer = _raw(service, b"POST /v1/predict HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n"
                           b"Content-Type: application/json\r\n\r\n{\"n_maps\": ")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
    assert "not received within 0.3 s" in json.loads(body)["error"]


def test_headers_not_sent_in_time_are_answered_408_and_the_connection_closed(serving):
    service = serving(settings=ServerSettings(read_timeout=0.3))
    answer = _raw(service, b"POST /v1/predict HTTP/1.1\r\nHost: t\r\n")
    assert answer.startswith(b"HTTP/1.1 408")
    assert json.loads(answer.partition(b"\r\n\r\n")[2]) == {
        "error": "request headers not received in time"}
    assert _raw(service, b"").startswith(b"HTTP/1.1 408")  # a connection that says nothing
    # a kept-alive connection gets the same deadline for its next request's headers
    with socket.create_connection(service.address, timeout=30) as conn:
        conn.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n\r\nGET /livez HTTP/1.1\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 408" in answer


def _answer(conn: socket.socket) -> bytes:
    """One whole HTTP answer read from ``conn``: its head and its Content-Length of body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


def test_slow_clients_beyond_the_cap_make_way_and_a_connected_client_is_never_refused(serving):
    service = serving(settings=ServerSettings(max_connections=4, read_timeout=30))
    job = b'{"n_maps": 3}'
    request = (b"POST /v1/predict HTTP/1.1\r\nHost: t\r\nContent-Length: "
               + str(len(job)).encode() + b"\r\n\r\n" + job)
    with socket.create_connection(service.address, timeout=30) as scheduler:
        scheduler.sendall(request)
        assert _answer(scheduler).startswith(b"HTTP/1.1 400")  # answered, kept alive
        slow = []
        for _ in range(8):  # twice the cap, each sending part of its headers and no more
            conn = socket.create_connection(service.address, timeout=30)
            conn.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: t\r\n")
            slow.append(conn)
        # the oldest slow ones were pushed out with a 408; the newest are still held
        assert _answer(slow[0]).startswith(b"HTTP/1.1 408")
        slow[-1].settimeout(0.5)
        with pytest.raises(TimeoutError):
            slow[-1].recv(65536)
        scheduler.sendall(request)  # the connected scheduler is still answered
        assert _answer(scheduler).startswith(b"HTTP/1.1 400")
        fresh = socket.create_connection(service.address, timeout=30)  # and a new client too
        fresh.sendall(request)
        assert _answer(fresh).startswith(b"HTTP/1.1 400")
        for conn in [*slow, fresh]:
            conn.close()


def test_bodies_in_flight_share_a_budget(serving):
    service = serving(limits=Limits(inflight_bytes=4096))
    answer = _post(service.url + "/v1/predict", {"pad": "x" * 5000})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
    assert "too many request bodies" in answer.json()["error"]
    answer = _post(service.url + "/v1/predict", {"pad": "x" * 100})
    assert answer.status_code == 400  # the budget was given back: a job, read and refused


class _Records(logging.Handler):
    """Every log record of the service and of uvicorn while attached."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def attached(self):
        import contextlib

        @contextlib.contextmanager
        def attach():
            loggers = [logging.getLogger(n) for n in ("", "uvicorn")]
            for logger in loggers:
                logger.addHandler(self)
            try:
                yield self
            finally:
                for logger in loggers:
                    logger.removeHandler(self)
        return attach()


def test_a_client_leaving_mid_body_leaves_no_traceback(service, capfd):
    records = _Records()
    with records.attached():
        for _ in range(3):
            with socket.create_connection(service.address, timeout=WAIT) as conn:
                conn.sendall(b"POST /v1/observe HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n"
                             b"\r\n{\"job_id\": \"job_1\", ")
        deadline = time.monotonic() + 30
        while (_disconnects(service) or 0) < 3:
            assert time.monotonic() < deadline, "the departures were not seen"
            time.sleep(0.02)
    assert not [r for r in records.records if r.exc_info or r.levelno >= logging.ERROR]
    assert "Traceback" not in capfd.readouterr().err
    assert read_journal(service.state.journal.path)[0] == []


def _disconnects(service: Running) -> float | None:
    text = requests.get(service.url + "/metrics", timeout=WAIT).text
    for line in text.splitlines():
        if line.startswith('jobsize_requests_total{endpoint="observe",status="499"}'):
            return float(line.split()[-1])
    return None


def test_a_batch_is_predicted_in_a_worker_process_while_single_predictions_are_answered(
        model_file, tmp_path, finished, monkeypatch):
    """Both requests in one event loop: the batch is handed to the worker process, and the
    single prediction is answered by the service meanwhile; the batch's answers equal the live
    model's own, job for job, and none of them was computed in the service's process."""
    state = ModelState(model_file, tmp_path / "journal")
    app = create_app(state, limits=Limits(body_bytes=16 << 20))
    jobs = [finished[i % len(finished)] for i in range(1000)]
    calls = [0]
    real = jobsize.predict

    def counted(*args, **kw):
        calls[0] += 1
        return real(*args, **kw)

    monkeypatch.setattr(jobsize, "predict", counted)

    async def both() -> tuple[list[str], tuple, tuple]:
        done: list[str] = []
        batch = asyncio.create_task(_asgi(app, "/v1/predict/batch", {"jobs": jobs}))
        batch.add_done_callback(lambda _: done.append("batch"))
        while not app.state.batches._turn.locked():  # handed to the worker
            await asyncio.sleep(0)
        one = await _asgi(app, "/v1/predict", finished[0])
        done.append("single")
        return done, await batch, one

    try:
        done, batch, one = asyncio.run(both())
        # the worker keeps its model until the live one changes; then it is sent the new one
        asyncio.run(state.observe(finished[1]))
        again = asyncio.run(_asgi(app, "/v1/predict/batch", {"jobs": jobs[:5]}))
    finally:
        app.state.batches.close()
        state.close()
    assert done == ["single", "batch"] and calls[0] == 1
    model = jobsize.SizePredictor.load(model_file)
    assert one == (200, expected(model, finished[0]))
    status, answer = batch
    assert status == 200
    assert answer["predictions"] == [{"prediction": expected(model, job)} for job in jobs]
    assert again[1]["predictions"] == [{"prediction": expected(state.live, job)}
                                       for job in jobs[:5]]
    assert again[1] != {"predictions": answer["predictions"][:5]}


async def _asgi(app, path: str, doc) -> tuple[int, dict]:
    """One POST straight to the ASGI application."""
    body = json.dumps(doc).encode()
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict] = []

    async def receive():
        if messages:
            return messages.pop(0)
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "server": ("test", 80),
             "client": ("test", 1), "headers": [(b"content-length", str(len(body)).encode()),
                                                (b"content-type", b"application/json")]}
    await app(scope, receive, send)
    return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


# ---------------------------------------------------------------------------------------------
# Retryable conditions


def test_a_reload_while_one_runs_is_answered_503_retry_after(service, monkeypatch):
    from jobsize.service import model_state

    original = model_state.replay
    entered, release = threading.Event(), threading.Event()

    def slow_replay(*args):  # the first reload stalls while it reads the journal
        entered.set()
        release.wait(30)
        return original(*args)

    monkeypatch.setattr(model_state, "replay", slow_replay)
    first: list[requests.Response] = []
    thread = threading.Thread(target=lambda: first.append(_post(service.url + "/v1/reload")))
    thread.start()
    try:
        assert entered.wait(30)
        answer = _post(service.url + "/v1/reload")
        assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
        assert "already running" in answer.json()["error"]
    finally:
        release.set()
        thread.join(30)
    assert first[0].status_code == 200


# ---------------------------------------------------------------------------------------------
# Held and duplicate observations (with the model_state rewrite)


def test_held_observations_can_be_listed_accepted_and_dropped(serving, finished):
    service = serving(token=TOKEN)
    good = {"Authorization": f"Bearer {TOKEN}"}
    assert requests.get(service.url + "/v1/held", timeout=WAIT).json() == {"held": []}
    for action in ("accept", "drop"):
        answer = _post(service.url + f"/v1/held/no-such-key/{action}", headers=good)
        assert answer.status_code == 404 and "no-such-key" in answer.json()["error"]
    bad = [{**job, "job_id": job["job_id"] + "_x", "map_time_ms": job["map_time_ms"] * 1000}
           for job in finished[:2]]
    for job in bad:
        for key in ("submit_time_ms", "launch_time_ms", "finish_time_ms"):
            job.pop(key, None)
        answer = _post(service.url + "/v1/observe", job, headers=good)
        assert answer.status_code == 202
        assert answer.json()["held"] and not answer.json()["learned"]
    listed = requests.get(service.url + "/v1/held", timeout=WAIT).json()["held"]
    assert [h["key"] for h in listed] == [job["job_id"] for job in bad]
    assert all("standard errors" in h["reason"] and h["job"] for h in listed)
    assert _post(service.url + f"/v1/held/{bad[0]['job_id']}/accept").status_code == 401
    accepted = _post(service.url + f"/v1/held/{bad[0]['job_id']}/accept", headers=good)
    assert accepted.status_code == 200 and accepted.json()["learned"]
    dropped = _post(service.url + f"/v1/held/{bad[1]['job_id']}/drop", headers=good)
    assert dropped.status_code == 200
    assert requests.get(service.url + "/v1/held", timeout=WAIT).json() == {"held": []}
    assert requests.get(service.url + "/v1/health", timeout=WAIT).json()["held"] == 0


def test_observing_a_job_twice_is_a_duplicate_with_its_key(service, finished):
    job = finished[0]
    first = _post(service.url + "/v1/observe", job).json()
    again = _post(service.url + "/v1/observe", job)
    assert again.status_code == 200
    assert first["key"] == again.json()["key"] == job["job_id"]
    assert (first["duplicate"], again.json()["duplicate"]) == (False, True)
    assert len(read_journal(service.state.journal.path)[0]) == 1
    health = requests.get(service.url + "/v1/health", timeout=WAIT).json()
    assert health["duplicates"] == 1
    text = requests.get(service.url + "/metrics", timeout=WAIT).text
    assert "jobsize_duplicate_observations 1.0" in text


def test_url_of_says_https_with_tls():
    with bind("127.0.0.1", 0) as sock:
        port = sock.getsockname()[1]
        assert url_of(sock, tls=True) == f"https://127.0.0.1:{port}"
        assert urlsplit(url_of(sock)).scheme == "http"
