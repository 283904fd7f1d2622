"""``jobsize bench-trace``: a measured reference trace of reference jobs run on this machine.

Jobs are drawn from a distribution shaped like Facebook's 2009 workload
(:mod:`jobsize.benchtrace.draw`), scaled to the machine, probed and run on the local engine, and
recorded from their own job history (:mod:`jobsize.benchtrace.runner`) into a resumable trace
directory (:mod:`jobsize.benchtrace.tracedir`)::

    from jobsize.benchtrace import BenchTrace, Distribution
    bench = BenchTrace("bench", seed=1, distribution=Distribution(split_bytes=256 << 10))
    bench.run(bench.plan(300))          # appends to bench/trace.parquet; rerun to resume
"""

from jobsize.benchtrace.draw import (
    FB2009_BINS,
    Distribution,
    Draw,
    SizeBin,
    draw_job,
    draw_jobs,
    summarize,
)
from jobsize.benchtrace.runner import SOURCE, BenchTrace, JobOutcome, job_conf
from jobsize.benchtrace.tracedir import TraceDirectory, machine

__all__ = ["FB2009_BINS", "SOURCE", "BenchTrace", "Distribution", "Draw", "JobOutcome",
           "SizeBin", "TraceDirectory", "draw_job", "draw_jobs", "job_conf", "machine",
           "summarize"]
