"""A probe task times what its function pays whatever its input — start-up and end — itself."""

from __future__ import annotations

import sys
from pathlib import Path

from jobsize.engine.attempt import run_function
from jobsize.engine.streaming import run_command

#: Half a second before it reads and a fifth after its last record: paid whatever the input.
SLOW_ENDS = """
import sys, time
time.sleep(0.5)
n = sum(1 for _ in sys.stdin)
print("records\\t%d" % n)
sys.stdout.flush()
time.sleep(0.2)
"""


def _run(tmp_path: Path, chunks, time_startup=True):
    program = tmp_path / "slow_ends.py"
    program.write_text(SLOW_ENDS)
    out: list[bytes] = []
    outcome = run_command((sys.executable, "-S", str(program)), chunks, out.append, env={},
                          cwd=tmp_path, stderr_path=tmp_path / "stderr",
                          time_startup=time_startup)
    assert outcome.ok, outcome.error
    return outcome, b"".join(out)


def test_a_command_times_its_start_up_and_its_end(tmp_path):
    records = [b"%06d some words of a record\n" % i for i in range(30_000)]
    outcome, out = _run(tmp_path, iter(records))
    assert out == b"records\t30000\n"  # fed in full, in order
    assert 0.7 <= outcome.startup_seconds < outcome.function_seconds
    assert outcome.startup_seconds < 0.7 + 0.25  # an interpreter's start, not its records


def test_an_input_shorter_than_a_pipe_goes_untimed(tmp_path):
    outcome, out = _run(tmp_path, iter([b"one\n", b"two\n"]))
    assert out == b"records\t2\n" and outcome.startup_seconds is None
    outcome, _ = _run(tmp_path, iter([b"x\n"] * 5000), time_startup=False)
    assert outcome.startup_seconds is None  # not asked


def test_a_callable_has_no_start_up(tmp_path):
    outcome = run_function(lambda line: [(line, 1)], "map", iter([b"a\n"] * 10),
                           lambda _: None, {"PWD": str(tmp_path)}, tmp_path, True)
    assert outcome.startup_seconds == 0.0
