"""``jobsize sample``: the sample and its metadata on disk, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jobsize.sampler.sampling import sample
from jobsize.sampler.splits import local_splits

from jobsize.cli import main


def _input(tmp_path: Path) -> Path:
    data = b"".join(b"%06d \xe9t\xe9 word\r\n" % i for i in range(20000))  # Latin-1, CRLF
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    return path


def test_sample_command_writes_the_sample_and_its_metadata(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    path = _input(tmp_path)
    out = tmp_path / "out" / "sample.txt"
    code = main(["sample", str(path), "--maps", "10", "--reduces", "25", "--max-splits", "4",
                 "--seed", "9", "--split-size", "32K", "-o", str(out)])
    assert code == 0
    want = sample(local_splits(path, 32 * 1024), 10, 25, 4, 9)
    assert out.read_bytes() == want.data and want.data
    meta = json.loads((tmp_path / "out" / "sample.txt.json").read_text())
    assert meta["inputs"] == [str(path)]
    assert meta["fraction"] == want.fraction and meta["target_fraction"] == 1 / 25
    assert meta["sample_bytes"] == len(want.data) and meta["bytes_read"] == want.bytes_read
    assert meta["seed"] == 9 and meta["n_splits"] == len(local_splits(path, 32 * 1024))
    assert [c["offset"] for c in meta["splits_chosen"]] == [c.offset for c in want.splits_chosen]
    printed = capsys.readouterr().out
    assert f"f_p = {want.fraction:.6g}" in printed and "seed 9" in printed


def test_a_budget_caps_the_sample_but_not_below_its_floor(tmp_path: Path) -> None:
    path = _input(tmp_path)  # 320 KB
    size = path.stat().st_size
    for argv, target in ((["--max-fraction", "0.01", "--min-sample", "0"], 0.01),
                         (["--max-fraction", "0.01"], 128 * 1024 / size),  # the 128 KiB floor
                         (["--max-fraction", "0.01", "--min-sample", "16K"], 16 * 1024 / size)):
        out = tmp_path / "s"
        assert main(["sample", str(path), "--maps", "2", "-r", "1", "--seed", "3", *argv,
                     "-o", str(out)]) == 0
        meta = json.loads((tmp_path / "s.json").read_text())
        assert meta["target_fraction"] == pytest.approx(target)
        assert meta["fraction"] == pytest.approx(target, rel=0.1)


def test_without_a_seed_the_drawn_seed_reproduces_the_sample(tmp_path: Path) -> None:
    path = _input(tmp_path)
    out = tmp_path / "s"
    assert main(["sample", str(path), "--maps", "8", "-r", "0", "-o", str(out)]) == 0
    seed = json.loads((tmp_path / "s.json").read_text())["seed"]
    assert out.read_bytes() == sample(local_splits(path), 8, 0, seed=seed).data


def test_bad_input_is_one_line_and_exit_2_and_keeps_the_old_sample(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "sample"
    out.write_bytes(b"previous sample\n")
    code = main(["sample", str(tmp_path / "nope.txt"), "--maps", "4", "-r", "1", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err == f"jobsize: error: {tmp_path / 'nope.txt'}: no such file or directory\n"
    assert out.read_bytes() == b"previous sample\n"


@pytest.mark.parametrize("argv", [["--maps", "0", "--reduces", "1"],
                                  ["--maps", "2", "--reduces", "-1"],
                                  ["--maps", "2", "--reduces", "1", "--split-size", "lots"],
                                  ["--maps", "2", "--reduces", "1", "--max-fraction", "0"],
                                  ["--maps", "2", "--reduces", "1", "--min-sample", "-1K"]])
def test_bad_options_exit_2(tmp_path: Path, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["sample", str(_input(tmp_path)), *argv, "-o", str(tmp_path / "s")])
    assert exit_.value.code == 2
    assert not (tmp_path / "s").exists()


def test_output_that_is_a_directory_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    code = main(["sample", str(_input(tmp_path)), "--maps", "2", "-r", "1", "-o", str(tmp_path)])
    assert code == 2 and "is a directory" in capsys.readouterr().err


def test_runs_as_a_program(tmp_path: Path) -> None:
    path = _input(tmp_path)
    done = subprocess.run([sys.executable, "-m", "jobsize", "sample", str(path), "-m", "1",
                           "-r", "1", "-o", str(tmp_path / "all")], capture_output=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "all").read_bytes() == path.read_bytes()  # N_m = 1: all of it, bytes as is
    # whether the job runs in uber mode is its configuration's business, not the sampler's
    assert b"uber" not in done.stdout
