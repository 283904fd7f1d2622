"""Slow and half-sent requests against ``jobsize serve``: its memory and single-prediction
latency under a flood, against the same measured quietly in the same run.

The service (fitted on the bundled reference trace, default options) runs in its own process.
One client sends ``POST /v1/predict`` back to back on a keep-alive connection opened before
anything else; first alone (the baseline), then while C attacking connections are held open:
half of them send their request headers a few bytes every second and never finish them
(slowloris), half send headers announcing a body of ``--body`` bytes, half of it, and stall.
Attackers reconnect as soon as the service closes them. Printed: the service's resident memory
(peak during the flood against idle), the single predictions' p99 and rate against the quiet
run, and how many of them failed. Goal: memory within 1.5× idle, p99 within 2× quiet.

    python benchmarks/serve_abuse.py [--connections C] [--seconds S] [--body BYTES] [-- OPTIONS]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row
from serve import _jobs

import jobsize
from jobsize.bundled import reference_trace


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


async def _predicting(host: str, port: int, body: bytes, seconds: float) -> tuple[list, int]:
    reader, writer = await asyncio.open_connection(host, port)
    request = (f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    latencies, failures, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        try:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            await reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, StopIteration):
            failures += 1
            writer.close()
            reader, writer = await asyncio.open_connection(host, port)
            continue
        if not head.startswith(b"HTTP/1.1 200"):
            failures += 1
            continue
        latencies.append(time.perf_counter() - t0)
    writer.close()
    return latencies, failures


async def _attacker(host: str, port: int, kind: str, body: int, end: float) -> int:
    """Hold one slow connection open until ``end``; reconnect when closed. Returns the
    connections it opened."""
    opened = 0
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        opened += 1
        try:
            if kind == "slowloris":
                writer.write(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\n")
                while time.monotonic() < end and not reader.at_eof():
                    writer.write(b"X-a: b\r\n")
                    await writer.drain()
                    await asyncio.sleep(1.0)
            else:
                writer.write(f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Length: {body}"
                             f"\r\n\r\n".encode() + b"x" * (body // 2))
                await writer.drain()
                while time.monotonic() < end and not reader.at_eof():
                    await asyncio.sleep(0.5)
        except OSError:
            pass
        writer.close()
    return opened


async def _flood(host, port, body, connections, seconds, pid, job) -> dict:
    end = time.monotonic() + seconds
    attackers = [asyncio.create_task(_attacker(host, port, kind, body, end))
                 for i in range(connections) for kind in [("slowloris", "body")[i % 2]]]
    await asyncio.sleep(min(5.0, seconds / 4))  # let the flood build up
    peak = [_rss_mb(pid)]

    async def sample() -> None:
        while time.monotonic() < end:
            peak.append(_rss_mb(pid))
            await asyncio.sleep(0.5)
    sampler = asyncio.create_task(sample())
    latencies, failures = await _predicting(host, port, job, end - time.monotonic() - 0.5)
    opened = sum(await asyncio.gather(*attackers))
    await sampler
    return {"latencies": latencies, "failures": failures, "rss": max(peak), "opened": opened}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--body", type=int, default=1_000_000)
    parser.add_argument("serve_options", nargs="*", metavar="-- SERVE-OPTION",
                        help="options for jobsize serve (after --), e.g. -- --max-connections 256")
    args = parser.parse_args()
    reference = jobsize.read_trace(reference_trace())
    body = json.dumps(_jobs(reference)[-1]).encode()
    with tempfile.TemporaryDirectory() as tmp:
        model = jobsize.SizePredictor().fit(reference).save(Path(tmp) / "model.json")
        server = subprocess.Popen(
            [sys.executable, "-m", "jobsize", "serve", "--model", str(model), "--port", "0",
             *args.serve_options],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            url = urlsplit(server.stdout.readline().split()[2])
            host, port = url.hostname, url.port
            quiet, quiet_failures = asyncio.run(_predicting(host, port, body, args.seconds / 2))
            idle = _rss_mb(server.pid)
            flood = asyncio.run(_flood(host, port, args.body, args.connections, args.seconds,
                                       server.pid, body))
        finally:
            server.terminate()
            server.wait(30)
    q99, f99 = (float(np.percentile(x, 99)) * 1000 for x in (quiet, flood["latencies"]))
    print(f"{args.connections} attacking connections (half slowloris, half {args.body}-byte "
          f"bodies sent halfway) for {args.seconds:g} s; {flood['opened']} connections opened")
    row("service memory under the flood (peak)", flood["rss"], "MB", idle, "idle",
        "goal: ratio ≤ 1.5")
    row("single-prediction p99 under the flood", f99, "ms", q99, "quiet", "goal: ratio ≤ 2")
    row("single predictions/s under the flood", len(flood["latencies"]) / (args.seconds - 5.5),
        "1/s", len(quiet) / (args.seconds / 2), "quiet")
    print(f"single predictions failed: {flood['failures']} under the flood, {quiet_failures} "
          "quiet")


if __name__ == "__main__":
    main()
