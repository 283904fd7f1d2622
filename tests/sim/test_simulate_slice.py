"""``jobsize simulate --slice START:STOP``: a slice of the workload, as a workload of its own."""

from __future__ import annotations

import pandas as pd
import pytest

from jobsize.cli import main


def test_a_slice_simulates_only_its_jobs(tmp_path, capsys) -> None:
    out = tmp_path / "sim"
    assert main(["-q", "simulate", "--workload", "synthetic:60", "--slice", "10:50",
                 "--segments", "20/0", "--schedulers", "fifo", "--no-figures",
                 "-o", str(out)]) == 0
    assert "[10:50]" in capsys.readouterr().out
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert jobs.groupby("scheduler").job_id.nunique().eq(40).all()
    assert jobs.segment.nunique() == 2


@pytest.mark.parametrize(("argv", "message"), [
    (["--slice", "5"], "--slice: expected START:STOP"),
    (["--slice", "50:10"], "--slice: expected START:STOP"),
    (["--slice", "a:b"], "--slice: expected START:STOP"),
    (["--slice", "70:80"], "the workload has 60 jobs"),
    (["--slice", "0:10", "--reproduce", "dress"], "not with --load or --reproduce dress"),
])
def test_a_bad_slice_is_one_line(argv, message, tmp_path, capsys) -> None:
    code = main(["-q", "simulate", "--workload", "synthetic:60", "--no-figures",
                 "-o", str(tmp_path / "sim"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
