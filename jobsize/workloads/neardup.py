"""Near-duplicate documents: all pairs compared inside each block — a superlinear reduce.

``map [BLOCKS]`` puts each document (``doc<id>\\t<text>``) in one of ``BLOCKS`` (default
:data:`BLOCKS`) blocks by a CRC-32 of its id — the blocking step of entity resolution — and
emits ``block\\tid\\ttext``. ``reduce [THRESHOLD]`` compares every pair of documents of a block
by the Jaccard similarity of their word sets and writes ``id_a\\tid_b\\tsimilarity`` (ids in
order, similarity to 4 places) for each pair at or above ``THRESHOLD`` (default
:data:`THRESHOLD`). A block of g documents costs g(g-1)/2 comparisons: with a fixed number of
blocks, twice the input is about four times the reduce work.
"""

from __future__ import annotations

import re
import sys
import zlib
from collections.abc import Sequence

from jobsize.workloads.streaming import UsageError, count, grouped, int_arg, records, run

BLOCKS = 2048
THRESHOLD = 0.2
_WORD = re.compile(r"[a-z0-9]+")


def block(doc_id: str, blocks: int = BLOCKS) -> int:
    return zlib.crc32(doc_id.encode()) % blocks


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def mapper(args: Sequence[str]) -> None:
    blocks = int_arg(args, 0, "BLOCKS", BLOCKS)
    if blocks < 1:
        raise UsageError(f"BLOCKS must be at least 1, got {blocks}")
    write = sys.stdout.write
    malformed = 0
    for line in records():
        doc_id, sep, text = line.partition("\t")
        if not sep or not doc_id:
            malformed += 1
            continue
        write(f"{block(doc_id, blocks):05d}\t{doc_id}\t{text}\n")
    count("MALFORMED_RECORDS", malformed)


def _threshold(args: Sequence[str]) -> float:
    if not args:
        return THRESHOLD
    try:
        value = float(args[0])
    except ValueError:
        raise UsageError(f"THRESHOLD must be a number, got {args[0]!r}") from None
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"THRESHOLD must be between 0 and 1, got {value}")
    return value


def reducer(args: Sequence[str]) -> None:
    threshold = _threshold(args)
    write = sys.stdout.write
    for _, values in grouped():
        docs = []
        for value in values:
            doc_id, _, text = value.partition("\t")
            docs.append((doc_id, frozenset(_WORD.findall(text.lower()))))
        docs.sort()
        for i, (id_a, words_a) in enumerate(docs):
            for id_b, words_b in docs[i + 1 :]:
                similarity = jaccard(words_a, words_b)
                if similarity >= threshold:
                    write(f"{id_a}\t{id_b}\t{similarity:.4f}\n")


if __name__ == "__main__":
    run({"map": mapper, "reduce": reducer})
