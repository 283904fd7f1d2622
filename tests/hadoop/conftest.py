"""The real Hadoop cluster the ``hadoop``-marked tests run jobs on.

One mini cluster per test session (``jobsize.hadoop.up``: MiniMRYarnCluster and a
JobHistoryServer on loopback), in the session's temporary directory, stopped at the end. Where
Java or Maven is missing the tests skip with that reason — except under ``CI=true``, where they
fail, so CI never passes by skipping. ``.ci/run`` runs them with ``pytest -m hadoop``.
"""

from __future__ import annotations

import os

import pytest


def running_cluster(tmp_path_factory, name: str, **options):
    """Start a mini cluster in a new temporary directory (``options`` as
    :func:`jobsize.hadoop.up`'s); yields it and stops it. Skips without Java or Maven, and
    fails instead under ``CI=true``."""
    from jobsize.hadoop import down, java_available, up

    reason = java_available()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    where = tmp_path_factory.mktemp(name)
    cluster = up(where, **options)
    yield cluster
    down(where)


@pytest.fixture(scope="session")
def hadoop_cluster(tmp_path_factory):
    """A running mini cluster (:class:`jobsize.hadoop.Cluster`): 2 NodeManagers of 4 GB."""
    yield from running_cluster(tmp_path_factory, "hadoop-cluster")


@pytest.fixture(scope="session")
def hadoop_client(hadoop_cluster, tmp_path_factory):
    """A client submitting jobs to :func:`hadoop_cluster`."""
    from jobsize.hadoop.client import HadoopClient

    return HadoopClient(hadoop_cluster, log_dir=tmp_path_factory.mktemp("hadoop-clients"))


@pytest.fixture(scope="module")
def fair_cluster(tmp_path_factory):
    """A mini cluster whose ResourceManager runs Hadoop's FairScheduler, with the replay's
    queues."""
    from jobsize.hadoop.replay import QUEUES

    yield from running_cluster(tmp_path_factory, "fair-cluster", scheduler="fair",
                               queues=QUEUES)
