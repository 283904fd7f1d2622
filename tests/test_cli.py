"""The command line as a whole: lazy commands, one option vocabulary, earlier spellings kept."""

import subprocess
import sys

import pytest

from jobsize.cli import COMMANDS, _command_of, build_parser, main


def test_help_lists_every_command_without_importing_any(capsys) -> None:
    before = set(sys.modules)
    with pytest.raises(SystemExit) as done:
        build_parser("").parse_args(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)
    loaded = {m for m in set(sys.modules) - before if m.startswith("jobsize.cli.")}
    assert not loaded, loaded


def test_jobsize_help_does_not_load_the_numeric_stack() -> None:
    code = ("import sys; from jobsize.cli import main\n"
            "try:\n    main(['predict', '--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('pandas', 'statsmodels', 'sklearn', 'scipy', 'matplotlib') "
            "if m in sys.modules]\nprint('HEAVY:' + ','.join(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_the_command_word_is_found_after_global_options() -> None:
    assert _command_of(["--quiet", "predict", "--model", "m.json"]) == "predict"
    assert _command_of(["nope"]) is None and _command_of(["--help"]) is None


def test_every_command_module_registers_the_name_it_is_listed_under() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS)


@pytest.mark.parametrize(("argv", "dest", "value"), [
    (["simulate", "--workload", "w.tsv", "--out", "d"], "output", "d"),
    (["simulate", "--workload", "w.tsv", "-o", "d", "--jobs", "3"], "parallel", 3),
    (["simulate", "--workload", "w.tsv", "-o", "d", "--model", "fluid"], "cluster_model", "fluid"),
    (["report", "t.parquet", "--out", "d"], "output", "d"),
    (["predict", "-m", "m.json", "--job", "j.json"], "model", "m.json"),
    (["sample", "in.txt", "-m", "4", "-r", "1", "-o", "s"], "n_maps", 4),
    (["run", "--input", "x", "--mapper", "cat", "--maps", "2", "--history", "h", "-o", "o",
      "--workers", "2"], "parallel", 2),
])
def test_earlier_spellings_are_hidden_aliases(argv, dest, value, capsys) -> None:
    args = build_parser(argv[0]).parse_args(argv)
    assert str(getattr(args, dest)) == str(value)
    with pytest.raises(SystemExit):
        build_parser(argv[0]).parse_args([argv[0], "--help"])
    shown = capsys.readouterr().out
    old = next(a for a in argv if a in ("--out", "--jobs", "--model", "-m", "--workers"))
    assert f" {old} " not in shown and f"[{old} " not in shown


def test_output_is_still_required_when_an_alias_could_give_it(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["report", "t.parquet"])
    assert done.value.code == 2
    assert "-o/--output" in capsys.readouterr().err


def test_quiet_is_accepted_before_and_after_the_command() -> None:
    assert build_parser("fit").parse_args(["--quiet", "fit"]).quiet
    assert build_parser("fit").parse_args(["fit", "--quiet"]).quiet
    assert not build_parser("fit").parse_args(["fit"]).quiet


def test_probe_hadoop_without_a_cluster_is_one_line(tmp_path, capsys):
    data = tmp_path / "in.txt"
    data.write_text("a b\n" * 100)
    code = main(["probe", "--input", str(data), "--mapper", "cat", "--reduces", "0",
                 "--hadoop", "--cluster", str(tmp_path / "none")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"jobsize: error: {tmp_path / 'none'}: no mini cluster is running here "
                   "(start one with `jobsize hadoop up`)"]


def test_hadoop_without_java_or_maven_is_one_line(tmp_path, capsys, monkeypatch):
    """No java and no mvn on PATH (and no JAVA_HOME): `jobsize hadoop up` says which is
    missing in one line, exit 2, and starts nothing."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    from jobsize.hadoop import java_available

    assert "Java 17 or newer is needed" in java_available()
    assert main(["hadoop", "up", "--dir", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("jobsize: error: java: Java 17 or newer")
    assert not (tmp_path / "c" / "cluster.json").exists()
