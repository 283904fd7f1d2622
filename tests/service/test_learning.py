"""The service learns each finished job once and only if it is plausible; what it holds aside an
operator accepts or drops; the journal is locked, compacted and repaired without losing any of
that."""

from __future__ import annotations

import asyncio
import json

import pytest
from service_helpers import as_jobs, expected, fit_model, reference, same, usable

import jobsize
from jobsize.errors import ConfigError, ParseError
from jobsize.service.journal import archive_path, damaged_path, read_journal, repair_journal
from jobsize.service.model_state import ModelState, ReloadBusy
from jobsize.service.snapshot import snapshot_path


@pytest.fixture(scope="module")
def fitted(model_file, trace):
    return model_file, usable(jobsize.SizePredictor.load(model_file), as_jobs(trace.iloc[200:]))


@pytest.fixture
def setup(tmp_path, fitted):
    """A model file of this test's own (tests rewrite it), its journal and finished jobs."""
    model = tmp_path / "m.json"
    model.write_bytes(fitted[0].read_bytes())
    return model, tmp_path / "m.json.journal", fitted[1]


def _run(coro):
    return asyncio.run(coro)


def _corrupt(job: dict, factor: float = 1000.0, times: bool = False) -> dict:
    """``job`` with its map time off by ``factor``; without its timestamps unless ``times``
    (which alone would show the record contradicting itself)."""
    bad = {k: v for k, v in job.items() if times or not k.endswith("_time_ms")
           or k in ("map_time_ms", "reduce_time_ms")}
    bad["map_time_ms"] = bad["map_time_ms"] * factor
    bad["job_id"] = bad["job_id"] + "_bad"
    return bad


def test_a_job_observed_twice_is_learned_once_even_concurrently(setup):
    model, journal, jobs = setup
    state = ModelState(model, journal)

    async def go():
        return await asyncio.gather(*(state.observe(jobs[0]) for _ in range(5)),
                                    state.observe(jobs[1]))
    answers = _run(go())
    state.close()
    first, *again, other = answers
    assert not first.duplicate and first.learned
    assert all(a.duplicate and a.seq == first.seq for a in again)
    assert other.seq == first.seq + 1
    entries, _ = read_journal(journal)
    assert [e.key for e in entries] == [jobs[0]["job_id"], jobs[1]["job_id"]]
    assert state.observed == 2 and state.duplicates == 4
    once = jobsize.SizePredictor.load(model).observe(jobs[0]).observe(jobs[1])
    assert same(expected(state.live, jobs[2]), expected(once, jobs[2]))


def test_a_job_without_an_id_is_keyed_by_its_values(setup):
    model, journal, jobs = setup
    job = {k: v for k, v in jobs[0].items() if k != "job_id"}
    state = ModelState(model, journal)
    a, b = _run(state.observe(job)), _run(state.observe(dict(reversed(job.items()))))
    state.close()
    assert a.key.startswith("sha256:") and b.duplicate and b.key == a.key


def test_an_implausible_job_is_held_not_learned_and_accept_or_drop_persist(setup):
    model, journal, jobs = setup
    state = ModelState(model, journal)
    bad, worse = _corrupt(jobs[0]), _corrupt(jobs[1], 1e-4)
    held = _run(state.observe(bad))
    assert held.held and not held.learned and "standard errors" in held.held
    assert _run(state.observe(worse)).held
    contradicts = _run(state.observe(_corrupt(jobs[2], times=True))).held
    assert "could run in the job's" in contradicts
    _run(state.drop(jobs[2]["job_id"] + "_bad"))
    assert same(expected(state.live, jobs[5]), expected(jobsize.SizePredictor.load(model),
                                                        jobs[5]))
    assert [h["key"] for h in state.held_list()] == [bad["job_id"], worse["job_id"]]
    assert _run(state.observe(bad)).duplicate  # a retry stays held, learned no more
    accepted = _run(state.accept(bad["job_id"]))
    assert accepted.learned and state.held_count == 1
    _run(state.drop(worse["job_id"]))
    with pytest.raises(KeyError):
        _run(state.drop("job_unknown"))
    live = state.live
    state.close()

    restarted = ModelState(model, journal)
    assert restarted.held_count == 0 and restarted.observed == 1
    assert same(expected(restarted.live, jobs[5]), expected(live, jobs[5]))
    assert _run(restarted.observe(bad)).duplicate
    restarted.close()


def test_held_jobs_survive_a_restart(setup):
    model, journal, jobs = setup
    state = ModelState(model, journal)
    _run(state.observe(_corrupt(jobs[0])))
    state.close()
    again = ModelState(model, journal)
    assert [h["reason"] for h in again.held_list()] == [state.held_list()[0]["reason"]]
    again.close()


def test_a_second_service_cannot_open_the_same_journal(setup):
    model, journal, _ = setup
    state = ModelState(model, journal)
    with pytest.raises(ConfigError, match="in use by another jobsize process"):
        ModelState(model, journal)
    with pytest.raises(ConfigError, match="in use"):
        repair_journal(journal)
    state.close()
    ModelState(model, journal).close()  # free again once closed


def test_compaction_keeps_the_model_the_keys_and_the_held_jobs(setup, monkeypatch):
    model, journal, jobs = setup
    monkeypatch.setattr(ModelState, "compact_every", 10)
    state = ModelState(model, journal)

    async def go():
        for job in jobs[:25]:
            await state.observe(job)
        await state.observe(_corrupt(jobs[30]))
        while state._compacting:
            await asyncio.sleep(0.01)
        await state.compact()
    _run(go())
    live = state.live
    state.close()
    assert snapshot_path(journal).exists() and read_journal(journal)[0] == []
    assert len(read_journal(archive_path(journal))[0]) == 26

    restarted = ModelState(model, journal)
    assert restarted.entries == 0 and restarted.observed == 25 and restarted.held_count == 1
    for job in jobs[25:28]:
        assert same(expected(restarted.live, job), expected(live, job))
    assert _run(restarted.observe(jobs[3])).duplicate
    restarted.close()

    # a new model file: the snapshot no longer applies; the archive is replayed on it
    fit_model(model, jobs_frame := reference().iloc[50:250])
    assert len(jobs_frame) == 200
    refitted = ModelState(model, journal)
    direct = jobsize.SizePredictor.load(model)
    for job in jobs[:25]:
        direct.observe(job)
    assert refitted.observed == 25 and refitted.held_count == 1
    assert same(expected(refitted.live, jobs[40]), expected(direct, jobs[40]))
    refitted.close()


def test_a_compaction_cut_short_after_archiving_is_finished_by_the_next(setup):
    model, journal, jobs = setup
    state = ModelState(model, journal)

    async def go():
        for job in jobs[:6]:
            await state.observe(job)
    _run(go())
    state.close()
    # as if killed after the archive was written, before the journal was rewritten
    archive_path(journal).write_bytes(journal.read_bytes()[:-1][: journal.read_bytes().index(
        b"\n", 200) + 1])
    again = ModelState(model, journal)
    assert again.observed == 6
    moved = _run(again.compact())
    again.close()
    assert moved == 6
    assert [e.seq for e in read_journal(archive_path(journal))[0]] == list(range(1, 7))


def test_repair_sets_damaged_lines_aside_and_the_service_starts_again(setup):
    model, journal, jobs = setup
    state = ModelState(model, journal)
    _run(state.observe(jobs[0]))
    _run(state.observe(jobs[1]))
    state.close()
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(lines[0] + b'{"seq": 7, "job": [}\n' + lines[1])
    with pytest.raises(ParseError, match=r"line 2.*jobsize journal repair"):
        ModelState(model, journal)
    kept, aside = repair_journal(journal)
    assert (kept, aside) == (2, [2])
    assert json.loads(damaged_path(journal).read_text())["line"] == 2
    state = ModelState(model, journal)
    assert state.observed == 2
    state.close()


def test_concurrent_reloads_are_refused_as_busy(setup):
    model, journal, _ = setup
    state = ModelState(model, journal)

    async def go():
        return await asyncio.gather(state.reload(), state.reload(), return_exceptions=True)
    results = _run(go())
    state.close()
    assert sum(isinstance(r, ReloadBusy) for r in results) == 1


def test_an_entry_the_model_file_refuses_is_skipped_and_the_rest_replayed(setup):
    model, journal, jobs = setup
    unlearnable = {k: v for k, v in jobs[1].items() if k != "map_time_ms"}
    journal.write_bytes(b"".join(
        json.dumps({"seq": i, "key": job["job_id"], "job": job}).encode() + b"\n"
        for i, job in enumerate([jobs[0], unlearnable, jobs[2]], start=1)))
    state = ModelState(model, journal)
    state.close()
    assert state.rejected == [2] and state.observed == 2
    direct = jobsize.SizePredictor.load(model).observe(jobs[0]).observe(jobs[2])
    assert same(expected(state.live, jobs[5]), expected(direct, jobs[5]))


def test_the_journal_command_reports_repairs_and_compacts(setup, capsys):
    from jobsize.cli import main

    model, journal, jobs = setup
    state = ModelState(model, journal)
    _run(state.observe(jobs[0]))
    _run(state.observe(_corrupt(jobs[1])))
    state.close()
    with journal.open("ab") as handle:
        handle.write(b'{"seq": 3, "job": 7}\n')
    assert main(["journal", "status", str(journal)]) == 2  # damaged: one line naming it
    assert "line 3" in capsys.readouterr().err
    assert main(["journal", "repair", str(journal)]) == 0
    assert "2 entries kept, 1 line(s) set aside" in capsys.readouterr().out
    assert main(["journal", "status", str(journal), "--model", str(model)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["entries"] == 2 and [h["key"] for h in status["held"]] == [
        jobs[1]["job_id"] + "_bad"]
    assert main(["journal", "compact", str(journal), "--model", str(model)]) == 0
    assert "2 entries archived" in capsys.readouterr().out
    assert read_journal(journal)[0] == [] and snapshot_path(journal).exists()
    assert main(["journal", "compact", str(journal)]) == 2
    assert main(["journal", "status", str(journal) + ".typo"]) == 2
    assert "no such journal" in capsys.readouterr().err
