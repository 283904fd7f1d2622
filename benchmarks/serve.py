"""Predictions per second and latency of ``jobsize serve`` over loopback, beside ``jobsize.predict``
called in-process in the same run, with jobs observed under the same load.

The model is fitted on the bundled reference trace; requests cycle through its jobs (those the
model can predict and learn from). The service
runs as ``jobsize serve`` in its own process; the load comes from another process: C keep-alive
connections (asyncio, raw HTTP/1.1), each sending its next ``POST /predict`` as soon as the last
is answered, for a fixed time after a warm-up. One more connection observes finished jobs at a
steady rate meanwhile; after the run every acknowledged observation must be in the journal and
in the model (``GET /health``). Goal: ≥ 2,000 predictions/s with p99 ≤ 10 ms, no observation
lost.

    python benchmarks/serve.py [--connections C] [--seconds S] [--observe-rate R] [--form F]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row

import jobsize
from jobsize.bundled import reference_trace


def _jobs(trace) -> list[dict]:
    """The trace's jobs as a client sends them: known values only."""
    jobs = []
    for record in trace.to_dict(orient="records"):
        jobs.append({k: (v.item() if hasattr(v, "item") else v) for k, v in record.items()
                     if not pd.isna(v)})
    return jobs


def _usable(model: jobsize.SizePredictor, jobs: list[dict]) -> list[dict]:
    """The jobs the model predicts and learns from (a copy learns them, in order)."""
    learner, out = copy.deepcopy(model), []
    for job in jobs:
        try:
            jobsize.predict(learner, job)
            learner.observe(job)
        except jobsize.JobsizeError:
            continue
        out.append(job)
    return out


def _direct(model: jobsize.SizePredictor, jobs: list[dict], seconds: float
            ) -> tuple[float, np.ndarray]:
    """In-process predictions: rate and per-call latencies (ns)."""
    latencies = []
    clock = time.perf_counter_ns
    end = time.perf_counter() + seconds
    i = 0
    started = clock()
    while time.perf_counter() < end:
        t0 = clock()
        jobsize.predict(model, jobs[i % len(jobs)])
        latencies.append(clock() - t0)
        i += 1
    return i / ((clock() - started) / 1e9), np.asarray(latencies)


# ---------------------------------------------------------------------------------------------
# The load generator (its own process)


def _request(path: str, body: bytes) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


async def _exchange(reader, writer, request: bytes) -> tuple[int, bytes]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    return status, await reader.readexactly(length)


async def _predicting(host, port, requests_, warmup_end, end, latencies, errors) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    clock = time.perf_counter_ns
    i = 0
    while time.perf_counter() < end:
        t0 = clock()
        status, _ = await _exchange(reader, writer, requests_[i % len(requests_)])
        if time.perf_counter() >= warmup_end:
            latencies.append(clock() - t0)
            errors[0] += status != 200
        i += 1
    writer.close()


async def _observing(host, port, finished, rate, warmup_end, end, acked, latencies) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    await asyncio.sleep(max(0.0, warmup_end - time.perf_counter()))
    for job in finished:
        if time.perf_counter() >= end:
            break
        t0 = time.perf_counter_ns()
        request = _request("/observe", json.dumps(job).encode())
        status, _ = await _exchange(reader, writer, request)
        if status == 200:
            acked.append(job["job_id"])
            latencies.append(time.perf_counter_ns() - t0)
        await asyncio.sleep(min(1 / rate, max(0.0, end - time.perf_counter())))
    writer.close()


def _load(url: str, bodies: list[bytes], finished: list[dict], connections: int,
          warmup: float, seconds: float, rate: float, out: multiprocessing.Queue) -> None:
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    host, port = urlsplit(url).hostname, urlsplit(url).port
    requests_ = [_request("/predict", body) for body in bodies]
    latencies: list[int] = []
    observed: list[str] = []
    observe_latencies: list[int] = []
    errors = [0]

    async def run() -> float:
        start = time.perf_counter()
        warmup_end, end = start + warmup, start + warmup + seconds
        predicting = [_predicting(host, port, requests_, warmup_end, end, latencies, errors)
                      for _ in range(connections)]
        await asyncio.gather(*predicting, _observing(host, port, finished, rate, warmup_end, end,
                                                 observed, observe_latencies))
        return time.perf_counter() - warmup_end

    elapsed = asyncio.run(run())
    out.put({"latencies": latencies, "elapsed": elapsed, "acked": observed,
             "observe_latencies": observe_latencies, "errors": errors[0]})


# ---------------------------------------------------------------------------------------------


def _percentiles(ns: np.ndarray) -> tuple[float, float]:
    return float(np.percentile(ns, 50)) / 1e6, float(np.percentile(ns, 99)) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--observe-rate", type=float, default=20.0,
                        help="observations per second during the run")
    parser.add_argument("--form", default=None,
                        help="the size model's form (default: the predictor's default)")
    args = parser.parse_args()

    trace = jobsize.read_trace(reference_trace())
    jobs = _jobs(trace)
    with tempfile.TemporaryDirectory() as tmp:
        model_path = Path(tmp) / "m.json"
        model = jobsize.SizePredictor(**({"form": args.form} if args.form else {})).fit(trace)
        model.save(model_path)
        jobs = _usable(model, jobs)
        direct_rate, direct_ns = _direct(model, jobs, min(args.seconds, 5.0))

        journal = Path(tmp) / "journal"
        load_before = os.getloadavg()
        server = subprocess.Popen(
            [sys.executable, "-m", "jobsize", "serve", "--model", str(model_path),
             "--journal", str(journal), "--port", "0"],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            url = server.stdout.readline().split()[2]
            spawn = multiprocessing.get_context("spawn")
            results = spawn.Queue()
            bodies = [json.dumps(job).encode() for job in jobs]
            generator = spawn.Process(
                target=_load, args=(url, bodies, jobs, args.connections, args.warmup,
                                    args.seconds, args.observe_rate, results))
            generator.start()
            result = results.get(timeout=args.warmup + args.seconds + 120)
            generator.join()
            health = requests.get(url + "/health", timeout=10).json()
        finally:
            server.terminate()
            server.wait(10)
            server.stdout.close()
        load_after = os.getloadavg()
        journaled = [json.loads(line)["job"]["job_id"]
                     for line in journal.read_text().splitlines()]

    served = np.asarray(result["latencies"])
    rate = len(served) / result["elapsed"]
    p50, p99 = _percentiles(served)
    d50, d99 = _percentiles(direct_ns)
    acked = result["acked"]
    lost = len(set(acked) - set(journaled))
    print(f"# model form {model.form}, {len(jobs)} jobs of the reference trace; "
          f"{os.cpu_count()} cores; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after (1 min); {args.connections} keep-alive connections, "
          f"{args.seconds:g} s after {args.warmup:g} s warm-up; {result['errors']} non-200 "
          "answers")
    row("served predictions/s", rate, "1/s", direct_rate, "in-process jobsize.predict",
        "goal ≥ 2000/s")
    row("served p50 latency", p50, "ms", d50, "in-process p50")
    row("served p99 latency", p99, "ms", d99, "in-process p99", "goal ≤ 10 ms")
    o50, o99 = (_percentiles(np.asarray(result["observe_latencies"])) if acked
                else (float("nan"),) * 2)
    print(f"observations acknowledged under load: {len(acked)} (p50 {o50:.2f} ms, p99 "
          f"{o99:.2f} ms); in the journal: {len(journaled)}; in the model: "
          f"{health['observed']}; acknowledged but lost: {lost}")
    if lost or health["observed"] < len(acked) or result["errors"]:
        sys.exit("observations were lost or requests failed")


if __name__ == "__main__":
    main()
