"""Counters of small jobs whose every value can be worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import THREE_LINES

from jobsize.engine import JobSpec
from jobsize.engine import counters as C
from jobsize.engine.keyhash import partition_of
from jobsize.errors import InputError
from jobsize.schema import (
    COMBINE_RUNS_COUNTER,
    FUNCTION_TIME_GROUP,
    MAP_FUNCTION_COUNTER,
    REDUCE_FUNCTION_COUNTER,
)

# "the quick brown fox\n" (20 bytes) "jumps over the lazy dog\n" (24) "the dog barks\n" (14):
# 58 bytes, 3 lines, 12 words; each word is emitted as "word\t1" — Hadoop serializes a Text
# key and value as a length byte plus the bytes, so a record costs len(word) + 3 bytes:
# (3+5+5+3) + (5+4+3+4+3) + (3+3+5) + 12*3 = 82. The 9 distinct words are written as
# "word\tcount\n": the 6, quick 8, brown 8, fox 6, jumps 8, over 7, lazy 7, dog 6, barks 8 = 64.
WORD_COUNTS = {"the": 3, "quick": 1, "brown": 1, "fox": 1, "jumps": 1, "over": 1, "lazy": 1,
               "dog": 2, "barks": 1}


@pytest.fixture
def three_lines(tmp_path: Path) -> Path:
    path = tmp_path / "three.txt"
    path.write_bytes(THREE_LINES)
    return path


def _output(result) -> dict[str, int]:
    counts = {}
    for part in result.outputs:
        for line in part.read_text().splitlines():
            word, n = line.split("\t")
            counts[word] = int(n)
    return counts


def test_word_count_of_three_lines(engine, programs, three_lines, tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out", mapper=programs["wc_map"],
                   reducer=programs["wc_reduce"], n_maps=2, n_reduces=2)
    result = engine.run(spec)
    total = result.counters["total"]
    task = total[C.TASK]
    assert result.state == "SUCCEEDED"
    assert (result.n_maps, result.n_reduces) == (2, 2)
    assert total[C.FILE_INPUT] == {"BYTES_READ": 58}
    assert task["MAP_INPUT_RECORDS"] == 3
    assert task["MAP_OUTPUT_RECORDS"] == 12
    assert task["MAP_OUTPUT_BYTES"] == 82
    assert task["MAP_OUTPUT_MATERIALIZED_BYTES"] == 82
    assert task["REDUCE_SHUFFLE_BYTES"] == 82
    assert task["REDUCE_INPUT_RECORDS"] == 12
    assert task["REDUCE_INPUT_GROUPS"] == 9
    assert task["REDUCE_OUTPUT_RECORDS"] == 9
    assert task["SPILLED_RECORDS"] == 12  # one spill per map, no merge
    assert task["SHUFFLED_MAPS"] == 4  # 2 maps x 2 reduces
    assert task["MERGED_MAP_OUTPUTS"] == 4
    assert task["COMBINE_INPUT_RECORDS"] == 0
    assert total[C.FILE_OUTPUT] == {"BYTES_WRITTEN": 64}
    job = total[C.JOB]
    assert job["TOTAL_LAUNCHED_MAPS"] == 2 and job["TOTAL_LAUNCHED_REDUCES"] == 2
    assert "NUM_FAILED_MAPS" not in job
    assert job["MILLIS_MAPS"] == result.map_time_ms
    assert job["MILLIS_REDUCES"] == result.reduce_time_ms
    assert job["MB_MILLIS_MAPS"] == 1024 * job["MILLIS_MAPS"]
    assert job["VCORES_MILLIS_REDUCES"] == job["MILLIS_REDUCES"]
    assert _output(result) == WORD_COUNTS
    # split 0 is bytes [0, 29): lines starting at 0 and 20; split 1 begins after the
    # newline at 43: the third line
    maps = sorted((a for a in result.attempts if a.task_type == "MAP"), key=lambda a: a.task_id)
    assert [a.counters[C.TASK]["MAP_INPUT_RECORDS"] for a in maps] == [2, 1]
    assert [a.counters[C.FILE_INPUT]["BYTES_READ"] for a in maps] == [44, 14]
    # map and reduce side add up to the totals
    side = result.counters
    assert side["map"][C.TASK]["MAP_OUTPUT_RECORDS"] == 12
    assert side["reduce"][C.TASK]["REDUCE_INPUT_RECORDS"] == 12
    assert C.JOB not in side["map"] and C.JOB not in side["reduce"]
    fn = total[FUNCTION_TIME_GROUP]
    assert fn[MAP_FUNCTION_COUNTER] <= job["MILLIS_MAPS"]
    assert fn[REDUCE_FUNCTION_COUNTER] <= job["MILLIS_REDUCES"]


def _wc_map(line: str):
    for word in line.split():
        yield word, 1


def _wc_reduce(key: str, values):
    yield key, sum(int(v) for v in values)


def test_python_callables_give_the_same_counters(engine, three_lines, tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out", mapper=_wc_map,
                   reducer=_wc_reduce, n_maps=2, n_reduces=2)
    result = engine.run(spec)
    task = result.counters["total"][C.TASK]
    assert (task["MAP_OUTPUT_BYTES"], task["REDUCE_INPUT_GROUPS"]) == (82, 9)
    assert result.counters["total"][C.FILE_OUTPUT] == {"BYTES_WRITTEN": 64}
    assert _output(result) == WORD_COUNTS


def test_combiner_shrinks_the_shuffle(engine, programs, three_lines, tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out", mapper=programs["wc_map"],
                   reducer=programs["wc_reduce"], combiner=programs["wc_reduce"],
                   n_maps=2, n_reduces=1)
    result = engine.run(spec)
    task = result.counters["total"][C.TASK]
    # map 0 sees lines 1-2: 9 words, 8 distinct ("the" twice); map 1 sees 3 distinct words
    assert task["COMBINE_INPUT_RECORDS"] == 12
    assert task["COMBINE_OUTPUT_RECORDS"] == 11
    assert task["MAP_OUTPUT_RECORDS"] == 12  # counted before the combiner, as in Hadoop
    assert task["REDUCE_INPUT_RECORDS"] == 11
    assert task["REDUCE_INPUT_GROUPS"] == 9
    assert _output(result) == WORD_COUNTS


def test_map_only_job_writes_map_output_as_job_output(engine, programs, three_lines, tmp_path):
    spec = JobSpec(inputs=three_lines, output=tmp_path / "out", mapper=programs["wc_map"],
                   n_maps=2, n_reduces=0)
    result = engine.run(spec)
    total = result.counters["total"]
    assert [p.name for p in result.outputs] == ["part-00000", "part-00001"]
    lines = [line for p in result.outputs for line in p.read_text().splitlines()]
    assert lines == [f"{w}\t1" for w in THREE_LINES.decode().split()]
    assert total[C.TASK]["MAP_OUTPUT_RECORDS"] == 12
    # Hadoop counts no map output bytes when maps write the job output directly
    assert "MAP_OUTPUT_BYTES" not in total[C.TASK]
    assert "REDUCE_INPUT_RECORDS" not in total[C.TASK]
    assert total[C.FILE_OUTPUT] == {"BYTES_WRITTEN": 82}  # "word\t1\n" lines
    assert "TOTAL_LAUNCHED_REDUCES" not in total[C.JOB]
    assert REDUCE_FUNCTION_COUNTER not in total[FUNCTION_TIME_GROUP]
    assert result.reduce_time_ms == 0
    assert (Path(tmp_path / "out" / "_SUCCESS")).exists()


def test_spills_and_merges_when_the_sort_buffer_is_small(engine, programs, tmp_path):
    text = tmp_path / "text.txt"
    words = [f"w{(i * 7919) % 501}" for i in range(6000)]
    text.write_text("\n".join(" ".join(words[i:i + 12]) for i in range(0, 6000, 12)) + "\n")
    common = dict(inputs=text, mapper=programs["wc_map"], reducer=programs["wc_reduce"],
                  n_maps=1, n_reduces=3)
    big = engine.run(JobSpec(output=tmp_path / "a", **common))
    # ~5 KB spill threshold: the map's 6000 records spill many times and are merged
    small = engine.run(JobSpec(output=tmp_path / "b", sort_mb=1, spill_percent=0.005,
                               reduce_merge_mb=0, **common))
    # the same buffer given as the job's configuration (Hadoop 1's name for the share)
    configured = engine.run(JobSpec(output=tmp_path / "c", reduce_merge_mb=0,
                                    conf={"mapreduce.task.io.sort.mb": "1",
                                          "io.sort.spill.percent": "0.005"}, **common))
    t_big, t_small = big.counters["total"][C.TASK], small.counters["total"][C.TASK]
    assert t_big["SPILLED_RECORDS"] == 6000
    # every spill writes its records once, the final merge once more
    assert t_small["SPILLED_RECORDS"] == 2 * 6000
    t_configured = configured.counters["total"][C.TASK]
    assert t_configured["SPILLED_RECORDS"] == t_small["SPILLED_RECORDS"]
    assert (configured.record()["map_sort_mb"], configured.record()["map_spill_percent"],
            big.record()["map_sort_mb"]) == (1, 0.005, 100)
    assert _output(big) == _output(small)
    assert sum(_output(small).values()) == 6000
    for key in ("MAP_OUTPUT_BYTES", "REDUCE_INPUT_RECORDS", "REDUCE_INPUT_GROUPS"):
        assert t_big[key] == t_small[key]


def test_the_combiner_merges_spills_from_the_configured_minimum(engine, programs, tmp_path):
    text = tmp_path / "text.txt"
    words = [f"w{(i * 7919) % 501}" for i in range(6000)]
    text.write_text("\n".join(" ".join(words[i:i + 12]) for i in range(0, 6000, 12)) + "\n")
    common = dict(inputs=text, mapper=programs["wc_map"], reducer=programs["wc_reduce"],
                  combiner=programs["wc_reduce"], n_maps=1, n_reduces=2, sort_mb=1,
                  spill_percent=0.005, reduce_merge_mb=0)
    default = engine.run(JobSpec(output=tmp_path / "a", **common))
    never = engine.run(JobSpec(output=tmp_path / "b", **common,
                               conf={"mapreduce.map.combine.minspills": "1000"}))
    spills = default.counters["total"][C.TASK]["SPILLED_RECORDS"]
    assert spills > 0 and _output(default) == _output(never)
    runs = [r.counters["total"][FUNCTION_TIME_GROUP][COMBINE_RUNS_COUNTER]
            for r in (default, never)]
    assert runs[0] == runs[1] + 1  # the merge's own run, from three spills by default
    assert never.record()["combine_min_spills"] == 1000


def test_a_sort_buffer_hadoop_would_refuse_is_an_error(tmp_path):
    with pytest.raises(InputError, match=r"mapreduce\.task\.io\.sort\.mb.*1-2047"):
        JobSpec(inputs=tmp_path, output=tmp_path / "o", mapper=["cat"],
                conf={"mapreduce.task.io.sort.mb": "4096"})


def test_partitions_follow_a_stable_key_hash(engine, programs, three_lines, tmp_path):
    result = engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out",
                                mapper=programs["wc_map"], reducer=programs["wc_reduce"],
                                n_maps=1, n_reduces=3))
    for index, part in enumerate(result.outputs):
        for line in part.read_text().splitlines():
            assert partition_of(line.split("\t")[0].encode(), 3) == index


def test_identity_reduce_sorts_and_lines_without_tab_get_one(engine, programs, tmp_path):
    text = tmp_path / "t.txt"
    text.write_bytes(b"b a\r\nc a\n\x01x b")  # CRLF, a key below tab, no final newline
    result = engine.run(JobSpec(inputs=text, output=tmp_path / "out",
                                mapper=programs["no_tab_map"], reducer=None, n_reduces=1))
    assert result.outputs[0].read_bytes() == b"\x01x\t\na\t\na\t\nb\t\nb\t\nc\t\n"
    task = result.counters["total"][C.TASK]
    assert task["MAP_INPUT_RECORDS"] == 3
    assert task["REDUCE_INPUT_GROUPS"] == 4
    # a key with no value costs its bytes plus two length bytes
    assert task["MAP_OUTPUT_BYTES"] == sum(len(k) + 2 for k in (b"b", b"a", b"c", b"a",
                                                               b"\x01x", b"b"))


def test_mapper_is_told_its_input_file(engine, programs, tmp_path):
    first, second = tmp_path / "left.txt", tmp_path / "right.txt"
    first.write_text("1\n2\n")
    second.write_text("3\n")
    result = engine.run(JobSpec(inputs=[first, second], output=tmp_path / "out",
                                mapper=programs["input_file_map"], n_reduces=0))
    assert result.n_maps == 2  # one split per file at least, as in Hadoop
    lines = sorted(line for p in result.outputs for line in p.read_text().splitlines())
    assert lines == [f"{first.resolve()}\t1", f"{first.resolve()}\t2",
                     f"{second.resolve()}\t3"]


def test_streaming_counters_from_stderr(engine, programs, three_lines, tmp_path):
    result = engine.run(JobSpec(inputs=three_lines, output=tmp_path / "out",
                                mapper=programs["counter_map"], n_maps=2, n_reduces=0))
    assert result.counters["total"]["custom"] == {"LINES": 3}
    # the engine measures MFE itself; a program's claim does not replace it
    assert result.counters["total"][FUNCTION_TIME_GROUP][MAP_FUNCTION_COUNTER] < 999999


def test_non_utf8_bytes_pass_through(engine, programs, tmp_path):
    data = b"caf\xe9\t\xff\xfe\nna\xefve\tok\n"
    text = tmp_path / "latin1.txt"
    text.write_bytes(data)
    result = engine.run(JobSpec(inputs=text, output=tmp_path / "out", mapper=programs["cat"],
                                reducer=programs["cat"], n_reduces=1))
    assert result.outputs[0].read_bytes() == b"caf\xe9\t\xff\xfe\nna\xefve\tok\n"
