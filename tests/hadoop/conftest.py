"""The real Hadoop cluster the ``hadoop``-marked tests run jobs on.

One mini cluster per test session (``jobsize.hadoop.up``: MiniMRYarnCluster and a
JobHistoryServer on loopback), in the session's temporary directory, stopped at the end. Where
Java or Maven is missing the tests skip with that reason — except under ``CI=true``, where they
fail, so CI never passes by skipping. ``.ci/run`` runs them with ``pytest -m hadoop``.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def hadoop_cluster(tmp_path_factory):
    """A running mini cluster (:class:`jobsize.hadoop.Cluster`): 2 NodeManagers of 4 GB."""
    from jobsize.hadoop import down, java_available, up

    reason = java_available()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    where = tmp_path_factory.mktemp("hadoop-cluster")
    cluster = up(where)
    yield cluster
    down(where)


@pytest.fixture(scope="session")
def hadoop_client(hadoop_cluster, tmp_path_factory):
    """A client submitting jobs to :func:`hadoop_cluster`."""
    from jobsize.hadoop.client import HadoopClient

    return HadoopClient(hadoop_cluster, log_dir=tmp_path_factory.mktemp("hadoop-clients"))
