"""``jobsize simulate --cluster-model slots``: its own default cluster, its own words and units,
block locality and stragglers from the command line, and a ``--schedulers`` help that names
every scheduler the simulator knows."""

from __future__ import annotations

import pandas as pd
import pytest

from jobsize.cli import main
from jobsize.cli.simulate import SCHEDULER_NAMES, SLOT_SCHEDULER_NAMES
from jobsize.sim.schedulers import SCHEDULERS


def test_the_help_names_every_registered_scheduler() -> None:
    assert set(SCHEDULER_NAMES) | set(SLOT_SCHEDULER_NAMES) == set(SCHEDULERS)
    assert not set(SCHEDULER_NAMES) & set(SLOT_SCHEDULER_NAMES)


def test_a_slot_run_says_slots_and_needs_no_cluster(tmp_path, capsys) -> None:
    out = tmp_path / "sim"
    assert main(["-q", "simulate", "--workload", "synthetic:40", "--cluster-model", "slots",
                 "--segments", "40/0", "--schedulers", "fifo,mrv1-fair", "--no-figures",
                 "-o", str(out)]) == 0
    summary = (out / "summary.md").read_text()
    assert "cluster: 8×2×2 (map/reduce slots)" in summary
    assert "model: slots" in summary
    assert "S in slot·s, CR the cluster's slots" in summary
    assert "Fair (slots)" in summary
    assert "memory" not in summary
    capsys.readouterr()


def test_a_yarn_run_keeps_memory_units(tmp_path, capsys) -> None:
    out = tmp_path / "sim"
    assert main(["-q", "simulate", "--workload", "synthetic:30", "--segments", "30/0",
                 "--schedulers", "fifo", "--no-figures", "-o", str(out)]) == 0
    summary = (out / "summary.md").read_text()
    assert "model: yarn" in summary and "(MB/vcores)" in summary
    assert "S in memory MB·s" in summary and "Fair (memory)" in summary
    capsys.readouterr()


def _dynamicmr(tmp_path, name: str, *extra: str) -> pd.DataFrame:
    out = tmp_path / name
    assert main(["-q", "simulate", "--workload", "synthetic:40", "--cluster-model", "slots",
                 "--cluster", "4x2x2", "--segments", "40/0", "--schedulers", "dynamicmr",
                 "--no-figures", "-o", str(out), *extra]) == 0
    return pd.read_parquet(out / "jobs.parquet").sort_values("job_id").reset_index(drop=True)


def test_locality_and_stragglers_from_the_command_line(tmp_path, capsys) -> None:
    plain = _dynamicmr(tmp_path, "plain")
    shaped = _dynamicmr(tmp_path, "shaped", "--locality", "2/5", "--stragglers", "0.2/3-6")
    again = _dynamicmr(tmp_path, "again", "--locality", "2/5", "--stragglers", "0.2/3-6")
    summary = (tmp_path / "shaped" / "summary.md").read_text()
    assert "- locality: 2 replicas per block, a remote map reads for 5 s more" in summary
    assert "- stragglers: 20 % of attempts slowed 3-6×" in summary
    # remote reads and slow attempts lengthen the jobs; the same seed gives the same run
    assert shaped.response_s.sum() > plain.response_s.sum()
    pd.testing.assert_frame_equal(shaped, again)
    capsys.readouterr()


@pytest.mark.parametrize(("flag", "value"), [
    ("--locality", "0"), ("--locality", "2.5"), ("--locality", "3/-1"), ("--locality", "٣"),
    ("--stragglers", "2"), ("--stragglers", "0.1/6-3"), ("--stragglers", "0.1/0.5-2"),
    ("--stragglers", "0.1/3"),
])
def test_bad_locality_and_stragglers_are_one_line(flag, value, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--workload", "synthetic:5", "-o", str(tmp_path), flag, value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and flag in err and err.strip().count("\n") == 0
