"""Collectors: Hadoop's own formats in (job history, REST APIs, Rumen, SLS, SWIM), job records out.

May import only :mod:`jobsize.schema`, :mod:`jobsize.errors` and :mod:`jobsize.atomic`.
"""
