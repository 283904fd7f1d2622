"""Web server access logs (Combined Log Format) made of user sessions with skewed users.

One line per request::

    10.3.20.4 - u0012345 [14/Jul/2023:09:21:07 +0000] "GET /item/4711 HTTP/1.1" 200 512 "-" "curl"

Traffic is a stream of sessions: sessions start as a Poisson process, belong to a user drawn
from a Zipf law (a few crawler-like users are very active, most users come rarely), hold a
geometric number of requests a few tens of seconds apart, and ask for pages drawn from a Zipf
law. Lines are in time order within each chunk of the file, as a server's log rotated often.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from jobsize.workloads.gen import ragged
from jobsize.workloads.gen.dates import epoch_seconds, log_days
from jobsize.workloads.gen.output import check_request, chunk_rows, write_lines
from jobsize.workloads.gen.ragged import Ragged, Table
from jobsize.workloads.gen.skew import scattered, zipf
from jobsize.workloads.gen.text import word

USERS = 200_000
PAGES = 30_000
REQUESTS_PER_SESSION = 8.0
SECONDS_BETWEEN_SESSIONS = 1.5
SECONDS_BETWEEN_REQUESTS = 40.0
LOG_DAYS = 3650  # calendar table; a log spans days to weeks even at gigabytes

STATUS = (b"200", b"304", b"404", b"500")
STATUS_P = (0.90, 0.05, 0.04, 0.01)
AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "curl/8.4.0",
)


@functools.cache
def pages() -> tuple[str, ...]:
    """The site's pages, most requested first (fixed for every seed)."""
    kinds = ("/item/{i}", "/search?q={w}", "/category/{w}", "/item/{i}/reviews", "/user/{w}/feed")
    out = ["/", "/index.html", "/login", "/cart", "/checkout"]
    i = 0
    while len(out) < PAGES:
        out.append(kinds[i % len(kinds)].format(i=1000 + i, w=word(i)))
        i += 1
    return tuple(out)


def _tables() -> dict[str, Table]:
    return {
        "pages": Table.of(pages()),
        "agents": Table.of(AGENTS),
        "status": Table.of(STATUS),
        "methods": Table.of(("GET", "POST")),
    }


def _ip(user: np.ndarray) -> list[ragged.Column]:
    # Each user keeps one address, derived by a multiplicative hash of the user id.
    mixed = (user.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    octets = [(mixed >> np.uint64(shift)) & np.uint64(255) for shift in (24, 16, 8, 0)]
    columns: list[ragged.Column] = [ragged.decimal(octets[0].astype(np.int64) % 223 + 1)]
    for octet in octets[1:]:
        columns += [ragged.constant(b".", len(user)), ragged.decimal(octet.astype(np.int64))]
    return columns


def _timestamp(seconds: np.ndarray, days: Table) -> list[ragged.Column]:
    day, second = np.divmod(seconds - epoch_seconds(), 86400)
    hour, rest = np.divmod(second, 3600)
    minute, sec = np.divmod(rest, 60)
    n = len(seconds)
    colon = ragged.constant(b":", n)
    return [
        ragged.constant(b"[", n), days.take(np.minimum(day, len(days) - 1)), colon,
        ragged.decimal(hour, 2), colon, ragged.decimal(minute, 2), colon,
        ragged.decimal(sec, 2), ragged.constant(b" +0000]", n),
    ]


def _sessions(
    rng: np.random.Generator, n_sessions: int, clock: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """Per request: session index and time in seconds; and the start of the last session."""
    starts = clock + np.cumsum(rng.exponential(SECONDS_BETWEEN_SESSIONS, n_sessions))
    sizes = rng.geometric(1.0 / REQUESTS_PER_SESSION, n_sessions)
    session = np.repeat(np.arange(n_sessions), sizes)
    gaps = rng.exponential(SECONDS_BETWEEN_REQUESTS, len(session))
    gaps[np.cumsum(sizes) - sizes] = 0.0  # a session's first request is at its start
    elapsed = np.cumsum(gaps)
    elapsed -= np.repeat(elapsed[np.cumsum(sizes) - sizes], sizes)
    return session, starts[session] + elapsed, float(starts[-1])


def log_lines(rng: np.random.Generator) -> Iterator[Ragged]:
    """Endless chunks of log lines."""
    tables = _tables()
    days = log_days(LOG_DAYS)
    user_of_rank = scattered(USERS, rng)
    user_law, page_law, agent_law = zipf(USERS, 1.1), zipf(PAGES, 1.0), zipf(len(AGENTS), 1.0)
    clock = float(epoch_seconds(180))
    for rows in chunk_rows():
        n_sessions = max(int(rows / REQUESTS_PER_SESSION), 1)
        session, when, clock = _sessions(rng, n_sessions, clock)
        order = np.argsort(when, kind="stable")
        session, when = session[order], when[order].astype(np.int64)
        user = user_of_rank[user_law.draw(rng, n_sessions)][session]
        n = len(session)
        status = rng.choice(len(STATUS), n, p=STATUS_P)
        size = np.rint(rng.lognormal(8.0, 1.2, n)).astype(np.int64)
        size[status == 1] = 0  # 304 Not Modified has no body
        size[status >= 2] //= 20  # error pages are small
        space, quote = ragged.constant(b" ", n), ragged.constant(b'"', n)
        yield ragged.lines(
            [
                _ip(user),
                [ragged.constant(b"- u", n), ragged.decimal(user, width=7)],
                _timestamp(when, days),
                [quote, tables["methods"].take((rng.random(n) < 0.07).astype(np.int64)), space,
                 tables["pages"].take(page_law.draw(rng, n)),
                 ragged.constant(b' HTTP/1.1"', n)],
                tables["status"].take(status),
                ragged.decimal(size),
                [ragged.constant(b'"-" "', n), tables["agents"].take(agent_law.draw(rng, n)),
                 quote],
            ],
            separator=b" ",
        )


def generate_weblog(directory: Path, size_bytes: int, seed: int) -> list[Path]:
    """One file ``access.log`` of about ``size_bytes``."""
    folder = check_request(directory, size_bytes, seed)
    path = folder / "access.log"
    write_lines(path, size_bytes, log_lines(np.random.default_rng([seed, 0x106])))
    return [path]
