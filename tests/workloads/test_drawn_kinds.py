"""Kinds drawn from the space of cost shapes: reproducible draws that stay in the space, and a
parameterised program whose roles compute what they say — counts that add up through the
Streaming protocol, keys that follow the stated law, expansion as asked and the work it owes."""

from __future__ import annotations

import collections
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.errors import ConfigError
from jobsize.workloads import GENERATORS, MiB, is_workload, program, workload
from jobsize.workloads import costshape as cs
from jobsize.workloads import kindspace as ks

#: Kind seed of the pipeline tests: its first kinds have every shape (map-only, framework-bound,
#: combiner, superlinear reduce, start-up cost, filtering and expanding maps).
SEED, KINDS = 7, 12
SIZE = 40_000
seeds = st.integers(0, 2**31)
indices = st.integers(0, 10_000)


def _role(role: str, data: bytes, *args: str) -> tuple[bytes, int]:
    """The output of ``costshape ROLE ARGS`` on ``data``, and the work units it reported."""
    done = subprocess.run(program("costshape", role, *args), input=data, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    units = re.findall(rb"reporter:counter:jobsize.workloads,WORK_UNITS,(\d+)", done.stderr)
    return done.stdout, sum(int(u) for u in units)


def _keys(output: bytes) -> collections.Counter[bytes]:
    return collections.Counter(line.split(b"\t")[0] for line in output.splitlines())


def _totals(lines: list[str]) -> dict[str, int]:
    return {k: int(v) for k, v in (line.split("\t") for line in lines)}


def _lines(n: int, seed: int = 0) -> bytes:
    return b"".join(b"record %d of %d\n" % (i * 7919 + seed, n) for i in range(n))


# --- the draws ---------------------------------------------------------------------------------


@settings(deadline=None)  # a draw computes its key law: milliseconds, more on a loaded machine
@given(seeds, indices)
def test_a_kind_is_a_pure_function_of_seed_and_index(seed, index):
    ks.point.cache_clear()
    a = ks.draw_kind(seed, index)
    assert a == ks.draw_kind(seed, index) == ks.point(f"drawn-{seed}-{index}")
    assert a.name == f"drawn-{seed}-{index}"
    assert a.workload() == workload(a.name)


@settings(deadline=None)
@given(seeds, seeds)
def test_different_seeds_draw_different_kinds(a, b):
    if a == b:
        return

    def shapes(seed):  # everything but the name and the hash salt
        return [{k: v for k, v in ks.draw_kind(seed, i).parameters().items()
                 if k not in ("seed", "index", "salt")} for i in range(3)]

    assert shapes(a) != shapes(b)


@settings(max_examples=200, deadline=None)
@given(seeds, indices)
def test_every_draw_stays_in_the_space_and_within_its_budgets(seed, index):
    k = ks.draw_kind(seed, index)
    w = k.workload()
    assert k.input in GENERATORS and w.generate is GENERATORS[k.input]
    assert (w.reducer is None) == k.map_only and (w.combiner is not None) == k.combiner
    assert not (k.map_only and (k.combiner or k.superlinear))
    assert k.start == 0 or ks.STARTUP[0] * 0.999 <= k.start <= ks.STARTUP[1] * 1.001
    assert 1 <= w.typical_reduces(150 * MiB) <= 8 or k.map_only
    slack = 1.001  # parameters are rounded to four digits
    if k.framework:
        assert ks.PIECE[0] <= k.piece <= ks.PIECE[1]
        assert ks.ALPHABET[0] <= k.alphabet <= ks.ALPHABET[1]
        assert k.map_rec == k.map_byte == k.map_key == 0 and not k.superlinear
    else:
        assert ks.FAN_FILTER[0] * 0.999 <= k.fan <= ks.FAN_EXPAND[1] * 1.001
        out = ks.TASK_BYTES / ks.RECORD_BYTES[k.input] * k.fan
        assert out <= ks.MAX_MAP_RECORDS * slack or k.fan <= ks.FAN_EXPAND[0]
        width = ks.RECORD_OVERHEAD + (k.value_bytes + 1 if k.value_bytes else 0)
        assert out * width <= ks.MAX_MAP_BYTES * slack or k.fan <= 1
        assert ks.KEYS[0] <= k.keys <= ks.KEYS[1] and ks.ZIPF[0] <= k.zipf <= ks.ZIPF[1]
        # the map's busy work on 2 MiB of input is within its budget
        records = ks.TASK_BYTES / ks.RECORD_BYTES[k.input]
        keys = ks.expected_distinct(ks.key_shares(k.keys, k.zipf), records * k.fan)
        work = k.map_rec * records + k.map_byte * ks.TASK_BYTES + k.map_key * keys
        assert work <= ks.MAP_WORK[1] * slack
    assert k.map_rec + k.map_byte + k.map_key > 0 or k.framework
    if not k.map_only:
        assert k.reduce_rec + k.reduce_byte + k.reduce_key > 0
        assert k.reduce_byte * ks.TASK_BYTES <= ks.REDUCE_WORK[1] * slack
        assert ks.SUPERLINEAR_P[0] <= k.power <= ks.SUPERLINEAR_P[1]
    if k.combiner:
        assert k.combine_byte * ks.TASK_BYTES <= ks.COMBINE_WORK[1] * slack


def test_the_space_draws_every_shape():
    kinds = [ks.draw_kind(3, i) for i in range(400)]
    assert {k.input for k in kinds} == set(GENERATORS)
    share = {name: sum(bool(getattr(k, name)) for k in kinds) / len(kinds)
             for name in ("map_only", "framework", "combiner", "superlinear", "start")}
    assert 0.1 < share["map_only"] < 0.3 and 0.08 < share["framework"] < 0.25
    assert 0.2 < share["combiner"] < 0.45 and 0.15 < share["superlinear"] < 0.4
    assert 0.2 < share["start"] < 0.4
    assert min(k.fan for k in kinds if not k.framework) < 0.1
    assert max(k.fan for k in kinds) > 6
    assert min(k.zipf for k in kinds) < 0.1 and max(k.zipf for k in kinds) > 1.4


def test_draw_kinds_and_names():
    kinds = ks.draw_kinds(7, 3)
    assert [w.name for w in kinds] == ["drawn-7-0", "drawn-7-1", "drawn-7-2"]
    assert workload("drawn-7-2") == kinds[2] and is_workload("drawn-7-2")
    assert ks.draw_kinds(7, 0) == []
    for bad in ("drawn-7", "drawn-x-1", "drawn--1-2", "drawn-7-3-1"):
        assert not is_workload(bad)
        with pytest.raises(ConfigError, match="drawn-<seed>-<index>"):
            workload(bad)
    for seed, n in ((7, -1), (-1, 2)):
        with pytest.raises(ConfigError, match="non-negative"):
            ks.draw_kinds(seed, n)


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_record_sizes_the_budgets_assume_are_the_generators(kind, tmp_path):
    paths = GENERATORS[kind](tmp_path, MiB, 1)
    data = b"".join(p.read_bytes() for p in paths)
    assert len(data) / data.count(b"\n") == pytest.approx(ks.RECORD_BYTES[kind], rel=0.25)


# --- the program's roles -----------------------------------------------------------------------


def test_map_work_is_what_the_costs_say():
    data = b"alpha\nbeta beta\r\ngamma\n"
    out, units = _role("map", data, "rec=10", "byte=0.5", "key=3", "start=100", "fan=2",
                       "keys=8", "zipf=0.7", "salt=5")
    assert len(out.splitlines()) == 6
    distinct = len(_keys(out))
    assert units == math.floor(100 + 3 * 10 + 0.5 * len(data) + 3 * distinct)
    assert all(re.fullmatch(rb"[0-9a-f]{6}\t1", line) for line in out.splitlines())
    assert all(int(k, 16) < 8 for k in _keys(out))


def test_reduce_counts_and_owes_superlinear_work():
    data = b"000001\t1\n000001\t2 ..\n000001\n000002\t5\n"
    out, units = _role("reduce", data, "rec=1", "byte=0.25", "key=7", "sl=2", "p=2",
                       "start=10")
    assert out == b"000001\t4\n000002\t5\n"
    assert units == math.floor(10 + 4 * 1 + 0.25 * len(data) + 2 * 7 + 2 * (3**2 + 1**2))
    combined, c_units = _role("combine", data, "key=1")
    assert combined == out and c_units == 2


def test_bad_arguments_are_usage_errors():
    for args in (["bogus=1"], ["fan=x"], ["fan=-1"], ["fan"]):
        done = subprocess.run(program("costshape", "map", *args), input=b"",
                              capture_output=True)
        assert done.returncode == 2 and b"costshape" in done.stderr, args


def test_expansion_emits_the_stated_records_per_record():
    data = _lines(4000)
    for fan, low, high in ((0, 0, 0), (0.25, 900, 1100), (1, 4000, 4000), (3, 12000, 12000),
                           (2.5, 9800, 10200)):
        out, _ = _role("map", data, f"fan={fan}", "keys=50")
        assert low <= len(out.splitlines()) <= high, fan
    # a record's records depend on the record only: a repeated input repeats the output
    few = _lines(40)
    once, _ = _role("map", few, "fan=1.5", "keys=50", "salt=3")
    twice, _ = _role("map", few * 2, "fan=1.5", "keys=50", "salt=3")
    assert twice == once * 2
    other, _ = _role("map", few, "fan=1.5", "keys=50", "salt=4")
    assert other != once


def test_skew_follows_the_stated_key_law():
    data = _lines(5000)
    keys, draws = 1000, 20_000
    top = {}
    for zipf in (0.0, 0.8, 1.0, 1.3):
        out, _ = _role("map", data, "fan=4", f"keys={keys}", f"zipf={zipf}")
        counts = _keys(out)
        assert sum(counts.values()) == draws and all(int(k, 16) < keys for k in counts)
        shares = ks.key_shares(keys, zipf)
        assert shares.sum() == pytest.approx(1.0)
        for rank in range(5):  # the hottest ranks within five standard errors of their share
            q = shares[rank]
            got = counts[b"%06x" % rank] / draws
            assert abs(got - q) <= 5 * math.sqrt(q * (1 - q) / draws) + 1e-9, (zipf, rank)
        top[zipf] = counts.most_common(1)[0][1] / draws
    assert top[0.0] < 0.003 < 0.05 < top[1.3]
    assert top[0.0] < top[0.8] < top[1.0] < top[1.3]


def _folded_pieces(text: bytes, width: int, letters: int) -> list[bytes]:
    """What a framework-bound map should write, computed record by record."""
    alnum = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    out = []
    for run in re.findall(rb"[0-9A-Za-z]+", text):
        folded = bytes(b"abcdefghijklmnopqrstuvwxyz"[alnum.index(c) % letters] for c in run)
        out += [folded[i:i + width] for i in range(0, len(folded), width)]
    return out


def test_framework_bound_map_cuts_folded_runs_into_pieces(tmp_path):
    text = GENERATORS["documents"](tmp_path, 300_000, 2)[0].read_bytes()  # several blocks
    text += b"a" * 70_000 + b"\nZ9"  # a run longer than a block, and no final newline
    out, units = _role("map", text, "piece=3", "alpha=5")
    assert out.splitlines() == _folded_pieces(text, 3, 5) and units == 0
    assert len(out.splitlines()) > len(text.splitlines()) * 20


def test_the_program_imports_no_numpy():
    code = ("import runpy, sys; sys.argv = ['x', 'map']; sys.stdin = open('/dev/null');"
            "import jobsize.workloads.costshape;"
            "print(sorted(m for m in ('numpy', 'pandas') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


# --- every drawn kind as a Streaming job -------------------------------------------------------


def test_the_pipeline_kinds_have_every_shape():
    kinds = [ks.draw_kind(SEED, i) for i in range(KINDS)]
    assert any(k.map_only for k in kinds) and any(k.framework for k in kinds)
    assert any(k.combiner for k in kinds) and any(k.superlinear for k in kinds)
    assert any(k.start for k in kinds) and any(k.fan < 1 for k in kinds)


@pytest.fixture(scope="module")
def inputs(inputs_dir: Path):
    cache: dict[str, list[Path]] = {}

    def get(kind: str) -> list[Path]:
        if kind not in cache:
            cache[kind] = GENERATORS[kind](inputs_dir / f"drawn-{kind}", SIZE, 4)
        return cache[kind]

    return get


@pytest.mark.parametrize("index", range(KINDS))
def test_a_drawn_kind_runs_as_a_streaming_job(index, inputs, job_runner):
    k = ks.draw_kind(SEED, index)
    w = k.workload()
    run = job_runner(w, inputs(k.input))
    mapped = collections.Counter()
    for part in run.map_outputs:
        for line in part.decode().splitlines():
            key, _, value = line.partition("\t")
            if k.framework:
                assert value == "" and re.fullmatch(f"[a-z]{{1,{k.piece}}}", key)
            else:
                assert re.fullmatch(r"[0-9a-f]{6}", key) and int(key, 16) < k.keys
                assert value == "1" + (" " + "." * k.value_bytes if k.value_bytes else "")
            mapped[key] += 1
    if k.map_only:
        assert not run.reduce_outputs and len(run.lines()) == sum(mapped.values())
        return
    # the reduce output is every key the maps emitted with how often they did, combined or not
    assert _totals(run.lines()) == dict(mapped)
    if k.combiner:
        plain = job_runner(w, inputs(k.input), combine=False)
        assert _totals(plain.lines()) == dict(mapped)
        assert sum(map(len, run.reduce_inputs)) < sum(map(len, plain.reduce_inputs))


def test_the_same_kind_gives_byte_identical_outputs(inputs, job_runner):
    first, again = ks.draw_kind(SEED, 1), ks.draw_kind(SEED, 1)  # two draws, no cache
    assert first is not again and first.workload().mapper == again.workload().mapper
    a = job_runner(first.workload(), inputs(first.input))
    b = job_runner(again.workload(), inputs(again.input))
    assert a.map_outputs == b.map_outputs and a.reduce_outputs == b.reduce_outputs
    assert a.counter(cs.WORK_COUNTER) == b.counter(cs.WORK_COUNTER) > 0


def test_bench_trace_runs_drawn_kinds_when_named(tmp_path, capsys):
    from jobsize.benchtrace import Distribution, draw_jobs
    from jobsize.cli import main

    named = Distribution(workloads=("drawn-7-2", "drawn-7-3"))
    draws = draw_jobs(1, 40, named)
    assert {d.workload for d in draws} == {"drawn-7-2", "drawn-7-3"}
    assert all(d.input_kind == ks.point(d.workload).input for d in draws)
    assert main(["bench-trace", "--jobs", "4", "--seed", "1", "-o", str(tmp_path / "t"),
                 "--workloads", "drawn-7-3", "--dry-run"]) == 0
    assert "drawn-7-3 4" in capsys.readouterr().out
