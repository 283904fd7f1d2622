"""Variance inflation factors of the fitted terms, and `jobsize fit`'s warning about them."""

import numpy as np
import pytest
from jobsize.models.normal_equations import variance_inflation
from jobsize.models.synthetic import linear_trace
from statsmodels.stats.outliers_influence import variance_inflation_factor

from jobsize.cli import main
from jobsize.schema import write_trace


def test_vif_equals_statsmodels_and_ignores_column_scale():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(300, 4))
    x[:, 3] = x[:, 0] - 2 * x[:, 1] + 0.05 * rng.normal(size=300)
    design = np.column_stack([np.ones(300), x])
    want = [variance_inflation_factor(design, i) for i in range(1, 5)]
    got = variance_inflation(design.T @ design, np.ones(5, bool))
    assert np.isnan(got[0])
    np.testing.assert_allclose(got[1:], want, rtol=1e-9)
    scaled = design * np.array([1.0, 1e6, 1e-3, 1.0, 42.0])
    np.testing.assert_allclose(variance_inflation(scaled.T @ scaled, np.ones(5, bool))[1:],
                               want, rtol=1e-6)


def test_vif_skips_aliased_columns():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(100, 2))
    design = np.column_stack([np.ones(100), x, x[:, 0]])
    got = variance_inflation(design.T @ design, np.array([True, True, True, False]))
    assert np.isnan(got[[0, 3]]).all()
    np.testing.assert_allclose(got[1:3], [variance_inflation_factor(design[:, :3], i)
                                          for i in (1, 2)])


def test_fit_warns_when_terms_are_nearly_collinear(tmp_path, capsys):
    trace = linear_trace(300, seed=3)
    path = write_trace(trace, tmp_path / "plain.parquet")
    assert main(["fit", str(path), "--cv", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "N_m, MI" not in out and "MI:" not in out
    # every split the same size: input bytes become N_m times a constant, as in a trace whose
    # jobs all use one block size
    rng = np.random.default_rng(3)
    trace["map_input_bytes"] = (trace["n_maps"] * 128 * 2**20
                                * rng.uniform(0.999, 1.001, len(trace))).round()
    path = write_trace(trace, tmp_path / "one_split_size.parquet")
    assert main(["fit", str(path), "--cv", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "N_m, MI" in out and "VIF ≥ 100" in out


@pytest.mark.parametrize("method", ["ols", "gls"])
def test_coefficient_table_has_a_vif_per_kept_term(method):
    from jobsize.models.size_model import SizeModel

    model = SizeModel.fit(linear_trace(200, seed=5), "probe", method, form="paper")
    table = model.se_m.coefficient_table()
    assert np.isnan(table["vif"].iloc[0])
    assert (table["vif"].iloc[1:] >= 1 - 1e-9).all()
