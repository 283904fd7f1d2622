"""One HTTP GET within bounds, as every jobsize client (JobHistory Server, ResourceManager,
WebHDFS) makes it.

- **A deadline per attempt**: connecting, waiting for the answer and reading the *whole* body
  must end within ``timeout`` seconds. A socket timeout alone bounds each read, so a body
  trickled one byte at a time would never end; here every read is given only the time left.
- **A cap on the body**: more than ``max_body`` bytes (after decompression) is an error, not a
  memory blow-up.
- **Retries** after connection errors, timeouts, broken bodies and 429/5xx answers, with
  exponential backoff; a ``Retry-After`` header is honoured up to ``max_wait`` (by default the
  timeout), never longer, so ``--timeout 2 --retries 3`` bounds a request to seconds whatever
  the server asks.
- **Cancellation**: a set ``cancel`` event ends waits at once and reads at the next chunk, so
  Ctrl-C does not wait for slow servers.

Every failure is a :class:`~jobsize.errors.RemoteError` naming the URL.
"""

from __future__ import annotations

import email.utils
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import requests

from jobsize.errors import ParseError, RemoteError

#: Answers worth asking again: the server or a proxy in front of it is briefly unwell or busy.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_CHUNK = 64 * 1024
T = TypeVar("T")


@dataclass(frozen=True)
class FetchPolicy:
    """Bounds of one GET: see the module's description. Times in seconds."""

    timeout: float = 60.0
    connect: float = 10.0
    retries: int = 5
    backoff: float = 0.5
    max_wait: float | None = None  # longest wait between attempts; None: ``timeout``
    max_body: int = 256 << 20

    @property
    def wait_cap(self) -> float:
        return self.timeout if self.max_wait is None else self.max_wait


@dataclass(frozen=True)
class Reply:
    """A complete answer: status, final URL, headers and the whole body."""

    status: int
    reason: str
    url: str
    headers: Mapping[str, str]
    content: bytes


class Cancelled(Exception):
    """The caller's cancel event was set while a request was under way."""


class _Retry(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, detail: str = "") -> None:
        super().__init__(reason)
        self.reason, self.retry_after, self.detail = reason, retry_after, detail


def get(
    session: requests.Session,
    url: str,
    policy: FetchPolicy,
    *,
    params: Mapping[str, Any] | None = None,
    auth: Any = None,
    redirects: bool = True,
    cancel: threading.Event | None = None,
    decode: Callable[[Reply], T] | None = None,
    shown: str | None = None,
) -> Reply | T:
    """GET ``url`` within ``policy``; with ``decode``, its result on a 2xx answer.

    ``decode`` raising :class:`~jobsize.errors.ParseError` marks a broken body (a proxy cut
    it, a server restarted mid-answer): it is fetched again like a timeout. Answers with other
    statuses are returned as they are, those of :data:`RETRY_STATUSES` after the last retry.
    ``shown`` is the URL as messages name it (e.g. with a token masked).
    """
    shown = shown or url
    attempt = 0
    while True:
        _check(cancel)
        reply = None
        try:
            reply = _attempt(session, url, policy, params, auth, redirects, cancel)
            if reply.status in RETRY_STATUSES:
                raise _Retry(f"HTTP {reply.status} {reply.reason}".rstrip(),
                             _retry_after(reply.headers.get("Retry-After")))
            if decode is None or not 200 <= reply.status < 300:
                return reply
            try:
                return decode(reply)
            except ParseError as exc:
                raise _Retry("broken answer", detail=exc.reason) from None
        except _Retry as failure:
            if attempt >= policy.retries:
                if reply is not None and reply.status in RETRY_STATUSES:
                    return reply  # the caller names the server's own message
                detail = f" ({failure.detail})" if failure.detail else ""
                raise RemoteError(f"{failure.reason} after {attempt + 1} attempts{detail}",
                                  source=shown) from None
            wait = max(policy.backoff * 2**attempt, failure.retry_after or 0.0)
            _sleep(min(wait, policy.wait_cap), cancel)
            attempt += 1


def _attempt(session: requests.Session, url: str, policy: FetchPolicy,
             params: Mapping[str, Any] | None, auth: Any, redirects: bool,
             cancel: threading.Event | None) -> Reply:
    deadline = time.monotonic() + policy.timeout
    try:
        response = session.get(url, params=params, auth=auth, stream=True,
                               allow_redirects=redirects,
                               timeout=(min(policy.connect, policy.timeout), policy.timeout))
    except requests.exceptions.SSLError as exc:
        raise RemoteError(f"TLS failure ({_short(exc)})", source=url) from None
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
        raise _Retry("cannot reach the server", detail=_short(exc)) from None
    except requests.exceptions.RequestException as exc:
        raise RemoteError(f"request failed ({_short(exc)})", source=url) from None
    try:
        content = _body(response, deadline, policy, cancel)
    finally:
        response.close()
    return Reply(response.status_code, response.reason or "", response.url,
                 response.headers, content)


def _body(response: requests.Response, deadline: float, policy: FetchPolicy,
          cancel: threading.Event | None) -> bytes:
    """The whole body, read chunk by chunk with only the time left for each read."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > policy.max_body:
        raise RemoteError(f"the answer is {int(declared):,} bytes, more than the "
                          f"{policy.max_body:,} accepted", source=response.url)
    raw = response.raw
    parts: list[bytes] = []
    size = 0
    try:
        while True:
            _check(cancel)
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Retry(f"the answer took longer than {policy.timeout:g} s")
            _set_timeout(raw, left)
            chunk = raw.read1(_CHUNK, decode_content=True)
            if not chunk:
                break
            size += len(chunk)
            if size > policy.max_body:
                raise RemoteError(f"the answer is more than {policy.max_body:,} bytes",
                                  source=response.url)
            parts.append(chunk)
    except _Retry:
        raise
    except (requests.exceptions.RequestException, OSError, ValueError) as exc:
        # urllib3's ProtocolError, ReadTimeoutError and DecodeError are among these
        raise _Retry("the answer broke off", detail=_short(exc)) from None
    except Exception as exc:
        if type(exc).__module__.startswith(("urllib3", "http")):
            raise _Retry("the answer broke off", detail=_short(exc)) from None
        raise
    return b"".join(parts)


def _set_timeout(raw: Any, seconds: float) -> None:
    """Give the next read of the connection's socket at most ``seconds``."""
    connection = getattr(raw, "_connection", None) or getattr(raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None if unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value[:12])
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _sleep(seconds: float, cancel: threading.Event | None) -> None:
    if cancel is None:
        time.sleep(seconds)
    elif cancel.wait(seconds):
        raise Cancelled


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ") or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."
