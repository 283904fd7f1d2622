"""RCP groups: how segments are put into the groups the paper's §IV-C reports by.

Eq 11 is ``RCP = α·ln(ΣS / (ΣI·CR)) + β``, rounded to an integer group. The paper does not give
α and β ("coefficients to make the result approximate to an integer"); what it does give is
its Fig 5 on the FB-2009 trace: 37 segments in **7 groups**, **group 5 the largest**, fewer
segments the further a group is from 5 on either side, **19 of 37 at RCP ≥ 6**, and groups at
RCP ≤ 3 (Fig 6 compares them). Three ways to group:

- ``paper`` (:func:`fit_paper`): α and β fitted to that evidence. Over a grid of α, β moves
  the boundary between groups 5 and 6 to the point that puts the paper's share of segments
  (19/37) at RCP ≥ 6; an (α, β) is feasible when the groups also number 7, are unimodal with
  the mode at 5, and reach down to 3 or below. The chosen (α, β) is the middle of the
  feasible α range and, at that α, of the feasible β interval. When nothing is feasible (too
  few segments, say) the fixed α = 2, β = 5 are used and the grouping says so;
- ``quantiles:K``: K groups of (almost) equal numbers of segments by offered load, numbered
  1..K from the lightest;
- ``fixed``: the given α and β.

Every grouping flags groups resting on fewer than :data:`MIN_SEGMENTS` segments: their
numbers are anecdotes, not distributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.metrics import Segmentation, rcp
from jobsize.sim.workload import Workload

#: Fewer segments than this in a group, and the group is flagged in reports and figures.
MIN_SEGMENTS = 3
#: The paper's Fig 5: segments, groups, segments at RCP ≥ 6, the largest group.
PAPER_FIG5 = {"segments": 37, "groups": 7, "at_6_or_more": 19, "mode": 5}
FIXED_ALPHA, FIXED_BETA = 2.0, 5.0


@dataclass(frozen=True)
class RcpGrouping:
    """Per segment: its RCP and group; how they were obtained."""

    method: str  # paper | quantiles | fixed | default (paper impossible: α = 2, β = 5)
    alpha: float
    beta: float
    rcp: np.ndarray
    group: np.ndarray  # float, integer-valued; NaN where the segment has no RCP
    note: str = ""

    def counts(self) -> dict[int, int]:
        """Segments per group."""
        groups, counts = np.unique(self.group[np.isfinite(self.group)], return_counts=True)
        return {int(g): int(c) for g, c in zip(groups, counts, strict=True)}

    def flagged(self) -> list[int]:
        """Groups with fewer than :data:`MIN_SEGMENTS` segments."""
        return [g for g, c in self.counts().items() if c < MIN_SEGMENTS]

    def describe(self) -> str:
        """One line for reports: the formula, the method and the flagged groups."""
        if self.method == "quantiles":
            text = (f"RCP groups: {len(self.counts())} quantiles of the offered load "
                    "ln(ΣS / (ΣI·CR)), 1 the lightest")
        else:
            how = {"paper": "fitted to the FSPY paper's Fig 5", "fixed": "as given",
                   "default": "the defaults"}[self.method]
            text = (f"RCP (eq 11) = {self.alpha:.3g}·ln(ΣS / (ΣI·CR)) + {self.beta:.3g}, "
                    f"α and β {how}; groups are RCP rounded")
        if self.note:
            text += f" ({self.note})"
        flagged = self.flagged()
        if flagged:
            text += (f"; groups {', '.join(map(str, flagged))} rest on fewer than "
                     f"{MIN_SEGMENTS} segments (flagged †)")
        return text


def group_segments(log_load: Sequence[float] | np.ndarray, method: str = "paper",
                   alpha: float = FIXED_ALPHA, beta: float = FIXED_BETA) -> RcpGrouping:
    """Group segments of offered load ``exp(log_load)`` by ``method`` (see the module
    docstring): ``paper``, ``quantiles[:K]`` or ``fixed`` (with ``alpha``, ``beta``)."""
    x = np.asarray(log_load, dtype=float)
    kind, _, arg = method.partition(":")
    if kind == "fixed":
        return _linear(x, "fixed", alpha, beta)
    if kind == "paper":
        fit = fit_paper(x)
        if fit is None:
            return _linear(x, "default", FIXED_ALPHA, FIXED_BETA,
                           note="the paper's Fig 5 cannot be matched with "
                                f"{int(np.isfinite(x).sum())} segments")
        grouping = _linear(x, "paper", *fit)
        g = grouping.group
        features = paper_features(g)
        held = [f"{len(np.unique(g[np.isfinite(g)]))} groups",
                f"{int((g >= 6).sum())} of {int(np.isfinite(g).sum())} segments at RCP ≥ 6",
                *[name for name, ok in features.items() if ok]]
        missed = [name for name, ok in features.items() if not ok]
        note = "as the paper: " + ", ".join(held)
        if missed:
            note += "; unlike it, not: " + ", ".join(missed)
        return RcpGrouping("paper", grouping.alpha, grouping.beta, grouping.rcp, g, note)
    if kind == "quantiles":
        try:
            k = int(arg or 7)
        except ValueError:
            raise ConfigError(f"RCP groups {method!r}: expected quantiles:K like "
                              "quantiles:5") from None
        if k < 1:
            raise ConfigError(f"RCP groups {method!r}: K must be at least 1")
        return _quantiles(x, k)
    raise ConfigError(f"RCP groups {method!r}: expected paper, quantiles[:K] or fixed")


def _linear(x: np.ndarray, method: str, alpha: float, beta: float, note: str = ""
            ) -> RcpGrouping:
    r = alpha * x + beta
    group = np.where(np.isfinite(r), np.floor(r + 0.5), np.nan)
    return RcpGrouping(method, float(alpha), float(beta), r, group, note)


def _quantiles(x: np.ndarray, k: int) -> RcpGrouping:
    ok = np.isfinite(x)
    rank = np.empty(int(ok.sum()), dtype=np.int64)
    rank[np.argsort(x[ok], kind="stable")] = np.arange(int(ok.sum()))
    group = np.full(len(x), np.nan)
    group[ok] = rank * min(k, max(int(ok.sum()), 1)) // max(int(ok.sum()), 1) + 1
    return RcpGrouping("quantiles", 1.0, 0.0, x.copy(), group)


def paper_features(groups: np.ndarray) -> dict[str, bool]:
    """Which of the paper's Fig 5 features integer ``groups`` (one per segment) show besides
    the two a fit imposes (the number of groups and the share at RCP ≥ 6)."""
    values, counts = np.unique(groups[np.isfinite(groups)], return_counts=True)
    by = dict(zip(values.astype(int).tolist(), counts.tolist(), strict=True))
    mode = PAPER_FIG5["mode"]
    top = by.get(mode, 0)
    up = [by.get(g, 0) for g in range(mode, int(values.max()) + 1)] if len(values) else []
    down = [by.get(g, 0) for g in range(mode, int(values.min()) - 1, -1)] if len(values) else []
    return {
        "the largest group is 5": top > 0 and all(c < top for g, c in by.items() if g != mode),
        "fewer segments away from 5": all(a >= b for a, b in pairwise(up))
        and all(a >= b for a, b in pairwise(down)),
        "groups at RCP ≤ 3": bool(len(values)) and values.min() <= 3,
    }


def fit_paper(log_load: Sequence[float] | np.ndarray) -> tuple[float, float] | None:
    """(α, β) that make these segments' RCP groups look most like the paper's Fig 5, or None.

    Imposed: 7 groups and the paper's share of segments at RCP ≥ 6 (19 of 37). Among the
    (α, β) on a grid that meet both, those showing most of :func:`paper_features` are kept,
    and the middle one of them is chosen (middle α, then the middle of its β values).
    """
    x = np.sort(np.asarray(log_load, dtype=float)[np.isfinite(np.asarray(log_load, float))])
    n = len(x)
    high = round(PAPER_FIG5["at_6_or_more"] * n / PAPER_FIG5["segments"])
    if n < PAPER_FIG5["groups"] or not 0 < high < n or x[n - high - 1] >= x[n - high]:
        return None
    lo_x, hi_x = x[n - high - 1], x[n - high]  # the 5|6 boundary (RCP 5.5) lies between
    scored: dict[int, dict[float, list[float]]] = {}
    for alpha in np.round(np.arange(0.05, 10.0 + 1e-9, 0.05), 2).tolist():
        for f in np.linspace(0.02, 0.98, 49).tolist():
            beta = 5.5 - alpha * (lo_x + (hi_x - lo_x) * f)
            groups = np.floor(alpha * x + beta + 0.5)
            if len(np.unique(groups)) != PAPER_FIG5["groups"]:
                continue
            score = sum(paper_features(groups).values())
            scored.setdefault(score, {}).setdefault(alpha, []).append(beta)
    if not scored:
        return None
    best = scored[max(scored)]
    alphas = sorted(best)
    alpha = alphas[len(alphas) // 2]
    betas = sorted(best[alpha])
    return float(alpha), float(betas[len(betas) // 2])


def segment_grouping(workload: Workload, cluster: Cluster, segmentation: Segmentation,
                     method: str = "paper", alpha: float = FIXED_ALPHA,
                     beta: float = FIXED_BETA) -> RcpGrouping:
    """The RCP grouping of ``workload``'s segments on ``cluster`` (eq 11 with α = 1, β = 0
    is a segment's log offered load)."""
    windows = segmentation.windows(workload.n_jobs)
    x = [rcp(workload.segment(a, b), cluster, 1.0, 0.0) for a, b in windows]
    return group_segments(x, method, alpha, beta)
