"""collectors.rumen and collectors.sls on Hadoop's sample traces (values read from the files)."""

from __future__ import annotations

import gzip
import json

import pytest
from collect_fuzz import (
    damaged_bytes,
    damaged_json,
    fuzz_pair,
    hostile_text,
    only_jobsize_errors,
    to_bytes,
)
from conftest import shared_root
from jobsize.collectors.rumen import parse_rumen, read_rumen
from jobsize.collectors.sls import (
    parse_sls,
    parse_sls_nodes,
    parse_sls_synth,
    read_sls,
    read_sls_nodes,
    read_sls_synth,
)

from jobsize.errors import ParseError
from jobsize.schema import JOB_COLUMNS, TASK_COLUMNS
from jobsize.validation import BadRecordError, RecordCheck

# attempt (startTime, finishTime) pairs of wordcount.json
WC_MAPS = [(1285322651366, 1285322658262), (1285322651378, 1285322657906),
           (1285322660807, 1285322664865)]
WC_REDUCE = (1285322660807, 1285322670759)


def test_rumen_wordcount(shared):
    jobs, tasks = read_rumen(shared / "hadoop" / "rumen" / "wordcount.json")
    assert list(jobs.columns) == [c.name for c in JOB_COLUMNS]
    job = jobs.iloc[0]
    assert (job["job_id"], job["job_name"], job["user"], job["queue"], job["state"]) == (
        "job_201009241532_0001", "WordCount", "johndoe", "default", "SUCCEEDED")
    assert (job["n_maps"], job["n_reduces"]) == (3, 1)
    assert (job["submit_time_ms"], job["finish_time_ms"]) == (1285322645148, 1285322675837)
    assert job["map_time_ms"] == sum(f - s for s, f in WC_MAPS)
    assert job["reduce_time_ms"] == WC_REDUCE[1] - WC_REDUCE[0]
    assert job["map_input_records"] == 13427 + 13015 + 3736
    assert job["map_input_bytes"] == 704270 + 577214 + 163907  # hdfsBytesRead
    assert job["map_output_bytes"] == 1182333 + 985534 + 275796
    assert job["reduce_shuffle_bytes"] == 127823
    assert job["reduce_input_records"] == 17866
    assert job["reduce_output_records"] == 11713
    assert job["reduce_output_bytes"] == 122793
    assert job["map_memory_mb"] == 1024
    # setup and cleanup tasks are not map or reduce work
    assert list(tasks.columns) == [c.name for c in TASK_COLUMNS]
    assert sorted(tasks["task_type"]) == ["MAP", "MAP", "MAP", "REDUCE"]
    reduce = tasks[tasks["task_type"] == "REDUCE"].iloc[0]
    assert reduce["shuffle_finish_time_ms"] == 1285322667962
    assert reduce["sort_finish_time_ms"] == 1285322668146


def test_rumen_stream_of_jobs_and_gzip(shared, tmp_path):
    data = (shared / "hadoop" / "rumen" / "wordcount.json").read_bytes()
    second = json.loads(data)
    second["jobID"] = "job_201009241532_0002"
    path = tmp_path / "trace.json.gz"
    path.write_bytes(gzip.compress(data + b"\n" + json.dumps(second).encode()))
    jobs, tasks = read_rumen(path)
    assert list(jobs["job_id"]) == ["job_201009241532_0001", "job_201009241532_0002"]
    assert len(tasks) == 8


def test_sls_inputsls(shared):
    jobs, tasks = read_sls(shared / "hadoop" / "sls" / "inputsls.json")
    assert list(jobs["job_id"]) == ["job_1", "job_2"]
    assert list(jobs["queue"]) == ["sls_queue_1", "sls_queue_2"]
    assert list(jobs["submit_time_ms"]) == [0, 105204]
    assert list(jobs["finish_time_ms"]) == [95375, 197256]
    assert list(jobs["n_maps"]) == [3, 2] and list(jobs["n_reduces"]) == [0, 0]
    assert jobs["map_time_ms"].iloc[0] == (23707 - 6664) + (21593 - 6665) + (86613 - 68770)
    assert jobs["map_time_ms"].iloc[1] == (133985 - 111822) + (131377 - 111788)
    assert len(tasks) == 5
    assert list(tasks["start_time_ms"][:2]) == [6664, 6665]


def test_sls_dag_trace(shared):
    jobs, tasks = read_sls(shared / "hadoop" / "sls" / "sls_dag.json")
    assert len(jobs) >= 1 and len(tasks) >= 3
    assert tasks["finish_time_ms"].iloc[0] == 23707


def test_sls_nodes(shared):
    nodes = read_sls_nodes(shared / "hadoop" / "sls" / "nodes.json")
    assert list(nodes.columns) == ["node", "rack", "memory_mb", "vcores"]
    assert len(nodes) == 19  # the trailing {} has no node
    assert nodes["rack"].iloc[-1] == "rack5" and nodes["memory_mb"].isna().all()
    sized = read_sls_nodes(shared / "hadoop" / "sls" / "nodes-with-resources.json")
    assert list(sized["memory_mb"].astype("object").fillna(-1)) == [2048, -1, -1, 6144]
    assert list(sized["vcores"].astype("object").fillna(-1)) == [6, -1, -1, 12]


def test_sls_synth_spec(shared):
    spec = read_sls_synth(shared / "hadoop" / "sls" / "syn.json")
    row = spec.iloc[0]
    assert (row["workload_name"], row["queue_name"], row["class_name"]) == (
        "tiny-test", "sls_queue_1", "class_1")
    assert (row["mtasks_avg"], row["rtasks_avg"], row["map_max_memory_avg"]) == (5, 5, 1024)
    assert spec.attrs["num_jobs"] == 10


def test_node_file_read_as_job_trace_is_an_error(shared):
    with pytest.raises(ParseError, match=r"nodes.json: line 1: expected an SLS job"):
        read_sls(shared / "hadoop" / "sls" / "nodes.json")


@pytest.mark.parametrize(("content", "message"), [
    (b'{"job.tasks": [{"container.start.ms": 5, "container.end.ms": 1}]}',
     "container.start.ms ≤ container.end.ms"),
    (b'{"job.tasks": [{"container.type": "shuffle", "container.start.ms": 1, '
     b'"container.end.ms": 2}]}', "container.type must be map or reduce"),
    (b'{"job.tasks": []} {', "line 1, column 20: invalid JSON"),
])
def test_sls_errors_name_the_place(content, message):
    with pytest.raises(ParseError, match=message):
        parse_sls(content, source="s.json")


def test_rumen_wrong_type_names_json_path():
    with pytest.raises(ParseError, match=r"r.json: line 1: \$\.totalMaps: expected an integer"):
        parse_rumen(b'{"jobID": "job_1_1", "totalMaps": "three"}', source="r.json")


# -- fuzzing ----------------------------------------------------------------------------------

def _fixture(*parts: str) -> bytes:
    path = shared_root().joinpath("hadoop", *parts)
    return path.read_bytes() if path.exists() else b"{}"


_RUMEN = _fixture("rumen", "wordcount.json")
_SLS = _fixture("sls", "inputsls.json")
_NODES = _fixture("sls", "nodes-with-resources.json")
_SYNTH = _fixture("sls", "syn.json")


def _first(data: bytes):
    return json.JSONDecoder().raw_decode(data.decode())[0]


def _checker(parse):
    return lambda data: only_jobsize_errors(lambda: parse(data, source="fuzz.json"))


_cases = {
    "rumen_bytes": (damaged_bytes(_RUMEN), parse_rumen),
    "rumen_fields": (damaged_json(_first(_RUMEN)).map(to_bytes), parse_rumen),
    "rumen_hostile_text": (hostile_text(_first(_RUMEN)), parse_rumen),
    "sls_bytes": (damaged_bytes(_SLS), parse_sls),
    "sls_fields": (damaged_json(_first(_SLS)).map(to_bytes), parse_sls),
    "sls_hostile_text": (hostile_text(_first(_SLS)), parse_sls),
    "nodes_fields": (damaged_json(_first(_NODES)).map(to_bytes), parse_sls_nodes),
    "nodes_hostile_text": (hostile_text(_first(_NODES)), parse_sls_nodes),
    "synth_fields": (damaged_json(_first(_SYNTH)).map(to_bytes), parse_sls_synth),
}
for _name, (_strategy, _parse) in _cases.items():
    _fast, _slow = fuzz_pair(_strategy, _checker(_parse), name=_name)
    globals()[f"test_fuzz_{_name}"] = _fast
    globals()[f"test_fuzz_{_name}_slow"] = _slow


# -- regressions found by fuzzing and by hand ---------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    (b'{"jobID": "job_1_1", "totalMaps": 1' + b"1" * 5000 + b"}", "unreadable JSON value"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b'{"jobID": "job_1_1", "submitTime": NaN}', "NaN is not a JSON number"),
    (b'{"jobID": "job_1_1", "totalMaps": -2}', None),
])
def test_rumen_hostile_numbers_are_one_line_errors(text, message):
    if message is None:  # Rumen's -1 means "not recorded"; -2 is read the same way: absent
        jobs, _ = parse_rumen(text, source="r.json")
        assert jobs["n_maps"].isna().all()
        return
    with pytest.raises(ParseError, match=message):
        parse_rumen(text, source="r.json")


def test_sls_sum_past_2_63_is_a_bad_record_not_a_cast_failure():
    doc = {"job.id": "job_1", "job.tasks": [
        {"container.type": "map", "container.start.ms": 0,
         "container.end.ms": 9223372036854775807},
        {"container.type": "map", "container.start.ms": 0,
         "container.end.ms": 9223372036854775807}]}
    data = json.dumps(doc).encode()
    with pytest.raises(BadRecordError, match=r"s\.json: line 1: column 'map_time_ms': "
                                             r"expected an integer within ±2\^63"):
        parse_sls(data, source="s.json")
    check = RecordCheck("skip")
    jobs, tasks = parse_sls(data + b"\n" + json.dumps({**doc, "job.id": "job_2", "job.tasks": [
        {"container.start.ms": 1, "container.end.ms": 5}]}).encode(), source="s.json",
        check=check)
    assert list(jobs["job_id"]) == ["job_2"] and list(tasks["job_id"]) == ["job_2"]
    assert [r.place for r in check.rejected] == ["line 1"]


def test_a_lone_surrogate_is_refused_where_it_is_read():
    with pytest.raises(ParseError, match=r"\$\.job\.user: expected UTF-8 text"):
        parse_sls(b'{"job.user": "\\udc80", "job.tasks": []}', source="s.json")


def test_gzip_bomb_is_refused(tmp_path):
    from jobsize.collectors.json_stream import decompress

    bomb = gzip.compress(b" " * (8 << 20))
    with pytest.raises(ParseError, match="inflates to more than"):
        decompress(bomb, "b.json.gz", limit=1 << 20)
