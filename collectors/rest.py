"""A JSON-over-HTTP client for Hadoop's REST APIs (JobHistory Server, ResourceManager).

One :class:`RestClient` per server: a ``requests.Session`` per thread, each with a pooled
``HTTPAdapter`` whose urllib3 ``Retry`` repeats GETs with exponential backoff after connection
errors, read timeouts and 5xx answers. A response whose body breaks off or is not valid JSON
(a proxy cutting the stream, a server restarting mid-answer) is fetched again the same way.
SPNEGO (Kerberos) authentication is optional and needs the ``kerberos`` extra; TLS is verified
against the system's or a given CA bundle. Proxy variables (``HTTP(S)_PROXY``, ``NO_PROXY``)
and ``REQUESTS_CA_BUNDLE`` are honoured; ``.netrc`` is not read.

:class:`JsonView` reads fields of a decoded document with type checks whose errors name the URL
and the JSON path.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from jobsize.errors import ConfigError, ParseError, RemoteError

#: Statuses worth asking again: the server or a proxy in front of it is briefly unwell.
RETRY_STATUSES = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class HttpOptions:
    """How to talk to a server.

    ``timeout`` is (connect, read) seconds; ``retries`` the number of repeats after a failure
    (each of connection errors, read timeouts, 5xx answers and broken bodies); ``backoff`` the
    base of the exponential wait between them, in seconds; ``verify`` True, False or the path of
    a CA bundle; ``kerberos`` enables SPNEGO; ``pool`` the connections kept per host.
    """

    timeout: tuple[float, float] = (5.0, 60.0)
    retries: int = 5
    backoff: float = 0.5
    verify: bool | str = True
    kerberos: bool = False
    pool: int = 16


def spnego_auth() -> Any:
    """SPNEGO (Kerberos) authentication for requests, from the kerberos extra."""
    try:
        from requests_gssapi import OPTIONAL, HTTPSPNEGOAuth
    except ImportError:
        raise ConfigError("Kerberos (SPNEGO) needs the 'kerberos' extra: "
                          "pip install 'jobsize[kerberos]'") from None
    return HTTPSPNEGOAuth(mutual_authentication=OPTIONAL)


class RestClient:
    """GET JSON documents from one server, with pooling, retries and optional SPNEGO."""

    def __init__(self, base_url: str, options: HttpOptions | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.options = options or HttpOptions()
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

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            opts = self.options
            retry = Retry(total=opts.retries, connect=opts.retries, read=opts.retries,
                          status=opts.retries, other=0, backoff_factor=opts.backoff,
                          backoff_max=30.0, status_forcelist=RETRY_STATUSES,
                          allowed_methods=frozenset({"GET"}), raise_on_status=False,
                          respect_retry_after_header=True)
            adapter = HTTPAdapter(max_retries=retry, pool_connections=opts.pool,
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
        attempt = 0
        while True:
            try:
                return self._get_once(url, params)
            except _BrokenBody as exc:
                attempt += 1
                if attempt > self.options.retries:
                    raise RemoteError(f"{exc.reason} (after {attempt} tries)",
                                      source=exc.url) from None
                time.sleep(min(30.0, self.options.backoff * 2 ** (attempt - 1)))

    def _get_once(self, url: str, params: dict[str, Any] | None) -> Any:
        try:
            response = self._session().get(url, params=params, timeout=self.options.timeout)
        except (requests.exceptions.ChunkedEncodingError,
                requests.exceptions.ContentDecodingError) as exc:
            raise _BrokenBody(url, f"response broken off ({_short(exc)})") from None
        except requests.exceptions.SSLError as exc:
            raise RemoteError(f"TLS failure ({_short(exc)})", source=url) from None
        except requests.exceptions.RequestException as exc:
            raise RemoteError(f"request failed after retries ({_short(exc)})",
                              source=url) from None
        if response.status_code >= 400:
            raise RemoteError(f"HTTP {response.status_code} {response.reason}"
                              + _remote_message(response), source=response.url,
                              status=response.status_code)
        try:
            return json.loads(response.content)
        except (ValueError, RecursionError) as exc:
            raise _BrokenBody(response.url, f"not valid JSON ({_short(exc)})") from None


class _BrokenBody(Exception):
    def __init__(self, url: str, reason: str) -> None:
        super().__init__(reason)
        self.url, self.reason = url, reason


def _short(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= 160 else text[:157] + "..."


def _remote_message(response: requests.Response) -> str:
    """Hadoop's RemoteException message from an error body, if there is one."""
    try:
        message = response.json().get("RemoteException", {}).get("message")
    except (ValueError, AttributeError):
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
        return child.value

    def int(self, key: str, *, required: bool = True) -> int | None:
        child = self.get(key, required=required)
        value = child.value
        if value is None and not required:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= 2**63:
            raise self._fail(f"expected an integer, found {_kind(child.value)}", child.path)
        return value

    def number(self, key: str, *, required: bool = True) -> float | None:
        child = self.get(key, required=required)
        value = child.value
        if value is None and not required:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self._fail(f"expected a number, found {value!r}"[:120], child.path)
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
    return repr(value)[:60]
