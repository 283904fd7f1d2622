"""Predictions per second and latency of ``jobsize serve`` over loopback, beside ``jobsize.predict``
called in-process in the same run, with jobs observed under the same load.

The model is fitted on the bundled reference trace; requests cycle through its jobs (those the
model can predict and learn from). The service
runs as ``jobsize serve`` in its own process; the load comes from another process: C keep-alive
connections (asyncio, raw HTTP/1.1), each sending its next ``POST /predict`` as soon as the last
is answered, for a fixed time after a warm-up. One more connection observes finished jobs at a
steady rate meanwhile; after the run every acknowledged observation must be in the journal and
in the model (``GET /v1/health``). Goal: ≥ 2,000 predictions/s with p99 ≤ 10 ms, no
observation lost.

With ``--batches``, the same load runs twice against the same service: once as above (the
baseline), once with one more connection sending 1,000-job ``POST /v1/predict/batch`` requests
back to back (about 1.9 MB each: the service runs with ``--max-body 4M``); the single
predictions' rate and latency with batches are printed as ratios of
those without (a batch must not stall single predictions).

    python benchmarks/serve.py [--connections C] [--seconds S] [--observe-rate R] [--form F]
                               [--batches]
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
from jobsize.service.journal import archive_path, read_journal


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


async def _batching(host, port, request, warmup_end, end, done) -> None:
    """Batch after batch on one connection; ``done`` counts those answered after warm-up."""
    reader, writer = await asyncio.open_connection(host, port)
    while time.perf_counter() < end:
        status, _ = await _exchange(reader, writer, request)
        if time.perf_counter() >= warmup_end and status == 200:
            done[0] += 1
    writer.close()


async def _observing(host, port, finished, rate, warmup_end, end, acked, latencies) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    await asyncio.sleep(max(0.0, warmup_end - time.perf_counter()))
    for job in finished:
        if time.perf_counter() >= end:
            break
        t0 = time.perf_counter_ns()
        request = _request("/v1/observe", json.dumps(job).encode())
        status, _ = await _exchange(reader, writer, request)
        if status == 200:
            acked.append(job["job_id"])
            latencies.append(time.perf_counter_ns() - t0)
        await asyncio.sleep(min(1 / rate, max(0.0, end - time.perf_counter())))
    writer.close()


def _load(url: str, bodies: list[bytes], finished: list[dict], connections: int,
          warmup: float, seconds: float, rate: float, out: multiprocessing.Queue,
          batch: bytes | None = None) -> None:
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    host, port = urlsplit(url).hostname, urlsplit(url).port
    requests_ = [_request("/v1/predict", body) for body in bodies]
    latencies: list[int] = []
    observed: list[str] = []
    observe_latencies: list[int] = []
    errors = [0]
    batches = [0]

    async def run() -> float:
        start = time.perf_counter()
        warmup_end, end = start + warmup, start + warmup + seconds
        predicting = [_predicting(host, port, requests_, warmup_end, end, latencies, errors)
                      for _ in range(connections)]
        others = [_observing(host, port, finished, rate, warmup_end, end, observed,
                             observe_latencies)]
        if batch is not None:
            others.append(_batching(host, port, _request("/v1/predict/batch", batch),
                                    warmup_end, end, batches))
        await asyncio.gather(*predicting, *others)
        return time.perf_counter() - warmup_end

    elapsed = asyncio.run(run())
    out.put({"latencies": latencies, "elapsed": elapsed, "acked": observed,
             "observe_latencies": observe_latencies, "errors": errors[0],
             "batches": batches[0]})


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
    parser.add_argument("--batches", action="store_true",
                        help="run the load again with a client sending 1,000-job batches, and "
                        "compare")
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
             "--journal", str(journal), "--port", "0", "--max-body", "4M"],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            url = server.stdout.readline().split()[2]
            bodies = [json.dumps(job).encode() for job in jobs]

            def load(finished: list[dict], batch: bytes | None = None) -> dict:
                spawn = multiprocessing.get_context("spawn")
                results = spawn.Queue()
                generator = spawn.Process(
                    target=_load, args=(url, bodies, finished, args.connections, args.warmup,
                                        args.seconds, args.observe_rate, results, batch))
                generator.start()
                result = results.get(timeout=args.warmup + args.seconds + 120)
                generator.join()
                return result

            half = len(jobs) // 2
            result = load(jobs[:half] if args.batches else jobs)
            batched = None
            if args.batches:
                batch = json.dumps({"jobs": [jobs[i % len(jobs)] for i in range(1000)]})
                batched = load(jobs[half:], batch.encode())
            health = requests.get(url + "/v1/health", timeout=10).json()
        finally:
            server.terminate()
            server.wait(10)
            server.stdout.close()
        load_after = os.getloadavg()
        # compaction moves the older entries to the archive: both hold what was journaled
        journaled = [entry.job["job_id"] for path in (archive_path(journal), journal)
                     for entry in read_journal(path)[0] if entry.op == "observe"]

    served = np.asarray(result["latencies"])
    rate = len(served) / result["elapsed"]
    p50, p99 = _percentiles(served)
    d50, d99 = _percentiles(direct_ns)
    acked = result["acked"] + (batched["acked"] if batched else [])
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
    if batched is not None:
        with_batches = np.asarray(batched["latencies"])
        b_rate = len(with_batches) / batched["elapsed"]
        b50, b99 = _percentiles(with_batches)
        jobs_per_s = batched["batches"] * 1000 / batched["elapsed"]
        print(f"# again with one more connection sending 1000-job batches back to back: "
              f"{batched['batches']} batches answered ({jobs_per_s:.0f} jobs/s), "
              f"{batched['errors']} non-200 single answers")
        row("single predictions/s beside batches", b_rate, "1/s", rate, "without batches")
        row("single p50 latency beside batches", b50, "ms", p50, "without batches")
        row("single p99 latency beside batches", b99, "ms", p99, "without batches")
    errors = result["errors"] + (batched["errors"] if batched else 0)
    if lost or health["observed"] < len(acked) or errors:
        sys.exit("observations were lost or requests failed")


if __name__ == "__main__":
    main()
