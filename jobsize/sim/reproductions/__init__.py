"""Reproductions of the headline experiments of the papers behind the simulator's schedulers.

Among them, one module per paper for the MRv1 slot schedulers:
:mod:`~jobsize.sim.reproductions.mrorder` (Tang's thesis, chapter 3),
:mod:`~jobsize.sim.reproductions.dynamicmr` (chapter 4) and
:mod:`~jobsize.sim.reproductions.rasooli` (Rasooli and Down). Each builds the closest workload
the project can (the papers' job tables, SWIM traces, synthetic workloads shaped like theirs),
runs the simulator, and writes ``report.md`` with the measured numbers beside the paper's
(:mod:`~jobsize.sim.reproductions.report`). CLI: ``jobsize simulate --reproduce NAME``.
"""
