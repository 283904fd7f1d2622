"""Block locality: where each map task's input block lives, and what reading it remotely costs.

HDFS stores a file's blocks on ``replication`` nodes each; a map task reads one block. A map
that runs on a node holding a replica of its block is *node-local* and takes its usual time; one
that runs elsewhere first fetches the block over the network, which adds ``remote_s`` seconds
(a 64 MB block over a 100 Mbit/s link: about 5 s). The replicas of every map are drawn once per
job, uniformly without replacement among the nodes, from a generator seeded by ``seed`` and the
job's index — so every scheduler of a comparison sees the same placement.

The simulator uses the model when given one (``Simulation(..., locality=BlockLocality())``):
a map launched on a node takes a pending map whose block is on that node if the job has one, as
Hadoop's JobTracker does (``obtainNewMapTask``: node-local first), and otherwise any pending map.
Schedulers ask ``sim.has_local_map(j, node)`` to decide (delay scheduling, Slot PreScheduling)
and read ``sim.local_maps`` / ``sim.remote_maps`` per job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jobsize.errors import ConfigError


@dataclass(frozen=True)
class BlockLocality:
    """Replica placement and remote-read cost (see the module docstring)."""

    replication: int = 3
    remote_s: float = 5.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.replication < 1 or not (self.remote_s >= 0 and np.isfinite(self.remote_s)):
            raise ConfigError(f"block locality: replication {self.replication!r} must be ≥ 1 "
                              f"and the remote read cost {self.remote_s!r} a number ≥ 0 s")

    def replicas(self, job: int, n_maps: int, n_nodes: int) -> np.ndarray:
        """Nodes holding each map's block, shape (n_maps, min(replication, n_nodes))."""
        r = min(self.replication, n_nodes)
        rng = np.random.default_rng((self.seed, job))
        # r distinct nodes per map: the first r of a random permutation, by sorting noise
        keys = rng.random((n_maps, n_nodes))
        return np.argsort(keys, axis=1)[:, :r]

    def describe(self) -> str:
        return (f"{self.replication} replicas per block, a remote map reads for "
                f"{self.remote_s:g} s more")
