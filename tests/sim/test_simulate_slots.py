"""``jobsize simulate --cluster-model slots``: its own default cluster, its own words and units,
and a ``--schedulers`` help that names every scheduler the simulator knows."""

from __future__ import annotations

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
