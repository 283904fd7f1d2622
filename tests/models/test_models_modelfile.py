"""Model files: versioned JSON that reloads to identical predictions (synthetic test data)."""

import dataclasses
import json
import os

import numpy as np
import pandas as pd
import pytest
from jobsize.models.job import job_values
from jobsize.models.modelfile import VERSION, load_model, save_model
from jobsize.models.size_model import SizeModel
from models_helpers import as_job

from jobsize.errors import ModelFileError


def test_a_saved_model_reloads_to_identical_predictions(model, trace, tmp_path):
    path = save_model(model, tmp_path / "m.json")
    back = load_model(path)
    pd.testing.assert_frame_equal(back.predict_frame(trace), model.predict_frame(trace),
                                  check_exact=True)
    for i in (0, 5, 17):
        job = job_values(as_job(trace.iloc[i]))
        assert back.predict_one(job) == model.predict_one(job)
    assert back.training == json.loads(path.read_text())["training"]


def test_a_reloaded_model_continues_online_exactly(trace, tmp_path):
    original = SizeModel.fit(trace.iloc[:400], form="paper")
    for _, row in trace.iloc[400:600].iterrows():
        original.observe(job_values(as_job(row)))
    back = load_model(save_model(original, tmp_path / "m.json"))
    for _, row in trace.iloc[600:800].iterrows():
        job = job_values(as_job(row))
        original.observe(job)
        back.observe(job)
    pd.testing.assert_frame_equal(back.predict_frame(trace), original.predict_frame(trace),
                                  check_exact=True)


def test_the_file_is_plain_versioned_json(model, tmp_path):
    doc = json.loads(save_model(model, tmp_path / "m.json").read_text())
    assert doc["format"] == "jobsize-model" and doc["version"] == VERSION
    assert doc["models"]["SE_m"]["terms"][0] == "const"
    assert len(doc["models"]["SE_r"]["cov"]) == 8
    assert doc["models"]["SE_m"]["columns"][-1] == "probe_fraction"


def _rewrite(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_another_version_is_refused_with_a_clear_message(model, tmp_path):
    path = save_model(model, tmp_path / "m.json")
    _rewrite(path, lambda d: d.update(version=VERSION + 1))
    with pytest.raises(ModelFileError, match=rf"m\.json: \$\.version: model format version "
                                             rf"{VERSION + 1}; this jobsize .* reads version"):
        load_model(path)


def test_damaged_and_foreign_files_are_refused(model, tmp_path):
    path = save_model(model, tmp_path / "m.json")
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ModelFileError, match=r"m\.json: line \d+, column \d+: invalid JSON"):
        load_model(path)
    path.write_text('{"coefficients": [1, 2, 3]}')
    with pytest.raises(ModelFileError, match="not a jobsize model file"):
        load_model(path)
    path.write_bytes(b"\x80\x04\x95 pickle-ish bytes \xff")
    with pytest.raises(ModelFileError, match="not a jobsize model file"):
        load_model(path)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "missing.json")


def test_a_wrong_field_is_named_by_its_json_path(model, tmp_path):
    path = save_model(model, tmp_path / "m.json")
    _rewrite(path, lambda d: d["models"]["SE_m"]["coef"].pop())
    with pytest.raises(ModelFileError, match=r"\$\.models\.SE_m\.coef: expected a list of 7"):
        load_model(path)
    path = save_model(model, tmp_path / "m.json")
    _rewrite(path, lambda d: d["models"]["SE_r"]["statistics"]["gram"][2].__setitem__(3, "x"))
    with pytest.raises(ModelFileError, match=r"\$\.models\.SE_r\.statistics\.gram\[2\]\[3\]: "
                                             r"expected a number, found 'x'"):
        load_model(path)
    path = save_model(model, tmp_path / "m.json")
    _rewrite(path, lambda d: d.update(method="lasso"))
    with pytest.raises(ModelFileError, match=r"\$\.method: expected one of gls, wls, ols"):
        load_model(path)
    path = save_model(model, tmp_path / "m.json")
    _rewrite(path, lambda d: d["uber"]["every"].pop("map"))
    with pytest.raises(ModelFileError, match=r"\$\.uber\.every\.map: missing"):
        load_model(path)


def test_a_failed_save_leaves_the_previous_file_intact(model, trace, tmp_path, monkeypatch):
    path = save_model(model, tmp_path / "m.json")
    before = path.read_bytes()
    other = SizeModel.fit(trace, "actual", "ols", form="paper")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        save_model(other, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]
    assert np.isfinite(load_model(path).se_m.coef).all()


def test_the_key_cost_is_kept_and_older_files_without_it_read_as_zero(model, tmp_path):
    keyed = dataclasses.replace(model, key_cost=4.0)
    path = save_model(keyed, tmp_path / "m.json")
    assert json.loads(path.read_text())["key_cost"] == 4.0
    assert load_model(path).key_cost == 4.0
    _rewrite(path, lambda d: d.pop("key_cost"))
    assert load_model(path).key_cost == 0.0
    _rewrite(path, lambda d: d.update(key_cost=-1))
    with pytest.raises(ModelFileError, match=r"\$\.key_cost: expected a number from 0"):
        load_model(path)


def test_what_eq7_was_fitted_on_is_kept(trace, tmp_path):
    tasks = SizeModel.fit(trace.iloc[:400], form="tasks")
    path = save_model(tasks, tmp_path / "m.json")
    back = load_model(path)
    assert back.eq7_fit == "actual" and json.loads(path.read_text())["eq7_fit"] == "actual"
    pd.testing.assert_frame_equal(back.predict_frame(trace), tasks.predict_frame(trace),
                                  check_exact=True)
    _rewrite(path, lambda d: d.update(eq7_fit="sample"))
    with pytest.raises(ModelFileError, match=r"\$\.eq7_fit: expected one of probe, actual"):
        load_model(path)
