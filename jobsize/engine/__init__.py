"""The local MapReduce engine: runs streaming jobs on this machine and writes Hadoop history.

The probe engine of the paper's §III-A and the source of the measured reference dataset: it runs
streaming jobs on this machine and writes Hadoop's own ``.jhist`` history, so the collectors read
a local run as they read a cluster's::

    from jobsize.engine import JobSpec, run_job
    result = run_job(JobSpec(inputs=["text.txt"], output="out", mapper="python3 map.py",
                             reducer="python3 reduce.py", n_maps=4, n_reduces=2),
                     history_dir="history")
    result.history_path        # history/job_<cluster>_<seq>.jhist (+ _conf.xml beside it)
    result.counters["total"]   # {group: {counter: value}} with Hadoop's names

``run_probe(spec)`` runs a ``jobsize.sampler.probespec.ProbeSpec`` as one map and one reduce in this
process and returns its probe record.
"""

from jobsize.engine.appmaster import JobResult, LocalEngine, default_engine, run_job
from jobsize.engine.spec import Containers, JobSpec

__all__ = ["Containers", "JobResult", "JobSpec", "LocalEngine", "default_engine", "run_job",
           "run_probe"]


def __getattr__(name: str):
    if name == "run_probe":
        from jobsize.engine.localprobe import run_probe

        return run_probe
    raise AttributeError(f"module 'jobsize.engine' has no attribute {name!r}")
