"""Job sizes and parallelism bounds in YARN's two resources (paper eq 2-5, 9, 10).

Every quantity here is a :class:`Resources` pair (memory, vcores). Its units depend on what it
holds: a container or a cluster is (MB, vcores); a size S is (MB·s, vcore·s); a parallelism bound
is (MB, vcores) again. Where one number is needed — ordering jobs — the paper uses memory.

The scalar functions are the reference definitions; :func:`min_e_array` is the vectorised eq 4
used for whole traces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Resources:
    """A (memory, vcores) pair; see the module docstring for units."""

    memory: float
    vcores: float

    def __add__(self, other: Resources) -> Resources:
        return Resources(self.memory + other.memory, self.vcores + other.vcores)

    def __sub__(self, other: Resources) -> Resources:
        return Resources(self.memory - other.memory, self.vcores - other.vcores)

    def __mul__(self, k: float) -> Resources:
        return Resources(self.memory * k, self.vcores * k)

    __rmul__ = __mul__

    def minimum(self, other: Resources) -> Resources:
        """Componentwise minimum."""
        return Resources(min(self.memory, other.memory), min(self.vcores, other.vcores))

    def dominant_share(self, total: Resources) -> float:
        """The larger of this pair's shares of ``total`` (dominant resource, DRF)."""
        return max(self.memory / total.memory, self.vcores / total.vcores)


#: The paper's cluster (§IV-A): 8 slave nodes × 8 GB × 8 vcores.
PAPER_CLUSTER = Resources(8 * 8192.0, 8 * 8.0)

# Shares like 1536·N/65536 land a hair above an integer in binary floating point; a wave count
# must not round that up to an extra wave.
_CEIL_SLACK = 1e-9


def _waves(share: float) -> int:
    return math.ceil(share - _CEIL_SLACK) if share > 0 else 0


def job_size(se_m: float, se_r: float, r_m: Resources, r_r: Resources) -> Resources:
    """eq 5: ``S = R_m·SE_m + R_r·SE_r`` in (MB·s, vcore·s); SE in seconds."""
    return Resources(r_m.memory * se_m + r_r.memory * se_r, r_m.vcores * se_m + r_r.vcores * se_r)


def uber_size(se_m: float, se_r: float, r_am: Resources) -> Resources:
    """Size of an uber job: its tasks run one after another inside the AM container (§III-C)."""
    return r_am * (se_m + se_r)


def min_e(
    se_m: float, se_r: float, n_m: float, n_r: float, r_m: Resources, r_r: Resources,
    cluster: Resources,
) -> float:
    """eq 4: ideal execution time in seconds, without contention.

    ``minE = e_m·ceil(R_m·N_m / CR) + e_r·ceil(R_r·N_r / CR)`` with ``e = SE / N`` the mean task
    time. For vector resources the number of waves is set by the dominant dimension. A phase with
    no tasks contributes 0.
    """
    e_m = se_m / n_m if n_m > 0 else 0.0
    e_r = se_r / n_r if n_r > 0 else 0.0
    return (e_m * _waves((r_m * n_m).dominant_share(cluster))
            + e_r * _waves((r_r * n_r).dominant_share(cluster)))


def apb(size: Resources, min_e_s: float) -> Resources:
    """eq 3: average parallelism bound ``APB = S / minE`` in (MB, vcores); 0 if minE is 0."""
    if min_e_s <= 0:
        return Resources(0.0, 0.0)
    return size * (1.0 / min_e_s)


def pb(held: Resources, requested: Resources, cluster: Resources) -> Resources:
    """eq 2: parallelism bound ``PB = min(HR + RR, CR)``, componentwise."""
    return (held + requested).minimum(cluster)


def apb_init(r_am: Resources, r_m: Resources, n_m: float, cluster: Resources) -> Resources:
    """eq 9: initial APB of a job not yet sized, ``min(R_am + R_m·N_m, CR)``."""
    return (r_am + r_m * n_m).minimum(cluster)


def vs_new(s_pred: Resources, s_init: Resources, vs_cur: Resources) -> Resources:
    """eq 10: virtual size once the prediction arrives, ``S_pred − (S_init − VS_cur)``."""
    return s_pred - (s_init - vs_cur)


def min_e_array(
    se_m: np.ndarray, se_r: np.ndarray, n_m: np.ndarray, n_r: np.ndarray,
    r_m: tuple[np.ndarray, np.ndarray], r_r: tuple[np.ndarray, np.ndarray], cluster: Resources,
) -> np.ndarray:
    """:func:`min_e` over arrays of jobs; ``r_m``, ``r_r`` are (memory, vcores) arrays."""

    def waves(r: tuple[np.ndarray, np.ndarray], n: np.ndarray) -> np.ndarray:
        share = np.maximum(r[0] * n / cluster.memory, r[1] * n / cluster.vcores)
        return np.where(share > 0, np.ceil(share - _CEIL_SLACK), 0.0)

    with np.errstate(divide="ignore", invalid="ignore"):
        e_m = np.where(n_m > 0, se_m / n_m, 0.0)
        e_r = np.where(n_r > 0, se_r / n_r, 0.0)
    return e_m * waves(r_m, n_m) + e_r * waves(r_r, n_r)
