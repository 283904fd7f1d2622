"""Progress when stderr is not a terminal: a line every few seconds, none with --quiet."""

import io
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
