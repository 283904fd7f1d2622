"""Models: design matrices for eq 6-7, GLS fits, sizes (eq 2-5, 9, 10), evaluation, persistence.

- :mod:`jobsize.models.design` — eq 6 and the rebuilt eq 7, eq 8 probe scaling
- :mod:`jobsize.models.variance`, :mod:`jobsize.models.regression` — OLS / WLS / feasible GLS of
  one equation
- :mod:`jobsize.models.normal_equations` — sufficient statistics for O(p²) online updates
- :mod:`jobsize.models.uber` — uber jobs from historical mean task time
- :mod:`jobsize.models.resources` — S, minE, APB, PB, APB_init, VS_new
- :mod:`jobsize.models.size_model` — both equations and the uber estimate as one job-size
  model
- :mod:`jobsize.models.evaluation` — R² and errors in-sample, k-fold and prequential
- :mod:`jobsize.models.modelfile` — versioned JSON model files
- :mod:`jobsize.models.synthetic` — records from a known linear process, for tests and
  benchmarks

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`.
"""
