"""Sampler: input splits, Algorithm 1 sampling and the probing-job specification.

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`.
"""
