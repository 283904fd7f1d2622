"""The jobs the collector parity check runs on the mini cluster: many shapes, tiny inputs.

Streaming jobs (map-only, with a combiner, several reduces, several maps, a map and a reduce
attempt that fail once and are retried, a job that fails, a job killed while its maps run, uber
jobs) and Java jobs (Hadoop's MapReduce examples: wordcount, grep's two jobs, wordmean,
wordmedian, multifilewc, aggregatewordcount, pi, randomtextwriter and teragen, and a wordcount in
uber mode). :func:`run_jobs` runs them a few at a time and returns each job's
:class:`~jobsize.hadoop.client.HadoopJob` by name.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

UBER = {"mapreduce.job.ubertask.enable": "true"}

WORD_MAPPER = """\
import sys
for line in sys.stdin:
    for word in line.split():
        print(f"{word}\\t1")
"""

SUM_REDUCER = """\
import sys
key, total = None, 0
for line in sys.stdin:
    word, _, count = line.rstrip("\\n").partition("\\t")
    if word != key and key is not None:
        print(f"{key}\\t{total}")
        total = 0
    key, total = word, total + int(count)
if key is not None:
    print(f"{key}\\t{total}")
"""

# Streaming exports the job's configuration to the task's environment, dots as underscores:
# mapreduce_task_attempt_id names the attempt, ending in _0 on a task's first.
FIRST_ATTEMPT_FAILS = """\
import os, sys
if os.environ.get("mapreduce_task_attempt_id", "").endswith("_0"):
    sys.exit(3)
for line in sys.stdin:
    sys.stdout.write(line)
"""

ALWAYS_FAILS = """\
import sys
sys.exit(4)
"""

SLEEPER = """\
import os, sys, time
open(os.path.join(sys.argv[1], os.environ["mapreduce_task_attempt_id"]), "w").close()
time.sleep(300)
"""

WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
         "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi",
         "chi", "psi", "omega")


def _text(rng: random.Random, lines: int) -> str:
    return "".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + "\n"
                   for _ in range(lines))


def make_inputs(work: Path) -> dict[str, str]:
    """Small text inputs and the streaming scripts, under ``work``."""
    rng = random.Random(20240521)
    paths = {}
    for name, files, lines in (("one", 1, 300), ("two", 2, 200), ("three", 3, 120)):
        folder = work / "in" / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(files):
            (folder / f"part-{i}.txt").write_text(_text(rng, lines))
        paths[name] = str(folder)
    scripts = work / "scripts"
    scripts.mkdir(exist_ok=True)
    for name, text in (("mapper", WORD_MAPPER), ("reducer", SUM_REDUCER),
                       ("first_fails", FIRST_ATTEMPT_FAILS), ("fails", ALWAYS_FAILS),
                       ("sleeper", SLEEPER)):
        (scripts / f"{name}.py").write_text(text)
        # The scripts need only the standard library: any python3 on the tasks' PATH runs them.
        paths[name] = f"/usr/bin/env python3 {scripts / name}.py"
    markers = work / "markers"
    markers.mkdir(exist_ok=True)
    paths["markers"] = str(markers)
    return paths


def _streaming(client, name: str, out: Path, **kwargs) -> Callable[[], list]:
    def run() -> list:
        return [client.streaming(output=str(out / name), name=name, **kwargs)]
    return run


def _example(client, program: str, args: list[str], conf: dict | None = None
             ) -> Callable[[], list]:
    def run() -> list:
        submission = client.example(program, args, conf=conf)
        if not submission.jobs:
            raise AssertionError(f"{program} submitted no job: {submission.log[-2000:]}")
        return list(submission.jobs)
    return run


def _killed(client, work: Path, paths: dict[str, str]) -> Callable[[], list]:
    """A job whose maps sleep, killed once both of its map attempts are running."""
    def run() -> list:
        name = "streaming killed"
        box: dict[str, object] = {}

        def submit() -> None:
            try:
                box["job"] = client.streaming(
                    inputs=[paths["two"]], output=str(work / "out" / "killed"), name=name,
                    mapper=f"{paths['sleeper']} {paths['markers']}", n_reduces=1)
            except BaseException as exc:
                box["error"] = exc

        thread = threading.Thread(target=submit, daemon=True)
        thread.start()
        job_id = _wait_running(client.cluster.rm_web, name, Path(paths["markers"]), 2)
        client.kill(job_id)
        thread.join(timeout=300)
        if "error" in box:
            raise box["error"]  # type: ignore[misc]
        return [box["job"]]
    return run


def _wait_running(rm_web: str, name: str, markers: Path, attempts: int,
                  timeout_s: float = 240.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        apps = requests.get(f"{rm_web}/ws/v1/cluster/apps", params={"states": "RUNNING"},
                            headers={"Accept": "application/json"}, timeout=10).json()
        for app in (apps.get("apps") or {}).get("app", []):
            if app["name"] == name:
                job_id = app["id"].replace("application_", "job_")
                started = [p for p in markers.iterdir() if job_id[4:] in p.name]
                if len(started) >= attempts:
                    return job_id
        time.sleep(0.5)
    raise AssertionError(f"{name}: its maps were not running after {timeout_s:.0f} s")


def job_plan(client, work: Path) -> dict[str, Callable[[], list]]:
    """Name → a callable that runs the job(s) and returns their HadoopJobs."""
    p = make_inputs(work)
    out = work / "out"
    out.mkdir(exist_ok=True)
    one, two, three = p["one"], p["two"], p["three"]
    return {
        "streaming wordcount": _streaming(client, "streaming wordcount", out, inputs=[one],
                                          mapper=p["mapper"], reducer=p["reducer"]),
        "streaming map-only": _streaming(client, "streaming map-only", out, inputs=[two],
                                         mapper=p["mapper"], n_reduces=0),
        "streaming combiner": _streaming(client, "streaming combiner", out, inputs=[two],
                                         mapper=p["mapper"], combiner=p["reducer"],
                                         reducer=p["reducer"]),
        "streaming three reduces": _streaming(client, "streaming three reduces", out,
                                              inputs=[three], mapper=p["mapper"],
                                              n_reduces=3),
        "streaming map retried": _streaming(client, "streaming map retried", out,
                                            inputs=[two], mapper=p["first_fails"],
                                            reducer="cat"),
        "streaming reduce retried": _streaming(client, "streaming reduce retried", out,
                                               inputs=[one], mapper=p["mapper"],
                                               reducer=p["first_fails"]),
        "streaming failed": _streaming(client, "streaming failed", out, inputs=[one],
                                       mapper=p["fails"], n_reduces=0,
                                       conf={"mapreduce.map.maxattempts": "2"}),
        "streaming killed": _killed(client, work, p),
        "streaming uber": _streaming(client, "streaming uber", out, inputs=[one],
                                     mapper=p["mapper"], reducer=p["reducer"], conf=UBER),
        "streaming uber map-only": _streaming(client, "streaming uber map-only", out,
                                              inputs=[two], mapper=p["mapper"], n_reduces=0,
                                              conf=UBER),
        "wordcount": _example(client, "wordcount", [three, str(out / "wordcount")]),
        "wordcount uber": _example(client, "wordcount", [one, str(out / "wordcount-uber")],
                                   conf=UBER),
        "grep": _example(client, "grep", [two, str(out / "grep"), "a[lm]"]),
        "wordmean": _example(client, "wordmean", [one, str(out / "wordmean")]),
        "wordmedian": _example(client, "wordmedian", [two, str(out / "wordmedian")]),
        "multifilewc": _example(client, "multifilewc", [three, str(out / "multifilewc")]),
        "aggregatewordcount": _example(client, "aggregatewordcount",
                                       [two, str(out / "aggregate"), "2", "textinputformat"]),
        "pi": _example(client, "pi", ["2", "20"]),
        "randomtextwriter": _example(
            client, "randomtextwriter", [str(out / "randomtext")],
            conf={"mapreduce.randomtextwriter.totalbytes": "40000",
                  "mapreduce.randomtextwriter.bytespermap": "20000"}),
        "teragen": _example(client, "teragen", ["500", str(out / "teragen")],
                            conf={"mapreduce.job.maps": "2"}),
    }


def run_jobs(client, work: Path, *, workers: int = 4,
             names: Sequence[str] | None = None) -> dict[str, list]:
    """The jobs of :func:`job_plan` (all, or those ``names``), ``workers`` at a time:
    name → its HadoopJobs."""
    plan = job_plan(client, work)
    if names is not None:
        plan = {name: plan[name] for name in names}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(run) for name, run in plan.items()}
        return {name: future.result() for name, future in futures.items()}
