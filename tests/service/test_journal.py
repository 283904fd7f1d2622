"""The observation journal: durable, in order, torn tails dropped, damage refused."""

from __future__ import annotations

import asyncio

import pytest

from jobsize.errors import ParseError
from jobsize.service.journal import Journal, read_journal


def _append(journal: Journal, jobs: list[dict]) -> list[int]:
    async def run() -> list[int]:
        added = [journal.add(job) for job in jobs]
        await asyncio.gather(*(done for _, done in added))
        return [entry.seq for entry, _ in added]
    return asyncio.run(run())


def test_concurrent_appends_are_numbered_and_written_in_order(tmp_path):
    path = tmp_path / "j"
    journal = Journal(path, 0, 1)
    seqs = _append(journal, [{"job_id": f"j{i}", "x": i * 0.1} for i in range(500)])
    journal.close()
    assert seqs == list(range(1, 501))
    entries, valid = read_journal(path)
    assert [e.seq for e in entries] == seqs and valid == path.stat().st_size
    assert [e.job["x"] for e in entries] == [i * 0.1 for i in range(500)]  # exact floats


def test_a_torn_last_line_is_dropped_and_truncated_away(tmp_path):
    path = tmp_path / "j"
    journal = Journal(path, 0, 1)
    _append(journal, [{"a": 1}, {"a": 2}])
    journal.close()
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"seq":3,"job":{"a"')  # the crash cut this one short
    entries, valid = read_journal(path)
    assert [e.job for e in entries] == [{"a": 1}, {"a": 2}] and valid == len(whole)
    journal = Journal(path, valid, 3)
    assert _append(journal, [{"a": 3}]) == [3]
    journal.close()
    assert [e.job for e in read_journal(path)[0]] == [{"a": 1}, {"a": 2}, {"a": 3}]


@pytest.mark.parametrize("line", [b"not json", b'{"seq": 1}', b'{"seq": 1, "job": [1]}',
                                  b'{"seq": 0, "job": {}}'])
def test_damage_before_the_end_is_refused(tmp_path, line):
    path = tmp_path / "j"
    path.write_bytes(b'{"seq":1,"job":{}}\n' + line + b"\n" + b'{"seq":9,"job":{}}\n')
    with pytest.raises(ParseError, match=r"j: line 2: (not a journal entry|.* out of seq)"):
        read_journal(path)


def test_a_missing_journal_is_empty(tmp_path):
    assert read_journal(tmp_path / "none") == ([], 0)
