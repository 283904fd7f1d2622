"""The draw of a bench trace: FB-2009's bins, map-only jobs, scaling, and determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from jobsize.sampler.probespec import plan_probe

from jobsize.benchtrace import FB2009_BINS, Distribution, draw_job, draw_jobs, job_conf, summarize
from jobsize.benchtrace.draw import MAP_ONLY_SHARE, MAP_ONLY_SHARE_ONE_MAP, uses
from jobsize.errors import ConfigError
from jobsize.workloads import WORKLOADS

N = 6000


@pytest.fixture(scope="module")
def draws():
    return draw_jobs(11, N, Distribution())


def _within(observed: int, n: int, p: float, sds: float = 4.5) -> bool:
    """``observed`` successes of ``n`` agree with probability ``p`` (binomial, ± sds sd)."""
    return abs(observed - n * p) <= sds * math.sqrt(n * p * (1 - p)) + 1


def test_the_thesis_table_is_the_source_of_the_bins():
    shares = [b.share for b in FB2009_BINS]
    assert shares == [0.58, 0.096, 0.086, 0.084, 0.056, 0.043, 0.025, 0.013, 0.017]
    assert sum(shares) == pytest.approx(1.0)
    assert [b.low for b in FB2009_BINS[1:]] == [b.high + 1 for b in FB2009_BINS[:-1]]


def test_jobs_fall_into_the_fb2009_bins_with_their_shares(draws):
    dist = Distribution()
    counts = [s.jobs for s in summarize(draws, dist)]
    assert sum(counts) == N
    for b, count in zip(FB2009_BINS, counts, strict=True):
        assert _within(count, N, b.share), (b.label, count / N)
    for d in draws:
        b = FB2009_BINS[d.bin]
        assert b.low <= d.fb_maps <= b.high


def test_map_counts_are_scaled_to_the_machine(draws):
    dist = Distribution()
    for d in draws:
        assert d.n_maps == math.ceil(d.fb_maps / dist.map_scale)
        if d.n_maps > 1:
            assert d.input_bytes == d.n_maps * dist.split_bytes
        else:
            assert 0 < d.input_bytes <= dist.split_bytes
    # many tiny jobs and a long tail: two orders of magnitude of map counts
    maps = np.array([d.n_maps for d in draws])
    assert np.median(maps) <= 8 and maps.max() >= 800


def test_map_only_shares_follow_fb2009(draws):
    one = [d for d in draws if d.n_maps == 1]
    more = [d for d in draws if d.n_maps > 1]
    assert _within(sum(d.map_only for d in one), len(one), MAP_ONLY_SHARE_ONE_MAP)
    assert _within(sum(d.map_only for d in more), len(more), MAP_ONLY_SHARE)
    assert sum(d.map_only for d in draws) / N >= 0.2
    for d in draws:
        assert d.map_only == WORKLOADS[d.workload].map_only


def test_reduce_counts(draws):
    for d in draws:
        w = WORKLOADS[d.workload]
        if w.map_only:
            assert d.n_reduces == 0
            continue
        assert 1 <= d.n_reduces <= w.max_reduces
        if w.max_reduces > d.n_reduces > 1:  # not clamped: 5-25 % of the maps
            assert 0.05 * d.n_maps - 0.5 <= d.n_reduces <= 0.25 * d.n_maps + 0.5
    assert max(d.n_reduces for d in draws) >= 16


def test_every_workload_is_drawn(draws):
    assert {d.workload for d in draws} == set(WORKLOADS)


def test_one_map_jobs_are_uber_jobs_and_the_rest_are_probed(draws):
    dist = Distribution()
    conf = job_conf(dist.split_bytes)
    for d in draws[:400]:
        plan = plan_probe(d.n_maps, d.n_reduces, d.input_bytes, conf)
        assert plan.probe == (d.n_maps > 1), d


def test_the_draw_is_a_pure_function_of_seed_and_index():
    dist = Distribution()
    first = draw_jobs(5, 40, dist)
    assert first == draw_jobs(5, 40, dist)
    assert draw_jobs(5, 60, dist)[:40] == first  # a longer trace extends a shorter one
    assert draw_job(5, 17, dist) == first[17]
    assert draw_jobs(6, 40, dist) != first
    assert [d.index for d in first] == list(range(40))


def test_the_scaling_changes_sizes_not_the_draw():
    a = draw_jobs(3, 50, Distribution(split_bytes=1 << 20, map_scale=4))
    b = draw_jobs(3, 50, Distribution(split_bytes=1 << 18, map_scale=4))
    assert [(d.workload, d.n_maps, d.n_reduces) for d in a] == \
        [(d.workload, d.n_maps, d.n_reduces) for d in b]
    assert [d.input_bytes for d in a] == [4 * d.input_bytes for d in b]


def test_restricted_workloads():
    only = draw_jobs(2, 200, Distribution(workloads=("grep", "wordcount")))
    assert {d.workload for d in only} == {"grep", "wordcount"}
    single = draw_jobs(2, 50, Distribution(workloads=("grep",)))
    assert {(d.workload, d.n_reduces) for d in single} == {("grep", 0)}


def test_inputs_recur_by_kind_size_and_seed(draws):
    shared = uses(draws[:300])
    assert sum(len(v) for v in shared.values()) == 300
    assert max(len(v) for v in shared.values()) > 1  # tiny inputs are read by several jobs
    for (kind, size, seed), indices in shared.items():
        for i in indices:
            assert (draws[i].input_kind, draws[i].input_bytes, draws[i].input_seed) == \
                (kind, size, seed)


@pytest.mark.parametrize("kwargs", [{"workloads": ("nope",)}, {"workloads": ()},
                                    {"split_bytes": 0}, {"map_scale": 0}])
def test_bad_distributions_are_refused(kwargs):
    with pytest.raises(ConfigError):
        Distribution(**kwargs)


def test_bad_seeds_are_refused():
    with pytest.raises(ConfigError):
        draw_job(-1, 0, Distribution())
