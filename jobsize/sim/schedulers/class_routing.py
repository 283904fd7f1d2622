"""Rasooli and Down's routing LP: which job classes each resource should serve.

Classes ``C_i`` of jobs arrive at rates ``α_i`` and run at rate ``μ_ij`` (jobs per second if
resource ``R_j`` served class ``C_i`` alone). The LP (§6, "Optimization approach"; its equations
are lost from the text — this is the reading that gives the paper's worked example, the
allocation LP of Al-Azzoni and Down) raises all arrival rates together by ``λ`` while each class
keeps enough capacity — it "minimizes the maximum load":

    max λ   s.t.  Σ_j μ_ij · δ_ij ≥ λ · α_i   for every class i
                  Σ_i δ_ij ≤ 1                for every resource j
                  δ ≥ 0

``δ_ij`` is the share of ``R_j`` given to ``C_i``; only its non-zero entries are used: the
*suggested set* ``SC_j = {C_i : δ_ij > ε}`` of each resource. (A class so fast that its shares
all fall below ε is suggested where it does the most work, so that every class is somewhere.)
Solved with HiGHS (``scipy.optimize.linprog(method="highs")``), deterministic for the same
input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from jobsize.errors import ConfigError, SimulationError


@dataclass(frozen=True)
class Routing:
    """The LP's optimum: λ, δ (classes × resources) and each resource's suggested classes."""

    lam: float
    delta: np.ndarray
    suggested: tuple[frozenset[int], ...]


def suggested_sets(alpha: np.ndarray, mu: np.ndarray, eps: float = 1e-9) -> Routing:
    """Solve the LP for arrival rates ``alpha`` (F classes) and rates ``mu`` (F × M)."""
    alpha = np.asarray(alpha, float)
    mu = np.asarray(mu, float)
    if mu.ndim != 2 or len(alpha) != mu.shape[0]:
        raise ConfigError(f"routing LP: {len(alpha)} arrival rates for a {mu.shape} rate matrix")
    if (alpha < 0).any() or (mu < 0).any() or not np.isfinite(mu).all():
        raise ConfigError("routing LP: rates must be finite and non-negative")
    f_all, m = mu.shape
    # classes that arrive and can run somewhere; the others get no share (λ would be 0)
    live = np.flatnonzero((alpha > 0) & (mu.sum(axis=1) > 0))
    delta_all = np.zeros((f_all, m))
    if len(live) == 0 or m == 0:
        return Routing(0.0, delta_all, tuple(frozenset() for _ in range(m)))
    alpha, mu = alpha[live], mu[live]
    f = len(live)
    n = f * m  # δ flattened row-major, then λ
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    a_class = np.zeros((f, n + 1))
    for i in range(f):
        a_class[i, i * m:(i + 1) * m] = -mu[i]
        a_class[i, -1] = alpha[i]
    a_resource = np.zeros((m, n + 1))
    for j in range(m):
        a_resource[j, j:n:m] = 1.0
    a_ub = np.vstack([a_class, a_resource])
    b_ub = np.concatenate([np.zeros(f), np.ones(m)])
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=[(0, None)] * (n + 1), method="highs")
    if res.status != 0:
        raise SimulationError(f"routing LP failed: {res.message}")
    delta = res.x[:n].reshape(f, m)
    delta_all[live] = delta
    sets = [set(np.flatnonzero(delta_all[:, j] > eps).tolist()) for j in range(m)]
    for k, i in enumerate(live.tolist()):
        if not any(i in s for s in sets):  # a share too small to tell from 0 (a very fast class)
            sets[int(np.argmax(delta[k] * mu[k]))].add(i)
    return Routing(float(res.x[-1]), delta_all, tuple(frozenset(s) for s in sets))
