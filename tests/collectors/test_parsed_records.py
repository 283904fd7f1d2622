"""A parser hands its API callers no record the store would refuse: a negative count or time,
or an integer past 2^63, is a ParseError naming the job and the column where the record is
assembled (.jhist, JobHistory Server), and a table built from such a value is a SchemaError,
not pandas' TypeError."""

from __future__ import annotations

import pytest
from conftest import require_shared
from jhs_fake import DOC_JOB, answering_on
from jobsize.collectors.jhist import collect_jhist, parse_jhist
from jobsize.collectors.jhs import HistoryServer
from jobsize.collectors.rest import HttpOptions

from jobsize.errors import ParseError, SchemaError
from jobsize.schema import records
from jobsize.validation import RecordCheck

FAST = HttpOptions(timeout=(2.0, 0.5), retries=3, backoff=0.01, pool=4)
SLEEP = "job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-"


def _sleep_jhist() -> bytes:
    folder = require_shared() / "hadoop" / "jhist"
    return next(folder.glob(SLEEP + "*.jhist")).read_bytes()


@pytest.mark.parametrize(("old", "new", "column"), [
    (b'"totalMaps":10', b'"totalMaps":-10', "n_maps"),
    (b'"startTime":1329348450485', b'"startTime":-1329348450485', "start_time_ms"),
])
def test_parse_jhist_refuses_a_negative_count_or_time(old, new, column) -> None:
    data = _sleep_jhist()
    assert old in data
    with pytest.raises(ParseError) as info:
        parse_jhist(data.replace(old, new, 1), source="s.jhist")
    message = str(info.value)
    assert message.startswith("s.jhist: job 'job_1329348432655_0001': ")
    assert f"column {column!r}" in message and "expected ≥ 0" in message


def test_collect_jhist_still_leaves_such_a_job_out_when_told_to(tmp_path) -> None:
    data = _sleep_jhist()
    (tmp_path / (SLEEP + "x.jhist")).write_bytes(data.replace(b'"totalMaps":10',
                                                              b'"totalMaps":-10', 1))
    with pytest.raises(ParseError, match="column 'n_maps': expected ≥ 0, found -10"):
        collect_jhist([tmp_path])
    check = RecordCheck("skip")
    found = collect_jhist([tmp_path], check=check)
    assert len(found.jobs) == 0
    assert [r.column for r in check.rejected] == ["n_maps"]


@pytest.fixture
def jhs(server, shared):
    return answering_on(server, shared)


def test_collect_job_refuses_a_negative_count(jhs) -> None:
    jhs.jobs[DOC_JOB]["job"]["mapsTotal"] = -1
    with pytest.raises(ParseError, match=rf"jobs/{DOC_JOB}: job '{DOC_JOB}': column 'n_maps': "
                                         r"expected ≥ 0, found -1"):
        HistoryServer(jhs.url, FAST).collect_job(DOC_JOB)


def test_collect_job_refuses_a_time_past_2_63(jhs) -> None:
    job = jhs.jobs[DOC_JOB]["job"]
    job["avgMapTime"], job["successfulMapAttempts"] = 2**62, 4  # their product: 2^64
    with pytest.raises(ParseError, match=r"column 'map_time_ms': expected an integer within "
                                         r"±2\^63, found 18446744073709551616"):
        HistoryServer(jhs.url, FAST).collect_job(DOC_JOB, attempts=False)


@pytest.mark.parametrize("value", [2**64 - 1, 2**63, 2.0**70])
def test_a_record_past_2_63_is_a_schema_error_naming_the_column(value) -> None:
    with pytest.raises(SchemaError, match=r"column 'map_input_bytes': expected an integer "
                                          r"within ±2\^63"):
        records([{"job_id": "j", "map_input_bytes": value}])
    assert records([{"job_id": "j", "map_input_bytes": 2**63 - 1}])["map_input_bytes"][0] == \
        2**63 - 1
