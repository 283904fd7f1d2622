"""Apache Hadoop itself, on this machine: a mini cluster to run jobs on and measure.

The local engine (:mod:`jobsize.engine`) is jobsize's embedded default; this package is where
results are checked against Hadoop. It builds a small Maven module (``pom.xml`` and
``src/`` beside this file: Hadoop's ``MiniMRYarnCluster``, JobHistoryServer, Hadoop Streaming
and the MapReduce examples), starts the cluster as two JVMs on loopback
(:mod:`~jobsize.hadoop.cluster`), and submits jobs to it as a user's client does
(:mod:`~jobsize.hadoop.client`). Nothing here imports a JVM: the cluster is reached over HTTP,
files and client processes, as a user's cluster is, and its jobs' histories are read by the same
collectors as any cluster's.
"""

from jobsize.hadoop.cluster import Cluster, ClusterError, default_dir, down, find, up
from jobsize.hadoop.toolchain import ToolchainError, java_available

__all__ = ["Cluster", "ClusterError", "ToolchainError", "default_dir", "down", "find",
           "java_available", "up"]
