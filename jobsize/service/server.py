"""Running the service: uvicorn on one socket, one process (the model learns in memory), SIGHUP
to reload the model file.

The bounds a client cannot get round:

- **headers**: a connection must finish sending a request's headers within ``read_timeout``
  seconds of opening (or of the previous answer, on a kept-alive connection), or it is answered
  408 and closed. uvicorn has no such timeout of its own (and starts its keep-alive timer only
  after a first answer), so the HTTP protocol here adds one; header bytes per request are also
  capped (``h11_max_incomplete_event_size``, httptools' own limit).
- **bodies**: the application reads a body within the same deadline (408), at most
  ``--max-body`` bytes of it (413), and all bodies being read at once within a shared budget
  (503 with Retry-After); see :mod:`jobsize.service.app`.
- **idle**: a kept-alive connection is closed after ``idle_timeout`` seconds without a request.
- **connections**: at most ``max_connections`` are open. A new one beyond it takes the place of
  the connection that has waited longest for its request's headers (a slow client's), which is
  answered 408 and closed; when none is waiting the new one is closed at once. Connections that
  are being answered, or kept alive between requests, are never pushed out, so a flood of slow
  clients cannot lock out a scheduler already connected.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import signal
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette

from jobsize.errors import ConfigError, JobsizeError


@dataclass(frozen=True)
class ServerSettings:
    """How uvicorn holds connections: timeouts (seconds), bounds, and TLS."""

    idle_timeout: float = 5.0
    read_timeout: float = 10.0
    max_connections: int = 1000
    max_header_bytes: int = 64 * 1024
    tls_cert: str | None = None
    tls_key: str | None = None

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror})") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, *, tls: bool = False) -> str:
    host, port = sock.getsockname()[:2]
    scheme = "https" if tls else "http"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


_TIMEOUT_BODY = json.dumps({"error": "request headers not received in time"}).encode()
_TIMEOUT_ANSWER = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                   b"connection: close\r\ncontent-length: " + str(len(_TIMEOUT_BODY)).encode()
                   + b"\r\n\r\n" + _TIMEOUT_BODY)


class _HeaderDeadline:
    """Mixed into uvicorn's HTTP protocols: a request's headers must arrive within
    ``header_timeout`` seconds of the connection opening or of the previous answer, and at most
    ``max_connections`` are open (the longest-waiting for headers makes way for a new one)."""

    header_timeout: float = 10.0
    max_connections: int = 1000
    waiting: dict[Any, None]  # connections waiting for headers, oldest first (per server)
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    connections: set[Any]
    cycle: Any

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)  # type: ignore[misc]
        if len(self.connections) > self.max_connections:
            oldest = next((c for c in self.waiting if c.cycle is None), None)
            if oldest is None:
                transport.close()  # every connection is busy: this one waits its turn
                return
            oldest._expire(force=True)
        self._arm()

    def on_headers_complete(self) -> None:
        self.waiting.pop(self, None)
        super().on_headers_complete()  # type: ignore[misc]

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing():
            self._arm()  # the next request's headers (uvicorn's own idle timer runs too)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = self.cycle
        self._deadline = self.loop.call_later(self.header_timeout, self._expire)
        if self.cycle is None:  # a fresh connection: no request of it is being answered
            self.waiting[self] = None

    def _disarm(self) -> None:
        self.waiting.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, force: bool = False) -> None:
        self._deadline = None
        if not force and self.cycle is not self._waiting_since:
            return  # a request's headers arrived since: its body has a deadline of its own
        if not force and self.cycle is not None and not self.cycle.response_complete:
            self._arm()  # still answering the previous request
            return
        self.waiting.pop(self, None)
        if not self.transport.is_closing():
            self.transport.write(_TIMEOUT_ANSWER)
            self.transport.close()


def _protocol(settings: ServerSettings) -> type[asyncio.Protocol]:
    if _has("httptools"):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as base
    return type(f"Deadline{base.__name__}", (_HeaderDeadline, base),
                {"header_timeout": settings.read_timeout,
                 "max_connections": settings.max_connections, "waiting": {}})


def config(app: Starlette, settings: ServerSettings | None = None, *,
           log_level: str = "warning", loop: str = "asyncio") -> uvicorn.Config:
    """uvicorn's configuration for ``app`` with ``settings``' timeouts, bounds and TLS."""
    settings = settings or ServerSettings()
    tls: dict[str, Any] = {}
    if settings.tls:
        tls = {"ssl_certfile": settings.tls_cert, "ssl_keyfile": settings.tls_key}
    return uvicorn.Config(
        app, loop=loop, http=_protocol(settings), log_level=log_level, access_log=False,
        lifespan="off", timeout_keep_alive=settings.idle_timeout,  # type: ignore[arg-type]
        h11_max_incomplete_event_size=settings.max_header_bytes, **tls)


def serve(app: Starlette, sock: socket.socket, *, on_ready: Callable[[str], None] | None = None,
          log_level: str = "warning", settings: ServerSettings | None = None) -> None:
    """Serve ``app`` on ``sock`` until SIGINT or SIGTERM; SIGHUP reloads the model."""
    settings = settings or ServerSettings()
    loop = "uvloop" if _has("uvloop") else "asyncio"
    try:
        server = uvicorn.Server(config(app, settings, log_level=log_level, loop=loop))
        server.config.load()  # TLS files are read here: a bad one is a ConfigError
    except (OSError, ValueError) as exc:
        import ssl

        if isinstance(exc, ssl.SSLError | OSError):
            raise ConfigError(f"cannot use the TLS certificate {settings.tls_cert} and key "
                              f"{settings.tls_key} ({getattr(exc, 'strerror', None) or exc})"
                              ) from None
        raise

    async def main() -> None:
        running = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            running.add_signal_handler(signal.SIGHUP, lambda: running.create_task(_reload(app)))
        if on_ready is not None:
            running.call_soon(on_ready, url_of(sock, tls=settings.tls))
        await server.serve(sockets=[sock])

    if loop == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())


async def _reload(app: Starlette) -> None:
    try:
        await app.state.reload()
    except (JobsizeError, OSError) as exc:  # SIGHUP has no caller to answer: say it here
        print(f"jobsize serve: reload failed, the model in use is unchanged: {exc}",
              file=sys.stderr)


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
