"""The scheduler simulator: event-driven and exact, in a fluid and a YARN container model.

Two models: the fluid job-level model (:mod:`jobsize.sim.fluid`) and the YARN container model
(:mod:`jobsize.sim.eventloop`, policies in :mod:`jobsize.sim.schedulers` implementing
:class:`jobsize.sim.policy.Policy`). Workloads (:mod:`jobsize.sim.workload`) come from SWIM
through a cost model, from Rumen/SLS traces and local runs, or from the FB-2009 size bins;
metrics of the FSPY paper's §IV-C are in :mod:`jobsize.sim.metrics`; sweeps over segments,
schedulers and seeds run through joblib (:mod:`jobsize.sim.sweep`).
"""

from __future__ import annotations

from jobsize.sim.cluster import Cluster
from jobsize.sim.eventloop import SimResult, Simulation, simulate
from jobsize.sim.fluid import completion_times, simulate_fluid
from jobsize.sim.load import load_workload
from jobsize.sim.policy import AM, EXTRA, MAP, REDUCE, Launch, Policy
from jobsize.sim.size_sources import ExactSizes, LognormalSizes, SizeEstimates, SizeSource
from jobsize.sim.workload import Workload

__all__ = ["AM", "EXTRA", "MAP", "REDUCE", "Cluster", "ExactSizes", "Launch", "LognormalSizes",
           "Policy", "SimResult", "Simulation", "SizeEstimates", "SizeSource", "Workload",
           "completion_times", "load_workload", "simulate", "simulate_fluid"]
