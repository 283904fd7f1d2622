"""A JSON-over-HTTP client for Hadoop's REST APIs (JobHistory Server, ResourceManager).

One :class:`RestClient` per server: a ``requests.Session`` per thread, each with a pooled
``HTTPAdapter``. Every GET goes through :func:`jobsize.fetch.get`: a deadline per attempt that
covers the whole body, a cap on the body's size, retries with exponential backoff after
connection errors, timeouts, 429/5xx answers and bodies that break off or are not valid JSON,
and a server's Retry-After honoured up to the timeout. SPNEGO (Kerberos) authentication is
optional and needs the ``kerberos`` extra; TLS is verified against the system's or a given CA
bundle. Proxy variables (``HTTP(S)_PROXY``, ``NO_PROXY``) and ``REQUESTS_CA_BUNDLE`` are
honoured; ``.netrc`` is not read.

:class:`JsonView` reads fields of a decoded document with type checks whose errors name the URL
and the JSON path.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import requests
from requests.adapters import HTTPAdapter

from jobsize.boundedjson import LONG, loads
from jobsize.errors import ConfigError, ParseError, RemoteError
from jobsize.fetch import FetchPolicy, Reply, get


@dataclass(frozen=True)
class HttpOptions:
    """How to talk to a server.

    ``timeout`` is (connect, total) seconds: the total bounds one attempt from connecting to
    the last byte of the answer, and every wait between attempts; ``retries`` the number of
    repeats after a failure (connection errors, timeouts, 429/5xx answers and broken bodies);
    ``backoff`` the base of the exponential wait between them, in seconds; ``verify`` True,
    False or the path of a CA bundle; ``kerberos`` enables SPNEGO; ``pool`` the connections
    kept per host; ``max_body`` the largest answer accepted, in bytes.
    """

    timeout: tuple[float, float] = (5.0, 60.0)
    retries: int = 5
    backoff: float = 0.5
    verify: bool | str = True
    kerberos: bool = False
    pool: int = 16
    max_body: int = 256 << 20

    def policy(self) -> FetchPolicy:
        connect, total = self.timeout
        return FetchPolicy(timeout=total, connect=connect, retries=self.retries,
                           backoff=self.backoff, max_body=self.max_body)


def spnego_auth() -> Any:
    """SPNEGO (Kerberos) authentication for requests, from the kerberos extra."""
    try:
        from requests_gssapi import OPTIONAL, HTTPSPNEGOAuth
    except ImportError:
        raise ConfigError("Kerberos (SPNEGO) needs the 'kerberos' extra: "
                          "pip install 'jobsize[kerberos]'") from None
    return HTTPSPNEGOAuth(mutual_authentication=OPTIONAL)


class RestClient:
    """GET JSON documents from one server, with pooling, bounded retries and optional SPNEGO.

    Setting :attr:`cancel` makes requests under way stop at their next read or wait.
    """

    def __init__(self, base_url: str, options: HttpOptions | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.options = options or HttpOptions()
        self.policy = self.options.policy()
        verify = self.options.verify
        if isinstance(verify, str) and not Path(verify).exists():
            raise ConfigError(f"CA bundle not found: {verify}")
        self._auth = spnego_auth() if self.options.kerberos else None
        # The environment's proxy and CA-bundle settings, read once: requests would rescan
        # the whole environment on every request, a large share of a request's CPU time.
        self._proxies = requests.utils.get_environ_proxies(self.base_url)
        if verify is True:
            verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get(
                "CURL_CA_BUNDLE") or True
        self._verify = verify
        self._local = threading.local()
        self.cancel = threading.Event()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            opts = self.options
            adapter = HTTPAdapter(max_retries=0, pool_connections=opts.pool,
                                  pool_maxsize=opts.pool)
            session = requests.Session()
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            session.headers["Accept"] = "application/json"
            session.trust_env = False
            session.proxies = dict(self._proxies)
            session.verify = self._verify
            session.auth = self._auth
            self._local.session = session
        return session

    def url(self, path: str) -> str:
        return urljoin(self.base_url, path.lstrip("/"))

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path`` and decode its JSON, retrying broken bodies; errors name the URL."""
        url = self.url(path)
        reply = get(self._session(), url, self.policy, params=params, cancel=self.cancel,
                    decode=_json_or_reply)
        if isinstance(reply, Reply):
            raise RemoteError(f"HTTP {reply.status} {reply.reason}".rstrip()
                              + _remote_message(reply), source=reply.url, status=reply.status)
        return reply.value


class _Json:
    def __init__(self, value: Any) -> None:
        self.value = value


def _json_or_reply(reply: Reply) -> _Json | Reply:
    if reply.status >= 300:
        return reply
    return _Json(loads(reply.content, source=reply.url))


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= 160 else text[:157] + "..."


def _remote_message(reply: Reply) -> str:
    """Hadoop's RemoteException message from an error body, if there is one."""
    try:
        message = loads(reply.content, source=reply.url).get("RemoteException", {}).get(
            "message")
    except (ParseError, AttributeError):
        return ""
    return f": {_short(Exception(message))}" if isinstance(message, str) else ""


class JsonView:
    """Typed access into a decoded JSON document; errors name ``source`` and the JSON path."""

    def __init__(self, value: Any, source: object, path: str = "$") -> None:
        self.value, self.source, self.path = value, source, path

    def _fail(self, reason: str, path: str | None = None) -> ParseError:
        return ParseError(reason, source=self.source, where=path or self.path)

    def get(self, key: str, *, required: bool = True) -> JsonView:
        if not isinstance(self.value, dict):
            raise self._fail(f"expected an object, found {_kind(self.value)}")
        path = f"{self.path}.{key}"
        if key not in self.value and required:
            raise self._fail("missing", path)
        return JsonView(self.value.get(key), self.source, path)

    def items(self, key: str) -> list[JsonView]:
        """Elements of the list under ``key``; Hadoop's JSON gives a lone element as an object
        and an empty list as null or a missing key."""
        if self.value is None:
            return []
        child = self.get(key, required=False)
        if child.value is None:
            return []
        if isinstance(child.value, dict):
            return [child]
        if not isinstance(child.value, list):
            raise self._fail(f"expected a list, found {_kind(child.value)}", child.path)
        return [JsonView(v, self.source, f"{child.path}[{i}]") for i, v in enumerate(child.value)]

    def str(self, key: str, *, required: bool = True) -> str | None:
        child = self.get(key, required=required)
        if child.value is None and not required:
            return None
        if not isinstance(child.value, str):
            raise self._fail(f"expected a string, found {_kind(child.value)}", child.path)
        try:
            child.value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: valid JSON, not storable text
            raise self._fail(f"expected UTF-8 text, found {_kind(child.value)}",
                             child.path) from None
        return child.value

    def int(self, key: str, *, required: bool = True) -> int | None:
        child = self.get(key, required=required)
        value = child.value
        if value is None and not required:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or not -LONG <= value < LONG:
            raise self._fail(f"expected an integer within ±2^63, found {_kind(child.value)}",
                             child.path)
        return value

    def number(self, key: str, *, required: bool = True) -> float | None:
        child = self.get(key, required=required)
        value = child.value
        if value is None and not required:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or (
                isinstance(value, int) and not -LONG <= value < LONG):
            raise self._fail(f"expected a number, found {_kind(value)}", child.path)
        if not math.isfinite(value):
            raise self._fail(f"expected a finite number, found {_kind(value)}", child.path)
        return float(value)

    def bool(self, key: str, *, required: bool = True) -> bool | None:
        child = self.get(key, required=required)
        if child.value is None and not required:
            return None
        if not isinstance(child.value, bool):
            raise self._fail(f"expected a boolean, found {_kind(child.value)}", child.path)
        return child.value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    if isinstance(value, int) and not -LONG <= value < LONG:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, str):
        value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return repr(value)[:60]
