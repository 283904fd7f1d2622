"""A fitted model file, jobs as a client sends them, and the service on loopback in a thread."""

from __future__ import annotations

import asyncio
import copy
import math
import threading
from pathlib import Path

import pandas as pd
import uvicorn

import jobsize
from jobsize.bundled import reference_trace
from jobsize.errors import JobsizeError
from jobsize.service.app import create_app, prediction_dict
from jobsize.service.model_state import ModelState
from jobsize.service.requests import Limits
from jobsize.service.server import bind, url_of


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
    """The service in a thread of this process, on a free loopback port."""

    def __init__(self, model: Path, journal: Path, limits: Limits | None = None) -> None:
        self.state = ModelState(model, journal)
        self.app = create_app(self.state, limits=limits)
        sock = bind("127.0.0.1", 0)
        self.url = url_of(sock)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                                    lifespan="off"))
        started = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            loop.call_soon(started.set)
            loop.run_until_complete(self.server.serve(sockets=[sock]))
            loop.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait(10)
        while not self.server.started:
            threading.Event().wait(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.app.state.batches.close()
        self.state.close()
