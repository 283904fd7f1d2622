"""A small WebHDFS client: the three read operations the sampler needs.

``GETFILESTATUS`` and ``LISTSTATUS`` go to the NameNode; ``OPEN`` with ``offset`` and
``length`` is answered by the NameNode with a ``307`` redirect to a DataNode that serves the
bytes. Authentication is Hadoop's pseudo authentication (``user.name``) or a delegation token
(``delegation``); a ``requests`` auth object (e.g. SPNEGO from requests-gssapi) may be given too.

Input URLs take three forms::

    webhdfs://namenode:9870/data/logs        (swebhdfs:// for HTTPS)
    http://namenode:9870/webhdfs/v1/data/logs
    https://namenode:9871/webhdfs/v1/data/logs?user.name=alice

Failures become :class:`jobsize.errors.RemoteError`: the NameNode's ``RemoteException`` JSON is
shown as ``HTTP 404 FileNotFoundException: File does not exist: /data/x`` after the URL (with any
delegation token masked). Every request is a GET made by :func:`jobsize.fetch.get`: connection
errors, timeouts and 429/5xx answers are retried with exponential backoff, ``timeout`` bounds
each attempt including its whole body, and a Retry-After is honoured up to the timeout.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit

import requests

from jobsize.boundedjson import loads
from jobsize.errors import InputError, ParseError, RemoteError
from jobsize.fetch import FetchPolicy, Reply, get

#: Default NameNode HTTP(S) ports of Hadoop 3 (``dfs.namenode.http(s)-address``).
DEFAULT_PORTS = {"webhdfs": 9870, "swebhdfs": 9871}
PREFIX = "/webhdfs/v1"
#: Largest JSON answer accepted (a listing of a very large directory).
MAX_ANSWER = 256 << 20
_OPEN_SLACK = 1 << 16
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_HOPS = 5


def is_webhdfs_url(text: str) -> bool:
    """Whether an input names a WebHDFS location rather than a local path."""
    return urlsplit(text).scheme.lower() in {"webhdfs", "swebhdfs", "http", "https"}


@dataclass(frozen=True)
class FileStatus:
    """One entry of a WebHDFS ``FileStatus`` answer."""

    path: str  # HDFS path, absolute
    kind: str  # "FILE", "DIRECTORY" or "SYMLINK"
    length: int
    block_size: int


@dataclass
class WebHdfs:
    """A NameNode's WebHDFS endpoint, e.g. ``WebHdfs("http://nn:9870", user="alice")``.

    ``display`` is how paths are shown in split names and messages: ``webhdfs://nn:9870`` for
    inputs given that way, else the HTTP base with ``/webhdfs/v1``.
    """

    base: str
    user: str | None = None
    delegation: str | None = None
    auth: Any = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5
    display: str = ""
    session: requests.Session = field(default_factory=requests.Session, repr=False)

    def __post_init__(self) -> None:
        self.base = self.base.rstrip("/")
        if not self.display:
            self.display = self.base + PREFIX

    # -- public operations ------------------------------------------------------------------

    def name(self, path: str) -> str:
        """How ``path`` is shown to the user."""
        return self.display + path

    def status(self, path: str) -> FileStatus:
        """``GETFILESTATUS`` of one path."""
        body = self._json(path, "GETFILESTATUS")
        entry = _field(body, ("FileStatus",), self._url(path, "GETFILESTATUS"))
        return self._file_status(entry, path, self._url(path, "GETFILESTATUS"))

    def list(self, path: str) -> list[FileStatus]:
        """``LISTSTATUS`` of a directory, in the NameNode's order (by name)."""
        url = self._url(path, "LISTSTATUS")
        body = self._json(path, "LISTSTATUS")
        entries = _field(body, ("FileStatuses", "FileStatus"), url)
        if not isinstance(entries, list):
            raise RemoteError("not a WebHDFS answer: FileStatuses.FileStatus is not a list",
                              source=url)
        base = path.rstrip("/")
        out = []
        for i, entry in enumerate(entries):
            suffix = entry.get("pathSuffix") if isinstance(entry, dict) else None
            if not isinstance(suffix, str) or not suffix:
                raise RemoteError("not a WebHDFS answer: entry without pathSuffix",
                                  source=url, where=f"FileStatuses.FileStatus[{i}]")
            out.append(self._file_status(entry, f"{base}/{suffix}", url, i))
        return out

    def open(self, path: str, offset: int, length: int) -> bytes:
        """``OPEN`` ``length`` bytes at ``offset``, following the redirect to a DataNode.

        Returns fewer bytes only at the end of the file.
        """
        if length <= 0:
            return b""
        response = self._get(path, "OPEN", {"offset": offset, "length": length},
                             max_body=length + _OPEN_SLACK)
        if len(response.content) > length:
            raise RemoteError(f"asked for {length} bytes, the server sent "
                              f"{len(response.content)}: it ignores OPEN's length",
                              source=_masked(response.url), where=f"offset {offset}")
        return response.content

    # -- requests ---------------------------------------------------------------------------

    def _params(self, op: str, extra: Mapping[str, object] | None = None) -> dict[str, str]:
        params = {"op": op}
        if self.delegation:
            params["delegation"] = self.delegation
        elif self.user:
            params["user.name"] = self.user
        params.update({k: str(v) for k, v in (extra or {}).items()})
        return params

    def _url(self, path: str, op: str, extra: Mapping[str, object] | None = None) -> str:
        return f"{self.base}{PREFIX}{quote(path)}?{urlencode(self._params(op, extra))}"

    def _json(self, path: str, op: str) -> dict:
        response = self._get(path, op)
        try:
            body = loads(response.content, source=_masked(response.url))
        except ParseError as exc:
            raise RemoteError(f"not a WebHDFS answer: the body is not JSON ({exc.reason})",
                              source=_masked(response.url)) from None
        if not isinstance(body, dict):
            raise RemoteError("not a WebHDFS answer: expected a JSON object",
                              source=_masked(response.url))
        return body

    def _get(self, path: str, op: str, extra: Mapping[str, object] | None = None,
             max_body: int = MAX_ANSWER) -> Reply:
        url = self._url(path, op, extra)
        response = self._send(url, max_body)
        for _ in range(_MAX_HOPS):
            if response.status not in _REDIRECTS:
                break
            location = response.headers.get("Location")
            if not location:
                raise RemoteError(f"HTTP {response.status} redirect without a Location",
                                  source=_masked(url), status=response.status)
            url = urljoin(response.url, location)  # the DataNode URL carries its own params
            response = self._send(url, max_body)
        else:
            raise RemoteError(f"more than {_MAX_HOPS} redirects", source=_masked(url))
        if response.status != 200:
            raise _remote_error(response, url)
        return response

    def _send(self, url: str, max_body: int) -> Reply:
        """One GET (redirects not followed), within :func:`jobsize.fetch.get`'s bounds."""
        policy = FetchPolicy(timeout=self.timeout, connect=min(10.0, self.timeout),
                             retries=self.retries, backoff=self.backoff, max_body=max_body)
        return get(self.session, url, policy, auth=self.auth, redirects=False,
                   shown=_masked(url))

    # -- answers ----------------------------------------------------------------------------

    def _file_status(self, entry: object, path: str, url: str, index: int | None = None
                     ) -> FileStatus:
        where = "FileStatus" if index is None else f"FileStatuses.FileStatus[{index}]"
        if not isinstance(entry, dict):
            raise RemoteError("not a WebHDFS answer: expected an object", source=_masked(url),
                              where=where)
        try:
            return FileStatus(path=path, kind=str(entry["type"]), length=int(entry["length"]),
                              block_size=int(entry.get("blockSize") or 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise RemoteError(f"not a WebHDFS answer: bad or missing field {exc}",
                              source=_masked(url), where=where) from None


def client_for(url: str, *, user: str | None = None, delegation: str | None = None,
               **options: Any) -> tuple[WebHdfs, str]:
    """Parse an input URL into a client and the HDFS path it names.

    ``user`` and ``delegation`` override the URL's ``user.name`` and ``delegation`` query
    parameters; without either, ``$HADOOP_USER_NAME`` or the login name is sent as
    ``user.name``, as Hadoop's own client does under simple authentication.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    query = dict(parse_qsl(parts.query))
    if not parts.hostname:
        raise InputError("no host in the URL", source=url)
    try:
        port = parts.port
    except ValueError:
        raise InputError("bad port in the URL", source=url) from None
    if scheme in DEFAULT_PORTS:
        http = "https" if scheme == "swebhdfs" else "http"
        netloc = f"{parts.hostname}:{port or DEFAULT_PORTS[scheme]}"
        path = unquote(parts.path) or "/"
        display = f"{scheme}://{netloc}"
    elif scheme in {"http", "https"}:
        if not (parts.path == PREFIX or parts.path.startswith(PREFIX + "/")):
            raise InputError(f"not a WebHDFS URL: the path must start with {PREFIX}/",
                             source=url)
        http, netloc = scheme, parts.netloc
        path = unquote(parts.path[len(PREFIX):]) or "/"
        display = ""
    else:
        raise InputError(f"unsupported URL scheme {scheme!r}", source=url)
    delegation = delegation or query.get("delegation")
    user = user or query.get("user.name")
    if not delegation and not user:
        user = os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
    client = WebHdfs(urlunsplit((http, netloc, "", "", "")), user=user,
                     delegation=delegation, display=display, **options)
    return client, path


# ---------------------------------------------------------------------------------------------


def _field(body: dict, keys: tuple[str, ...], url: str) -> Any:
    value: Any = body
    for depth, key in enumerate(keys):
        if not isinstance(value, dict) or key not in value:
            raise RemoteError("not a WebHDFS answer: missing field", source=_masked(url),
                              where=".".join(keys[: depth + 1]))
        value = value[key]
    return value


def _remote_error(response: Reply, url: str) -> RemoteError:
    """The server's refusal in one line: status, exception class and message."""
    status = response.status
    reason = response.reason or ""
    try:
        remote = loads(response.content, source=url)["RemoteException"]
        reason = f"{remote.get('exception') or 'RemoteException'}: {remote.get('message', '')}"
    except (ParseError, KeyError, TypeError, AttributeError):
        text = response.content.decode("utf-8", "replace").strip().splitlines()
        if text and not text[0].lstrip().startswith("<"):
            reason = f"{reason}: {text[0][:200]}" if reason else text[0][:200]
    if status == 401:
        reason += " (authentication required: give a user name or a delegation token)"
    return RemoteError(f"HTTP {status} {reason}".rstrip(), source=_masked(url), status=status)


def _masked(url: str) -> str:
    """``url`` with any delegation token replaced, so messages never leak credentials."""
    parts = urlsplit(url)
    if "delegation" not in parts.query:
        return url
    query = [(k, "***" if k == "delegation" else v) for k, v in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))
