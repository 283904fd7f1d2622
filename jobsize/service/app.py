"""The HTTP/JSON API (Starlette): predict, predict a batch, observe, reload, held observations,
health, liveness, readiness, metrics and the OpenAPI document.

    POST /v1/predict            a job                 → its prediction
    POST /v1/predict/batch      {"jobs": [job, ...]}  → {"predictions": [{"prediction"|"error"}]}
    POST /v1/observe            a finished job        → {"seq", "key", "learned", "held",
                                                         "duplicate", "observed"}, journaled
    POST /v1/reload             (no body)             → the model file and journal, reloaded
    GET  /v1/held                                     → {"held": [{"key", "seq", "reason", "job"}]}
    POST /v1/held/{key}/accept  (no body)             → the held observation, learned
    POST /v1/held/{key}/drop    (no body)             → the held observation, dropped
    GET  /v1/health                                   → model, journal and counts
    GET  /v1/openapi.json                             → this API as an OpenAPI 3.1 document
    GET  /livez, /readyz                              → alive; ready to observe (else 503)
    GET  /metrics                                     → Prometheus text format

The paths without ``/v1`` (``/predict``, ``/observe``, ...) are kept as aliases. With a token,
the endpoints that change the model (observe, reload, accept, drop) need ``Authorization: Bearer
<token>``: 401 without it, 403 with another one.

A job is what :func:`jobsize.predict` takes (job-record column names or Hadoop's names); a
prediction is everything the predictor returns, unbounded interval ends as null. Every error is
``{"error": "<one line>"}``: 400 for a request the service refuses, 404 and 405 for a path or
method it does not serve, 408 for a body not sent within the read timeout, 413 for a body too
large, 503 with ``Retry-After`` for what is worth retrying (a reload already running, too many
bodies being read at once, a journal that can no longer be written), 500 for a bug (its
traceback goes to the log, not to the client).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import jobsize
from jobsize.errors import JobsizeError
from jobsize.models.resources import PAPER_CLUSTER, Resources
from jobsize.service.answers import plain, prediction_dict
from jobsize.service.batches import BatchWorker
from jobsize.service.model_state import JournalFailed, ModelState, Observation, ReloadBusy
from jobsize.service.requests import BadRequest, Limits, job_object, parse_body

log = logging.getLogger("jobsize.service")

_LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5)
JOURNAL_RETRY_S = 10
THREAD_PARSE_BYTES = 64 * 1024  # bodies this large are parsed in a thread


class Metrics:
    """The service's Prometheus metrics, in a registry of their own, with the process's."""

    def __init__(self, state: ModelState) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self.requests = Counter("jobsize_requests", "HTTP requests by endpoint and status",
                                ["endpoint", "status"], registry=r)
        self.latency = Histogram("jobsize_request_seconds", "time to answer, by endpoint",
                                 ["endpoint"], buckets=_LATENCY_BUCKETS, registry=r)
        self.predictions = Counter("jobsize_predictions", "jobs predicted", registry=r)
        self.observations = Counter("jobsize_observations", "jobs observed and journaled",
                                    registry=r)
        self.reloads = Counter("jobsize_model_reloads", "model reloads", ["result"], registry=r)
        self.body_bytes = Gauge("jobsize_request_body_bytes_in_flight",
                                "body bytes of requests being read", registry=r)
        Gauge("jobsize_model_observed_jobs", "observations in the live model",
              registry=r).set_function(lambda: state.observed)
        Gauge("jobsize_journal_entries", "entries in the journal",
              registry=r).set_function(lambda: state.entries)
        Gauge("jobsize_held_observations", "observations held aside, not learned",
              registry=r).set_function(lambda: state.held_count)
        Gauge("jobsize_duplicate_observations", "observations of jobs already observed",
              registry=r).set_function(lambda: state.duplicates)


def _error(reason: str, status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": " ".join(reason.split())}, status_code=status, headers=headers)


def _retry(reason: str, seconds: int, status: int = 503) -> JSONResponse:
    return _error(reason, status, {"Retry-After": str(seconds)})


def create_app(state: ModelState, *, cluster: Resources = PAPER_CLUSTER,
               limits: Limits | None = None, token: str | None = None) -> Starlette:
    """The Starlette application serving ``state``'s model; with ``token``, the endpoints that
    change the model need it as a bearer token."""
    limits = limits or Limits()
    metrics = Metrics(state)
    in_flight = [0]  # body bytes held by the requests being read, all together
    batches = BatchWorker(limits, cluster)

    async def body(request: Request) -> Any:
        data = await raw_body(request)
        if len(data) > THREAD_PARSE_BYTES:  # a big body: parsed beside the loop
            return await asyncio.to_thread(parse_body, data, limits)
        return parse_body(data, limits)

    async def raw_body(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limits.body_bytes):
            raise BadRequest(f"body of {declared[:20]} bytes exceeds {limits.body_bytes}", 413)
        data = bytearray()
        try:
            async with asyncio.timeout(limits.read_seconds):
                async for chunk in request.stream():
                    if in_flight[0] + len(chunk) > limits.inflight_bytes:
                        raise BadRequest("too many request bodies being read at once", 503,
                                         retry_after=1)
                    in_flight[0] += len(chunk)
                    data += chunk
                    if len(data) > limits.body_bytes:
                        raise BadRequest(f"body exceeds {limits.body_bytes} bytes", 413)
            return bytes(data)
        except TimeoutError:
            raise BadRequest(f"body not received within {limits.read_seconds:g} s", 408) from None
        finally:
            in_flight[0] -= len(data)

    def predict_one(model: Any, job: dict[str, Any]) -> dict[str, Any]:
        return prediction_dict(jobsize.predict(model, job, cluster))

    async def predict(request: Request) -> Response:
        result = predict_one(state.live, job_object(await body(request)))
        metrics.predictions.inc()
        return JSONResponse(result)

    async def predict_batch(request: Request) -> Response:
        data = await raw_body(request)
        # one model for the whole batch, whatever is observed meanwhile
        try:
            status, answer, predicted = await batches.predict(state.version, state.live, data)
        except BrokenProcessPool:
            return _retry("the batch worker stopped; a new one takes the next batch", 1)
        metrics.predictions.inc(predicted)
        return Response(answer, status_code=status, media_type="application/json")

    def observation(found: Observation) -> Response:
        if not found.duplicate:
            metrics.observations.inc()
        return JSONResponse({"seq": found.seq, "key": found.key, "learned": found.learned,
                             "held": found.held, "duplicate": found.duplicate,
                             "observed": state.observed},
                            status_code=202 if found.held else 200)

    async def observe(request: Request) -> Response:
        return observation(await state.observe(job_object(await body(request))))

    async def reload_model() -> Any:
        """Reload (POST /reload and SIGHUP); the state refuses a second one with ReloadBusy."""
        try:
            built = await state.reload()
        except ReloadBusy:
            raise
        except JobsizeError:
            metrics.reloads.labels("failed").inc()
            raise
        metrics.reloads.labels("ok").inc()
        return built

    async def reload(request: Request) -> Response:
        try:
            built = await reload_model()
        except ReloadBusy:
            raise
        except JobsizeError as exc:
            return _error(f"reload failed, the model in use is unchanged: {exc}", 500)
        return JSONResponse({"model": state.model_info, "observed": state.observed,
                             "rejected": built.rejected})

    async def held(request: Request) -> Response:
        return JSONResponse({"held": plain(state.held_list())})

    async def accept(request: Request) -> Response:
        key = request.path_params["key"]
        try:
            found = await state.accept(key)
        except KeyError:
            return _error(f"no held observation {key}", 404)
        return observation(found)

    async def drop(request: Request) -> Response:
        key = request.path_params["key"]
        try:
            await state.drop(key)
        except KeyError:
            return _error(f"no held observation {key}", 404)
        return JSONResponse({"dropped": key})

    async def health(request: Request) -> Response:
        return JSONResponse({
            "status": "degraded" if state.failure else "ok", "failure": state.failure,
            "model": state.model_info, "journal": str(state.journal.path),
            "journal_entries": state.entries, "observed": state.observed,
            "held": state.held_count,
            "duplicates": state.duplicates,
            "rejected_on_replay": state.rejected, "reloads": state.reloads,
            "cluster": {"memory_mb": cluster.memory, "vcores": cluster.vcores}})

    async def livez(request: Request) -> Response:
        return JSONResponse({"status": "alive"})

    async def readyz(request: Request) -> Response:
        if state.failure is not None:
            return _retry(f"not ready: {state.failure}", JOURNAL_RETRY_S)
        return JSONResponse({"status": "ready"})

    async def prometheus(request: Request) -> Response:
        metrics.body_bytes.set(in_flight[0])
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi(authenticated=token is not None))

    def refusal(request: Request) -> Response | None:
        """None when the request may change the model, else the answer refusing it."""
        if token is None:
            return None
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return _error("this endpoint needs Authorization: Bearer <token>", 401,
                          {"WWW-Authenticate": 'Bearer realm="jobsize"'})
        if not hmac.compare_digest(given.strip().encode(), token.encode()):
            return _error("the bearer token is not this service's", 403,
                          {"WWW-Authenticate": 'Bearer realm="jobsize", error="invalid_token"'})
        return None

    def endpoint(name: str, handler: Callable[[Request], Awaitable[Response]], *,
                 guarded: bool = False) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            started = time.perf_counter()
            try:
                response = (refusal(request) if guarded else None) or await handler(request)
            except ClientDisconnect:  # gone mid-body: nobody to answer, nothing to report
                metrics.requests.labels(name, "499").inc()
                return Response(status_code=400)
            except BadRequest as exc:
                headers = {}
                if exc.status != 400:  # the rest of the body is not read: end the connection
                    headers["Connection"] = "close"
                if exc.retry_after is not None:
                    headers["Retry-After"] = str(exc.retry_after)
                response = _error(exc.reason, exc.status, headers)
            except ReloadBusy as exc:
                response = _retry(str(exc), 1)
            except JournalFailed as exc:
                response = _retry(str(exc), JOURNAL_RETRY_S)
            except JobsizeError as exc:  # the job cannot be predicted or observed as given
                response = _error(str(exc), 400)
            except Exception:
                log.exception("jobsize serve: %s %s failed", request.method, request.url.path)
                response = _error("internal error", 500)
            metrics.latency.labels(name).observe(time.perf_counter() - started)
            metrics.requests.labels(name, str(response.status_code)).inc()
            return response
        return run

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            reason = f"no endpoint {request.url.path} (see /v1/openapi.json)"
        elif exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "")
            reason = f"{request.method} is not allowed on {request.url.path} (allowed: {allowed})"
        else:
            reason = exc.detail
        return _error(reason, exc.status_code, dict(exc.headers or {}))

    async def internal_error(request: Request, exc: Exception) -> Response:
        return _error("internal error", 500)

    handlers: list[tuple[str, str, Callable[[Request], Awaitable[Response]], bool]] = [
        ("/predict", "predict", predict, False),
        ("/predict/batch", "predict_batch", predict_batch, False),
        ("/observe", "observe", observe, True),
        ("/reload", "reload", reload, True),
        ("/health", "health", health, False),
    ]
    routes = []
    for path, name, handler, guarded in handlers:
        wrapped = endpoint(name, handler, guarded=guarded)
        method = "GET" if name == "health" else "POST"
        routes += [Route("/v1" + path, wrapped, methods=[method]),
                   Route(path, wrapped, methods=[method])]  # the unversioned alias
    routes += [
        Route("/v1/held", endpoint("held", held), methods=["GET"]),
        Route("/v1/held/{key}/accept", endpoint("accept", accept, guarded=True),
              methods=["POST"]),
        Route("/v1/held/{key}/drop", endpoint("drop", drop, guarded=True), methods=["POST"]),
        Route("/v1/openapi.json", endpoint("openapi", openapi_json), methods=["GET"]),
        Route("/livez", endpoint("livez", livez), methods=["GET"]),
        Route("/readyz", endpoint("readyz", readyz), methods=["GET"]),
        Route("/metrics", endpoint("metrics", prometheus), methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                       Exception: internal_error})
    app.router.redirect_slashes = False  # POST /predict/ is a 404, not a redirect
    app.state.model = state
    app.state.metrics = metrics
    app.state.reload = reload_model
    app.state.batches = batches  # its worker process is stopped by batches.close()
    return app


# ---------------------------------------------------------------------------------------------
# The OpenAPI document


def _body(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERROR = {"$ref": "#/components/schemas/Error"}
_ANY_OBJECT = {"type": "object", "additionalProperties": True}


def _errors(*codes: int) -> dict[str, Any]:
    said = {400: "the request is refused (the reason is one line)",
            401: "no bearer token (WWW-Authenticate: Bearer)",
            403: "a bearer token that is not the service's",
            404: "no such held observation", 408: "the body was not sent within the read timeout",
            413: "the body is over --max-body",
            500: "the model file cannot be reloaded; the model in use is unchanged",
            503: "retry after Retry-After seconds: busy (a reload already running, too many "
                 "bodies being read) or the journal cannot be written"}
    return {str(code): _body(_ERROR, said[code]) for code in codes}


def _post(summary: str, request: dict[str, Any] | None, answer: dict[str, Any],
          codes: tuple[int, ...], *, secured: bool = False, accepted: bool = False
          ) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary,
                                 "responses": {"200": _body(answer, "done"), **_errors(*codes)}}
    if accepted:
        operation["responses"]["202"] = _body(answer, "journaled and held aside, not learned")
    if request is not None:
        operation["requestBody"] = {"required": True, **_body(request, summary)}
    if secured:
        operation["security"] = [{"bearer": []}]
    return {"post": operation}


def _get(summary: str, answer: dict[str, Any], *extra: int) -> dict[str, Any]:
    return {"get": {"summary": summary,
                    "responses": {"200": _body(answer, "done"), **_errors(*extra)}}}


def openapi(*, authenticated: bool = True) -> dict[str, Any]:
    """The API as an OpenAPI 3.1 document (the bearer scheme applies when the service has a
    token)."""
    job = {"$ref": "#/components/schemas/Job"}
    observation = {"$ref": "#/components/schemas/Observation"}
    bad = (400, 408, 413, 503)
    key = [{"name": "key", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "the held observation's key (its job id, or a digest of the job)"}]
    secured = (401, 403) if authenticated else ()
    paths: dict[str, Any] = {
        "/v1/predict": _post("Predict one job's size", job, _ANY_OBJECT, bad),
        "/v1/predict/batch": _post(
            "Predict a batch of jobs, in order",
            {"type": "object", "required": ["jobs"],
             "properties": {"jobs": {"type": "array", "items": job, "maxItems": 1000}}},
            {"type": "object", "properties": {"predictions": {"type": "array", "items": {
                "type": "object", "properties": {"prediction": _ANY_OBJECT,
                                                 "error": {"type": "string"}}}}}}, bad),
        "/v1/observe": _post("Observe a finished job (journaled before the answer; idempotent "
                             "by job id)", job, observation, (*bad, *secured), secured=True,
                             accepted=True),
        "/v1/reload": _post("Reload the model file and replay the journal", None, _ANY_OBJECT,
                            (500, 503, *secured), secured=True),
        "/v1/held": _get("Observations held aside, not learned", {
            "type": "object", "properties": {"held": {"type": "array", "items": {
                "type": "object", "properties": {
                    "key": {"type": "string"}, "seq": {"type": "integer"},
                    "reason": {"type": "string"}, "job": _ANY_OBJECT}}}}}),
        "/v1/held/{key}/accept": _post("Learn a held observation", None, observation,
                                       (404, 503, *secured), secured=True),
        "/v1/held/{key}/drop": _post("Drop a held observation", None,
                                     {"type": "object", "properties": {
                                         "dropped": {"type": "string"}}},
                                     (404, 503, *secured), secured=True),
        "/v1/health": _get("Model, journal and counts", _ANY_OBJECT),
        "/v1/openapi.json": _get("This document", _ANY_OBJECT),
        "/livez": _get("The process is alive", {"type": "object", "properties": {
            "status": {"const": "alive"}}}),
        "/readyz": _get("Ready: the model is loaded and the journal writable",
                        {"type": "object", "properties": {"status": {"const": "ready"}}}, 503),
        "/metrics": {"get": {"summary": "Prometheus metrics (text format)", "responses": {
            "200": {"description": "metrics", "content": {"text/plain": {
                "schema": {"type": "string"}}}}}}},
    }
    for path in ("/v1/held/{key}/accept", "/v1/held/{key}/drop"):
        paths[path]["parameters"] = key
    return {
        "openapi": "3.1.0",
        "info": {"title": "jobsize serve", "version": "1",
                 "description": "Hadoop job size predictions over HTTP/JSON. The paths "
                 "without /v1 are aliases kept for older clients."},
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "jobsize serve --token-file"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"],
                          "properties": {"error": {"type": "string"}}},
                "Job": {"type": "object", "additionalProperties": True,
                        "description": "job-record column names or Hadoop's names"},
                "Observation": {"type": "object", "properties": {
                    "seq": {"type": "integer"}, "key": {"type": ["string", "null"]},
                    "learned": {"type": "boolean"}, "held": {"type": ["string", "null"]},
                    "duplicate": {"type": "boolean"}, "observed": {"type": "integer"}}},
            },
        },
    }
