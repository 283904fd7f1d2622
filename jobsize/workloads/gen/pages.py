"""Crawled web pages, one whole page per line: an input of very long records.

Each line is ``http://<site>/<section>/<n>\\t<text>``: a page of Zipf text over the vocabulary
of :mod:`jobsize.workloads.gen.text`, lower-case words separated by spaces, about one in a
hundred written as a link marker ``[[word]]``. Page lengths in words are log-normal (median
:data:`MEDIAN_WORDS`, so a page is some 100 KB, and a few are ten times longer), and pages belong to
:data:`SITES` sites drawn from a Zipf law::

    http://www.vokari.com/fena/17\\tbe ka [[tobi]] mu ...
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen.output import check_request, write_lines
from jobsize.workloads.gen.ragged import Ragged, Table
from jobsize.workloads.gen.skew import zipf
from jobsize.workloads.gen.text import VOCABULARY_SIZE, ZIPF_EXPONENT, vocabulary, word

MEDIAN_WORDS = 15_000
SIGMA = 0.8
MIN_WORDS, MAX_WORDS = 200, 200_000
LINK_PROBABILITY = 0.01
SITES = 300
SECTIONS = 50


@functools.cache
def _tokens() -> Table:
    words = vocabulary(VOCABULARY_SIZE)
    return Table.of([w + " " for w in words] + [f"[[{w}]] " for w in words])


def page_lines(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless pages, one per chunk (a page is already a large record)."""
    law, site_law = zipf(VOCABULARY_SIZE, ZIPF_EXPONENT), zipf(SITES, 1.0)
    tokens = _tokens()
    number = 0
    while True:
        n = int(np.clip(rng.lognormal(np.log(MEDIAN_WORDS), SIGMA), MIN_WORDS, MAX_WORDS))
        index = law.draw(rng, n) + VOCABULARY_SIZE * (rng.random(n) < LINK_PROBABILITY)
        column = tokens.take(index)
        text = column.cells[column.valid].tobytes()[:-1]  # no space after the last word
        site = int(site_law.draw(rng, 1)[0])
        section = int(rng.integers(SECTIONS))
        url = f"http://www.{word(500 + site)}.com/{word(3000 + section)}/{number}"
        line = url.encode() + b"\t" + text + b"\n"
        number += 1
        yield Ragged(np.frombuffer(line, dtype=np.uint8), np.array([len(line)]))


def generate_pages(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``pages.tsv`` of about ``size_bytes`` (whole pages)."""
    folder = check_request(directory, size_bytes, seed)
    path = folder / "pages.tsv"
    write_lines(path, size_bytes, page_lines(np.random.default_rng([seed, 0x9A6E])))
    return [path]
