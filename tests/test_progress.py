"""Progress when stderr is not a terminal: a line every few seconds, none with --quiet."""

import io
import re
import time

from jobsize import progress
from jobsize.progress import _ProgressLog, configure, progress_bar


def test_a_line_every_interval_while_work_runs_and_one_at_the_end() -> None:
    stream = io.StringIO()
    log = _ProgressLog("simulating", 4, stream, every_s=0.05)
    log.advance()
    time.sleep(0.3)  # no advance for a while: the timer still reports
    log.advance(3)
    log.finish()
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 3
    assert lines[0].startswith("simulating: 1/4 (25%)") and "eta" in lines[0]
    assert lines[-1].startswith("simulating: 4/4 (100%)")


def test_quick_work_stays_silent() -> None:
    stream = io.StringIO()
    log = _ProgressLog("x", None, stream, every_s=60)
    log.advance()
    log.finish()
    assert stream.getvalue() == ""


def test_quiet_turns_progress_off(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.01)
    configure(quiet=True)
    try:
        with progress_bar("work", total=2) as advance:
            advance()
            time.sleep(0.05)
    finally:
        configure(quiet=False)
    assert capsys.readouterr().err == ""


def test_without_quiet_the_same_work_reports(capsys, monkeypatch) -> None:
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.01)
    with progress_bar("work", total=2) as advance:
        advance()
        time.sleep(0.05)
    assert capsys.readouterr().err.startswith("work: 1/2")


def test_work_without_a_count_reports_its_time() -> None:
    stream = io.StringIO()
    log = _ProgressLog("probing", None, stream, every_s=0.05)
    time.sleep(0.2)
    log.finish()
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2
    assert all(re.fullmatch(r"probing: \d+ s elapsed", line) for line in lines), lines


def test_collect_jhs_reports_while_listing_retries(httpserver, tmp_path, capsys,
                                                   monkeypatch) -> None:
    from jobsize.cli import main

    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.05)
    httpserver.expect_request("/ws/v1/history/mapreduce/jobs").respond_with_data(
        "busy", status=503)
    status = main(["collect", "jhs", httpserver.url_for("/"), "-o", str(tmp_path / "t.parquet"),
                   "--retries", "2"])
    err = capsys.readouterr().err
    assert status == 2
    assert re.search(r"^listing jobs at http://\S+: \d+ s elapsed$", err, re.MULTILINE), err
