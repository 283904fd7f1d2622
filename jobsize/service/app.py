"""The HTTP/JSON API (Starlette): predict, predict a batch, observe, reload, health, metrics.

    POST /predict        a job                     → its prediction
    POST /predict/batch  {"jobs": [job, ...]}      → {"predictions": [{"prediction"|"error"}]}
    POST /observe        a finished job's record   → {"seq", "learned", "observed"}, journaled
    POST /reload         (no body)                 → the model file and journal, reloaded
    GET  /health                                   → model, journal and counts
    GET  /metrics                                  → Prometheus text format

A job is what :func:`jobsize.predict` takes (job-record column names or Hadoop's names); a
prediction is everything the predictor returns, unbounded interval ends as null. Errors are
``{"error": "<one line>"}``: 400 for a request the service refuses (413 for a body too large),
503 when observations can no longer be journaled.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import jobsize
from jobsize.errors import JobsizeError
from jobsize.models.resources import PAPER_CLUSTER, Resources
from jobsize.service.model_state import JournalFailed, ModelState
from jobsize.service.requests import BadRequest, Limits, job_list, job_object, parse_body

_LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5)


class Metrics:
    """The service's Prometheus metrics, in a registry of their own."""

    def __init__(self, state: ModelState) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("jobsize_requests", "HTTP requests by endpoint and status",
                                ["endpoint", "status"], registry=r)
        self.latency = Histogram("jobsize_request_seconds", "time to answer, by endpoint",
                                 ["endpoint"], buckets=_LATENCY_BUCKETS, registry=r)
        self.predictions = Counter("jobsize_predictions", "jobs predicted", registry=r)
        self.observations = Counter("jobsize_observations", "jobs observed and journaled",
                                    registry=r)
        self.reloads = Counter("jobsize_model_reloads", "model reloads", ["result"], registry=r)
        Gauge("jobsize_model_observed_jobs", "observations in the live model",
              registry=r).set_function(lambda: state.observed)
        Gauge("jobsize_journal_entries", "entries in the journal",
              registry=r).set_function(lambda: state.entries)


def _json(value: Any) -> Any:
    """A prediction as JSON: non-finite numbers (unbounded interval ends) become null, numpy
    scalars and nested dataclasses plain values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def prediction_dict(prediction: Any) -> dict[str, Any]:
    """Every field the predictor's prediction has, whatever they are."""
    return _json(prediction.to_dict() if hasattr(prediction, "to_dict") else prediction)


def _error(reason: str, status: int) -> JSONResponse:
    return JSONResponse({"error": " ".join(reason.split())}, status_code=status)


def create_app(state: ModelState, *, cluster: Resources = PAPER_CLUSTER,
               limits: Limits | None = None) -> Starlette:
    """The Starlette application serving ``state``'s model."""
    limits = limits or Limits()
    metrics = Metrics(state)

    async def body(request: Request) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limits.body_bytes):
            raise BadRequest(f"body of {declared[:20]} bytes exceeds {limits.body_bytes}", 413)
        data = bytearray()
        async for chunk in request.stream():
            data += chunk
            if len(data) > limits.body_bytes:
                raise BadRequest(f"body exceeds {limits.body_bytes} bytes", 413)
        return parse_body(bytes(data), limits)

    def predict_one(job: dict[str, Any]) -> dict[str, Any]:
        return prediction_dict(jobsize.predict(state.live, job, cluster))

    async def predict(request: Request) -> Response:
        result = predict_one(job_object(await body(request)))
        metrics.predictions.inc()
        return JSONResponse(result)

    async def predict_batch(request: Request) -> Response:
        out = []
        for job in job_list(await body(request)):
            try:
                out.append({"prediction": predict_one(job)})
            except JobsizeError as exc:
                out.append({"error": " ".join(str(exc).split())})
        metrics.predictions.inc(sum("prediction" in item for item in out))
        return JSONResponse({"predictions": out})

    async def observe(request: Request) -> Response:
        entry = await state.observe(job_object(await body(request)))
        metrics.observations.inc()
        return JSONResponse({"seq": entry.seq, "key": entry.key, "learned": entry.learned,
                             "held": entry.held, "duplicate": entry.duplicate,
                             "observed": state.observed})

    async def reload(request: Request) -> Response:
        try:
            built = await state.reload()
        except JobsizeError as exc:
            metrics.reloads.labels("failed").inc()
            return _error(f"reload failed, the model in use is unchanged: {exc}", 500)
        metrics.reloads.labels("ok").inc()
        return JSONResponse({"model": state.model_info, "observed": state.observed,
                             "rejected": built.rejected})

    async def health(request: Request) -> Response:
        return JSONResponse({
            "status": "degraded" if state.failure else "ok", "failure": state.failure,
            "model": state.model_info, "journal": str(state.journal.path),
            "journal_entries": state.entries, "observed": state.observed,
            "rejected_on_replay": state.rejected, "reloads": state.reloads,
            "cluster": {"memory_mb": cluster.memory, "vcores": cluster.vcores}})

    async def prometheus(request: Request) -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    def endpoint(name: str, handler: Callable[[Request], Awaitable[Response]]
                 ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            started = time.perf_counter()
            try:
                response = await handler(request)
            except BadRequest as exc:
                response = _error(exc.reason, exc.status)
            except JournalFailed as exc:
                response = _error(str(exc), 503)
            except JobsizeError as exc:  # the job cannot be predicted or observed as given
                response = _error(str(exc), 400)
            metrics.latency.labels(name).observe(time.perf_counter() - started)
            metrics.requests.labels(name, str(response.status_code)).inc()
            return response
        return run

    routes = [
        Route("/predict", endpoint("predict", predict), methods=["POST"]),
        Route("/predict/batch", endpoint("predict_batch", predict_batch), methods=["POST"]),
        Route("/observe", endpoint("observe", observe), methods=["POST"]),
        Route("/reload", endpoint("reload", reload), methods=["POST"]),
        Route("/health", endpoint("health", health), methods=["GET"]),
        Route("/metrics", prometheus, methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    app.state.model = state
    app.state.metrics = metrics
    return app
