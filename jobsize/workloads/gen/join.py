"""Two tables that share a key, for a reduce-side join: users (small) and their orders (large).

``users.csv`` — ``user_id,name,country,signup_date``, one row per user, ids in order::

    u00000042,Kavo,DE,2023-03-09

``orders.csv`` — ``order_id,user_id,amount,order_date``, user ids drawn from a Zipf law over a
key space 5% larger than the user table, so a few users have very many orders, most have few or
none, and some orders name a user the table does not hold (an inner join drops them)::

    1187,u00000042,23.90,2024-01-17

The users table takes about an eighth of the requested bytes, the orders the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.dates import iso_days
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Ragged, Table
from jobsize.workloads.gen.skew import scattered, zipf
from jobsize.workloads.gen.text import vocabulary

USERS_SHARE = 0.125
UNKNOWN_USERS = 0.05
COUNTRIES = ("US", "IN", "BR", "DE", "GB", "FR", "JP", "ID", "MX", "IT", "ES", "CA", "KR", "TR",
             "NG", "PL", "AR", "NL", "VN", "PH", "EG", "AU", "SE", "ZA", "CO", "TH", "CH", "BE")
DAYS = 730
NAMES = 5000


def _user_id(ids: np.ndarray) -> list[ragged.Column]:
    return [ragged.constant(b"u", len(ids)), ragged.decimal(ids, width=8)]


def user_rows(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless chunks of user rows, ids counting from 0."""
    names = Table.of([w.capitalize() for w in vocabulary()[100 : 100 + NAMES]])
    countries, country_law, days = Table.of(COUNTRIES), zipf(len(COUNTRIES), 1.2), iso_days(DAYS)
    first = 0
    for n in chunk_rows():
        yield ragged.lines(
            [
                _user_id(np.arange(first, first + n)),
                names.take(rng.integers(0, NAMES, n)),
                countries.take(country_law.draw(rng, n)),
                days.take(rng.integers(0, DAYS, n)),
            ],
            separator=b",",
        )
        first += n


def order_rows(rng: np.random.Generator, key_space: int) -> Iterator[Ragged]:
    """Endless chunks of order rows whose user ids fall in ``[0, key_space)``."""
    law, user_of_rank, days = zipf(key_space, 0.9), scattered(key_space, rng), iso_days(DAYS)
    first = 1
    for n in chunk_rows():
        yield ragged.lines(
            [
                ragged.decimal(np.arange(first, first + n)),
                _user_id(user_of_rank[law.draw(rng, n)]),
                ragged.fixed_point(rng.lognormal(np.log(30.0), 0.9, n), 2),
                days.take(rng.integers(0, DAYS, n)),
            ],
            separator=b",",
        )
        first += n


def generate_join(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """``users.csv`` and ``orders.csv``, together about ``size_bytes`` (at least one row each)."""
    folder = check_request(directory, size_bytes, seed)
    rng = np.random.default_rng([seed, 0x701])
    users, orders = folder / "users.csv", folder / "orders.csv"
    users_budget = max(int(size_bytes * USERS_SHARE), 1)
    n_users = write_lines(users, users_budget, user_rows(rng))
    key_space = max(round(n_users * (1 + UNKNOWN_USERS)), n_users + 1)
    write_lines(orders, max(size_bytes - users_budget, 1), order_rows(rng, key_space))
    return [users, orders]
