"""A fitted model file, jobs as a client sends them, and the service on loopback in a thread."""

from __future__ import annotations

import asyncio
import copy
import math
import threading
import time
from pathlib import Path

import pandas as pd
import uvicorn

import jobsize
from jobsize.bundled import reference_trace
from jobsize.errors import JobsizeError
from jobsize.service.app import create_app, prediction_dict
from jobsize.service.model_state import ModelState
from jobsize.service.requests import Limits
from jobsize.service.server import ServerSettings, bind, config, url_of

#: How long a request may take before a test calls it hung: a loaded machine running tests
#: on every core can be slow (a batch also starts a worker process).
WAIT = 60


def reference() -> pd.DataFrame:
    return jobsize.read_trace(reference_trace())


def as_jobs(frame: pd.DataFrame) -> list[dict]:
    """Rows as JSON objects: known values only, numbers as numbers."""
    jobs = []
    for row in frame.to_dict(orient="records"):
        job = {}
        for key, value in row.items():
            if value is None or value is pd.NA or (isinstance(value, float)
                                                   and math.isnan(value)):
                continue
            job[key] = value.item() if hasattr(value, "item") else value
        jobs.append(job)
    return jobs


def usable(model, jobs: list[dict]) -> list[dict]:
    """The jobs ``model`` can both predict and learn from (a copy learns them, in order)."""
    learner = copy.deepcopy(model)
    out = []
    for job in jobs:
        try:
            jobsize.predict(learner, job)
            learner.observe(job)
        except JobsizeError:
            continue
        out.append(job)
    return out


def fit_model(path: Path, frame: pd.DataFrame) -> Path:
    jobsize.SizePredictor().fit(frame).save(path)
    return path


def expected(model, job: dict) -> dict:
    """What the service must answer: the predictor's own prediction, as JSON."""
    return prediction_dict(jobsize.predict(model, job))


def same(a, b, rel: float = 1e-12) -> bool:
    """Two JSON values with the same shape and, number for number, equal within ``rel``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rel) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    return a == b


class Running:
    """The service in a thread of this process on a free loopback port, configured by
    :func:`jobsize.service.server.config` as ``jobsize serve`` is."""

    def __init__(self, model: Path, journal: Path, *, token: str | None = None,
                 limits: Limits | None = None, settings: ServerSettings | None = None) -> None:
        self.state = ModelState(model, journal)
        self.app = create_app(self.state, limits=limits, token=token)
        settings = settings or ServerSettings()
        sock = bind("127.0.0.1", 0)
        self.url = url_of(sock, tls=settings.tls)
        self.address = sock.getsockname()[:2]
        self.server = uvicorn.Server(config(self.app, settings))
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[sock])), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # without waiting for connections a test left open
        self.thread.join(10)
        self.app.state.batches.close()
        self.state.close()
