"""Reliability figures: every fuzz target run alone, with its longest case and peak memory.

    python benchmarks/fuzz_figures.py [--cases 10000] [--parallel 2] [--only NAME...]

Each target registered by the fuzz tests (``tests/collectors/collect_fuzz.py``: every parser,
loader and the model file) runs ``--cases`` derandomized hypothesis cases in a fresh process,
which reports the cases run, the longest case, the process's peak resident memory
(``getrusage``, imports included; hypothesis generates the cases in a process of its own) and
the failures, if any. Two sampler inputs that used
to blow up (a 5 MB file cut into 1-byte splits; a directory of 20,000 tiny files) and two
JobHistory Server faults (a trickled body; Retry-After: 120) are measured the same way. The
table is printed as Markdown, with the date and machine, for docs/reliability.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
MODULES = ("test_collect_jhist", "test_collect_traces", "test_collect_swim", "test_collect_rm",
           "test_collect_sls_synth", "test_collect_jhs", "test_models_fuzz")
SCENARIOS = ("sample_1_byte_splits", "sample_20000_tiny_files", "jhs_trickled_body",
             "jhs_retry_after_120")


def _import_targets() -> dict:
    for folder in (TESTS / "models", TESTS / "collectors", TESTS):  # tests/conftest.py first
        sys.path.insert(0, str(folder))
    import importlib

    for name in MODULES:
        importlib.import_module(name)
    from collect_fuzz import TARGETS

    return TARGETS


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_END = ("end of the cases",)


def run_target(name: str, cases: int) -> dict:
    """Run one fuzz target (the child's side).

    Hypothesis draws the cases in a forked process of its own and hands them over a queue, so
    the peak memory measured here is the parser's, not the bookkeeping of 10,000 examples.
    """
    import multiprocessing

    from hypothesis import HealthCheck, given, settings

    strategy, check = _import_targets()[name]
    context = multiprocessing.get_context("fork")
    handover = context.Queue(maxsize=16)

    def produce() -> None:
        @settings(max_examples=cases, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def run(case: object) -> None:
            handover.put(case)

        try:
            run()
        finally:
            handover.put(_END)

    producer = context.Process(target=produce, daemon=True)
    producer.start()
    baseline = _peak_mb()
    times: list[float] = []
    failures: list[str] = []
    while True:
        case = handover.get()
        if type(case) is tuple and case == _END:
            break
        start = time.perf_counter()
        try:
            check(case)
        except BaseException as exc:  # a failed case: counted and reported, not hidden
            failures.append(f"{type(exc).__name__}: {str(exc)[:300]}")
        times.append(time.perf_counter() - start)
    producer.join()
    failure = f"{len(failures)} failed; first: {failures[0]}" if failures else None
    return {"target": name, "cases": len(times), "longest_s": max(times, default=0.0),
            "peak_mb": _peak_mb(), "import_mb": baseline, "failure": failure}


def run_scenario(name: str) -> dict:
    """One of :data:`SCENARIOS` in this process (the child's side)."""
    import tempfile

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = _sample if name.startswith("sample_") else _jhs
        detail = run(name, Path(tmp))
    return {"target": name, "cases": 1, "longest_s": time.perf_counter() - start,
            "peak_mb": _peak_mb(), "import_mb": 0.0, "failure": None, "detail": detail}


def _sample(name: str, folder: Path) -> str:
    from jobsize.cli import main

    if name == "sample_1_byte_splits":
        data = folder / "in.txt"
        data.write_bytes(b"abcdefghijklmnopqrstuvw\n" * 218_454)  # 5 MB
        args = [str(data), "--maps", "10", "--reduces", "2", "--split-size", "1"]
        target = 0.1
    else:
        data = folder / "parts"
        data.mkdir()
        for i in range(20_000):
            (data / f"part-{i:05d}").write_bytes(b"%05d some record\n" % i)
        args = [str(data), "--maps", "4", "--reduces", "1"]
        target = 0.25
    out = folder / "sample"
    code = main(["sample", *args, "--seed", "1", "-o", str(out)])
    fraction = json.loads((folder / "sample.json").read_text())["fraction"]
    return f"exit {code}, f_p {fraction:.4f} (target {target})"


def _jhs(name: str, folder: Path) -> str:
    import re

    sys.path.insert(0, str(TESTS / "collectors"))
    from jhs_fake import FakeHistoryServer
    from jobsize.collectors.jhs import collect_jhs
    from jobsize.collectors.rest import HttpOptions
    from pytest_httpserver import HTTPServer

    shared = Path(os.environ.get("JOBSIZE_SHARED", REPO.parent / "shared"))
    server = HTTPServer(threaded=True)
    server.start()
    try:
        fake = FakeHistoryServer(shared)
        server.expect_request(re.compile(r"^/ws/v1/history/.*")).respond_with_handler(fake)
        ids = fake.clone(4)
        path = f"/ws/v1/history/mapreduce/jobs/{ids[0]}/counters"
        options = HttpOptions(timeout=(2.0, 2.0), retries=3, backoff=0.5, pool=4)
        if name == "jhs_trickled_body":
            fake.slow.add(path)  # one byte every 0.5 s, for ever
            bound = 4 * 2.0 + 0.5 + 1.0 + 2.0  # four attempts and three waits
        else:
            fake.faults[path] = ["busy", "busy", "busy"]  # 503, Retry-After: 120
            bound = 4 * 2.0 + 3 * 2.0  # waits capped at the timeout
        start = time.perf_counter()
        result = collect_jhs(server.url_for("/"), folder / "t.parquet", options=options)
        took = time.perf_counter() - start
    finally:
        server.clear()
        server.stop()
    return (f"{took:.1f} s for the run; the faulty request's bound with --timeout 2 --retries 3: "
            f"{bound:.1f} s; {result.collected} collected, {len(result.failed)} failed")


def _child(name: str, cases: int, timeout: float) -> dict:
    args = [sys.executable, __file__, "--child", name, "--cases", str(cases)]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"target": name, "cases": 0, "longest_s": timeout, "peak_mb": 0.0,
                "import_mb": 0.0, "failure": f"hung: no result after {timeout:.0f} s"}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"target": name, "cases": 0, "longest_s": 0.0, "peak_mb": 0.0, "import_mb": 0.0,
                "failure": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--timeout", type=float, default=7200.0,
                        help="seconds a target may run in all")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = (run_scenario(args.child) if args.child in SCENARIOS
                  else run_target(args.child, args.cases))
        print(json.dumps(result))
        return
    names = [*sorted(_import_targets()), *SCENARIOS]
    if args.only:
        names = [n for n in names if n in args.only]
    with ThreadPoolExecutor(args.parallel) as pool:
        results = list(pool.map(lambda n: _child(n, args.cases, args.timeout), names))
    print(f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()} "
          f"({platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()})"
          f" with `python benchmarks/fuzz_figures.py --cases {args.cases}`\n")
    print("| target | cases | longest case (s) | peak RSS (MB) | result |")
    print("| --- | ---: | ---: | ---: | --- |")
    for r in results:
        outcome = r["failure"] or r.get("detail") or "no traceback, every table storable"
        print(f"| {r['target']} | {r['cases']:,} | {r['longest_s']:.2f} | {r['peak_mb']:.0f} "
              f"| {outcome} |")
    fuzz = [r for r in results if r["target"] not in SCENARIOS]
    print(f"\n{sum(r['cases'] for r in fuzz):,} fuzz cases over {len(fuzz)} targets; "
          f"longest case {max((r['longest_s'] for r in fuzz), default=0):.2f} s; "
          f"largest peak RSS {max((r['peak_mb'] for r in results), default=0):.0f} MB; "
          f"{sum(1 for r in results if r['failure'])} failures")


if __name__ == "__main__":
    main()
