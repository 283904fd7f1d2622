"""``jobsize serve``: size predictions over HTTP/JSON for schedulers that are not Python.

A long-running service around one :class:`jobsize.predictor.SizePredictor`: predict a job or a
batch, observe finished jobs (each learned once, and only if the model finds it plausible; each
in an fsynced journal before it is acknowledged), reload the model file atomically, health and
Prometheus metrics. :mod:`.requests` bounds what a client may send, :mod:`.journal` keeps
observations and decisions, :mod:`.snapshot` the compacted model, :mod:`.model_state` holds the
model and rebuilds it from file + snapshot + journal, :mod:`.batches` predicts batches in a
process of their own, :mod:`.answers` writes answers as JSON, :mod:`.app` is the Starlette
application and :mod:`.server` runs it on uvicorn.
"""
