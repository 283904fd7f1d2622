"""``jobsize serve``: size predictions over HTTP/JSON for schedulers that are not Python.

A long-running service around one :class:`jobsize.predictor.SizePredictor`: predict a job or a
batch, observe finished jobs (the model learns online, and each observation is in an fsynced
journal before it is acknowledged), reload the model file atomically, health and Prometheus
metrics. :mod:`.requests` bounds what a client may send, :mod:`.journal` keeps observations,
:mod:`.model_state` holds the model and rebuilds it from file + journal, :mod:`.app` is the
Starlette application and :mod:`.server` runs it on uvicorn.
"""
