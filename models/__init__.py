"""Models: design matrices for eq 6-7, GLS fits, sizes (eq 2-5, 9, 10), evaluation, persistence.

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`.
"""
