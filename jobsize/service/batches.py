"""Batches predicted in a process of their own.

Parsing a 1,000-job body, predicting every job and writing the answer is tens of milliseconds
of pure Python; on the service's event loop, or in a thread sharing its interpreter, it holds
the single predictions waiting behind it. A batch is therefore handed, as the bytes the client
sent, to one worker process (started at the first batch), which parses, predicts and renders it
with a copy of the live model and hands back the answer's bytes. The worker keeps the model it
was last sent; the service sends the model (in the model file's JSON form, which reproduces
every prediction exactly) only when it has changed since. Batches go to the worker one at a
time.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import jobsize
from jobsize.errors import JobsizeError
from jobsize.models.modelfile import model_from_json, model_to_json
from jobsize.models.resources import Resources
from jobsize.service.answers import prediction_dict, render
from jobsize.service.requests import BadRequest, Limits, job_list, parse_body

_worker_model: tuple[int, jobsize.SizePredictor] | None = None  # in the worker process


def _predict(version: int, model_doc: dict[str, Any] | None, body: bytes, limits: Limits,
             cluster: Resources) -> tuple[int, bytes, int]:
    """In the worker: (status, answer bytes, jobs predicted) for one batch body."""
    global _worker_model
    if model_doc is not None:
        _worker_model = (version, jobsize.SizePredictor.from_model(model_from_json(model_doc)))
    assert _worker_model is not None and _worker_model[0] == version
    model = _worker_model[1]
    try:
        jobs = job_list(parse_body(body, limits))
    except BadRequest as exc:
        return exc.status, render({"error": " ".join(exc.reason.split())}), 0
    out: list[dict[str, Any]] = []
    for job in jobs:
        try:
            out.append({"prediction": prediction_dict(jobsize.predict(model, job, cluster))})
        except JobsizeError as exc:
            out.append({"error": " ".join(str(exc).split())})
    return 200, render({"predictions": out}), sum("prediction" in item for item in out)


class BatchWorker:
    """The worker process and the model version it holds."""

    def __init__(self, limits: Limits, cluster: Resources) -> None:
        self.limits, self.cluster = limits, cluster
        self._pool: ProcessPoolExecutor | None = None
        self._holds: int | None = None  # the model version the worker has
        self._turn = asyncio.Lock()

    async def predict(self, version: int, model: jobsize.SizePredictor, body: bytes
                      ) -> tuple[int, bytes, int]:
        """(status, answer, jobs predicted) for a batch body, with ``model`` (``version``)."""
        async with self._turn:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"))
                self._holds = None
            doc = None if self._holds == version else model_to_json(model.model_)
            loop = asyncio.get_running_loop()
            try:
                answer = await loop.run_in_executor(self._pool, _predict, version, doc, body,
                                                    self.limits, self.cluster)
            except BrokenProcessPool:  # the worker died (killed, out of memory): a new one next
                self._pool = None
                raise
            self._holds = version
            return answer

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
