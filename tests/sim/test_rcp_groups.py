"""RCP groups: α and β fitted to the paper's Fig 5, quantiles, fixed; flags."""

from __future__ import annotations

import numpy as np
import pytest

from jobsize.errors import ConfigError
from jobsize.sim.cluster import Cluster
from jobsize.sim.costmodel import read_swim_workload
from jobsize.sim.metrics import Segmentation
from jobsize.sim.rcp_groups import fit_paper, group_segments, paper_features, segment_grouping

#: a Fig 5 the paper's text allows: 37 segments, 7 groups, 19 at RCP ≥ 6, the largest at 5
FIG5 = {2: 1, 3: 3, 4: 6, 5: 8, 6: 7, 7: 6, 8: 6}


def _loads(counts: dict[int, int], alpha: float, beta: float) -> np.ndarray:
    """Log loads whose RCP under (alpha, beta) spreads over each group's middle half."""
    rng = np.random.default_rng(1)
    rcp = np.concatenate([g + rng.uniform(-0.25, 0.25, c) for g, c in counts.items()])
    return (rcp - beta) / alpha


def test_fit_finds_the_papers_shape_where_there_is_one() -> None:
    x = _loads(FIG5, alpha=1.5, beta=4.0)
    grouping = group_segments(x, "paper")
    assert grouping.method == "paper"
    counts = grouping.counts()
    assert len(counts) == 7 and sum(c for g, c in counts.items() if g >= 6) == 19
    assert all(paper_features(grouping.group).values())
    assert "unlike it" not in grouping.describe()
    assert grouping.alpha == pytest.approx(1.5, rel=0.2)


def test_fit_says_what_it_cannot_reproduce() -> None:
    # most segments just above the 5|6 boundary: no (α, β) makes 5 the largest group
    x = np.concatenate([np.linspace(-2, -0.3, 14), np.linspace(-0.1, 0.1, 16),
                        np.linspace(0.5, 2.5, 8)])
    grouping = group_segments(x, "paper")
    assert grouping.method == "paper"
    assert "unlike it, not: the largest group is 5" in grouping.describe()
    assert fit_paper(x[:5]) is None  # too few segments for 7 groups
    few = group_segments(x[:5], "paper")
    assert few.method == "default" and (few.alpha, few.beta) == (2.0, 5.0)
    assert "cannot be matched with 5 segments" in few.describe()


def test_quantiles_fixed_and_flags() -> None:
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, np.nan])
    q = group_segments(x, "quantiles:3")
    assert q.group[:6].tolist() == [1, 1, 2, 2, 3, 3] and np.isnan(q.group[6])
    assert q.flagged() == [1, 2, 3] and "flagged †" in q.describe()
    f = group_segments(x, "fixed", alpha=2, beta=5)
    assert f.rcp[:6] == pytest.approx(2 * x[:6] + 5)
    assert f.group[:6].tolist() == [3, 4, 5, 6, 7, 8]
    with pytest.raises(ConfigError, match="quantiles:K"):
        group_segments(x, "quantiles:many")
    with pytest.raises(ConfigError, match="expected paper"):
        group_segments(x, "deciles")


def test_fb2009_segments_against_the_papers_fig5(shared) -> None:
    w = read_swim_workload(str(shared / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"))
    grouping = segment_grouping(w, Cluster.parse("8x8g×8"), Segmentation())
    counts = grouping.counts()
    assert sum(counts.values()) == 38 and len(counts) == 7
    assert sum(c for g, c in counts.items() if g >= 6) == 20  # 19/37 of 38 segments
