"""SWIM numbers are ASCII digits: what Python's int() and float() take beyond them is refused."""

from __future__ import annotations

import pytest
from jobsize.collectors.swim import read_swim

from jobsize.errors import ParseError


@pytest.mark.parametrize("number", ["1_000", "١٢٣", "１２", "inf", "nan", "0x10", "1 000"])
def test_a_number_not_in_ascii_digits_is_refused_naming_file_and_line(tmp_path, number) -> None:
    path = tmp_path / "w.tsv"
    path.write_text(f"job0\t1\t1\t1\t1\t1\njob1\t2\t1\t{number}\t1\t1\n", encoding="utf-8")
    with pytest.raises(ParseError) as info:
        read_swim(path)
    message = str(info.value)
    assert message == (f"{path}: line 2: map input bytes: expected a number in ASCII digits, "
                       f"found {number!r}")
    assert "\n" not in message


def test_plain_decimal_and_exponent_numbers_still_read(tmp_path) -> None:
    path = tmp_path / "w.tsv"
    path.write_text("job0\t1.5\t1.5\t1e3\t+2\t0\n")
    row = read_swim(path).iloc[0]
    assert (row["submit_time_ms"], row["map_input_bytes"], row["reduce_shuffle_bytes"]) == (
        1500, 1000, 2)


def test_a_number_of_thousands_of_digits_is_out_of_range_not_a_crash(tmp_path) -> None:
    path = tmp_path / "w.tsv"
    path.write_text(f"job0\t1\t1\t{'9' * 5000}\t1\t1\n")
    with pytest.raises(ParseError, match="line 1: map input bytes: expected a finite number"):
        read_swim(path)
