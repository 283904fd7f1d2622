"""Where a sweep's simulations run: joblib's local backends, or a Dask or Ray cluster.

A sweep hands independent simulations to :class:`joblib.Parallel` and names no backend;
:func:`parallel_backend` opens the one asked for around it:

- ``loky`` (joblib's default), ``threading``, ``multiprocessing``: processes or threads on
  this machine;
- ``dask``: a ``dask.distributed`` cluster — the scheduler at ``address``
  (``tcp://host:8786``), or a ``LocalCluster`` started for the sweep (one single-threaded
  worker process per ``workers``, all cores by default, listening on loopback only, memory
  spilling off) and closed after it;
- ``ray``: the Ray cluster at ``address`` (``ray://host:10001`` or ``auto``), or a local Ray
  started for the sweep and shut down after it.

Dask and Ray are optional (``pip install 'jobsize[dask]'`` / ``'jobsize[ray]'``). Results
travel back to the client in memory, as the tasks' return values; nothing is written on disk
but the sweep's own outputs (Parquet, Markdown, PNG). ``parallel_backend`` yields the
``n_jobs`` to give joblib: with a cluster, every worker it has (``-1``) unless asked for fewer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import Any

from jobsize.errors import ConfigError

LOCAL = ("loky", "threading", "multiprocessing", "sequential")
CLUSTERS = ("dask", "ray")


@contextlib.contextmanager
def parallel_backend(name: str | None, n_jobs: int = 1, address: str | None = None,
                     workers: int | None = None) -> Iterator[int]:
    """Run the joblib calls inside on backend ``name``; yields the ``n_jobs`` to use."""
    import joblib

    if address and name not in CLUSTERS:
        raise ConfigError(f"--scheduler-address is for --backend {' or '.join(CLUSTERS)}, "
                          f"not {name or 'the default (loky)'}")
    if name is None or name in LOCAL:
        with (joblib.parallel_config(backend=name) if name else contextlib.nullcontext()):
            yield n_jobs
        return
    if name not in CLUSTERS:
        raise ConfigError(f"--backend {name!r}: expected one of {', '.join(LOCAL + CLUSTERS)}")
    opener = _dask if name == "dask" else _ray
    with opener(address, workers), joblib.parallel_config(backend=name):
        yield -1 if n_jobs == 1 else n_jobs


def _missing(extra: str) -> ConfigError:
    return ConfigError(f"--backend {extra} needs its package: pip install 'jobsize[{extra}]'")


@contextlib.contextmanager
def _dask(address: str | None, workers: int | None) -> Iterator[None]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise _missing("dask") from None
    if address:
        try:
            client = Client(address, timeout="10s")
        except OSError as exc:
            raise ConfigError(f"no Dask scheduler at {address}: {exc}") from None
        with client:
            yield
        return
    with LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                      processes=True, host="127.0.0.1", dashboard_address=None,
                      memory_limit=0) as cluster, Client(cluster):
        yield


@contextlib.contextmanager
def _ray(address: str | None, workers: int | None) -> Iterator[None]:
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError:
        raise _missing("ray") from None
    try:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     log_to_driver=False)
    except ConnectionError as exc:
        raise ConfigError(f"no Ray cluster at {address}: {exc}") from None
    register_ray()
    try:
        yield
    finally:
        ray.shutdown()


def ordered_results(tasks: Iterable[Any], n_jobs: int) -> Iterator[Any]:
    """The results of joblib's delayed ``tasks`` in order, on the active backend: each as soon as
    it and those before it are done, so progress bars move; on a backend that cannot stream its
    results back (Ray's) all at once when the last is done."""
    from joblib import Parallel
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    streams = getattr(backend, "supports_return_generator", False)
    yield from Parallel(n_jobs=n_jobs, return_as="generator" if streams else "list")(tasks)
