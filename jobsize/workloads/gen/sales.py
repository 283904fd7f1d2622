"""A sales table in CSV with skewed keys: the input of the relational workloads.

Columns (no header): ``order_id,date,region,product,customer,quantity,price``::

    1,2023-07-14,Gohava,p004711,c0081234,2,17.49

Regions, products and customers follow Zipf laws of decreasing skew (40 regions with a few
dominant ones, 50 000 products, a million customers), so group-by jobs see a handful of huge
groups and a long tail of small ones. A product has one price; quantities are geometric.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.dates import iso_days
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Ragged, Table
from jobsize.workloads.gen.skew import scattered, zipf
from jobsize.workloads.gen.text import word

#: Column names, in file order (the programs take column numbers, 0-based).
COLUMNS = ("order_id", "date", "region", "product", "customer", "quantity", "price")
REGIONS = 40
PRODUCTS = 50_000
CUSTOMERS = 1_000_000
DAYS = 730


@functools.cache
def region_names() -> tuple[str, ...]:
    """The fixed region names, most frequent first."""
    return tuple(word(400 + 37 * i).capitalize() for i in range(REGIONS))


def _prefixed_ids(prefix: str, count: int, width: int) -> Table:
    return Table.of([f"{prefix}{i:0{width}d}" for i in range(count)])


@functools.cache
def _product_ids() -> Table:
    return _prefixed_ids("p", PRODUCTS, 6)


def _prices(rng: np.random.Generator) -> Table:
    cents = np.maximum(np.rint(rng.lognormal(np.log(2000), 1.0, PRODUCTS)), 1).astype(np.int64)
    return Table.of([f"{c // 100}.{c % 100:02d}" for c in cents.tolist()])


def sales_rows(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless chunks of sales rows, order ids counting from 1."""
    regions = Table.of(region_names())
    products, prices = _product_ids(), _prices(rng)
    product_of_rank = scattered(PRODUCTS, rng)
    customer_of_rank = scattered(CUSTOMERS, rng)
    days = iso_days(DAYS)
    region_law, product_law = zipf(REGIONS, 1.3), zipf(PRODUCTS, 1.1)
    customer_law = zipf(CUSTOMERS, 0.8)
    first = 1
    for n in chunk_rows():
        product = product_of_rank[product_law.draw(rng, n)]
        customer = customer_of_rank[customer_law.draw(rng, n)]
        quantity = np.minimum(rng.geometric(0.45, n), 99)
        yield ragged.lines(
            [
                ragged.decimal(np.arange(first, first + n)),
                days.take(rng.integers(0, DAYS, n)),
                regions.take(region_law.draw(rng, n)),
                products.take(product),
                [ragged.constant(b"c", n), ragged.decimal(customer, width=7)],
                ragged.decimal(quantity),
                prices.take(product),
            ],
            separator=b",",
        )
        first += n


def generate_sales(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``sales.csv`` of about ``size_bytes``."""
    folder = check_request(directory, size_bytes, seed)
    path = folder / "sales.csv"
    write_lines(path, size_bytes, sales_rows(np.random.default_rng([seed, 0x5A1E])))
    return [path]
