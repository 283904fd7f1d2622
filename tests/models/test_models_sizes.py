import numpy as np
import pytest
from jobsize.models.resources import (
    PAPER_CLUSTER,
    Resources,
    apb,
    apb_init,
    job_size,
    min_e,
    min_e_array,
    pb,
    uber_size,
    vs_new,
)


def test_paper_cluster_is_8_nodes_of_8_gb_and_8_vcores():
    assert Resources(65536.0, 64.0) == PAPER_CLUSTER


def test_eq5_size_is_a_memory_vcore_pair():
    s = job_size(100.0, 20.0, Resources(2048, 1), Resources(4096, 2))
    assert s == Resources(2048 * 100 + 4096 * 20, 100 + 2 * 20)


def test_eq4_waves_follow_the_dominant_resource():
    cluster = Resources(65536, 64)
    # 32 maps × (1 GB, 4 vcores): memory share 0.5, vcore share 2 → 2 waves, not 1
    r_m = Resources(1024, 4)
    assert min_e(320.0, 0.0, 32, 0, r_m, Resources(1024, 1), cluster) == pytest.approx(10 * 2)
    # memory-dominant: 100 maps × (2 GB, 1 vcore) → 200 GB / 64 GB → 4 waves
    assert min_e(1000.0, 0.0, 100, 0, Resources(2048, 1), Resources(1024, 1), cluster) == \
        pytest.approx(10 * 4)
    # both phases; an exact multiple of the cluster is 1 wave, not 2
    got = min_e(64.0, 30.0, 64, 3, Resources(1024, 1), Resources(4096, 2), cluster)
    assert got == pytest.approx(1.0 * 1 + 10.0 * 1)


def test_eq3_apb_is_size_over_min_e():
    size = Resources(1000.0, 10.0)
    assert apb(size, 4.0) == Resources(250.0, 2.5)
    assert apb(size, 0.0) == Resources(0.0, 0.0)


def test_eq2_eq9_eq10():
    cluster = Resources(8192, 8)
    assert pb(Resources(4096, 2), Resources(6144, 3), cluster) == Resources(8192, 5)
    assert apb_init(Resources(1536, 1), Resources(1024, 1), 4, cluster) == Resources(5632, 5)
    assert apb_init(Resources(1536, 1), Resources(1024, 1), 40, cluster) == cluster
    assert vs_new(Resources(500, 5), Resources(800, 8), Resources(600, 6)) == Resources(300, 3)


def test_uber_size_runs_in_the_am_container():
    assert uber_size(6.0, 4.0, Resources(1536, 1)) == Resources(15360, 10)


def test_vectorised_min_e_equals_the_scalar_definition():
    rng = np.random.default_rng(0)
    n = 300
    se_m, se_r = rng.uniform(0, 1e4, n), rng.uniform(0, 1e3, n)
    n_m, n_r = rng.integers(0, 500, n).astype(float), rng.integers(0, 40, n).astype(float)
    rm = (rng.choice([1024.0, 2048.0], n), rng.choice([1.0, 2.0], n))
    rr = (rng.choice([1024.0, 3072.0], n), rng.choice([1.0, 4.0], n))
    got = min_e_array(se_m, se_r, n_m, n_r, rm, rr, PAPER_CLUSTER)
    want = [min_e(se_m[i], se_r[i], n_m[i], n_r[i], Resources(rm[0][i], rm[1][i]),
                  Resources(rr[0][i], rr[1][i]), PAPER_CLUSTER) for i in range(n)]
    assert got == pytest.approx(want, rel=1e-12)
