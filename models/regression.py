"""One fitted phase model — eq 6 (SE_m) or eq 7 (SE_r) — and its online updates.

A batch fit is feasible GLS (§III-A cites GLS): OLS on the design matrix, a variance model of
its residuals (:mod:`models.variance`), then the generalised least-squares fit with that
diagonal covariance, done by statsmodels, which gives the coefficients, their covariance and the
residual scale. For ``gls`` the variance model is estimated twice — from the OLS residuals, then
from those of the first weighted fit (iterated FGLS, see :data:`VARIANCE_ROUNDS`); those
preliminary fits only feed the variance model and are solved from the normal equations.
``method="ols"`` is the statsmodels OLS fit, ``"wls"`` uses a fixed variance shape. The fit
leaves behind its sufficient statistics (:mod:`models.normal_equations`), so every finished job
can be added afterwards in O(p²); the variance model stays as the last batch fit estimated it.

A prediction at design row x has mean ``x·β`` and predictive variance
``s²·v(x) + xᵀ Cov(β) x`` with ``Cov(β) = s²·(XᵀWX)⁻¹``; intervals use Student's t with the fit's
residual degrees of freedom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import mul

import numpy as np
import pandas as pd
import statsmodels.api as sm
from jobsize.models.design import EQUATION, TERM_UNITS, terms
from jobsize.models.normal_equations import (
    NormalEquations,
    Solution,
    active_columns,
    column_scale,
    embed,
    variance_inflation,
)
from jobsize.models.variance import VarianceModel, check_method
from scipy import special

from jobsize.errors import ModelError

#: How many times the variance model is estimated: ``gls`` re-estimates it once from a weighted
#: fit, because OLS residuals of small jobs are dominated by the misfit the large jobs impose and
#: understate how fast the variance grows; ``wls`` fixes its shape; ``ols`` has none.
VARIANCE_ROUNDS: dict[str, int] = {"gls": 2, "wls": 1, "ols": 0}


def t_quantile(dof: int, level: float) -> float:
    """Two-sided Student-t multiplier for a central interval of coverage ``level``."""
    if dof <= 0:
        return float("inf")
    return float(special.stdtrit(dof, 0.5 + level / 2))


#: The coverage of prediction intervals wherever none is given: the library's, the CLI's and
#: the service's (which serves the model's), 90 %.
DEFAULT_LEVEL = 0.9


def check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ModelError(f"interval level must be between 0 and 1, got {level!r}")


def min_jobs(phase: str, form: str = "paper") -> int:
    """Fewest jobs a fit of this phase accepts: one more than its coefficients."""
    return len(terms(phase, form)) + 1


@dataclass
class PhaseModel:
    """Coefficients, covariance, variance model and sufficient statistics of eq 6 or eq 7."""

    phase: str
    features: str
    method: str
    level: float
    variance: VarianceModel
    stats: NormalEquations
    solution: Solution
    form: str = "paper"
    s2: float = field(init=False)
    t: float = field(init=False)
    coef_list: list[float] = field(init=False, repr=False)  # coefficients as plain floats
    _stale: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        self._apply(self.solution)

    # -- fitting ------------------------------------------------------------------------------

    @classmethod
    def fit(cls, phase: str, features: str, method: str, x: np.ndarray, y: np.ndarray,
            level: float = 0.95, form: str = "paper") -> PhaseModel:
        """Batch fit on design matrix ``x`` (n × p) and targets ``y`` (seconds)."""
        check_method(method)
        check_level(level)
        n, p = x.shape
        if n < p + 1:
            raise ModelError(
                f"{phase} (eq {EQUATION[phase]}): {n} usable job{'s' * (n != 1)}, but the model "
                f"has {p} coefficients; at least {p + 1} jobs are needed")
        scale = column_scale(x)
        # The preliminary fits only feed the variance model: the normal equations, O(n·p²), do.
        stats = NormalEquations.from_data(x, y, np.ones(n), scale)
        coef = stats.solve().coef
        variance = VarianceModel.constant(p)
        v = np.ones(n)
        for _ in range(VARIANCE_ROUNDS[method]):
            variance = VarianceModel.fit(method, x, y, coef)
            v = variance.relative(x)
            stats = NormalEquations.from_data(x, y, 1.0 / v, scale)
            coef = stats.solve().coef
        active = active_columns(stats.gram)
        z = x[:, active] / scale[active]
        # The estimate itself, its covariance and residual scale: statsmodels. Column 0 is the
        # intercept, never aliased (it comes first).
        if method == "ols":
            final = sm.OLS(y, z, hasconst=True).fit()
        else:
            final = sm.GLS(y, z, sigma=v, hasconst=True).fit()
        solution = Solution(
            coef=_expand(final.params, active) / scale,
            xtwx_inv=embed(final.normalized_cov_params, active) / np.outer(scale, scale),
            active=active,
            ssr=float(final.ssr),
            dof=round(final.df_resid),
        )
        return cls(phase=phase, features=features, method=method, level=level,
                   variance=variance, stats=stats, solution=solution, form=form)

    def observe(self, row: list[float], y: float) -> None:
        """Add one finished job: O(p²); coefficients are re-solved when next used."""
        self.stats.add(row, y, 1.0 / self.variance.relative_one(row))
        self._stale = True

    def refresh(self) -> None:
        """Re-solve the coefficients if jobs were added since the last solve."""
        if self._stale:
            self._apply(self.stats.solve())

    def _apply(self, solution: Solution) -> None:
        self.solution = solution
        self.s2 = solution.ssr / solution.dof if solution.dof > 0 else float("nan")
        self.t = t_quantile(solution.dof, self.level)
        self.coef_list = solution.coef.tolist()
        self._stale = False

    # -- prediction ---------------------------------------------------------------------------

    @property
    def coef(self) -> np.ndarray:
        self.refresh()
        return self.solution.coef

    @property
    def terms(self) -> tuple[str, ...]:
        return terms(self.phase, self.form)

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and predictive variance for each row of ``x``."""
        self.refresh()
        sol = self.solution
        mean = x @ sol.coef
        quad = np.einsum("ij,jk,ik->i", x, sol.xtwx_inv, x)
        return mean, self.s2 * (self.variance.relative(x) + quad)

    def predict_one(self, row: list[float]) -> tuple[float, float]:
        """:meth:`predict` for one design row of plain floats."""
        if self._stale:
            self.refresh()
        mean = sum(map(mul, row, self.coef_list))
        x = np.array(row)
        quad = float(x @ self.solution.xtwx_inv @ x)
        return mean, self.s2 * (self.variance.relative_one(row) + quad)

    # -- reporting ----------------------------------------------------------------------------

    def coefficient_table(self) -> pd.DataFrame:
        """term, unit, coefficient, standard error, t and two-sided p, variance inflation
        factor (how nearly the term is a combination of the others); aliased terms flagged."""
        self.refresh()
        sol = self.solution
        se = np.sqrt(self.s2 * np.diag(sol.xtwx_inv))
        se = np.where(sol.active, se, np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            tval = np.where(se > 0, sol.coef / se, np.nan)
        pval = 2 * special.stdtr(sol.dof, -np.abs(tval)) if sol.dof > 0 else np.nan
        return pd.DataFrame({
            "term": self.terms,
            "unit": [_coef_unit(t) for t in self.terms],
            "coef": sol.coef,
            "std_err": se,
            "t": tval,
            "p": pval,
            "aliased": ~sol.active,
            "vif": variance_inflation(self.stats.gram, sol.active),
        })


def _coef_unit(term: str) -> str:
    unit = TERM_UNITS[term]
    return "s" if not unit else ("" if unit == "s" else f"s/{unit}")


def _expand(values: np.ndarray, active: np.ndarray) -> np.ndarray:
    out = np.zeros(len(active))
    out[active] = values
    return out
