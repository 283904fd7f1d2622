"""Parsing web server access logs (Common and Combined Log Format), standard library only.

``10.0.0.1 - u0012345 [14/Jul/2023:09:21:07 +0000] "GET /item/4711 HTTP/1.1" 200 5120 ...``
"""

from __future__ import annotations

import re
from typing import NamedTuple

_LINE = re.compile(
    r'(\S+) \S+ (\S+) \[(\d\d/\w\w\w/\d{4}):(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)\] '
    r'"(\S+) (\S+)[^"]*" (\d{3}) (\d+|-)'
)
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_DAY_SECONDS: dict[str, int] = {}


class Request(NamedTuple):
    host: str
    user: str
    epoch: int  # Unix time, seconds
    method: str
    path: str
    status: int
    size: int  # response bytes; 0 for "-"


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _midnight(date: str) -> int:
    # Logs repeat a few dates millions of times: convert each date once.
    seconds = _DAY_SECONDS.get(date)
    if seconds is None:
        day, month, year = date.split("/")
        if month not in _MONTHS:
            raise ValueError(f"unknown month {month!r}")
        seconds = days_from_civil(int(year), _MONTHS[month], int(day)) * 86400
        _DAY_SECONDS[date] = seconds
    return seconds


def parse(line: str) -> Request | None:
    """The request of a log line, or None when the line is not in the log format."""
    match = _LINE.match(line)
    if match is None:
        return None
    host, user, date, hh, mm, ss, sign, zh, zm, method, path, status, size = match.groups()
    try:
        midnight = _midnight(date)
    except ValueError:
        return None
    offset = (int(zh) * 3600 + int(zm) * 60) * (1 if sign == "+" else -1)
    epoch = midnight + int(hh) * 3600 + int(mm) * 60 + int(ss) - offset
    return Request(host, user, epoch, method, path, int(status), 0 if size == "-" else int(size))
