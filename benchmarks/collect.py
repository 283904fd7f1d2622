"""Jobs per second collected from a JobHistory Server with 5 ms of added latency per request.

A local JHS-compatible server (its own process, threaded, HTTP/1.1 keep-alive) serves N jobs
shaped like the REST documentation's example job (1 map and 1 reduce task: six requests per job
with attempts).
Every answer is delayed by 5 ms, like a server across a network. ``collect_jhs`` with its
default bounded concurrency is measured against a sequential baseline (one worker) in the same
run. Goal: ≥ 100 jobs/s.

    python benchmarks/collect.py [--jobs N] [--workers W] [--latency-ms L]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import row, shared_root
from jobsize.collectors.jhs import collect_jhs
from jobsize.collectors.rest import HttpOptions

DOC_ID = "1326381300833_2_2"
ROUTE = re.compile(r"^/ws/v1/history/mapreduce/jobs(?:/job_(?P<job>[^/]+)"
                   r"(?:/(?P<what>counters|conf|tasks)(?:/task_[^/]+_(?P<kind>[mr])_0/attempts)?)?)?$")


def _documents(root: Path) -> dict[str, str]:
    rest = root / "hadoop" / "jhs-rest"
    load = lambda name: json.loads((rest / f"{name}.json").read_text())  # noqa: E731
    reduce_attempt = dict(load("task-attempts")["taskAttempts"]["taskAttempt"][0],
                          id=f"attempt_{DOC_ID}_r_0_0", type="REDUCE",
                          startTime=1326381452013, finishTime=1326381582103)
    docs = {"job": load("job"), "counters": load("job-counters"), "conf": load("job-conf"),
            "tasks": load("tasks"), "m": load("task-attempts"),
            "r": {"taskAttempts": {"taskAttempt": [reduce_attempt]}}}
    return {key: json.dumps(doc) for key, doc in docs.items()}


class _Server:
    def __init__(self, n_jobs: int, latency: float) -> None:
        docs = _documents(shared_root())
        entry = json.loads(docs["job"])["job"]
        ids = [f"1326381300833_{k}_{k}" for k in range(1, n_jobs + 1)]
        listing = json.dumps({"jobs": {"job": [
            {**entry, "id": f"job_{i}", "finishTime": entry["finishTime"] + k}
            for k, i in enumerate(ids)]}}).encode()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as separate writes

            def do_GET(self) -> None:
                time.sleep(latency)
                match = ROUTE.match(self.path.split("?")[0])
                if not match:
                    self.send_error(404)
                    return
                job, what, kind = match.group("job"), match.group("what"), match.group("kind")
                if job is None:
                    body = listing
                else:
                    key = kind or what or "job"
                    body = docs[key].replace(DOC_ID, job).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


def _serve(n_jobs: int, latency: float, urls: multiprocessing.Queue) -> None:
    server = _Server(n_jobs, latency)
    urls.put(server.url)
    server.httpd.serve_forever()


class _ServerProcess:
    """The server in its own process, as a real JHS is: it does not share the client's GIL."""

    def __init__(self, n_jobs: int, latency: float) -> None:
        urls: multiprocessing.Queue = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=_serve, args=(n_jobs, latency, urls),
                                               daemon=True)
        self.process.start()
        self.url = urls.get(timeout=60)

    def close(self) -> None:
        self.process.terminate()
        self.process.join()


def _rate(url: str, workers: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = collect_jhs(url, Path(tmp) / "t.parquet", workers=workers,
                             options=HttpOptions(pool=workers))
        elapsed = time.perf_counter() - t0
    if result.failed:
        sys.exit(f"benchmark run lost jobs: {result.failed}")
    return result.collected / elapsed, result.collected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=400)
    parser.add_argument("--baseline-jobs", type=int, default=60)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=5.0)
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    baseline_server = _ServerProcess(args.baseline_jobs, latency)
    server = _ServerProcess(args.jobs, latency)
    try:
        sequential, n_seq = _rate(baseline_server.url, 1)
        concurrent, n_con = _rate(server.url, args.workers)
    finally:
        baseline_server.close()
        server.close()
    print(f"# {n_con} jobs ({n_seq} for the baseline), 6 requests per job, "
          f"{args.latency_ms:g} ms added latency per request")
    row(f"collect jhs, {args.workers} workers", concurrent, "jobs/s", sequential,
        "1 worker", goal="goal ≥ 100 jobs/s")


if __name__ == "__main__":
    main()
