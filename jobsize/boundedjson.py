"""JSON from outside (files, HTTP bodies, standard input), decoded within limits.

Python's decoder raises more than :class:`json.JSONDecodeError` on hostile input: an integer of
more than 4,300 digits is a ``ValueError``, nesting deeper than the interpreter's stack a
``RecursionError``, and a document that is not UTF-8 a ``UnicodeDecodeError``. Here each of these
is a :class:`~jobsize.errors.ParseError` naming the source and the line. ``NaN`` and
``Infinity`` (not JSON, though Python writes and reads them) are refused; a number too large for
a double (``1e999``) decodes to an infinity, which the typed readers refuse with the JSON path.

Integers stay exact Python ints; readers check their range (:data:`LONG`) where they take them.
"""

from __future__ import annotations

import json
from typing import Any

from jobsize.errors import ParseError

#: Java's long, the widest integer Hadoop writes: every integer read must lie in [-LONG, LONG).
LONG = 2**63


class _NotJson(ValueError):
    def __init__(self, literal: str) -> None:
        super().__init__(f"{literal} is not a JSON number")


def _refuse_constant(literal: str) -> Any:
    raise _NotJson(literal)


#: A decoder whose ``raw_decode`` reads one value of a stream; see :func:`decode_value`.
DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def decode_value(text: str, pos: int, *, source: object, first_line: int = 1,
                 base: int = 0) -> tuple[Any, int]:
    """One JSON value of ``text`` starting at ``pos``: (value, end position).

    Errors name ``source`` and the line, counted from ``first_line`` at position ``base``.
    """
    try:
        return DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        line = first_line + text.count("\n", base, exc.pos)
        raise ParseError(f"invalid JSON ({exc.msg})", source=source,
                         where=f"line {line}, column {exc.colno}") from None
    except (RecursionError, ValueError) as exc:
        line = first_line + text.count("\n", base, pos)
        raise unreadable(exc, source=source, where=f"line {line}") from None


def unreadable(exc: RecursionError | ValueError, *, source: object, where: str) -> ParseError:
    """The ParseError for a value the decoder could not build: nested too deeply, an integer
    of thousands of digits, NaN or Infinity."""
    if isinstance(exc, RecursionError):
        return ParseError("JSON nested too deeply", source=source, where=where)
    return ParseError(f"unreadable JSON value ({_short(exc)})", source=source, where=where)


def loads(data: bytes | str, *, source: object) -> Any:
    """The one JSON document in ``data`` (UTF-8 bytes or text); ParseError on anything else."""
    text = decode_text(data, source=source) if isinstance(data, bytes) else data
    start = len(text) - len(text.lstrip())
    value, end = decode_value(text, start, source=source)
    rest = len(text) - len(text[end:].lstrip())
    if rest != len(text):
        raise ParseError("invalid JSON (extra data after the document)", source=source,
                         where=f"line {_line_of(text, rest)}")
    return value


def decode_text(data: bytes, *, source: object) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); errors name the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(f"not UTF-8 text (byte offset {exc.start})", source=source,
                         where=f"line {line}") from None


def _short(exc: BaseException) -> str:
    text = str(exc).split(";")[0]
    return text if len(text) <= 120 else text[:117] + "..."
