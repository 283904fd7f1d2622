"""The command line's rough edges: unknown and missing options named with the right command,
one-line argument errors, refused worker counts, the probe's help, whole numbers in fit's
report, and Ctrl-C / SIGTERM while a command is still starting."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest
from jobsize.sampler.probeparts import REDUCE_PARTITIONS, REDUCE_PARTITIONS_WITH_EMPTY

from jobsize.cli import COMMANDS, build_parser, main


def _exit(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    return done.value.code, capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--bogus"], ["-q", "--bogus"]])
def test_an_unknown_option_before_any_command_is_named(argv, capsys) -> None:
    code, err = _exit(argv, capsys)
    assert code == 2
    assert err == "jobsize: error: unrecognized arguments: --bogus; see 'jobsize --help'\n"


def test_an_unknown_option_of_a_command_names_the_command(capsys) -> None:
    code, err = _exit(["fit", "--bogus"], capsys)
    assert code == 2
    assert err == "jobsize fit: error: unrecognized arguments: --bogus; see 'jobsize fit --help'\n"


def test_predict_without_model_shows_its_own_usage_with_model_required(capsys) -> None:
    code, err = _exit(["predict", "--job", "job.json"], capsys)
    assert code == 2
    assert err.startswith("usage: jobsize predict ")
    usage = " ".join(err.split("jobsize predict: error:")[0].split())
    assert " --model MODEL.json " in usage and "[--model" not in usage
    assert err.endswith("jobsize predict: error: the following arguments are required: "
                        "--model\n")
    assert "-m" not in usage.split()  # the earlier spelling stays hidden
    with pytest.raises(SystemExit):  # --help's usage says the same
        main(["predict", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "[-h] --model MODEL.json --job JOB.json" in shown


def test_the_hidden_spelling_still_gives_a_required_option() -> None:
    args = build_parser("predict").parse_args(["predict", "-m", "m.json", "--job", "j.json"])
    assert args.model == "m.json"


@pytest.mark.parametrize(("argv", "message"), [
    (["fit", "--level", "2"], "jobsize fit: error: argument --level: must be between 0 and 1, "
                              "got 2.0; see 'jobsize fit --help'"),
    (["simulate", "--parallel", "-3"], "jobsize simulate: error: argument --parallel: must be "
     "at least 1, or -1 for all cores, got -3; see 'jobsize simulate --help'"),
    (["simulate", "--parallel", "0"], "jobsize simulate: error: argument --parallel: must be at "
     "least 1, or -1 for all cores, got 0; see 'jobsize simulate --help'"),
    (["simulate", "--jobs", "-2"], "argument --jobs: must be at least 1, or -1 for all cores"),
    (["nonsense"], "jobsize: error: argument COMMAND: invalid choice: 'nonsense'"),
])
def test_an_argument_error_is_one_line_saying_where_the_help_is(argv, message, capsys) -> None:
    code, err = _exit(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err and "usage:" not in err


def test_all_cores_is_still_accepted_for_parallel() -> None:
    assert build_parser("simulate").parse_args(["simulate", "--parallel", "-1"]).parallel == -1


def test_probe_help_says_what_the_probe_runs() -> None:
    parser = build_parser("probe")
    sub = next(a for a in parser._actions if a.dest == "command").choices["probe"]
    text = " ".join(sub.format_help().split())
    assert "two uneven maps" in text and "two uneven reduces" in text
    assert "one empty map and one empty reduce" in text
    # the record counts the maps with input and every reduce, the empty one too
    assert len(REDUCE_PARTITIONS) == 2 and len(REDUCE_PARTITIONS_WITH_EMPTY) == 3
    assert "probe_map_tasks counts the two maps, probe_reduce_tasks the three reduces" in text
    assert "one map and one reduce" not in COMMANDS["probe"][1]


def test_fit_written_to_a_file_cuts_no_number(monkeypatch, capsys) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("JOBSIZE_DATASET", raising=False)
    assert main(["fit", "--cv", "0"]) == 0
    out = capsys.readouterr().out
    assert "coef" in out and "…" not in out


_STARTUP = textwrap.dedent("""
    import importlib, os, signal, sys
    from jobsize import cli
    real = importlib.import_module

    def importing(name, *args):
        if name.startswith("jobsize.cli."):  # the command's module: still starting up
            os.kill(os.getpid(), signal.{sig})
        return real(name, *args)

    importlib.import_module = importing
    sys.exit(cli.main(["fit", "--help"]))
""")


@pytest.mark.parametrize(("sig", "code", "line"), [("SIGINT", 130, "jobsize: interrupted"),
                                                   ("SIGTERM", 143, "jobsize: terminated")])
def test_a_signal_while_starting_up_is_one_line_and_its_status(sig, code, line) -> None:
    # as from a terminal: a test worker may run with SIGINT ignored, which a child inherits
    # (and Python then keeps), as a background job of a shell does
    done = subprocess.run([sys.executable, "-c", _STARTUP.format(sig=sig)],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stderr == line + "\n"
