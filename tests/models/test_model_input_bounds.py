"""Numbers a model cannot use are refused where they come in: a model file's guards,
corrections and calibration (finite, within bounds, named by JSON path), and fractional task
counts in a job."""

from __future__ import annotations

import json

import pytest
from jobsize.models.job import job_values
from jobsize.models.modelfile import MAX_TASK_S, model_from_json, model_to_json
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace

from jobsize.cli import main
from jobsize.errors import InputError, ModelFileError

_MODEL = SizeModel.fit(linear_trace(120, seed=5, uber=0.05), "probe", "gls")
_DOC = json.loads(json.dumps(model_to_json(_MODEL)))
_JOB = {"n_maps": 40, "n_reduces": 2, "map_input_bytes": 4e9, "probe_fraction": 0.025,
        "probe_map_function_ms": 900.0, "probe_map_output_bytes": 2e7,
        "probe_map_output_records": 1e5, "probe_reduce_function_ms": 300.0,
        "probe_reduce_output_bytes": 1e6, "probe_reduce_input_records": 1e5,
        "uberized": False}


def _changed(change) -> dict:
    doc = json.loads(json.dumps(_DOC))
    change(doc)
    return doc


@pytest.mark.parametrize(("change", "where", "reason"), [
    (lambda d: d["guards"]["SE_m"].update(task_floor_s=1e308), "$.guards.SE_m.task_floor_s",
     f"expected a number from 0 to {MAX_TASK_S:g}, found 1e+308"),
    (lambda d: d["guards"]["SE_m"].update(task_floor_s=-1.0), "$.guards.SE_m.task_floor_s",
     "expected a number from 0"),
    (lambda d: d["guards"]["SE_r"]["high"].__setitem__(1, float("inf")),
     "$.guards.SE_r.high[1]", "expected a number from -1e+100 to 1e+100, found inf"),
    (lambda d: d["guards"]["SE_m"].update(leverage=float("nan")), "$.guards.SE_m.leverage",
     "expected a number from 0 to 1e+100, found nan"),
    (lambda d: d["calibration"].update(S={"edges": [], "scores": [[0.5, 1e300]]}),
     "$.calibration.S.scores[0][1]", "expected a number from -1e+100 to 1e+100"),
])
def test_a_model_file_number_out_of_bounds_is_refused_by_its_field(change, where, reason):
    with pytest.raises(ModelFileError) as info:
        model_from_json(_changed(change), source="m.json")
    assert str(info.value).startswith(f"m.json: {where}: {reason}")


def test_predict_with_an_infinite_task_floor_is_a_one_line_error(tmp_path, capsys):
    model = tmp_path / "model.json"
    model.write_text(json.dumps(_changed(
        lambda d: d["guards"]["SE_m"].update(task_floor_s=1e308))))
    job = tmp_path / "job.json"
    job.write_text(json.dumps(_JOB))
    assert main(["predict", "--model", str(model), "--job", str(job)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (f"jobsize: error: {model}: $.guards.SE_m.task_floor_s: expected a "
                       f"number from 0 to {MAX_TASK_S:g}, found 1e+308\n")


def test_the_model_as_written_still_loads_and_predicts():
    loaded = model_from_json(json.loads(json.dumps(_DOC)), source="m.json")
    assert loaded.predict_one(job_values(_JOB)).S.memory == \
        _MODEL.predict_one(job_values(_JOB)).S.memory


@pytest.mark.parametrize(("key", "value"), [
    ("n_maps", 0.5), ("n_reduces", 1.5), ("mapreduce.job.maps", "2.5"),
    ("probe_map_tasks", 1.25), ("n_maps", 2.0**40)])
def test_a_task_count_must_be_whole(key, value):
    with pytest.raises(InputError, match=rf"key '{key}': expected a whole number of tasks"):
        job_values({key: value})


@pytest.mark.parametrize(("key", "value", "count"), [
    ("n_maps", 4.0, 4.0), ("n_maps", "4", 4.0), ("mapreduce.job.reduces", "0", 0.0)])
def test_whole_task_counts_still_read(key, value, count):
    assert next(iter(job_values({key: value}).values())) == count
