"""Reproductions of the seed papers' headline experiments, one module per paper.

- :mod:`~jobsize.sim.reproductions.mrorder` — Tang's thesis, chapter 3 (MROrder);
- :mod:`~jobsize.sim.reproductions.dynamicmr` — Tang's thesis, chapter 4 (DynamicMR);
- :mod:`~jobsize.sim.reproductions.rasooli` — Rasooli and Down's adaptive scheduler.

Each builds the closest workload the project can (the papers' job tables, SWIM traces, synthetic
workloads shaped like theirs), runs the simulator, and writes ``report.md`` with the measured
numbers beside the paper's (:mod:`~jobsize.sim.reproductions.report`). CLI:
``jobsize simulate --reproduce mrorder|dynamicmr|rasooli``.
"""
