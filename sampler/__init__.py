"""Sampler: input splits, Algorithm 1 sampling and the probing-job specification.

- :mod:`sampler.splits` — a job's input as Hadoop's FileInputFormat splits it, local or WebHDFS
- :mod:`sampler.webhdfs` — the WebHDFS client (GETFILESTATUS, LISTSTATUS, OPEN)
- :mod:`sampler.sampling` — Algorithm 1, record-aligned like LineRecordReader
- :mod:`sampler.probe` — the probe spec, the uber-mode rule, counters → probe record, and the
  Hadoop Streaming command for a cluster
- :mod:`sampler.timing_wrapper` — the standalone script that reports MFE/RFE as counters

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`; it never
imports an engine or a collector.
"""

from jobsize.sampler.probespec import ProbePlan, ProbeSpec, plan_probe, probe_record, render_hadoop
from jobsize.sampler.sampling import Sample, sample
from jobsize.sampler.splits import Split, input_splits, local_splits, webhdfs_splits

__all__ = [
    "ProbePlan",
    "ProbeSpec",
    "Sample",
    "Split",
    "input_splits",
    "local_splits",
    "plan_probe",
    "probe_record",
    "render_hadoop",
    "sample",
    "webhdfs_splits",
]
