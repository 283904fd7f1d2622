"""Calendar strings as lookup tables: a few hundred distinct days cover years of records."""

from __future__ import annotations

import functools

import numpy as np

from jobsize.workloads.gen.ragged import Table

#: First day of generated calendars; record dates and log timestamps count days from here.
EPOCH_DAY = np.datetime64("2023-01-01", "D")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _days(count: int) -> np.ndarray:
    return EPOCH_DAY + np.arange(count)


@functools.cache
def iso_days(count: int) -> Table:
    """``2023-01-01``, ``2023-01-02``, ...: ``count`` days from :data:`EPOCH_DAY`."""
    return Table.of([str(day) for day in _days(count)])


@functools.cache
def log_days(count: int) -> Table:
    """``01/Jan/2023``, ...: the day part of a web server's log timestamp (Common Log Format)."""
    labels = []
    for day in _days(count).tolist():
        labels.append(f"{day.day:02d}/{MONTHS[day.month - 1]}/{day.year}")
    return Table.of(labels)


def epoch_seconds(day: int = 0) -> int:
    """Unix time of midnight UTC of day ``day`` after :data:`EPOCH_DAY`."""
    return int((EPOCH_DAY + day).astype("datetime64[s]").astype(np.int64))
