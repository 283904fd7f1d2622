"""collectors.jhist on Hadoop's own history files.

Expected values are literals read from the files with grep, not produced by the parser.
"""

from __future__ import annotations

import io
import json
import re

import fastavro
import pytest
from collect_fuzz import (
    damaged_bytes,
    damaged_json,
    fuzz_pair,
    hostile_text,
    only_jobsize_errors,
)
from hypothesis import strategies as st
from jobsize.collectors.conf import conf_int, expand, parse_conf
from jobsize.collectors.jhist import collect_jhist, parse_jhist, read_conf, read_jhist

from jobsize.errors import ParseError
from jobsize.schema import JOB_COLUMNS, TASK_COLUMNS

SLEEP = ("job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-"
         "default.jhist")
SLEEP_CONF = "job_1329348432655_0001_conf.xml"
TERAGEN = ("job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-"
           "default-1416424779349.jhist")
SLEEP_FAILED = ("job_1393307629410_0001-1393307687476-user-Sleep+job-1393307723835-0-0-FAILED-"
                "default-1393307693920.jhist")
FAILED_0239 = "job_0.23.9-FAILED.jhist"
FAILED_240 = "job_2.4.0-FAILED.jhist"

TC = "org.apache.hadoop.mapreduce.TaskCounter"
FSC = "org.apache.hadoop.mapreduce.FileSystemCounter"

#: Sleep job's map attempts: (startTime, finishTime) from MAP_ATTEMPT_STARTED / _FINISHED.
SLEEP_MAPS = {
    "m_000000_0": (1329348450485, 1329348462562), "m_000001_0": (1329348450576, 1329348462170),
    "m_000002_0": (1329348450537, 1329348461952), "m_000003_0": (1329348450579, 1329348462178),
    "m_000004_0": (1329348450538, 1329348462091), "m_000005_0": (1329348450580, 1329348461951),
    "m_000006_0": (1329348450581, 1329348461952), "m_000007_0": (1329348462091, 1329348465965),
    "m_000008_0": (1329348462765, 1329348467421), "m_000009_0": (1329348462792, 1329348466363),
}
SLEEP_REDUCES = {"r_000000_0": (1329348464995, 1329348468600),
                 "r_000001_0": (1329348464995, 1329348468600)}


@pytest.fixture(scope="module")
def jhist_dir(shared):
    return shared / "hadoop" / "jhist"


def _lines(data: bytes) -> tuple[bytes, bytes, list[bytes]]:
    """Header, schema and one event per entry (the file's own separators removed)."""
    magic, schema, rest = data.split(b"\n", 2)
    return magic, schema, [line.strip() for line in rest.split(b"\n") if line.strip()]


def _binary(data: bytes) -> bytes:
    """The same events in Hadoop's binary encoding, decoded by fastavro's own JSON reader."""
    _, schema_line, events = _lines(data)
    schema = json.loads(schema_line)
    out = io.BytesIO()
    out.write(b"Avro-Binary\n" + schema_line + b"\n")
    parsed = fastavro.parse_schema(schema)
    for event in fastavro.json_reader(io.StringIO(b"\n".join(events).decode()), schema):
        fastavro.schemaless_writer(out, parsed, event)
    return out.getvalue()


# -- every real fixture ------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "job_id", "state", "maps", "reduces", "queue"), [
    (SLEEP, "job_1329348432655_0001", "SUCCEEDED", 10, 1, "default"),
    (TERAGEN, "job_1416424547277_0002", "SUCCEEDED", 2, 0, "default"),
    (SLEEP_FAILED, "job_1393307629410_0001", "FAILED", 1, 0, "default"),
    (FAILED_0239, "job_1399356417814_19732", "FAILED", 2, 1, "unfunded"),
    (FAILED_240, "job_1400204860297_0001", "FAILED", 2, 1, "unfunded"),
])
def test_every_real_history_parses(jhist_dir, name, job_id, state, maps, reduces, queue):
    history = read_jhist(jhist_dir / name)
    record = history.record
    assert history.complete and record["complete"] is True
    assert (record["job_id"], record["state"], record["n_maps"], record["n_reduces"]) == (
        job_id, state, maps, reduces)
    assert record["queue"] == queue
    assert record["source"] == "jhist"
    assert list(record) == [c.name for c in JOB_COLUMNS]
    for row in history.tasks:
        assert set(row) == {c.name for c in TASK_COLUMNS}


def test_sleep_job_record_matches_the_file(jhist_dir):
    history = read_jhist(jhist_dir / SLEEP)
    r = history.record
    assert (r["job_name"], r["user"], r["uberized"]) == ("Sleep job", "user", False)
    assert r["submit_time_ms"] == 1329348443227
    assert r["launch_time_ms"] == 1329348448308
    assert r["finish_time_ms"] == 1329348468601
    assert (r["n_maps"], r["n_reduces"]) == (10, 1)
    # JOB_FINISHED totalCounters
    assert r["map_input_records"] == 10
    assert r["map_output_records"] == 10
    assert r["map_output_bytes"] == 40
    assert r["reduce_shuffle_bytes"] == 120
    assert r["reduce_input_records"] == 10
    assert r["reduce_input_groups"] == 1
    assert r["reduce_output_records"] == 0
    assert r["map_input_bytes"] == 0  # FileInputFormatCounter BYTES_READ
    assert r["reduce_output_bytes"] == 0  # FileOutputFormatCounter BYTES_WRITTEN
    total = history.counters["total"]
    assert total[TC]["CPU_MILLISECONDS"] == 4460
    assert total[TC]["GC_TIME_MILLIS"] == 2256
    assert total[TC]["SPILLED_RECORDS"] == 20
    assert total[TC]["PHYSICAL_MEMORY_BYTES"] == 1923493888
    assert total[FSC]["FILE_BYTES_WRITTEN"] == 528584
    assert total["org.apache.hadoop.mapreduce.JobCounter"]["TOTAL_LAUNCHED_MAPS"] == 10
    assert total["Shuffle Errors"]["BAD_ID"] == 0
    assert history.counters["map"][FSC]["FILE_BYTES_WRITTEN"] == 480510
    assert history.counters["map"][FSC]["FILE_BYTES_READ"] == 1200
    # SE_m, SE_r: successful attempts' finishTime - startTime
    assert r["map_time_ms"] == sum(f - s for s, f in SLEEP_MAPS.values()) == 93081
    assert r["reduce_time_ms"] == sum(f - s for s, f in SLEEP_REDUCES.values())
    assert (r["map_wasted_ms"], r["reduce_wasted_ms"]) == (0, 0)
    assert r["map_function_ms"] is None and r["reduce_function_ms"] is None
    # from job_1329348432655_0001_conf.xml
    assert (r["map_memory_mb"], r["reduce_memory_mb"], r["am_memory_mb"]) == (512, 512, 512)
    assert (r["map_vcores"], r["reduce_vcores"], r["am_vcores"]) == (1, 1, 1)  # defaults
    attempts = {row["attempt_id"].split("0001_", 1)[1]: row for row in history.tasks}
    assert set(attempts) == set(SLEEP_MAPS) | set(SLEEP_REDUCES)
    assert attempts["m_000007_0"]["start_time_ms"] == 1329348462091
    assert attempts["m_000007_0"]["finish_time_ms"] == 1329348465965
    assert attempts["r_000000_0"]["shuffle_finish_time_ms"] == 1329348468462
    assert attempts["r_000000_0"]["sort_finish_time_ms"] == 1329348468517
    assert attempts["r_000000_0"]["memory_mb"] == 512
    assert all(row["status"] == "SUCCEEDED" for row in history.tasks)


def test_failed_attempts_are_wasted_time(jhist_dir):
    single = read_jhist(jhist_dir / SLEEP_FAILED).record
    assert single["map_time_ms"] == 0
    assert single["map_wasted_ms"] == 1393307723803 - 1393307696163
    history = read_jhist(jhist_dir / FAILED_0239)
    statuses = sorted(row["status"] for row in history.tasks)
    assert statuses == ["FAILED"] * 7 + ["KILLED"]
    starts = [1400251477885, 1400251477890, 1400251483822, 1400251483823, 1400251489833,
              1400251489835, 1400251495849, 1400251495850]
    finishes = [1400251482183, 1400251482385, 1400251488046, 1400251488209, 1400251494127,
                1400251494190, 1400251500204, 1400251500177]
    assert history.record["map_wasted_ms"] == sum(finishes) - sum(starts)


def test_teragen_is_map_only_and_reads_its_output(jhist_dir):
    record = read_jhist(jhist_dir / TERAGEN).record
    assert record["user"] == "root"
    assert record["map_input_records"] == 100
    assert record["reduce_output_bytes"] == 10000
    assert record["reduce_time_ms"] == 0
    assert record["map_memory_mb"] is None  # no conf beside it


def test_conf_is_read(jhist_dir):
    conf = read_conf(jhist_dir / SLEEP_CONF)
    assert len(conf) == 386
    assert conf["mapreduce.job.maps"] == "10"
    assert conf["mapreduce.map.java.opts"] == "-Xmx500m"
    assert conf["mapreduce.job.ubertask.enable"] == "false"


def test_explicit_conf_path(jhist_dir, tmp_path):
    conf = tmp_path / "other.xml"
    conf.write_text("<configuration><property><name>mapreduce.map.memory.mb</name>"
                    "<value>2048</value></property></configuration>")
    record = read_jhist(jhist_dir / TERAGEN, conf_path=conf).record
    assert (record["map_memory_mb"], record["reduce_memory_mb"]) == (2048, 1024)


# -- the binary encoding -------------------------------------------------------------------------

@pytest.mark.parametrize("name", [SLEEP, TERAGEN, SLEEP_FAILED, FAILED_0239, FAILED_240])
def test_binary_and_json_encodings_give_the_same_job(jhist_dir, name, tmp_path):
    data = (jhist_dir / name).read_bytes()
    binary = _binary(data)
    assert binary.startswith(b"Avro-Binary\n") and len(binary) < len(data)
    from_json = parse_jhist(data, source="j")
    from_binary = parse_jhist(binary, source="b")
    assert from_binary.encoding == "binary" and from_json.encoding == "json"
    assert from_binary.record == from_json.record
    assert from_binary.tasks == from_json.tasks
    assert from_binary.counters == from_json.counters
    assert from_binary.complete


# -- incomplete files ----------------------------------------------------------------------------

def test_truncated_json_yields_the_complete_events(jhist_dir):
    data = (jhist_dir / SLEEP).read_bytes()
    cut = data.index(b'"type":"REDUCE_ATTEMPT_FINISHED"') + 200  # inside the first reduce end
    history = parse_jhist(data[:cut], source="cut.jhist")
    assert not history.complete
    r = history.record
    assert r["complete"] is False and r["state"] is None and r["finish_time_ms"] is None
    assert (r["job_id"], r["n_maps"], r["n_reduces"]) == ("job_1329348432655_0001", 10, 1)
    assert r["map_time_ms"] == sum(f - s for s, f in SLEEP_MAPS.values())
    assert r["reduce_time_ms"] == 0
    assert len(history.tasks) == 10  # the reduces had not finished
    # no JOB_FINISHED: totals are the sum of the ten finished map tasks
    assert r["map_input_records"] == 10 and r["map_output_bytes"] == 40


def test_file_cut_at_a_line_end_is_incomplete_too(jhist_dir):
    data = (jhist_dir / SLEEP).read_bytes()
    cut = data.index(b'{"type":"JOB_FINISHED"')
    history = parse_jhist(data[:cut], source="cut.jhist")
    assert not history.complete
    assert len(history.tasks) == 12


def test_truncated_binary_yields_the_complete_events(jhist_dir):
    binary = _binary((jhist_dir / SLEEP).read_bytes())
    history = parse_jhist(binary[: len(binary) * 3 // 4], source="cut.jhist")
    assert not history.complete
    assert 0 < len(history.tasks) < 12
    assert history.record["n_maps"] == 10


def test_cut_before_any_event_uses_the_file_name(tmp_path, jhist_dir):
    data = (jhist_dir / SLEEP).read_bytes()
    path = tmp_path / SLEEP
    path.write_bytes(data[: data.index(b"\n", 10) + 1])
    history = read_jhist(path)
    assert history.record["job_id"] == "job_1329348432655_0001"
    assert not history.complete and history.tasks == []


def test_other_event_types_are_read_and_do_not_change_the_job(jhist_dir):
    data = (jhist_dir / SLEEP_FAILED).read_bytes()
    plain = parse_jhist(data, source="f").record
    magic, schema, events = _lines(data)
    ns = "org.apache.hadoop.mapreduce.jobhistory"
    extra = [
        {"type": "JOB_PRIORITY_CHANGED", "event": {f"{ns}.JobPriorityChange": {
            "jobid": "job_1393307629410_0001", "priority": "HIGH"}}},
        {"type": "JOB_STATUS_CHANGED", "event": {f"{ns}.JobStatusChanged": {
            "jobid": "job_1393307629410_0001", "jobStatus": "RUNNING"}}},
        {"type": "TASK_UPDATED", "event": {f"{ns}.TaskUpdated": {
            "taskid": "task_1393307629410_0001_m_000000", "finishTime": 1}}},
        {"type": "SETUP_ATTEMPT_STARTED", "event": {f"{ns}.TaskAttemptStarted": {
            "taskid": "task_1393307629410_0001_m_000001", "taskType": "SETUP",
            "attemptId": "attempt_1393307629410_0001_m_000001_0", "startTime": 5,
            "trackerName": "h", "httpPort": 1, "shufflePort": 2, "containerId": "c",
            "locality": "OFF_SWITCH", "avataar": "VIRGIN"}}},
    ]
    events[4:4] = [json.dumps(e).encode() for e in extra]
    events[-1] = events[-1].replace(b'"type":"JOB_FAILED"', b'"type":"JOB_KILLED"')
    record = parse_jhist(b"\n".join([magic, schema, *events]), source="f").record
    assert record["state"] == "KILLED"
    assert {k: v for k, v in record.items() if k != "state"} == {
        k: v for k, v in plain.items() if k != "state"}


# -- MFE / RFE -------------------------------------------------------------------------------------

def test_function_time_counters_become_mfe_and_rfe(jhist_dir):
    magic, schema, events = _lines((jhist_dir / SLEEP).read_bytes())
    finished = json.loads(events[-1])
    body = finished["event"]["org.apache.hadoop.mapreduce.jobhistory.JobFinished"]
    body["totalCounters"]["groups"].append({
        "name": "jobsize", "displayName": "jobsize",
        "counts": [{"name": "MAP_FUNCTION_MILLIS", "displayName": "m", "value": 4321},
                   {"name": "REDUCE_FUNCTION_MILLIS", "displayName": "r", "value": 765},
                   # what a probe's timing wrapper adds: start-ups and the combiner's runs
                   {"name": "MAP_FUNCTION_STARTUP_MILLIS", "displayName": "s", "value": 300},
                   {"name": "REDUCE_FUNCTION_STARTUP_MILLIS", "displayName": "s", "value": 40},
                   {"name": "COMBINE_FUNCTION_STARTUP_MILLIS", "displayName": "s", "value": 9},
                   {"name": "COMBINE_RUNS", "displayName": "runs", "value": 12}]})
    events[-1] = json.dumps(finished).encode()
    record = parse_jhist(b"\n".join([magic, schema, *events]), source="f").record
    assert (record["map_function_ms"], record["reduce_function_ms"]) == (4321.0, 765.0)
    assert (record["map_function_startup_ms"], record["reduce_function_startup_ms"],
            record["combine_function_startup_ms"]) == (300.0, 40.0, 9.0)
    assert record["combine_runs"] == 12 and isinstance(record["combine_runs"], int)


# -- errors --------------------------------------------------------------------------------

def test_not_a_history_file(tmp_path):
    path = tmp_path / "x.jhist"
    path.write_bytes(b"hello\nworld\n")
    with pytest.raises(ParseError, match=r"x.jhist: line 1: not a job history file"):
        read_jhist(path)


def test_wrong_type_names_line_and_json_path(jhist_dir):
    magic, schema, events = _lines((jhist_dir / SLEEP).read_bytes())
    events[2] = events[2].replace(b'"totalMaps":10', b'"totalMaps":"ten"')
    data = b"\n".join([magic, schema, *events, b""])
    with pytest.raises(ParseError) as info:
        parse_jhist(data, source="bad.jhist")
    message = str(info.value)
    assert message.startswith("bad.jhist: line 5, $.event.")
    assert "totalMaps: expected an integer (int)" in message


def test_broken_line_in_the_middle_is_an_error_not_truncation(jhist_dir):
    magic, schema, events = _lines((jhist_dir / SLEEP).read_bytes())
    events[10] = events[10][:50]
    with pytest.raises(ParseError, match=r"bad.jhist: line 13: invalid JSON"):
        parse_jhist(b"\n".join([magic, schema, *events]), source="bad.jhist")


def test_missing_file(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        read_jhist(tmp_path / "job_1_1.jhist")


# -- collecting a directory -----------------------------------------------------------------------

def test_collect_jhist_reads_a_directory(jhist_dir):
    calls = []
    found = collect_jhist([jhist_dir], advance=lambda n=1: calls.append(n))
    jobs, tasks = found.jobs, found.tasks
    assert len(jobs) == 5 and len(calls) == 5
    assert set(jobs["state"]) == {"SUCCEEDED", "FAILED"}
    assert str(jobs["n_maps"].dtype) == "Int64"
    sleep = jobs.set_index("job_id").loc["job_1329348432655_0001"]
    assert sleep["map_memory_mb"] == 512
    assert len(tasks) == 12 + 2 + 1 + 8 + len(read_jhist(jhist_dir / FAILED_240).tasks)
    assert list(tasks.columns) == [c.name for c in TASK_COLUMNS]


# -- fuzzing -------------------------------------------------------------------------------

def _small_bytes() -> bytes:
    from conftest import shared_root
    path = shared_root() / "hadoop" / "jhist" / SLEEP_FAILED
    return path.read_bytes() if path.exists() else b"Avro-Json\n{}\n"


def _check(data: bytes) -> None:
    only_jobsize_errors(lambda: parse_jhist(data, source="fuzz.jhist"))


_SMALL = _small_bytes()
_MAGIC, _SCHEMA, _EVENTS = _lines(_SMALL) if _SMALL.count(b"\n") > 2 else (b"", b"{}", [])


@st.composite
def _damaged_events(draw: st.DrawFn) -> bytes:
    events = [json.loads(e) for e in _EVENTS]
    if events:
        index = draw(st.integers(0, len(events) - 1))
        events[index] = draw(damaged_json(events[index]))
    return b"\n".join([_MAGIC, _SCHEMA, *(json.dumps(e).encode() for e in events)])


@st.composite
def _damaged_schema(draw: st.DrawFn) -> bytes:
    schema = draw(damaged_json(json.loads(_SCHEMA)))
    return b"\n".join([_MAGIC, json.dumps(schema).encode(), *_EVENTS])


@st.composite
def _hostile_events(draw: st.DrawFn) -> bytes:
    events = [json.loads(e) for e in _EVENTS] or [{}]
    index = draw(st.integers(0, len(events) - 1))
    lines = [json.dumps(e).encode() for e in events]
    lines[index] = draw(hostile_text(events[index])).replace(b"\n", b" ")
    return b"\n".join([_MAGIC, _SCHEMA, *lines])


def _jobs_of_events(data: bytes) -> object:
    """A parsed history as the collector stores it: checked job record and task rows."""
    from jobsize.validation import validated

    history = parse_jhist(data, source="fuzz.jhist")
    return validated([history.record], history.tasks, source="fuzz.jhist")


_json_fast, _json_slow = fuzz_pair(damaged_bytes(_SMALL), _check, name="jhist_json_bytes")
_binary_fast, _binary_slow = fuzz_pair(
    damaged_bytes(_binary(_SMALL)) if _EVENTS else st.just(b""), _check,
    name="jhist_binary_bytes")
_fields_fast, _fields_slow = fuzz_pair(
    _damaged_events(), lambda data: only_jobsize_errors(lambda: _jobs_of_events(data)),
    name="jhist_event_fields")
_schema_fast, _schema_slow = fuzz_pair(_damaged_schema(), _check, name="jhist_schema")
_hostile_fast, _hostile_slow = fuzz_pair(
    _hostile_events(), lambda data: only_jobsize_errors(lambda: _jobs_of_events(data)),
    name="jhist_hostile_text")

test_fuzz_jhist_json_bytes, test_fuzz_jhist_json_bytes_slow = _json_fast, _json_slow
test_fuzz_jhist_binary_bytes, test_fuzz_jhist_binary_bytes_slow = _binary_fast, _binary_slow
test_fuzz_jhist_event_fields, test_fuzz_jhist_event_fields_slow = _fields_fast, _fields_slow
test_fuzz_jhist_schema, test_fuzz_jhist_schema_slow = _schema_fast, _schema_slow
test_fuzz_jhist_hostile_text, test_fuzz_jhist_hostile_text_slow = _hostile_fast, _hostile_slow


# -- the configuration file ---------------------------------------------------------------------

def _conf_bytes() -> bytes:
    from conftest import shared_root
    path = shared_root() / "hadoop" / "jhist" / SLEEP_CONF
    return path.read_bytes() if path.exists() else b"<configuration/>"


_CONF = _conf_bytes()
_CONF_KEYS = ("mapreduce.map.memory.mb", "mapreduce.job.maps", "mapreduce.job.reduces",
              "mapreduce.reduce.cpu.vcores", "yarn.app.mapreduce.am.resource.mb",
              "mapreduce.task.io.sort.mb", "io.sort.spill.percent",
              "mapreduce.map.combine.minspills")
_CONF_VALUES = ("-1", "-2", "0", "1e999", "9" * 5000, "${x}", "${x}${x}${x}${x}", "${y}",
                "${mapreduce.job.maps}", "512", " 7 ", "\u00e9", "", "0.5", "nan", "inf")


@st.composite
def _hostile_conf(draw: st.DrawFn) -> bytes:
    """A configuration whose sizes and counts are hostile: ``${x}`` chains, huge numbers."""
    props = {key: draw(st.sampled_from(_CONF_VALUES)) for key in _CONF_KEYS}
    chain = draw(st.integers(0, 40))
    props["x"] = "${x1}" * draw(st.integers(1, 8))
    for i in range(1, chain + 1):
        props[f"x{i}"] = f"${{x{i + 1}}}" * draw(st.integers(1, 8)) if i < chain else "7"
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>"
                   for k, v in props.items())
    return f"<?xml version='1.0'?><configuration>{body}</configuration>".encode()


def _check_conf(data: bytes) -> None:
    from jobsize.collectors.conf import container_sizes, sort_buffer

    def parse() -> object:
        conf = parse_conf(data, source="fuzz_conf.xml")
        sizes = container_sizes(conf, source="fuzz_conf.xml")
        assert all(v >= 1 for v in sizes.values())
        buffer = sort_buffer(conf, source="fuzz_conf.xml")
        assert 1 <= buffer["map_sort_mb"] <= 2047 and 0 < buffer["map_spill_percent"] <= 1
        return [conf_int(conf, k, source="fuzz_conf.xml") for k in _CONF_KEYS]
    only_jobsize_errors(parse)


def test_the_sort_buffer_comes_from_the_configuration_or_hadoops_defaults():
    from jobsize.collectors.conf import sort_buffer

    assert sort_buffer({}) == {"map_sort_mb": 100, "map_spill_percent": 0.8,
                               "combine_min_spills": 3}
    conf = {"mapreduce.task.io.sort.mb": "${sort}", "sort": "512",
            "mapreduce.map.sort.spill.percent": "0.9", "min.num.spills.for.combine": "5"}
    # Hadoop 1's names are read too, as Hadoop still reads them
    assert sort_buffer(conf) == {"map_sort_mb": 512, "map_spill_percent": 0.9,
                                 "combine_min_spills": 5}
    assert sort_buffer({"io.sort.mb": "256"})["map_sort_mb"] == 256
    for key, value, what in (("mapreduce.task.io.sort.mb", "4096", "1-2047"),
                             ("mapreduce.task.io.sort.mb", "1e2", "integer"),
                             ("mapreduce.map.sort.spill.percent", "1.5", "(0, 1]"),
                             ("mapreduce.map.sort.spill.percent", "nan", "a number"),
                             ("mapreduce.map.combine.minspills", "-1", "0 or more")):
        with pytest.raises(ParseError, match=rf"job_conf.xml: property '{key}': .*"
                                             rf"{re.escape(what)}"):
            sort_buffer({key: value}, source="job_conf.xml")


_conf_bytes_fast, _conf_bytes_slow = fuzz_pair(damaged_bytes(_CONF), _check_conf,
                                               name="conf_xml_bytes")
_conf_values_fast, _conf_values_slow = fuzz_pair(_hostile_conf(), _check_conf,
                                                 name="conf_xml_values")
test_fuzz_conf_xml_bytes, test_fuzz_conf_xml_bytes_slow = _conf_bytes_fast, _conf_bytes_slow
test_fuzz_conf_xml_values, test_fuzz_conf_xml_values_slow = _conf_values_fast, _conf_values_slow


def test_an_unknown_xml_encoding_is_a_parse_error():
    # found by fuzzing: a damaged declaration names an encoding Python does not know
    data = _CONF.replace(b"UTF-8", b"TF-8", 1) if b"UTF-8" in _CONF else (
        b"<?xml version='1.0' encoding='TF-8'?><configuration/>")
    with pytest.raises(ParseError, match="not valid XML"):
        parse_conf(data, source="c.xml")


def test_conf_expansion_is_hadoops_one_reference_per_round():
    conf = {"a": "${b}-${c}", "b": "B", "c": "${d}", "d": "D", "self": "x${self}",
            "unbound": "${nothing}-${b}"}
    assert expand(conf, "${a}") == "B-D"
    assert expand(conf, "${self}") == "${self}"  # refers to itself: the text is kept
    assert expand(conf, "${unbound}") == "${nothing}-${b}"  # an unbound name ends it
    deep = {f"v{i}": f"${{v{i + 1}}}" for i in range(30)}
    with pytest.raises(ParseError, match="substitution depth too large: 20"):
        expand(deep, "${v0}", source="c.xml", key="k")


def test_a_300_byte_conf_cannot_expand_without_bound():
    # each value doubles the one before: 2^40 characters if every reference were expanded
    props = "".join(f"<property><name>x{i}</name><value>${{x{i + 1}}}${{x{i + 1}}}</value>"
                    "</property>" for i in range(40))
    data = (f"<configuration>{props}<property><name>x40</name><value>ab</value></property>"
            "<property><name>mapreduce.job.maps</name><value>${x0}</value></property>"
            "</configuration>").encode()
    conf = parse_conf(data)
    with pytest.raises(ParseError, match="substitution depth too large"):
        conf_int(conf, "mapreduce.job.maps", source="c.xml")


def test_negative_map_count_in_the_conf_is_a_bad_record(jhist_dir, tmp_path):
    from jobsize.validation import BadRecordError, RecordCheck

    # the history cut before JOB_INITED: N_m comes from mapreduce.job.maps in the conf
    magic, schema, events = _lines((jhist_dir / SLEEP).read_bytes())
    (tmp_path / "job_1329348432655_0001.jhist").write_bytes(
        b"\n".join([magic, schema, events[0], b""]))
    conf = (jhist_dir / SLEEP_CONF).read_bytes()
    assert b"<name>mapreduce.job.maps</name><value>10</value>" in conf
    (tmp_path / SLEEP_CONF).write_bytes(conf.replace(
        b"<name>mapreduce.job.maps</name><value>10</value>",
        b"<name>mapreduce.job.maps</name><value>-3</value>"))
    with pytest.raises(BadRecordError, match=r"job_1329348432655_0001\.jhist: job "
                                             r"'job_1329348432655_0001': column 'n_maps': "
                                             r"expected ≥ 0, found -3"):
        collect_jhist([tmp_path])
    check = RecordCheck("skip")
    found = collect_jhist([tmp_path], check=check)
    assert len(found.jobs) == 0 and len(found.tasks) == 0
    assert [r.column for r in check.rejected] == ["n_maps"]


# -- hostile binary schemas ------------------------------------------------------------------------

def _binary_file(schema: dict, datum: bytes) -> bytes:
    return b"Avro-Binary\n" + json.dumps(schema).encode() + b"\n" + datum


_EVENT_WITH = lambda field: {  # noqa: E731
    "type": "record", "name": "Event", "fields": [
        {"name": "type", "type": "string"}, {"name": "event", "type": field}]}


def test_an_array_of_nulls_is_refused_before_reading():
    # 197 bytes that declare 2^62 items of null: read as such, they would fill memory
    schema = _EVENT_WITH({"type": "array", "items": "null"})
    datum = b"\x02x" + bytes([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])
    with pytest.raises(ParseError, match="an array whose items take no bytes"):
        parse_jhist(_binary_file(schema, datum), source="a.jhist")
    empty = {"type": "record", "name": "Nothing", "fields": []}
    with pytest.raises(ParseError, match="an array whose items take no bytes"):
        parse_jhist(_binary_file(_EVENT_WITH({"type": "array", "items": empty}), datum),
                    source="a.jhist")


def test_a_type_that_contains_itself_is_refused():
    # fastavro's compiled reader recurses once per byte of such data, past the C stack
    schema = {"type": "record", "name": "Event", "fields": [
        {"name": "type", "type": "string"}, {"name": "event", "type": "Event"}]}
    with pytest.raises(ParseError, match="contains itself"):
        parse_jhist(_binary_file(schema, b""), source="r.jhist")
    nested: object = "string"
    for _ in range(200):
        nested = {"type": "array", "items": nested}
    with pytest.raises(ParseError, match="nested more than"):
        parse_jhist(_binary_file(_EVENT_WITH(nested), b""), source="n.jhist")
