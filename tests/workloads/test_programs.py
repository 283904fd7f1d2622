"""Each reference program, run as a real streaming pipeline over a small generated input,
gives the answer that an independent computation in the test gives."""

from __future__ import annotations

import collections
import csv
import dataclasses
import datetime as dt
import itertools
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jobsize.workloads import GREP_PATTERN, GREPCOUNT_PATTERN, KMEANS_K, WORKLOADS, Workload
from jobsize.workloads.kmeans import initial_centroids

SIZE = 80_000


@pytest.fixture(scope="module")
def generated(inputs_dir: Path):
    """Inputs by kind, generated once per module."""
    cache: dict[str, list[Path]] = {}

    def get(workload: Workload, size: int = SIZE, seed: int = 11) -> list[Path]:
        key = f"{workload.input_kind}-{size}-{seed}"
        if key not in cache:
            cache[key] = workload.generate(inputs_dir / key, size, seed)
        return cache[key]

    return get


def _words(line: str) -> list[str]:
    # Generated text has letters, spaces, commas and full stops only.
    return line.lower().replace(",", " ").replace(".", " ").split()


def _text_lines(paths: list[Path]) -> list[str]:
    return paths[0].read_text().splitlines()


def _pairs(lines: list[str]) -> list[tuple[str, str]]:
    return [tuple(kv.split("\t", 1)) for kv in lines]  # type: ignore[misc]


def test_wordcount_counts_every_word(generated, job_runner):
    workload = WORKLOADS["wordcount"]
    paths = generated(workload)
    expected = collections.Counter(w for line in _text_lines(paths) for w in _words(line))
    got = {k: int(v) for k, v in _pairs(job_runner(workload, paths).lines())}
    assert got == dict(expected)
    assert len(expected) > 100


def test_wordcount_same_with_and_without_combiner(generated, job_runner):
    workload = WORKLOADS["wordcount"]
    paths = generated(workload)
    with_combiner = job_runner(workload, paths, combine=True)
    without = job_runner(workload, paths, combine=False)
    assert sorted(with_combiner.lines()) == sorted(without.lines())
    # The combiner really ran: fewer bytes reached the reduces.
    shuffled_with = sum(map(len, with_combiner.reduce_inputs))
    assert shuffled_with < 0.7 * sum(map(len, without.reduce_inputs))
    nocombine = WORKLOADS["wordcount_nocombine"]
    assert nocombine.combiner is None and nocombine.mapper == workload.mapper
    assert sorted(job_runner(nocombine, paths).lines()) == sorted(without.lines())


def test_wordcount_tokenises_punctuation_and_case(tmp_path, job_runner):
    source = tmp_path / "in.txt"
    source.write_text("Hello, world! hello\r\nWORLD-wide web 42\n\nhello\n")
    got = dict(_pairs(job_runner(WORKLOADS["wordcount"], [source]).lines()))
    assert got == {"hello": "3", "world": "2", "wide": "1", "web": "1", "42": "1"}


def test_grep_is_map_only_and_selects_matching_lines(generated, job_runner):
    workload = WORKLOADS["grep"]
    assert workload.reducer is None and GREP_PATTERN == r"\bdo[a-z]*re\b"
    paths = generated(workload)

    def matches(line: str) -> bool:
        return any(w.startswith("do") and w.endswith("re") and len(w) >= 4 and w.isalpha()
                   for w in line.replace(",", " ").replace(".", " ").split())

    expected = [line for line in _text_lines(paths) if matches(line)]
    run = job_runner(workload, paths)
    assert run.reduce_outputs == []
    assert run.lines() == expected
    assert 0 < len(expected) < len(_text_lines(paths)) / 10


def test_grepcount_counts_matches(generated, job_runner):
    workload = WORKLOADS["grepcount"]
    assert GREPCOUNT_PATTERN == r"\b[a-z]*ni\b"
    paths = generated(workload)
    expected = collections.Counter(
        w for line in _text_lines(paths)
        for w in line.replace(",", " ").replace(".", " ").split()
        if w.endswith("ni") and w.isalpha() and w.islower()
    )
    got = {k: int(v) for k, v in _pairs(job_runner(workload, paths).lines())}
    assert got == dict(expected) and expected


def test_bigram_counts_adjacent_pairs(generated, job_runner):
    workload = WORKLOADS["bigram"]
    paths = generated(workload)
    expected: collections.Counter[str] = collections.Counter()
    for line in _text_lines(paths):
        words = _words(line)
        expected.update(f"{words[i]} {words[i + 1]}" for i in range(len(words) - 1))
    got = {k: int(v) for k, v in _pairs(job_runner(workload, paths).lines())}
    assert got == dict(expected)


def test_cooccur_counts_pairs_within_the_window(generated, job_runner):
    workload = WORKLOADS["cooccur"]
    paths = generated(workload, size=40_000)
    expected: collections.Counter[str] = collections.Counter()
    for line in _text_lines(paths):
        words = _words(line)
        for i, j in itertools.combinations(range(len(words)), 2):
            if j - i <= 4:
                expected[f"{words[i]} {words[j]}"] += 1
    got = {k: int(v) for k, v in _pairs(job_runner(workload, paths).lines())}
    assert got == dict(expected)


def test_invindex_lists_the_documents_of_each_word(generated, job_runner):
    workload = WORKLOADS["invindex"]
    paths = generated(workload)
    postings: dict[str, set[str]] = collections.defaultdict(set)
    for line in _text_lines(paths):
        doc, text = line.split("\t")
        for w in _words(text):
            postings[w].add(doc)
    got = {}
    for line in job_runner(workload, paths).lines():
        word, n, docs = line.split("\t")
        assert docs.split(",") == sorted(docs.split(",")) and int(n) == len(docs.split(","))
        got[word] = set(docs.split(","))
    assert got == postings


def test_sort_outputs_each_partition_in_key_order(generated, job_runner):
    workload = WORKLOADS["sort"]
    paths = generated(workload)
    run = job_runner(workload, paths, n_reduces=3)
    keys_seen: list[set[str]] = []
    for out in run.reduce_outputs:
        keys = [line.split(b"\t")[0] for line in out.splitlines()]
        assert keys == sorted(keys)
        keys_seen.append({k.decode() for k in keys})
    assert not set.intersection(*keys_seen)
    assert sorted(run.lines()) == sorted(paths[0].read_text().splitlines())
    assert len(run.lines()) == SIZE // 100


def _read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))


def test_join_joins_both_inputs(generated, job_runner):
    workload = WORKLOADS["join"]
    assert workload.n_inputs == 2
    users_path, orders_path = generated(workload)
    assert users_path.name == "users.csv" and orders_path.name == "orders.csv"
    users = {row[0]: row[1:] for row in _read_csv(users_path)}
    orders = _read_csv(orders_path)
    expected = sorted(
        "\t".join([o[1], o[0], *o[2:], *users[o[1]]]) for o in orders if o[1] in users
    )
    got = sorted(job_runner(workload, [users_path, orders_path]).lines())
    assert got == expected
    # Both sides matter: some orders name unknown users, and the output carries user fields.
    assert 0 < len(expected) < len(orders)
    assert {tuple(line.split("\t")[-3:]) for line in got} <= {tuple(u) for u in users.values()}


def test_join_keeps_every_pair_and_drops_unmatched_keys(tmp_path, job_runner):
    users = tmp_path / "users-part-0.csv"
    users.write_text("u1,Ann,DE,2023-01-01\nu2,Bob,FR,2023-01-02\nu2,Bea,FR,2023-01-03\n"
                     "u3,Cy,US,2023-01-04\n")
    orders = tmp_path / "orders.csv"
    orders.write_text("10,u2,5.00,2024-01-01\n11,u1,7.50,2024-01-02\n12,u9,1.00,2024-01-03\n"
                      "13,u2,2.25,2024-01-04\n")
    got = sorted(job_runner(WORKLOADS["join"], [users, orders], n_splits=1).lines())
    assert got == sorted([
        "u1\t11\t7.50\t2024-01-02\tAnn\tDE\t2023-01-01",
        "u2\t10\t5.00\t2024-01-01\tBob\tFR\t2023-01-02",
        "u2\t10\t5.00\t2024-01-01\tBea\tFR\t2023-01-03",
        "u2\t13\t2.25\t2024-01-04\tBob\tFR\t2023-01-02",
        "u2\t13\t2.25\t2024-01-04\tBea\tFR\t2023-01-03",
    ])


def _sales(paths: list[Path]) -> pd.DataFrame:
    frame = pd.read_csv(paths[0], header=None, dtype=str,
                        names=["order_id", "date", "region", "product", "customer",
                               "quantity", "price"])
    frame["cents"] = [int(Decimal(p) * 100) for p in frame["price"]]
    frame["revenue"] = frame["cents"] * frame["quantity"].astype(int)
    frame["order"] = frame["order_id"].astype(int)
    return frame


def test_groupby_counts_sums_and_averages(generated, job_runner):
    workload = WORKLOADS["groupby"]
    paths = generated(workload)
    sales = _sales(paths)
    expected = sales.groupby("product")["cents"].agg(["count", "sum"])
    got = {}
    for line in job_runner(workload, paths).lines():
        key, n, total, mean = line.split("\t")
        got[key] = (int(n), float(total), float(mean))
    assert set(got) == set(expected.index)
    for key, (n, total, mean) in got.items():
        assert n == expected.loc[key, "count"]
        assert total == pytest.approx(expected.loc[key, "sum"] / 100, abs=1e-5)
        assert mean == pytest.approx(expected.loc[key, "sum"] / 100 / n, abs=1e-5)


def test_groupby_same_with_and_without_combiner(generated, job_runner):
    workload = WORKLOADS["groupby"]
    paths = generated(workload)
    a = {line.split("\t")[0]: line for line in job_runner(workload, paths).lines()}
    b = {line.split("\t")[0]: line for line in job_runner(workload, paths, combine=False).lines()}
    assert a.keys() == b.keys()
    for key in a:
        assert [float(x) for x in a[key].split("\t")[1:]] == pytest.approx(
            [float(x) for x in b[key].split("\t")[1:]], abs=1e-5)


def test_quantiles_are_nearest_rank(generated, job_runner):
    workload = WORKLOADS["quantiles"]
    paths = generated(workload)
    sales = _sales(paths)
    got = {line.split("\t")[0]: line.split("\t")[1:]
           for line in job_runner(workload, paths).lines()}
    assert set(got) == set(sales["region"])
    for region, group in sales.groupby("region"):
        prices = group["price"].astype(float).to_numpy()
        expected = [len(prices), prices.min(),
                    *np.percentile(prices, [50, 90, 99], method="inverted_cdf"), prices.max()]
        assert [float(x) for x in got[region]] == pytest.approx(expected)


def test_topk_finds_the_largest_revenues(generated, job_runner):
    workload = WORKLOADS["topk"]
    paths = generated(workload)
    sales = _sales(paths).sort_values(["revenue", "order"], ascending=[False, True]).head(100)
    run = job_runner(workload, paths, n_splits=3)
    lines = run.lines()
    assert [line.split("\t")[0] for line in lines] == [str(i) for i in range(1, 101)]
    assert [int(line.split("\t")[2].split(",")[0]) for line in lines] == list(sales["order"])
    assert [int(Decimal(line.split("\t")[1]) * 100) for line in lines] == list(sales["revenue"])
    # The maps ship at most k rows each, not their input.
    assert all(len(out.splitlines()) <= 100 for out in run.map_outputs)


def test_window_running_totals_and_ranks(generated, job_runner):
    workload = WORKLOADS["window"]
    paths = generated(workload)
    sales = _sales(paths).sort_values(["customer", "date", "order"])
    sales["number"] = sales.groupby("customer").cumcount() + 1
    sales["running"] = sales.groupby("customer")["revenue"].cumsum()
    by_revenue = sales.sort_values(["customer", "revenue", "order"],
                                   ascending=[True, False, True])
    by_revenue["rank"] = by_revenue.groupby("customer").cumcount() + 1
    sales = sales.join(by_revenue["rank"])
    expected = {
        r.order: (r.customer, r.date, r.revenue, r.number, r.running, r.rank)
        for r in sales.itertuples()
    }
    got = {}
    for line in job_runner(workload, paths).lines():
        customer, order, date, revenue, number, running, rank = line.split("\t")
        got[int(order)] = (customer, date, int(Decimal(revenue) * 100), int(number),
                           int(Decimal(running) * 100), int(rank))
    assert got == expected
    assert sales["number"].max() > 1


def test_csvfilter_selects_and_projects(generated, job_runner):
    workload = WORKLOADS["csvfilter"]
    paths = generated(workload)
    expected = []
    for row in _read_csv(paths[0]):
        if int(row[5]) >= 3:
            revenue = Decimal(row[6]) * int(row[5])
            expected.append(f"{row[0]}\t{row[4]}\t{row[3]}\t{revenue:.2f}")
    assert job_runner(workload, paths).lines() == expected
    assert 0 < len(expected) < len(_read_csv(paths[0]))


def _log_fields(line: str) -> tuple[str, int, str, str, int, int, str]:
    stamp = line[line.index("[") + 1 : line.index("]")]
    epoch = int(dt.datetime.strptime(stamp, "%d/%b/%Y:%H:%M:%S %z").timestamp())
    request = line.split('"')[1].split()
    after = line.split('"')[2].split()
    head = line.split()
    return head[2], epoch, request[0], request[1], int(after[0]), int(after[1]), head[0]


def test_logparse_parses_every_line(generated, job_runner):
    workload = WORKLOADS["logparse"]
    paths = generated(workload)
    expected = ["\t".join(map(str, _log_fields(line))) for line in _text_lines(paths)]
    assert job_runner(workload, paths).lines() == expected


def test_logparse_skips_and_counts_malformed_lines(tmp_path, job_runner):
    log = tmp_path / "access.log"
    log.write_text(
        '1.2.3.4 - u1 [29/Feb/2024:23:59:59 +0130] "GET /a HTTP/1.1" 200 12 "-" "x"\n'
        "not a log line\n"
        '1.2.3.4 - u1 [01/Foo/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 12\n'
        '5.6.7.8 - - [01/Jan/1970:00:00:00 -0100] "POST /b?x=1 HTTP/1.0" 404 -\n'
    )
    run = job_runner(WORKLOADS["logparse"], [log], n_splits=1)
    assert run.lines() == [
        f"u1\t{int(dt.datetime(2024, 2, 29, 22, 29, 59, tzinfo=dt.UTC).timestamp())}"
        "\tGET\t/a\t200\t12\t1.2.3.4",
        "-\t3600\tPOST\t/b?x=1\t404\t0\t5.6.7.8",
    ]
    assert run.counter("MALFORMED_RECORDS") == 2


def test_distinct_user_page_pairs(generated, job_runner):
    workload = WORKLOADS["distinct"]
    paths = generated(workload)
    pairs = [f"{f[0]} {f[3]}" for f in map(_log_fields, _text_lines(paths))]
    got = job_runner(workload, paths).lines()
    assert sorted(got) == sorted(set(pairs))
    assert len(set(pairs)) < len(pairs)


def _sessions_expected(paths: list[Path], gap: int) -> list[str]:
    hits = pd.DataFrame([_log_fields(line)[:4] for line in _text_lines(paths)],
                        columns=["user", "epoch", "method", "path"])
    hits = hits.sort_values(["user", "epoch", "path"], kind="stable")
    since = hits.groupby("user")["epoch"].diff()
    hits["session"] = (since.isna() | (since > gap)).astype(int).groupby(hits["user"]).cumsum()
    hits["start"] = hits.groupby(["user", "session"])["epoch"].transform("min")
    hits["step"] = hits.groupby(["user", "session"]).cumcount() + 1
    return sorted(
        f"{r.user}\t{r.session}\t{r.epoch}\t{r.epoch - r.start}\t{r.step}\t{r.path}"
        for r in hits.itertuples()
    )


@pytest.mark.parametrize("gap", [None, 30])
def test_sessionize_cuts_sessions_at_gaps(gap, generated, job_runner):
    workload = WORKLOADS["sessionize"]
    if gap is not None:
        workload = dataclasses.replace(workload, reducer=(*workload.reducer, str(gap)))
    paths = generated(workload, size=300_000)
    expected = _sessions_expected(paths, 1800 if gap is None else gap)
    assert sorted(job_runner(workload, paths).lines()) == expected
    if gap is not None:  # a short gap really splits some user's requests into sessions
        assert max(int(line.split("\t")[1]) for line in expected) > 1


def test_kmeans_assigns_points_to_the_nearest_centroid(generated, job_runner):
    workload = WORKLOADS["kmeans"]
    paths = generated(workload, size=30_000)
    points = np.loadtxt(paths[0], delimiter=",")
    centroids = np.array(initial_centroids(KMEANS_K, points.shape[1], 1))
    nearest = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
    got = {}
    for line in job_runner(workload, paths).lines():
        key, n, mean = line.split("\t")
        got[int(key)] = (int(n), [float(x) for x in mean.split(",")])
    assert set(got) == set(np.unique(nearest).tolist())
    for key, (n, mean) in got.items():
        members = points[nearest == key]
        assert n == len(members)
        assert mean == pytest.approx(members.mean(axis=0).tolist(), abs=1e-5)


def test_shell_pipelines_of_the_readme(tmp_path, generated):
    """The hand-run commands documented for users: plain map | sort | reduce in a shell."""
    text = generated(WORKLOADS["wordcount"])[0]
    users, orders = generated(WORKLOADS["join"])
    m = "python -m jobsize.workloads"
    script = f"""
set -e -o pipefail
{m}.wordcount map < {text} | LC_ALL=C sort | {m}.wordcount reduce > counts.tsv
for f in {users} {orders}; do
  mapreduce_map_input_file=$f {m}.join map < $f
done | LC_ALL=C sort | {m}.join reduce > joined.tsv
"""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, check=True)
    counts = dict(_pairs((tmp_path / "counts.tsv").read_text().splitlines()))
    expected = collections.Counter(w for line in _text_lines([text]) for w in _words(line))
    assert {k: int(v) for k, v in counts.items()} == dict(expected)
    known = {row[0] for row in _read_csv(users)}
    joined = (tmp_path / "joined.tsv").read_text().splitlines()
    assert len(joined) == sum(row[1] in known for row in _read_csv(orders)) > 0
