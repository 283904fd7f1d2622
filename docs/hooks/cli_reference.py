"""MkDocs hook: the command-line reference, generated from the argparse parsers at build time.

``reference/cli.md`` holds the marker ``<!-- cli-reference -->``; this hook replaces it with one
section per command (and per sub-command of ``collect``) built by walking
``jobsize.cli.build_parser()``: the usage line, the description and a table of every option that
``--help`` shows (hidden aliases of earlier spellings are left out, as ``--help`` leaves them).
"""

from __future__ import annotations

import argparse
from typing import Any

MARKER = "<!-- cli-reference -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from jobsize.cli import build_parser

    return markdown.replace(MARKER, cli_reference(build_parser()))


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """Markdown for ``parser`` and every sub-command under it."""
    return "\n".join(_sections(parser, "jobsize", level=2))


def _sections(parser: argparse.ArgumentParser, name: str, level: int) -> list[str]:
    out = [f"{'#' * level} `{name}`", ""]
    if parser.description:
        out += [_escape(parser.description), ""]
    out += ["```text", parser.format_usage().strip().removeprefix("usage: "), "```", ""]
    rows = [_row(a) for a in parser._actions if _shown(a)]
    if rows:
        out += ["| option | meaning | default |", "|---|---|---|", *rows, ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                out += _sections(sub, f"{name} {sub_name}", min(level + 1, 4))
    return out


def _shown(action: argparse.Action) -> bool:
    return (action.help is not argparse.SUPPRESS
            and not isinstance(action, argparse._SubParsersAction | argparse._HelpAction))


def _row(action: argparse.Action) -> str:
    if action.option_strings:
        flags = ", ".join(action.option_strings)
        if action.nargs != 0:
            flags += f" {_metavar(action)}"
    else:
        flags = _metavar(action)
    default = action.default
    hidden = default is None or default is False or default is argparse.SUPPRESS
    shown_default = "" if hidden or action.nargs == 0 else f"`{default}`"
    text = (action.help or "").replace("%(default)s", str(default))
    return f"| `{flags}` | {_escape(text)} | {shown_default} |"


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar) if not isinstance(action.metavar, tuple) \
            else " ".join(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper()


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")
