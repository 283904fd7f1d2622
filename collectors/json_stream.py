"""Files that are a stream of JSON documents (Rumen and SLS traces), plain or gzip-compressed.

Rumen writes one Jackson-serialised job after another, SLS one job (or rack) object after
another; both are concatenated JSON values separated by whitespace, often gzipped. Errors name
the file and the line where the bad document starts.
"""

from __future__ import annotations

import os
import re
import zlib
from typing import Any

from jobsize.boundedjson import decode_text, decode_value
from jobsize.errors import ParseError

_SPACE = re.compile(r"\s*")
_GZIP_MAGIC = b"\x1f\x8b"
#: Most bytes a gzipped trace may inflate to.
MAX_INFLATED = 1 << 30


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


def decompress(data: bytes, source: object, limit: int | None = None) -> bytes:
    """``data`` inflated when it is gzip (all members), refusing more than ``limit`` bytes
    (default :data:`MAX_INFLATED`): a small damaged or hostile file must not fill memory."""
    if not data.startswith(_GZIP_MAGIC):
        return data
    limit = MAX_INFLATED if limit is None else limit
    out = bytearray()
    rest = data
    try:
        while rest.startswith(_GZIP_MAGIC):
            inflater = zlib.decompressobj(wbits=31)
            out += inflater.decompress(rest, limit + 1 - len(out))
            if len(out) > limit:
                raise ParseError(f"gzip data inflates to more than {limit:,} bytes",
                                 source=source)
            if not inflater.eof:
                raise ParseError("damaged gzip data (it ends early)", source=source)
            rest = inflater.unused_data.lstrip(b"\0")
    except zlib.error as exc:
        raise ParseError(f"damaged gzip data ({exc})", source=source) from None
    if rest:
        raise ParseError("damaged gzip data (trailing garbage)", source=source)
    return bytes(out)


def documents(data: bytes, source: object) -> list[tuple[Any, int]]:
    """The JSON values in ``data`` with the line each starts on (see jobsize.boundedjson)."""
    text = decode_text(data, source=source)
    out: list[tuple[Any, int]] = []
    pos, line = 0, 1
    while True:
        skip = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        line += text.count("\n", pos, skip)
        pos = skip
        if pos >= len(text):
            return out
        value, end = decode_value(text, pos, source=source)
        out.append((value, line))
        line += text.count("\n", pos, end)
        pos = end
