"""Sufficient statistics of a weighted least-squares fit, for online updates (§III-A).

The paper adds every finished job to the regression data set and refits. A weighted
least-squares fit depends on the data only through ``Σ w·z·zᵀ``, ``Σ w·z·y``, ``Σ w·y²`` and
the job count, so adding a job is a rank-one update costing O(p²) — independent of how many jobs
came before — and the coefficients are re-solved from the p × p system (p = 7 to 9) when next
needed. The result equals a batch refit over the same jobs with the same weights.

Columns are divided by a fixed per-column scale (their root mean square over the first fit) so
that bytes (~1e12) and the intercept (1) live on one scale and the p × p system stays well
conditioned. Scaling changes no fitted value.

Exactly collinear (aliased) columns — a constant N_r, a duplicated counter — cannot be separated
by any amount of data. Such a column is detected in column order and dropped: its coefficient is
0 and it is reported as aliased, as R's ``lm`` does. Column j is aliased when its squared residual
norm after projection on the earlier kept columns is below :data:`ALIAS_TOL` of its own — or below
what rounding in the normal equations can resolve, about ``ε·cond`` of those earlier columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: A column whose squared residual norm, after projection on the earlier kept columns, is below
#: this fraction of its own squared norm is treated as aliased.
ALIAS_TOL = 1e-10
#: ... and so is one whose residual is below this times the earlier columns' condition number
#: (bounded above by ``trace(G)·trace(G⁻¹)``): rounding noise in the normal equations.
_ROUNDOFF = 10 * float(np.finfo(float).eps)


@dataclass(frozen=True)
class Solution:
    """Weighted least-squares solution in the original (unscaled) units."""

    coef: np.ndarray  # p coefficients, 0 for aliased columns
    xtwx_inv: np.ndarray  # (XᵀWX)⁻¹ over the kept columns, zero rows/columns for aliased ones
    active: np.ndarray  # bool, p: the column was kept
    ssr: float  # Σ w·residual²
    dof: int  # jobs − kept columns


@dataclass
class NormalEquations:
    """``Σ w·z·zᵀ``, ``Σ w·z·y``, ``Σ w·y²`` and the job count, with ``z = x / scale``."""

    scale: np.ndarray
    gram: np.ndarray
    moment: np.ndarray
    yy: float
    n: int

    @classmethod
    def from_data(
        cls, x: np.ndarray, y: np.ndarray, w: np.ndarray, scale: np.ndarray
    ) -> NormalEquations:
        z = x / scale
        zw = z * w[:, None]
        return cls(scale=scale.copy(), gram=zw.T @ z, moment=zw.T @ y,
                   yy=float(np.dot(w * y, y)), n=len(y))

    def add(self, x: np.ndarray | list[float], y: float, w: float) -> None:
        """Add one job (design row ``x``, target ``y``, weight ``w``): O(p²)."""
        z = np.asarray(x, dtype=float) / self.scale
        zw = z * w
        self.gram += np.outer(zw, z)
        self.moment += zw * y
        self.yy += w * y * y
        self.n += 1

    def solve(self) -> Solution:
        """Coefficients, (XᵀWX)⁻¹ and the weighted residual sum of squares."""
        p = len(self.scale)
        inv = _inverse_if_full_rank(self.gram)
        if inv is not None:
            active = np.ones(p, dtype=bool)
            g, b, s = self.gram, self.moment, self.scale
        else:
            active = active_columns(self.gram)
            idx = np.flatnonzero(active)
            g, b, s = self.gram[np.ix_(idx, idx)], self.moment[idx], self.scale[idx]
            inv = np.linalg.inv(g)
        inv = (inv + inv.T) / 2
        beta = inv @ b
        ssr = max(self.yy - 2.0 * float(beta @ b) + float(beta @ g @ beta), 0.0)
        coef = np.zeros(p)
        coef[active] = beta / s
        full_inv = inv / np.outer(s, s)
        if not active.all():
            full_inv = embed(full_inv, active)
        return Solution(coef=coef, xtwx_inv=full_inv, active=active, ssr=ssr,
                        dof=self.n - int(active.sum()))


def _inverse_if_full_rank(gram: np.ndarray, tol: float = ALIAS_TOL) -> np.ndarray | None:
    """``gram⁻¹`` when no column is aliased, else None.

    ``1 / (gram_jj·(gram⁻¹)_jj)`` is column j's residual share given *all* other columns, never
    more than given the earlier ones, and the whole system's condition bounds any subsystem's;
    so passing this test implies :func:`active_columns` keeps every column — the common case,
    settled by one inversion.
    """
    try:
        inv = np.linalg.inv(gram)
    except np.linalg.LinAlgError:
        return None
    product = inv.diagonal() * gram.diagonal()  # 1 / (residual share of column j)
    limit = 1.0 / max(tol, _ROUNDOFF * _condition_bound(gram, inv))
    return inv if bool(((product > 0) & (product < limit)).all()) else None


def _condition_bound(gram: np.ndarray, inv: np.ndarray) -> float:
    """An upper bound of the 2-norm condition number of a symmetric positive definite matrix."""
    return float(np.trace(gram) * np.trace(inv))


def embed(matrix: np.ndarray, active: np.ndarray) -> np.ndarray:
    p = len(active)
    out = np.zeros((p, p))
    idx = np.flatnonzero(active)
    out[np.ix_(idx, idx)] = matrix
    return out


def column_scale(x: np.ndarray) -> np.ndarray:
    """Root mean square of each column; 1 where a column is all zero."""
    rms = np.sqrt(np.mean(x * x, axis=0))
    return np.where(rms > 0, rms, 1.0)


def active_columns(gram: np.ndarray, tol: float = ALIAS_TOL) -> np.ndarray:
    """Which columns to keep: each one not (nearly) a combination of the earlier kept ones."""
    p = len(gram)
    if _inverse_if_full_rank(gram, tol) is not None:
        return np.ones(p, dtype=bool)
    diag = np.diag(gram)
    kept: list[int] = []
    for j in range(p):
        if not diag[j] > 0:
            continue
        residual, cond = diag[j], 1.0
        if kept:
            sub = gram[np.ix_(kept, kept)]
            sub_inv = np.linalg.inv(sub)
            cross = gram[kept, j]
            residual -= float(cross @ sub_inv @ cross)
            cond = _condition_bound(sub, sub_inv)
        if residual > max(tol, _ROUNDOFF * cond) * diag[j]:
            kept.append(j)
    active = np.zeros(p, dtype=bool)
    active[kept] = True
    return active


def variance_inflation(gram: np.ndarray, active: np.ndarray) -> np.ndarray:
    """VIF of each column from ``Σ w·z·zᵀ`` (column 0 the intercept): ``1 / (1 − R²_j)`` of
    column j regressed on the other kept columns, weighted as the fit is. NaN for the intercept
    and aliased columns; ∞ where a column is a combination of the others.

    Centring the Gram matrix on the weighted means gives the columns' weighted covariance; the
    diagonal of its inverse correlation matrix is the VIF. It is invariant to column scaling.
    """
    out = np.full(len(gram), np.nan)
    idx = np.flatnonzero(active)[1:]
    if len(idx) < 2:
        out[idx] = 1.0
        return out
    total = gram[0, 0]
    mean_cross = np.outer(gram[0, idx], gram[0, idx]) / total
    cov = gram[np.ix_(idx, idx)] - mean_cross
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = cov / np.outer(sd, sd)
        try:
            out[idx] = np.diag(np.linalg.inv(corr))
        except np.linalg.LinAlgError:
            out[idx] = np.inf
    return out

