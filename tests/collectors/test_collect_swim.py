from __future__ import annotations

import pytest
from collect_fuzz import damaged_bytes, fuzz_pair, only_jobsize_errors
from hypothesis import strategies as st
from jobsize.collectors.swim import parse_swim, read_swim

from jobsize.errors import ParseError
from jobsize.schema import JOB_COLUMNS

SAMPLE = (b"job0\t49\t49\t740773\t2339561\t627471\n"
          b"job1\t101\t52\t736346\t1700537\t432269\n"
          b"job2\t122\t21\t267631\t594312\t233549\n")


def test_every_swim_fixture_parses(shared):
    files = sorted((shared / "swim").glob("*.tsv"))
    assert len(files) == 3
    for path in files:
        frame = read_swim(path)
        assert len(frame) > 0
        assert (frame["source"] == "swim").all()
        assert frame["submit_time_ms"].is_monotonic_increasing


def test_first_jobs_of_fb2009_match_the_file(shared):
    frame = read_swim(shared / "swim" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
    assert len(frame) == 50
    # job4: "job4 208 11 3623279 0 9838062" (seconds, seconds, bytes, bytes, bytes)
    job4 = frame.iloc[4]
    assert job4["job_id"] == "job4"
    assert job4["submit_time_ms"] == 208_000
    assert job4["gap_ms"] == 11_000
    assert job4["map_input_bytes"] == 3_623_279
    assert job4["reduce_shuffle_bytes"] == 0
    assert job4["reduce_output_bytes"] == 9_838_062


def test_fb2010_row_count_and_last_job(shared):
    frame = read_swim(shared / "swim" / "FB-2010_samples_24_times_1hr_0.tsv")
    assert len(frame) == 24442
    last = frame.iloc[-1]
    # last line: "job24441 86408 1 50074960148 8448 255"
    assert (last["job_id"], last["submit_time_ms"], last["map_input_bytes"]) == (
        "job24441", 86_408_000, 50_074_960_148)


def test_table_has_job_record_columns_plus_gap():
    frame = parse_swim(SAMPLE)
    assert list(frame.columns) == [c.name for c in JOB_COLUMNS] + ["gap_ms"]
    assert str(frame["submit_time_ms"].dtype) == "Int64"
    assert str(frame["gap_ms"].dtype) == "Int64"
    assert frame["n_maps"].isna().all()


def test_blank_lines_and_crlf_are_accepted():
    frame = parse_swim(SAMPLE.replace(b"\n", b"\r\n") + b"\n\n")
    assert list(frame["job_id"]) == ["job0", "job1", "job2"]


@pytest.mark.parametrize(("content", "message"), [
    (b"job0\t49\t49\t740773\t2339561\n", "line 1: expected 6 tab-separated fields, found 5"),
    (b"job0\t49\t49\t1\t2\t3\njob1\tsoon\t1\t1\t1\t1\n",
     "line 2: submit time (s): expected a number"),
    (b"job0\t49\t49\t-5\t2\t3\n", "line 1: map input bytes: expected a number from 0"),
    (b"job0\t49\t49\t1.5\t2\t3\n", "line 1: map input bytes: expected a whole number"),
    (b"", "no jobs in the file"),
    (b"job0\t1\t1\t1\t1\t1\n\xff\n", "line 2: not UTF-8"),
])
def test_malformed_lines_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "w.tsv"
    path.write_bytes(content)
    with pytest.raises(ParseError) as info:
        read_swim(path)
    assert str(info.value).startswith(str(path))
    assert message in str(info.value)


def test_missing_file_is_a_parse_error(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        read_swim(tmp_path / "absent.tsv")


def _check(data: bytes) -> None:
    only_jobsize_errors(lambda: parse_swim(data, source="fuzz.tsv"))


_bytes_fast, _bytes_slow = fuzz_pair(damaged_bytes(SAMPLE), _check, name="swim_bytes")
_text_fast, _text_slow = fuzz_pair(
    st.lists(st.lists(st.text(max_size=12), min_size=1, max_size=8), max_size=5).map(
        lambda rows: "\n".join("\t".join(r) for r in rows).encode()), _check,
    name="swim_random_fields")

test_fuzz_swim_damaged_bytes = _bytes_fast
test_fuzz_swim_damaged_bytes_slow = _bytes_slow
test_fuzz_swim_random_fields = _text_fast
test_fuzz_swim_random_fields_slow = _text_slow
