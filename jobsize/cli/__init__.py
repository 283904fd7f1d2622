"""The ``jobsize`` command line.

Each command is one module in this package defining ``register(subparsers)``, which adds its
parser and sets ``func`` to a callable taking the parsed arguments and returning an exit status.
:data:`COMMANDS` names them with their one-line help, so ``jobsize --help`` imports no command
and ``jobsize CMD`` imports only CMD's module (commands import the heavy libraries inside
``run``). A :class:`jobsize.errors.JobsizeError` is printed as one line and exits 2, as is a
mistyped option (with where its help is; a missing required option shows the command's usage
line). Ctrl-C exits 130 and SIGTERM 143 with one line, from the first moment — also while a
command's libraries are still being imported — and after the run has unwound (temporary files
removed, fetched jobs saved).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import NoReturn

from jobsize import __version__

#: command name → (module in this package, one-line help), in the order ``--help`` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "fit": ("fit", "fit the SE_m/SE_r models on a trace; report R² beside the paper's"),
    "predict": ("predict", "predict one job's size (SE_m, SE_r, S, minE, APB, intervals) as JSON"),
    "probe": ("probe", "probe a job: its functions over a sample, in two maps and two reduces"),
    "sample": ("sample", "draw a probing job's sample of a job's input (Algorithm 1)"),
    "run": ("run", "run a streaming job on the local MapReduce engine (or on Hadoop)"),
    "hadoop": ("hadoop", "start, show or stop a real Hadoop mini cluster on this machine"),
    "collect": ("collect",
                "collect job records from Hadoop (JHS, RM, .jhist, Rumen, SLS, SWIM)"),
    "bench-trace": ("bench_trace", "measure a reference trace: draw jobs like FB-2009, probe "
                    "and run them locally"),
    "evaluate": ("evaluate", "held-out evaluation: probe, predict and run job kinds no trace "
                 "holds; report"),
    "report": ("report", "size-model accuracy on a trace: predicted vs actual SE_m, SE_r, S"),
    "serve": ("serve", "serve predictions over HTTP/JSON (predict, observe, reload, metrics)"),
    "journal": ("journal", "check, repair or compact the observation journal of `jobsize "
                "serve`"),
    "simulate": ("simulate", "run schedulers on a workload in the simulator"),
}


def _command_of(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (its first argument that is not an option), if known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


class Parser(argparse.ArgumentParser):
    """argparse's parser with jobsize's errors, for ``jobsize`` and (argparse passes its class
    on) every command's parser.

    A wrong or unknown argument is one line naming it, and where the help is: ``jobsize fit:
    error: argument --level: must be between 0 and 1, got 2.0; see 'jobsize fit --help'``.
    A missing required argument shows the command's own usage line, above the error. An option
    made required by :func:`jobsize.cli._options.require` (because a hidden earlier spelling
    may give it) is shown in the usage as required, without brackets.
    """

    def error(self, message: str) -> NoReturn:
        if message.startswith("the following arguments are required"):
            self.print_usage(sys.stderr)
            self.exit(2, f"{self.prog}: error: {message}\n")
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'\n")

    def format_usage(self) -> str:
        with self._required_shown():
            return super().format_usage()

    def format_help(self) -> str:
        with self._required_shown():
            return super().format_help()

    @contextlib.contextmanager
    def _required_shown(self) -> Iterator[None]:
        """Mark the options :func:`jobsize.cli._options.require` names as required while the
        usage is formatted (argparse's own check would refuse their hidden spellings)."""
        flags = {flag for spelled in (self.get_default("_required") or {}).values()
                 for flag in spelled.split("/")}
        marked = [a for a in self._actions if not a.required and a.help != argparse.SUPPRESS
                  and flags.intersection(a.option_strings)]
        for action in marked:
            action.required = True
        try:
            yield
        finally:
            for action in marked:
                action.required = False


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace
                    ) -> argparse.ArgumentParser:
    """The parser of the command ``args`` were parsed for (``jobsize collect jhs``'s for
    ``collect jhs``) inside the ``jobsize`` parser."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                   None)
        if sub is None or getattr(args, sub.dest, None) not in sub.choices:
            return parser
        parser = sub.choices[getattr(args, sub.dest)]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``jobsize`` parser; only ``command``'s module is imported (every one when None)."""
    parser = Parser(
        prog="jobsize",
        description="Predict Hadoop MapReduce job sizes from a probing run; "
        "evaluate size-based schedulers on them.",
    )
    parser.add_argument("--version", action="version", version=f"jobsize {__version__}")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress output on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, summary) in COMMANDS.items():
        if command is None or name == command:
            importlib.import_module(f"{__name__}.{module}").register(sub)
            sub.choices[name].add_argument(  # also after the command word
                "--quiet", "-q", action="store_true", default=argparse.SUPPRESS,
                help="no progress output on stderr")
        else:  # a stand-in that lists the command in --help; never parsed
            sub.add_parser(name, help=summary, add_help=False)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a run unwinds as for Ctrl-C: temporary files
    are removed and what a collector fetched is saved."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    # The handlers come first: Ctrl-C or SIGTERM while a command's libraries are imported or
    # its arguments parsed is the same one line and status as during its run.
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(argv)
    except Terminated:
        print("jobsize: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("jobsize: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> int:
    from jobsize.errors import JobsizeError
    from jobsize.progress import configure

    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(argv)
    parser = build_parser(command) if command else build_parser("")
    if command is None:  # argparse would only say that COMMAND is missing
        known = {flag for action in parser._actions for flag in action.option_strings}
        unknown = [word for word in argv if word.startswith("-") and word not in known]
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args, extra = parser.parse_known_args(argv)
    named = _command_parser(parser, args)
    if extra:  # name the command whose options they are not
        named.error(f"unrecognized arguments: {' '.join(extra)}")
    for dest, flag in getattr(args, "_required", {}).items():
        if getattr(args, dest, None) is None:
            named.error(f"the following arguments are required: {flag}")
    configure(quiet=args.quiet)
    try:
        return int(args.func(args) or 0)
    except JobsizeError as exc:
        print(f"jobsize: error: {exc}", file=sys.stderr)
        return 2

if __name__ == "__main__":
    sys.exit(main())
