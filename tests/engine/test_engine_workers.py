"""How many workers the engine runs by default, and when it warns of an oversubscribed
machine: a streaming task keeps two processes busy."""

import pytest

from jobsize.engine import appmaster


@pytest.fixture
def machine(monkeypatch):
    def set_(cores: int, load: float) -> None:
        monkeypatch.setattr(appmaster.os, "cpu_count", lambda: cores)
        monkeypatch.setattr(appmaster.os, "getloadavg", lambda: (load, load, load))
    return set_


@pytest.mark.parametrize(("cores", "load", "workers"), [
    (2, 0.0, 1), (2, 1.9, 1), (4, 0.0, 2), (8, 2.0, 3), (16, 0.2, 8), (1, 0.0, 1)])
def test_default_workers_leave_each_task_two_cores(machine, cores, load, workers):
    machine(cores, load)
    assert appmaster.default_workers() == workers
    assert appmaster.LocalEngine().workers == workers


def test_oversubscription_counts_two_processes_per_worker(machine):
    machine(2, 0.0)
    assert appmaster.oversubscription(1) is None
    warning = appmaster.oversubscription(2)
    assert warning and "2 workers of 2 processes each on 2 cores" in warning
    machine(8, 3.0)
    assert appmaster.oversubscription(3) is None and appmaster.oversubscription(4)
