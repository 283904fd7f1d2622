"""Fuzzing the model file loader and the job file of ``jobsize predict`` (synthetic models).

A model file or a job file from outside is damaged (bytes), altered (a field replaced by an odd
or hostile value) or written by hand (numbers like ``1e999``, nesting thousands deep, lone
surrogates). Loading it and predicting with it either works or raises a JobsizeError.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import strategies as st
from jobsize.models.job import job_values
from jobsize.models.modelfile import load_model, model_from_json, model_to_json
from jobsize.models.resources import PAPER_CLUSTER
from jobsize.models.size_model import SizeModel
from jobsize.models.synthetic import linear_trace

from jobsize.cli.predict import read_job
from jobsize.errors import JobsizeError, ModelFileError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "collectors"))
from collect_fuzz import (
    damaged_bytes,
    damaged_json,
    fuzz_pair,
    hostile_text,
    only_jobsize_errors,
)

_TRACE = linear_trace(120, seed=5, uber=0.05)
_MODEL = SizeModel.fit(_TRACE, "probe", "gls")
_DOC = json.loads(json.dumps(model_to_json(_MODEL)))
_TEXT = json.dumps(_DOC, indent=1).encode()
_JOB = {"n_maps": 40, "n_reduces": 2, "map_input_bytes": 4e9, "probe_fraction": 0.025,
        "probe_map_function_ms": 900.0, "probe_map_output_bytes": 2e7,
        "probe_map_output_records": 1e5, "probe_reduce_function_ms": 300.0,
        "probe_reduce_output_bytes": 1e6, "probe_reduce_input_records": 1e5,
        "mapreduce.map.memory.mb": 2048, "uberized": False}


def _predict_with(model: SizeModel) -> None:
    model.predict_one(job_values(_JOB))
    model.predict_frame(_TRACE.iloc[:5], PAPER_CLUSTER)


def _check_doc(doc: object) -> None:
    only_jobsize_errors(lambda: _predict_with(model_from_json(doc, source="fuzz.json")))


def _check_file(data: bytes) -> None:
    path = Path(_SCRATCH) / "fuzz-model.json"
    path.write_bytes(data)
    only_jobsize_errors(lambda: _predict_with(load_model(path)))


def _check_job(data: bytes) -> None:
    path = Path(_SCRATCH) / "fuzz-job.json"
    path.write_bytes(data)
    only_jobsize_errors(lambda: _MODEL.predict_one(job_values(read_job(str(path)))))


_SCRATCH = Path(__import__("tempfile").mkdtemp(prefix="jobsize-fuzz-"))

# A case here loads a model and predicts with it (about 20 ms, against a parser's few), so the
# default run draws 100 cases per target; ``pytest -m slow`` runs the same checks 10,000 times.
_FAST = 100

test_fuzz_model_fields, test_fuzz_model_fields_slow = fuzz_pair(
    damaged_json(_DOC), _check_doc, name="model_file_fields", fast_cases=_FAST)
test_fuzz_model_text, test_fuzz_model_text_slow = fuzz_pair(
    hostile_text(_DOC), _check_file, name="model_file_hostile_text", fast_cases=_FAST)
test_fuzz_model_bytes, test_fuzz_model_bytes_slow = fuzz_pair(
    damaged_bytes(_TEXT), _check_file, name="model_file_bytes", fast_cases=_FAST)
test_fuzz_job_text, test_fuzz_job_text_slow = fuzz_pair(
    st.one_of(hostile_text(_JOB), damaged_json(_JOB).map(lambda d: json.dumps(d).encode())),
    _check_job, name="predict_job_file", fast_cases=_FAST)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(version=True), "model format version True"),
    (lambda d: d["models"]["SE_m"]["variance"].update(power=1e308), "from 0 to 4"),
    (lambda d: d["models"]["SE_m"]["statistics"].update(n=10**400), "64-bit integer"),
    (lambda d: d["models"]["SE_m"]["coef"].__setitem__(0, 10**400), r"from -1e\+100 to 1e\+100"),
    (lambda d: d["uber"]["uber"]["map"].update(m2=-1.0), r"m2: expected a number from 0"),
    (lambda d: d.update(training=json.loads("[" * 500 + "]" * 500)), "expected an object"),
    # found by the 10,000-case run once model files carried guards and corrections
    (lambda d: d["guards"]["SE_m"].update(leverage=10**400),
     r"guards\.SE_m\.leverage: expected a number from 0 to 1e\+100"),
    (lambda d: d["recurring"].update(k=10**400), r"recurring\.k: expected a number from"),
])
def test_hostile_model_fields_are_refused_by_path(change, message):
    doc = json.loads(json.dumps(_DOC))
    change(doc)
    with pytest.raises(ModelFileError, match=message):
        model_from_json(doc, source="m.json")


def test_model_file_of_deep_nesting_or_huge_numbers_is_one_line(tmp_path):
    path = tmp_path / "m.json"
    for text in (b"[" * 100_000 + b"]" * 100_000, b'{"format": 1' + b"0" * 5000 + b"}",
                 b'{"level": 1e999}', b'{"level": NaN}'):
        path.write_bytes(text)
        with pytest.raises(ModelFileError) as info:
            load_model(path)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("value", [10**400, "1e999", -1, float("inf"), "x" * 10**6, [[]]])
def test_hostile_job_values_are_input_errors(value):
    with pytest.raises(JobsizeError, match="key 'n_maps'"):
        job_values({"n_maps": value})
