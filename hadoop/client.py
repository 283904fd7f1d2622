"""Jobs on the mini cluster, submitted as a user submits them: a client JVM per job.

A Streaming job runs ``org.apache.hadoop.streaming.HadoopStreaming`` (what ``hadoop jar
hadoop-streaming.jar`` runs), a Java job one of Hadoop's MapReduce examples through
``org.apache.hadoop.examples.ExampleDriver`` (``hadoop jar hadoop-mapreduce-examples.jar``),
with the cluster's configuration first on the client's classpath. The client prints the ids of
the jobs it submits; once it exits, each job's ``.jhist`` and ``_conf.xml`` are waited for in
the JobHistoryServer's done directory and read by the same collector as any cluster's history
(:func:`jobsize.collectors.jhist.read_jhist`).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jobsize.hadoop.cluster import Cluster, ClusterError

from jobsize.errors import JobFailedError, JobsizeError
from jobsize.javatask import java_task, streaming_task

if TYPE_CHECKING:
    from jobsize.collectors.jhist import JobHistory

STREAMING = "org.apache.hadoop.streaming.HadoopStreaming"
EXAMPLES = "org.apache.hadoop.examples.ExampleDriver"
JOB_CLI = "org.apache.hadoop.mapreduce.tools.CLI"  # `mapred job`
_JOB_ID = re.compile(r"Running job: (job_\d+_\d+)")
#: Seconds to wait for a finished job's history to reach the done directory (the history
#: server moves it within a second or two; a loaded machine takes longer).
HISTORY_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class HadoopJob:
    """A job the cluster ran: its id, how it ended, where its history is."""

    job_id: str
    state: str  # SUCCEEDED, FAILED or KILLED, from the job's history
    history_path: Path
    conf_path: Path
    output_dir: str | None

    def history(self) -> JobHistory:
        """The job's history (record, attempts, counters) from its ``.jhist`` and ``_conf.xml``."""
        from jobsize.collectors.jhist import read_jhist

        return read_jhist(self.history_path, self.conf_path)

    def record(self) -> dict[str, Any]:
        """The job record (schema columns) from its ``.jhist`` and ``_conf.xml``."""
        return self.history().record


@dataclass(frozen=True)
class Submission:
    """What one client run did: the jobs it submitted, its exit status, its output."""

    jobs: tuple[HadoopJob, ...]
    returncode: int
    log: str

    @property
    def job(self) -> HadoopJob:
        """The (last) job it ran; most tools run one."""
        if not self.jobs:
            raise JobFailedError(f"the client submitted no job (exit {self.returncode}): "
                                 f"{tail(self.log)}", source="hadoop client")
        return self.jobs[-1]


def tail(log: str, lines: int = 3) -> str:
    kept = [line for line in log.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:])[-600:]


def generic_options(conf: Mapping[str, str]) -> list[str]:
    """Hadoop's generic ``-D key=value`` options (they come before a tool's own)."""
    return [arg for key, value in conf.items() for arg in ("-D", f"{key}={value}")]


class HadoopClient:
    """Submits jobs to ``cluster`` and returns them once their history is in the done dir."""

    def __init__(self, cluster: Cluster, *, log_dir: str | os.PathLike[str] | None = None,
                 history_timeout_s: float = HISTORY_TIMEOUT_S) -> None:
        self.cluster = cluster
        self.log_dir = Path(log_dir) if log_dir else Path(cluster.directory) / "clients"
        self.history_timeout_s = history_timeout_s

    def run(self, main: str, args: Sequence[str], *, output: str | None = None,
            timeout_s: float | None = None,
            cwd: str | os.PathLike[str] | None = None) -> Submission:
        """Run ``main`` in a client JVM; wait for the history of every job it submitted.

        A job that fails is returned with state FAILED (its history says why), not raised:
        a failed job is a measurement too. A client that submits nothing raises. ``cwd`` is
        the client's working directory, where relative paths resolve (grep's temporary one).
        """
        command = self.cluster.java_command(main, *args)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                                  stdin=subprocess.DEVNULL, check=False, cwd=cwd)
        except subprocess.TimeoutExpired as exc:
            raise JobFailedError(f"the client did not finish within {timeout_s:.0f} s",
                                 source=shlex.join(command[-len(args) - 1:])[:200]) from exc
        log = (done.stdout or "") + (done.stderr or "")
        ids = list(dict.fromkeys(_JOB_ID.findall(log)))
        jobs = tuple(self.wait_for(job_id, output=output) for job_id in ids)
        return Submission(jobs, done.returncode, log)

    def wait_for(self, job_id: str, *, output: str | None = None) -> HadoopJob:
        """The job's history files once the history server has moved them to the done dir."""
        from jobsize.collectors.jhist import read_jhist

        deadline = time.monotonic() + self.history_timeout_s
        done = Path(self.cluster.done_dir)
        while True:
            found = sorted(done.rglob(f"{job_id}-*.jhist"))
            confs = sorted(done.rglob(f"{job_id}_conf.xml"))
            if found and confs:
                state = read_jhist(found[0], confs[0]).record["state"]
                return HadoopJob(job_id, str(state), found[0], confs[0], output)
            if time.monotonic() > deadline:
                raise ClusterError(f"{job_id}: its history did not reach the done directory "
                                   f"within {self.history_timeout_s:.0f} s", source=done)
            if not self.cluster.alive():
                raise ClusterError("the mini cluster stopped", source=self.cluster.directory)
            time.sleep(0.25)

    def streaming(self, *, inputs: Sequence[str], output: str, mapper: str,
                  reducer: str | None = None, combiner: str | None = None,
                  n_reduces: int = 1, conf: Mapping[str, str] | None = None,
                  name: str | None = None, files: Sequence[str] = (),
                  timeout_s: float | None = None) -> HadoopJob:
        """A Hadoop Streaming job: ``mapper``/``combiner``/``reducer`` are commands run in the
        task's container, or Java classes of jobsize's module run in the task's JVM
        (:mod:`jobsize.javatask`); without ``reducer`` and with ``n_reduces`` > 0 Hadoop's
        identity reduce sorts the map output (as ``jobsize run`` does)."""
        settings = {"mapreduce.job.reduces": str(n_reduces), **dict(conf or {})}
        if name:
            settings["mapreduce.job.name"] = name
        tasks, java = [], False
        for role, command in (("mapper", mapper), ("combiner", combiner), ("reducer", reducer)):
            if command:
                task = java_task(command)
                java = java or task is not None
                option, more = ((local_command(command), {}) if task is None
                                else streaming_task(role, task))
                settings.update(more)
                tasks += [f"-{role}", option]
        if not reducer and n_reduces:
            tasks += ["-reducer", "org.apache.hadoop.mapred.lib.IdentityReducer"]
        # a Java task's class is in jobsize's module: the tasks' JVMs load it from the job's
        # distributed cache, as on any cluster
        args = [*generic_options(settings),
                *(["-libjars", self.cluster.module_jar] if java else [])]
        for path in files:
            args += ["-file", os.path.abspath(path)]
        for path in inputs:
            args += ["-input", _qualified(path)]
        args += ["-output", _qualified(output), *tasks]
        args += ["-cmdenv", f"PATH={os.environ.get('PATH', '/usr/bin:/bin')}"]
        return self._one(STREAMING, args, output=output, timeout_s=timeout_s)

    def example(self, program: str, args: Sequence[str], *, conf: Mapping[str, str] | None = None,
                output: str | None = None, timeout_s: float | None = None,
                cwd: str | os.PathLike[str] | None = None) -> Submission:
        """One of Hadoop's MapReduce examples (``wordcount``, ``grep``, ``terasort``, ...)."""
        return self.run(EXAMPLES, [program, *generic_options(conf or {}), *args],
                        output=output, timeout_s=timeout_s, cwd=cwd)

    def kill(self, job_id: str) -> None:
        """Kill a running job, as ``mapred job -kill`` does."""
        done = subprocess.run(self.cluster.java_command(JOB_CLI, "-kill", job_id),
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              check=False)
        if done.returncode != 0:
            raise JobsizeError(f"could not kill it: {tail(done.stdout + done.stderr)}",
                               source=job_id)

    def _one(self, main: str, args: Sequence[str], *, output: str | None,
             timeout_s: float | None) -> HadoopJob:
        submission = self.run(main, args, output=output, timeout_s=timeout_s)
        return submission.job


def _qualified(path: str) -> str:
    """A path the cluster resolves as the client means it: local paths made absolute (the
    containers' working directories are not the client's)."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", path):
        return path
    return os.path.abspath(path)


def local_command(command: str) -> str:
    """A task command as a container on this machine runs it: a leading ``python`` or
    ``python3`` becomes this interpreter, so the task sees the same installed packages."""
    words = shlex.split(command)
    if words and words[0] in ("python", "python3"):
        words[0] = sys.executable
    return shlex.join(words)
