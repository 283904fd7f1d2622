"""Zipf text: lines of words whose frequencies follow a Zipf law, like natural language.

The vocabulary is fixed (the same for every seed, so a grep pattern means the same thing on
every input): word ``r`` spells ``r`` in a bijective base of 85 consonant-vowel syllables, so
frequent words are short, as in real text. The seed only chooses which words are drawn and where
lines end. A line starts with a capital letter, words are separated by spaces, some by commas,
and a line ends with a full stop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Column, Ragged, Table
from jobsize.workloads.gen.skew import zipf

CONSONANTS = "bdfghjklmnprstvwz"
VOCABULARY_SIZE = 100_000
ZIPF_EXPONENT = 1.0
COMMA_PROBABILITY = 0.06


@functools.cache
def syllables() -> tuple[str, ...]:
    """The 85 syllables (consonant + vowel) in a fixed, mixed order."""
    plain = [c + v for c in CONSONANTS for v in "aeiou"]
    order = np.random.default_rng(1).permutation(len(plain))
    return tuple(plain[i] for i in order)


def word(rank: int) -> str:
    """The word of 0-based frequency rank ``rank`` (bijective numeration over syllables)."""
    table = syllables()
    base = len(table)
    parts = []
    rank += 1
    while rank:
        rank, digit = divmod(rank - 1, base)
        parts.append(table[digit])
    return "".join(reversed(parts))


@functools.cache
def vocabulary(size: int = VOCABULARY_SIZE) -> tuple[str, ...]:
    """The ``size`` most frequent words, most frequent first."""
    return tuple(word(r) for r in range(size))


@functools.cache
def _token_table(size: int) -> Table:
    # Three spellings of each word: inside a line, before a comma, and ending the line.
    words = vocabulary(size)
    return Table.of(
        [w + " " for w in words] + [w + ", " for w in words] + [w + ".\n" for w in words]
    )


def text_lines(
    rng: np.random.Generator,
    words_per_line: float,
    prefix: Callable[[int, int], Column] | None = None,
) -> Iterator[Ragged]:
    """Endless chunks of text lines (each ending in ``.\\n``), about ``words_per_line`` long.

    ``prefix(first, n)``, when given, is a column put before the text of lines ``first`` to
    ``first + n - 1`` (counted from the start of the file), such as a document id.
    """
    law = zipf(VOCABULARY_SIZE, ZIPF_EXPONENT)
    table = _token_table(VOCABULARY_SIZE)
    first_line = 0
    for rows in chunk_rows():
        n = max(int(rows * words_per_line), 1)
        ranks = law.draw(rng, n)
        line_end = rng.random(n) < 1.0 / words_per_line
        line_end[-1] = True
        comma = ~line_end & (rng.random(n) < COMMA_PROBABILITY)
        index = ranks + VOCABULARY_SIZE * (comma + 2 * line_end)
        tokens = table.take(index)
        starts = np.flatnonzero(np.concatenate(([True], line_end[:-1])))
        # Capitalise each line's first letter (all generated letters are lower-case ASCII).
        tokens.cells[starts, 0] -= 32
        line_lengths = np.add.reduceat(np.take(table.lengths, index), starts)
        cells, valid = tokens.cells, tokens.valid
        if prefix is not None:
            # The prefix gets columns of its own, valid in each line's first token row only.
            head = prefix(first_line, len(starts))
            width = head.cells.shape[1]
            cells = np.concatenate((np.zeros((n, width), dtype=np.uint8), cells), axis=1)
            valid = np.concatenate((np.zeros((n, width), dtype=bool), valid), axis=1)
            cells[starts, :width] = head.cells
            valid[starts, :width] = head.valid
            line_lengths += head.valid.sum(axis=1, dtype=np.int64)
        first_line += len(starts)
        yield Ragged(cells[valid], line_lengths)


def generate_text(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``text.txt`` of Zipf text, lines of about 12 words."""
    folder = check_request(directory, size_bytes, seed)
    rng = np.random.default_rng([seed, 0x7E47])
    path = folder / "text.txt"
    write_lines(path, size_bytes, text_lines(rng, 12.0))
    return [path]


def document_id(first: int, n: int) -> Column:
    """``doc<8 digits>\\t`` for documents ``first`` to ``first + n - 1``."""
    ids = ragged.decimal(np.arange(first, first + n), width=8)
    return ragged.concat_columns([ragged.constant(b"doc", n), ids, ragged.constant(b"\t", n)])


def generate_documents(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``documents.tsv``: ``doc<id>\\t<text of about 40 words>`` per line."""
    folder = check_request(directory, size_bytes, seed)
    rng = np.random.default_rng([seed, 0xD0C5])
    path = folder / "documents.tsv"
    write_lines(path, size_bytes, text_lines(rng, 40.0, document_id))
    return [path]
