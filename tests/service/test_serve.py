"""``jobsize serve`` on loopback: predict, batch, observe, reload, health, metrics, refusals."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from service_helpers import WAIT, Running, as_jobs, expected, fit_model, same, usable

import jobsize
from jobsize.errors import JobsizeError
from jobsize.service.journal import read_journal
from jobsize.service.requests import Limits


@pytest.fixture
def service(tmp_path, model_file):
    running = Running(model_file, tmp_path / "journal", limits=Limits(body_bytes=64 * 1024))
    yield running
    running.stop()


def _post(service, path, body, **kw):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return requests.post(service.url + path, data=data, timeout=WAIT, **kw)


@pytest.fixture(scope="module")
def finished(model_file, trace):
    """Jobs after the model's training jobs that it can predict and learn from."""
    jobs = usable(jobsize.SizePredictor.load(model_file), as_jobs(trace.iloc[200:]))
    assert len(jobs) >= 60
    return jobs


def test_predict_answers_what_the_predictor_answers(service, model_file, trace):
    model = jobsize.SizePredictor.load(model_file)
    predicted = refused = 0
    for job in as_jobs(trace.iloc[200:240]):
        answer = _post(service, "/predict", job)
        try:
            want = expected(model, job)
        except JobsizeError as exc:  # refused in-process: refused the same way, in one line
            assert answer.status_code == 400
            assert answer.json() == {"error": " ".join(str(exc).split())}
            refused += 1
        else:
            assert answer.status_code == 200, answer.text
            assert answer.json() == want
            predicted += 1
    assert predicted >= 20


def test_batch_predicts_each_job_and_names_each_refusal(service, model_file, finished):
    model = jobsize.SizePredictor.load(model_file)
    jobs = finished[:4]
    bad = {"n_maps": 3}
    answer = _post(service, "/predict/batch", {"jobs": [*jobs, bad, "x"]})
    assert answer.status_code == 400 and "$.jobs[5]: expected a JSON object" in answer.text
    answer = _post(service, "/predict/batch", {"jobs": [*jobs, bad]})
    assert answer.status_code == 200
    out = answer.json()["predictions"]
    assert [o["prediction"] for o in out[:4]] == [expected(model, j) for j in jobs]
    assert list(out[4]) == ["error"] and "n_reduces" in out[4]["error"]


def test_observed_jobs_are_journaled_and_learned_as_in_process(service, model_file, finished):
    finished = finished[:50]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda job: _post(service, "/observe", job), finished))
    assert [a.status_code for a in answers] == [200] * len(finished)
    assert all(a.json()["learned"] for a in answers)
    assert sorted(a.json()["seq"] for a in answers) == list(range(1, len(finished) + 1))
    entries, _ = read_journal(service.state.journal.path)
    assert sorted(e.job["job_id"] for e in entries) == sorted(j["job_id"] for j in finished)

    # the model is the model file having observed the journal, in journal order
    reference_model = jobsize.SizePredictor.load(model_file)
    for entry in entries:
        reference_model.observe(entry.job)
    health = requests.get(service.url + "/health", timeout=WAIT).json()
    assert health["observed"] == health["journal_entries"] == len(finished)
    assert health["model"]["training"]["observed"] == len(finished)
    for job in usable(reference_model, finished[50:60]):
        assert same(_post(service, "/predict", job).json(), expected(reference_model, job))


def test_a_job_the_model_refuses_leaves_no_trace(service, finished):
    job = finished[0]
    before = _post(service, "/predict", job).json()
    for bad in ({**job, "map_time_ms": -5}, {**job, "n_maps": "many"}, ["not", "a", "job"]):
        answer = _post(service, "/observe", bad)
        assert answer.status_code == 400
        assert list(answer.json()) == ["error"] and "\n" not in answer.json()["error"]
    assert read_journal(service.state.journal.path)[0] == []
    assert _post(service, "/predict", job).json() == before


def test_reload_switches_to_the_new_file_and_keeps_the_journal(service, trace, finished):
    finished = finished[:30]
    for job in finished:
        assert _post(service, "/observe", job).status_code == 200
    model_file_copy = service.state.model_path
    original = model_file_copy.read_bytes()
    try:
        fit_model(model_file_copy, trace.iloc[100:300])
        answer = _post(service, "/reload", "")
        assert answer.status_code == 200, answer.text
        assert answer.json()["observed"] == len(finished)
        rebuilt = jobsize.SizePredictor.load(model_file_copy)
        for job in finished:
            rebuilt.observe(job)
        (job,) = usable(rebuilt, finished[-1:])
        assert same(_post(service, "/predict", job).json(), expected(rebuilt, job))

        model_file_copy.write_text("{ not a model")
        answer = _post(service, "/reload", "")
        assert answer.status_code == 500
        assert answer.json()["error"].startswith("reload failed, the model in use is unchanged")
        assert same(_post(service, "/predict", job).json(), expected(rebuilt, job))
    finally:
        model_file_copy.write_bytes(original)


@pytest.mark.parametrize(("body", "status", "reason"), [
    ("", 400, "empty body"),
    ("{not json", 400, "not valid JSON"),
    (b"\xff\xfe", 400, "not UTF-8"),
    ("[1, 2]", 400, "expected a JSON object"),
    ('{"n_maps": NaN}', 400, "NaN is not a number"),
    ('{"n_maps": Infinity}', 400, "Infinity is not a number"),
    ('{"n_maps": 1e999}', 400, "out of range"),
    ('{"n_maps": 2e18}', 400, "out of range"),
    ('{"n_maps": ' + "9" * 5000 + "}", 400, "too many digits"),
    ('{"a": ' * 30 + "1" + "}" * 30, 400, "nested deeper than 8"),
    ("[" * 100000 + "]" * 100000, 413, "exceeds"),
    ("{" + ",".join(f'"k{i}": 1' for i in range(1001)) + "}", 400, "more than 1000 keys"),
    ('{"n_maps": -4, "n_reduces": 1}', 400, "non-negative"),
])
def test_bad_requests_get_a_one_line_reason(service, body, status, reason):
    for path in ("/predict", "/observe"):
        answer = _post(service, path, body)
        assert answer.status_code == status, (path, answer.text)
        error = answer.json()["error"]
        assert reason in error and "\n" not in error
    assert read_journal(service.state.journal.path)[0] == []


def test_a_job_that_cannot_be_predicted_says_what_is_missing(service):
    answer = _post(service, "/predict", {"n_maps": 4, "n_reduces": 1})
    assert answer.status_code == 400 and "missing" in answer.json()["error"]


def test_a_declared_or_chunked_body_past_the_limit_is_refused(service):
    big = b'{"pad": "' + b"x" * (70 * 1024) + b'"}'
    assert _post(service, "/predict", big).status_code == 413
    answer = requests.post(service.url + "/predict", data=iter([big[:40000], big[40000:]]),
                           timeout=WAIT)  # chunked: no Content-Length
    assert answer.status_code == 413 and "exceeds" in answer.json()["error"]


def test_wrong_methods_and_paths(service):
    assert requests.get(service.url + "/predict", timeout=WAIT).status_code == 405
    assert requests.post(service.url + "/nope", timeout=WAIT).status_code == 404


def test_health_and_metrics(service, finished):
    job = finished[0]
    for _ in range(3):
        _post(service, "/predict", job)
    _post(service, "/predict", "[]")
    _post(service, "/observe", job)
    health = requests.get(service.url + "/health", timeout=WAIT).json()
    assert health["status"] == "ok" and health["model"]["features"] == "probe"
    assert health["observed"] == 1 and health["journal"].endswith("journal")
    text = requests.get(service.url + "/metrics", timeout=WAIT).text
    assert 'jobsize_requests_total{endpoint="predict",status="200"} 3.0' in text
    assert 'jobsize_requests_total{endpoint="predict",status="400"} 1.0' in text
    assert "jobsize_predictions_total 3.0" in text
    assert "jobsize_observations_total 1.0" in text
    assert "jobsize_model_observed_jobs 1.0" in text
    assert 'jobsize_request_seconds_count{endpoint="predict"} 4.0' in text
