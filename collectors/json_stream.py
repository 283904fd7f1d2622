"""Files that are a stream of JSON documents (Rumen and SLS traces), plain or gzip-compressed.

Rumen writes one Jackson-serialised job after another, SLS one job (or rack) object after
another; both are concatenated JSON values separated by whitespace, often gzipped. Errors name
the file and the line where the bad document starts.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from typing import Any

from jobsize.errors import ParseError

_SPACE = re.compile(r"\s*")
_GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    """The file's bytes, decompressed when gzipped; ParseError if it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise ParseError("no such file", source=path) from None
    except IsADirectoryError:
        raise ParseError(f"is a directory, expected {what}", source=path) from None
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror})", source=path) from None
    return decompress(data, path)


def decompress(data: bytes, source: object) -> bytes:
    if not data.startswith(_GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise ParseError(f"damaged gzip data ({exc})", source=source) from None


def documents(data: bytes, source: object) -> list[tuple[Any, int]]:
    """The JSON values in ``data`` with the line each starts on."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ParseError(f"not UTF-8 text (byte offset {exc.start})", source=source,
                         where=f"line {line}") from None
    decoder = json.JSONDecoder()
    out: list[tuple[Any, int]] = []
    pos, line = 0, 1
    while True:
        skip = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        line += text.count("\n", pos, skip)
        pos = skip
        if pos >= len(text):
            return out
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ParseError(f"invalid JSON ({exc.msg})", source=source,
                             where=f"line {exc.lineno}, column {exc.colno}") from None
        except RecursionError:
            raise ParseError("JSON nested too deeply", source=source,
                             where=f"line {line}") from None
        out.append((value, line))
        line += text.count("\n", pos, end)
        pos = end
