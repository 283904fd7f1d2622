"""Running the service: uvicorn on one socket, one process (the model learns in memory), SIGHUP
to reload the model file."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette

from jobsize.errors import ConfigError, JobsizeError


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


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(app: Starlette, sock: socket.socket, *, on_ready: Callable[[str], None] | None = None,
          log_level: str = "warning") -> None:
    """Serve ``app`` on ``sock`` until SIGINT or SIGTERM; SIGHUP reloads the model."""
    loop = "uvloop" if _has("uvloop") else "asyncio"
    http = "httptools" if _has("httptools") else "h11"
    config = uvicorn.Config(app, loop=loop, http=http, log_level=log_level, access_log=False,
                            lifespan="off", timeout_keep_alive=30)
    server = uvicorn.Server(config)

    async def main() -> None:
        running = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            running.add_signal_handler(signal.SIGHUP, lambda: running.create_task(_reload(app)))
        if on_ready is not None:
            running.call_soon(on_ready, url_of(sock))
        await server.serve(sockets=[sock])

    if loop == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())


async def _reload(app: Starlette) -> None:
    try:
        await app.state.model.reload()
    except (JobsizeError, OSError) as exc:  # SIGHUP has no caller to answer: say it here
        print(f"jobsize serve: reload failed, the model in use is unchanged: {exc}",
              file=sys.stderr)
        app.state.metrics.reloads.labels("failed").inc()
    else:
        app.state.metrics.reloads.labels("ok").inc()


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
