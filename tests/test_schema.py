import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jobsize import schema
from jobsize.errors import ParseError, SchemaError


def _row(**over):
    row = {"job_id": "job_1_0001", "n_maps": 10, "n_reduces": 1, "map_time_ms": 12000,
           "reduce_time_ms": 3000, "probe_fraction": 0.1, "uberized": False}
    row.update(over)
    return row


def test_conform_adds_missing_columns_with_declared_dtypes():
    frame = schema.records([_row()])
    assert list(frame.columns[: len(schema.JOB_COLUMNS)]) == [c.name for c in schema.JOB_COLUMNS]
    for col in schema.JOB_COLUMNS:
        assert str(frame[col.name].dtype) == col.dtype, col.name
    assert frame["map_input_bytes"].isna().all()
    assert frame.loc[0, "n_maps"] == 10


def test_conform_keeps_unknown_columns():
    frame = schema.records([_row(cluster="a")])
    assert frame.loc[0, "cluster"] == "a"


def test_integral_floats_become_integers_but_fractions_do_not():
    assert schema.records([_row(n_maps=3.0)]).loc[0, "n_maps"] == 3
    expected = r"column 'n_maps': expected an integer, found row 0: 2\.5"
    with pytest.raises(SchemaError, match=expected):
        schema.records([_row(n_maps=2.5)])


def test_mistyped_column_is_named_with_its_first_bad_row():
    frame = pd.DataFrame({"job_id": ["a", "b"], "map_time_ms": ["12", "twelve"]})
    with pytest.raises(SchemaError, match=r"t\.parquet: column 'map_time_ms'.*row 1: 'twelve'"):
        schema.conform(frame, source="t.parquet")


def test_missing_required_column_is_named():
    with pytest.raises(SchemaError, match="column 'map_time_ms': missing required column"):
        schema.conform(pd.DataFrame({"job_id": ["a"]}), require=["job_id", "map_time_ms"])


def test_boolean_column_rejects_other_integers():
    with pytest.raises(SchemaError, match="column 'uberized'"):
        schema.records([_row(uberized=2)])


def test_trace_round_trip(tmp_path):
    frame = schema.records([_row(), _row(job_id="job_1_0002", n_reduces=0)])
    path = schema.write_trace(frame, tmp_path / "t.parquet")
    back = schema.read_trace(path)
    pd.testing.assert_frame_equal(back, frame)


def test_failed_write_leaves_previous_trace_intact(tmp_path):
    path = tmp_path / "t.parquet"
    schema.write_trace(schema.records([_row()]), path)
    before = path.read_bytes()
    with pytest.raises(SchemaError):
        schema.write_trace(pd.DataFrame({"n_maps": ["x"]}), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]


def test_damaged_parquet_is_a_parse_error_naming_the_file(tmp_path):
    path = tmp_path / "bad.parquet"
    schema.write_trace(schema.records([_row()]), path)
    path.write_bytes(path.read_bytes()[:50])
    with pytest.raises(ParseError, match=r"bad\.parquet: not a readable parquet file"):
        schema.read_trace(path)
    with pytest.raises(ParseError, match="no such file"):
        schema.read_trace(tmp_path / "absent.parquet")


def test_other_trace_format_version_is_refused(tmp_path):
    table = pa.Table.from_pandas(schema.records([_row()]), preserve_index=False)
    table = table.replace_schema_metadata({b"jobsize": json.dumps({"format": 99}).encode()})
    pq.write_table(table, tmp_path / "v99.parquet")
    with pytest.raises(ParseError, match="trace format 99"):
        schema.read_trace(tmp_path / "v99.parquet")


def test_plain_parquet_from_elsewhere_is_accepted(tmp_path):
    pd.DataFrame({"job_id": ["j"], "n_maps": [4]}).to_parquet(tmp_path / "p.parquet")
    assert schema.read_trace(tmp_path / "p.parquet").loc[0, "n_maps"] == 4


def test_task_table_round_trip(tmp_path):
    tasks = schema.tasks_frame([{"job_id": "j", "task_type": "MAP", "start_time_ms": 1,
                                 "finish_time_ms": 5}])
    path = schema.tasks_path(tmp_path / "t.parquet")
    assert path.name == "t.tasks.parquet"
    schema.write_trace(tasks, path, columns=schema.TASK_COLUMNS)
    back = schema.read_trace(path, columns=schema.TASK_COLUMNS)
    assert back.loc[0, "finish_time_ms"] == 5


def test_columns_for_each_model_are_schema_columns():
    for model, features in schema.MODEL_INPUTS:
        for name in schema.columns_for(model, features):
            assert name in schema.JOB_SCHEMA
    assert "map_time_ms" in schema.columns_for("SE_r", "probe")
    with pytest.raises(SchemaError):
        schema.columns_for("SE_x", "probe")


def test_uber_rule_follows_hadoop_limits_and_defaults():
    on = {"mapreduce.job.ubertask.enable": "true"}
    assert not schema.uber_eligible(1, 0, 1)  # Hadoop ships with uber mode off
    assert schema.uber_eligible(9, 1, 10 << 20, on)
    assert not schema.uber_eligible(10, 1, 10 << 20, on)
    assert not schema.uber_eligible(1, 2, 10 << 20, on)
    assert schema.uber_eligible(1, 0, 128 << 20, on)  # maxbytes: the 128 MB block
    assert not schema.uber_eligible(1, 0, (128 << 20) + 1, on)
    assert not schema.uber_eligible(1, 0, 65 << 20, {**on, "dfs.blocksize": "64m"})
    assert schema.uber_eligible(20, 0, 1, {**on, "mapreduce.job.ubertask.maxmaps": "20"})
    assert not schema.uber_eligible(1, 0, 1, {**on, "mapreduce.reduce.memory.mb": "4096"})


def test_atomic_write_gives_the_umask_permissions_not_0600(tmp_path, monkeypatch):
    import jobsize.atomic

    monkeypatch.setattr(jobsize.atomic, "_UMASK", 0o022)
    jobsize.atomic.atomic_write_text(tmp_path / "m.json", "{}")
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o644
    monkeypatch.setattr(jobsize.atomic, "_UMASK", 0o027)
    jobsize.atomic.atomic_write_text(tmp_path / "n.json", "{}")
    assert (tmp_path / "n.json").stat().st_mode & 0o777 == 0o640


def test_boolean_column_with_missing_values_is_accepted():
    frame = schema.records([_row(uberized=True), _row(uberized=None), _row(uberized=False)])
    assert frame["uberized"].tolist()[0] is True
    assert frame["uberized"].isna().tolist() == [False, True, False]
    with pytest.raises(SchemaError, match="row 1: 'yes'"):
        schema.records([_row(uberized=True), _row(uberized="yes")])
