"""The held-out programs: each role on small inputs with exact expected outputs, and each job
as a streaming pipeline over its generated input against an independent computation."""

from __future__ import annotations

import collections
import hashlib
import itertools
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobsize.workloads import (
    HELD_OUT,
    Workload,
    agentmix,
    hashaudit,
    histogram,
    iplookup,
    neardup,
    pagestats,
    wordsplit,
)

SIZE = 60_000


def _role(w: Workload, role: str, data: str, *args: str, env: dict | None = None) -> str:
    argv = {"map": w.mapper, "combine": w.combiner, "reduce": w.reducer}[role]
    assert argv is not None
    done = subprocess.run([*argv, *args], input=data.encode(), capture_output=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def _sorted(text: str) -> str:
    return "".join(sorted(text.splitlines(keepends=True)))


@pytest.fixture(scope="module")
def generated(inputs_dir: Path):
    cache: dict[str, list[Path]] = {}

    def get(w: Workload, size: int = SIZE) -> list[Path]:
        key = f"{w.input_kind}-{size}"
        if key not in cache:
            cache[key] = w.generate(inputs_dir / f"held-out-{key}", size, 3)
        return cache[key]

    return get


# --- chargrams: many tiny records, no combiner ----------------------------------------------

def test_chargrams_map_emits_each_bigram_inside_words():
    w = HELD_OUT["chargrams"]
    assert w.combiner is None
    out = _role(w, "map", "Abc, de f.\nxy\n")
    assert out == "ab\t1\nbc\t1\nde\t1\nxy\t1\n"
    assert _role(w, "reduce", "ab\t1\nab\t1\nbc\t1\n") == "ab\t2\nbc\t1\n"


def test_chargrams_job_counts_every_bigram(generated, job_runner):
    w = HELD_OUT["chargrams"]
    text = generated(w)[0].read_text()
    expected = collections.Counter(
        word[i : i + 2] for word in re.findall(r"[a-z]{2,}", text.lower())
        for i in range(len(word) - 1))
    got = {k: int(v) for k, v in (ln.split("\t") for ln in job_runner(w, generated(w)).lines())}
    assert got == dict(expected)
    assert sum(expected.values()) > len(text.splitlines()) * 20  # many records per line


# --- agentmix: an expensive combiner ---------------------------------------------------------

LOG = ('1.2.3.4 - u1 [14/Jul/2023:09:21:07 +0000] "GET /a HTTP/1.1" 200 5 "-" "curl/8.4.0"\n'
       '1.2.3.4 - u1 [14/Jul/2023:09:21:08 +0000] "GET /b HTTP/1.1" 200 5 "-" '
       '"Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 Chrome/120.0 Mobile '
       'Safari/537.36"\n'
       '5.6.7.8 - u2 [14/Jul/2023:09:21:09 +0000] "GET /a HTTP/1.1" 304 0 "-" "curl/8.4.0"\n'
       "garbage\n")


def test_agentmix_classifies_agents():
    assert agentmix.classify("curl/8.4.0") == "tool/other/other/other/unknown/bot"
    assert agentmix.classify(
        "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 Chrome/120.0 Mobile "
        "Safari/537.36") == "none/chrome/blink/android/maker37/phone"
    assert agentmix.MAKERS[37] == "Pixel"


def test_agentmix_roles_give_the_same_answer_with_or_without_the_combiner():
    w = HELD_OUT["agentmix"]
    mapped = _role(w, "map", LOG)
    assert _sorted(mapped) == ("/a\tcurl/8.4.0\n/a\tcurl/8.4.0\n/b\tMozilla/5.0 (Linux; "
                               "Android 13; Pixel 7) AppleWebKit/537.36 Chrome/120.0 Mobile "
                               "Safari/537.36\n")
    combined = _role(w, "combine", _sorted(mapped))
    assert combined.startswith("/a\t=tool/other/other/other/unknown/bot=2\n")
    direct = _role(w, "reduce", _sorted(mapped))
    assert direct == _role(w, "reduce", combined)
    assert direct.splitlines()[0] == "/a\t2\ttool/other/other/other/unknown/bot=2"


def test_agentmix_job_matches_a_direct_count(generated, job_runner):
    w = HELD_OUT["agentmix"]
    expected: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for line in generated(w)[0].read_text().splitlines():
        parts = line.split('"')
        expected[parts[1].split(" ")[1]][agentmix.classify(parts[5])] += 1
    run = job_runner(w, generated(w))
    got = {ln.split("\t")[0]: ln.split("\t")[2] for ln in run.lines()}
    assert got == {page: ";".join(f"{k}={n}" for k, n in sorted(c.items()))
                   for page, c in expected.items()}


# --- iplookup: a fixed start-up per task ------------------------------------------------------

def test_iplookup_table_is_fixed_and_covers_every_address():
    starts, owners, names = iplookup.table()
    assert len(starts) == iplookup.RANGES == len(owners) and starts[0] == 0
    assert starts == sorted(starts) and len(names) == iplookup.OPERATORS
    assert iplookup.address("10.0.0.1") == (10 << 24) + 1
    with pytest.raises(ValueError):
        iplookup.address("1.2.3.256")
    # The table is built from a fixed seed: a fresh process builds the same one.
    code = ("from jobsize.workloads import iplookup as m; t = m.table();"
            "print(t[0][12345], t[1][54321], t[2][777], sep='|')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().split("|") == [str(starts[12345]), str(owners[54321]), names[777]]


def test_iplookup_roles():
    w = HELD_OUT["iplookup"]
    a, b = iplookup.operator(iplookup.address("1.2.3.4")), iplookup.operator(
        iplookup.address("5.6.7.8"))
    mapped = _role(w, "map", LOG)
    assert mapped == f"{a}\t1\t5\n{a}\t1\t5\n{b}\t1\t0\n"
    summed = _role(w, "combine", _sorted(mapped))
    names = iplookup.table()[2]
    expected = sorted([(str(a), f"{a}\t{names[a]}\t2\t10\n"), (str(b), f"{b}\t{names[b]}\t1\t0\n")]
                      if a != b else [(str(a), f"{a}\t{names[a]}\t3\t10\n")])
    assert _role(w, "reduce", _sorted(summed)) == "".join(line for _, line in expected)


# --- histogram: a fixed-size output per map ---------------------------------------------------

def test_histogram_map_emits_the_whole_table_whatever_its_input():
    w = HELD_OUT["histogram"]
    cells = (histogram.REGIONS + 1) * histogram.BUCKETS
    small = _role(w, "map", "1,2023-01-01,Ka,p1,c1,2,1.50\n")
    assert len(small.splitlines()) == cells
    assert f"Ka:{histogram.bucket(300):03d}\t1\n" in small
    assert sum(int(ln.split("\t")[1]) for ln in small.splitlines()) == 1
    rows = "".join(f"{i},2023-01-01,R{i % 60},p1,c1,1,{i}.00\n" for i in range(1, 500))
    large = _role(w, "map", rows)
    assert len(large.splitlines()) == cells
    assert sum(int(ln.split("\t")[1]) for ln in large.splitlines()) == 499
    overflow = sum(int(ln.split("\t")[1]) for ln in large.splitlines()
                   if ln.startswith(histogram.OVERFLOW + ":"))
    # The first 40 regions met are R1 .. R40; the others share the overflow row.
    assert overflow == sum(1 for i in range(1, 500) if not 1 <= i % 60 <= 40)


def test_histogram_buckets_and_reduce():
    assert histogram.bucket(0) == histogram.bucket(1) == 0
    assert histogram.bucket(10**8) == histogram.BUCKETS - 1
    for cents in (2, 99, 1500, 123456):
        b = histogram.bucket(cents)
        assert histogram.lower_edge(b) <= cents < histogram.lower_edge(b + 1)
    w = HELD_OUT["histogram"]
    out = _role(w, "reduce", "A:001\t2\nA:001\t3\nA:002\t0\nB:010\t1\n")
    assert out == (f"A:001\t{histogram.lower_edge(1)}\t5\n"
                   f"B:010\t{histogram.lower_edge(10)}\t1\n")


# --- hashaudit: CPU per record, one output line per map ---------------------------------------

def test_hashaudit_map_and_reduce():
    w = HELD_OUT["hashaudit"]
    rows = ["KEYA\t0000000001FILLER", "KEYB\t0000000002FILLER", "bad"]
    out = _role(w, "map", "\n".join(rows) + "\n", "7")
    d1 = hashlib.pbkdf2_hmac("sha256", b"KEYA", b"0000000001", 7)
    d2 = hashlib.pbkdf2_hmac("sha256", b"KEYB", b"0000000002", 7)
    folded = int.from_bytes(d1, "big") ^ int.from_bytes(d2, "big")
    weak = (d1[0] == 0) + (d2[0] == 0)
    assert out == f"audit\t2\t{weak}\t{folded:064x}\n"
    reduced = _role(w, "reduce", f"audit\t2\t1\t{1:064x}\naudit\t3\t0\t{3:064x}\n")
    assert reduced == f"5\t1\t{2:064x}\n"


def test_hashaudit_job_equals_one_pass(generated, job_runner):
    w = HELD_OUT["hashaudit"]
    lines = generated(w)[0].read_text().splitlines()
    folded = weak = 0
    for line in lines:
        key, _, rest = line.partition("\t")
        d = hashaudit.digest(key, rest[:10])
        weak += d[0] == 0
        folded ^= int.from_bytes(d, "big")
    run = job_runner(w, generated(w), n_reduces=1)
    assert run.lines() == [f"{len(lines)}\t{weak}\t{folded:064x}"]
    assert all(len(out.splitlines()) == 1 for out in run.map_outputs)


# --- neardup: all pairs within a block ---------------------------------------------------------

def test_neardup_compares_every_pair_of_a_block():
    w = HELD_OUT["neardup"]
    mapped = _role(w, "map", "d1\tA b c d\nd2\ta b c e\nd3\tx y\nnotab\n", "1")
    assert mapped == "00000\td1\tA b c d\n00000\td2\ta b c e\n00000\td3\tx y\n"
    out = _role(w, "reduce", mapped, "0.5")
    assert out == "d1\td2\t0.6000\n"
    assert _role(w, "reduce", mapped, "0") == "d1\td2\t0.6000\nd1\td3\t0.0000\nd2\td3\t0.0000\n"
    assert neardup.block("doc00000007", 2048) == zlib.crc32(b"doc00000007") % 2048


def test_neardup_job_finds_the_same_pairs_as_a_direct_all_pairs(generated, job_runner):
    w = HELD_OUT["neardup"]
    docs = [ln.split("\t", 1) for ln in generated(w)[0].read_text().splitlines()]
    blocks: dict[int, list[tuple[str, frozenset[str]]]] = collections.defaultdict(list)
    for doc_id, text in docs:
        blocks[neardup.block(doc_id)].append(
            (doc_id, frozenset(re.findall(r"[a-z0-9]+", text.lower()))))
    expected = set()
    for members in blocks.values():
        for i, (a, wa) in enumerate(members):
            for b, wb in members[i + 1 :]:
                j = len(wa & wb) / len(wa | wb)
                if j >= neardup.THRESHOLD:
                    expected.add((min(a, b), max(a, b), f"{j:.4f}"))
    got = {tuple(ln.split("\t")) for ln in job_runner(w, generated(w)).lines()}
    assert got == expected


# --- shingles: map-only expansion --------------------------------------------------------------

def test_shingles_map_writes_every_shingle():
    w = HELD_OUT["shingles"]
    assert w.map_only
    out = _role(w, "map", "d1\tA b, c d.\nd2\tone two\n")
    assert out == "d1\t0\ta b c\nd1\t1\tb c d\n"
    assert _role(w, "map", "d1\tA b c\n", "2") == "d1\t0\ta b\nd1\t1\tb c\n"


def test_shingles_output_is_several_times_the_input(generated, job_runner):
    w = HELD_OUT["shingles"]
    paths = generated(w)
    run = job_runner(w, paths)
    out = sum(map(len, run.map_outputs))
    assert 3 * paths[0].stat().st_size < out < 8 * paths[0].stat().st_size


# --- pagestats: very long records ---------------------------------------------------------------

def test_pagestats_roles():
    w = HELD_OUT["pagestats"]
    page = "http://www.ka.com/x/1\tone two [[two]] three two"
    out = _role(w, "map", page + "\nno tab here\n")
    assert out == f"www.ka.com\t1\t{len(page)}\t5\t3\t1\n"
    assert pagestats.site("http://h/p/q") == "h" and pagestats.site("plain") == "plain"
    combined = _role(w, "combine", "a\t1\t10\t2\t2\t0\na\t1\t30\t4\t3\t1\n")
    assert combined == "a\t2\t40\t6\t5\t1\n"
    assert _role(w, "reduce", combined) == "a\t2\t40\t6\t5\t1\t20.0\n"


def test_pagestats_job_over_long_records(generated, job_runner):
    w = HELD_OUT["pagestats"]
    paths = generated(w, 600_000)
    lines = paths[0].read_text().splitlines()
    assert len(lines) >= 2 and min(len(ln) for ln in lines) > 1_000
    got = {ln.split("\t")[0]: ln.split("\t")[1:3] for ln in job_runner(w, paths).lines()}
    expected: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for line in lines:
        expected[pagestats.site(line.split("\t")[0])][0] += 1
        expected[pagestats.site(line.split("\t")[0])][1] += len(line.encode())
    assert got == {k: [str(v[0]), str(v[1])] for k, v in expected.items()}


# --- wordsplit: a map as cheap as a Unix tool ---------------------------------------------------

def test_wordsplit_roles_are_tr_and_uniq():
    w = HELD_OUT["wordsplit"]
    assert w.combiner is None and not w.map_only
    assert _role(w, "map", "Abc, de f.\n\nxy--ab 12 c\n") == "Abc\nde\nf\nxy\nab\nc\n"
    # a key without a value arrives with or without its tab
    assert _role(w, "reduce", "ab\nab\t\nbc\n") == "ab\t2\nbc\t1\n"


@settings(max_examples=50, deadline=None)
@given(text=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=6))
def test_wordsplit_finds_the_same_words_however_its_input_is_cut(text, cuts):
    bounds = [0, *sorted(c for c in cuts if c <= len(text)), len(text)]
    blocks = iter([text[a:b] for a, b in itertools.pairwise(bounds)])
    found = [word for block in wordsplit.word_blocks(blocks) for word in block]
    assert found == re.findall(rb"[A-Za-z]+", text)


def test_wordsplit_job_counts_every_word(generated, job_runner):
    w = HELD_OUT["wordsplit"]
    text = generated(w)[0].read_text()
    expected = collections.Counter(re.findall(r"[A-Za-z]+", text))
    got = {k: int(v) for k, v in (ln.split("\t") for ln in job_runner(w, generated(w)).lines())}
    assert got == dict(expected)
    assert sum(expected.values()) > len(text.splitlines()) * 5  # many short records a line
