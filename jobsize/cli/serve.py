"""``jobsize serve``: predictions over HTTP/JSON, for schedulers that are not Python processes.

    jobsize serve --model MODEL.json [--journal FILE] [--host H] [--port P]
                  [--token-file FILE] [--insecure] [--tls-cert FILE --tls-key FILE]
                  [--read-timeout S] [--idle-timeout S] [--max-connections N]
                  [--cluster-memory-mb MB] [--cluster-vcores N] [--max-body BYTES]

Serves ``/v1/predict``, ``/v1/predict/batch``, ``/v1/observe``, ``/v1/reload``, the held
observations, ``/v1/health``, ``/v1/openapi.json``, ``/livez``, ``/readyz`` and ``/metrics``
(see :mod:`jobsize.service.app`). Observed jobs go to the journal (default
``MODEL.json.journal``) before they are acknowledged; on start the model is rebuilt from the
model file and the journal. SIGHUP reloads the model file, like ``POST /v1/reload``.

With a token (``--token-file`` or ``JOBSIZE_SERVE_TOKEN``) the endpoints that change the model
need ``Authorization: Bearer <token>``. Without one the service listens on loopback only,
unless ``--insecure`` says that anyone who reaches the port may teach and reload it.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from jobsize.cli._options import byte_size, count, positive_number
from jobsize.errors import ConfigError
from jobsize.models.resources import PAPER_CLUSTER, Resources

TOKEN_ENV = "JOBSIZE_SERVE_TOKEN"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve predictions over HTTP/JSON (predict, observe, reload, metrics)",
        description="Run the prediction service: predict a job or a batch, observe finished "
        "jobs (the model learns online; each observation is journaled before it is "
        "acknowledged), reload the model file (POST /v1/reload or SIGHUP), health, liveness, "
        "readiness, Prometheus metrics and an OpenAPI document. Needs the 'serve' extra.")
    parser.add_argument("--model", required=True, metavar="MODEL.json",
                        help="model file written by `jobsize fit -o`")
    parser.add_argument("--journal", default=None, metavar="FILE",
                        help="journal of observed jobs (default: MODEL.json.journal)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1); another than loopback "
                        "needs a token, or --insecure")
    parser.add_argument("--port", type=count(0), default=8642,
                        help="port to listen on; 0 picks a free one (default: 8642)")
    parser.add_argument("--token-file", default=None, metavar="FILE",
                        help="file holding the bearer token that observe, reload and the held "
                        f"observations' accept and drop need (default: ${TOKEN_ENV}, if set)")
    parser.add_argument("--insecure", action="store_true",
                        help="listen beyond loopback without a token: anyone who reaches the "
                        "port can teach the model and reload it")
    parser.add_argument("--tls-cert", default=None, metavar="FILE",
                        help="serve HTTPS with this certificate (PEM; with --tls-key)")
    parser.add_argument("--tls-key", default=None, metavar="FILE",
                        help="the certificate's private key (PEM; with --tls-cert)")
    parser.add_argument("--read-timeout", type=positive_number, default=10.0, metavar="S",
                        help="seconds a client has to send a request's headers, and its body "
                        "(default: 10)")
    parser.add_argument("--idle-timeout", type=positive_number, default=5.0, metavar="S",
                        help="seconds a kept-alive connection may wait for its next request "
                        "(default: 5)")
    parser.add_argument("--max-connections", type=count(1), default=1000, metavar="N",
                        help="open connections at most; a new one beyond them replaces the "
                        "one that has waited longest for its request's headers (default: "
                        "1000)")
    parser.add_argument("--cluster-memory-mb", type=positive_number, default=PAPER_CLUSTER.memory,
                        metavar="MB", help="cluster memory CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.memory:g})")
    parser.add_argument("--cluster-vcores", type=positive_number, default=PAPER_CLUSTER.vcores,
                        metavar="N", help="cluster vcores CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.vcores:g})")
    parser.add_argument("--max-body", type=byte_size, default=1 << 20, metavar="BYTES",
                        help="largest request body (default: 1M)")
    parser.add_argument("--max-body-in-flight", type=byte_size, default=16 << 20,
                        metavar="BYTES", help="body bytes all requests being read may hold "
                        "together; past it the service answers 503 (default: 16M)")
    parser.set_defaults(func=run)


def read_token(path: str | None) -> str | None:
    """The token in ``path`` (whitespace stripped), else ``$JOBSIZE_SERVE_TOKEN``, else None."""
    if path is None:
        return os.environ.get(TOKEN_ENV, "").strip() or None
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"--token-file {path}: cannot read it ({reason})") from None
    if not token:
        raise ConfigError(f"--token-file {path}: the file is empty; it must hold the token")
    if any(c.isspace() for c in token):
        raise ConfigError(f"--token-file {path}: the token must be one word, on one line")
    return token


def checked(args: argparse.Namespace) -> str | None:
    """The token, once the options agree with each other: a token or loopback (or
    --insecure), and TLS certificate and key together."""
    from jobsize.service.server import is_loopback

    token = read_token(args.token_file)
    if token is None and not is_loopback(args.host) and not args.insecure:
        raise ConfigError(f"--host {args.host} is not loopback and there is no token: anyone "
                          "who reaches the port could teach and reload the model; give "
                          f"--token-file (or ${TOKEN_ENV}), or --insecure to allow it")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ConfigError("--tls-cert and --tls-key go together: give both, or neither")
    for flag, path in (("--tls-cert", args.tls_cert), ("--tls-key", args.tls_key)):
        if path is not None and not os.access(path, os.R_OK):
            raise ConfigError(f"{flag} {path}: cannot read it")
    return token


def run(args: argparse.Namespace) -> int:
    try:
        from jobsize.service.app import create_app
        from jobsize.service.model_state import ModelState
        from jobsize.service.requests import Limits
        from jobsize.service.server import ServerSettings, bind, serve
    except ImportError as exc:
        raise ConfigError(f"jobsize serve needs the 'serve' extra: pip install "
                          f"'jobsize[serve]' ({exc.name} is missing)") from None
    token = checked(args)
    settings = ServerSettings(idle_timeout=args.idle_timeout, read_timeout=args.read_timeout,
                              max_connections=args.max_connections, tls_cert=args.tls_cert,
                              tls_key=args.tls_key)
    journal = args.journal or f"{args.model}.journal"
    state = ModelState(args.model, journal)
    app = None
    try:
        app = create_app(state, cluster=Resources(args.cluster_memory_mb, args.cluster_vcores),
                         limits=Limits(body_bytes=args.max_body, read_seconds=args.read_timeout,
                                       inflight_bytes=args.max_body_in_flight),
                         token=token)
        sock = bind(args.host, args.port)

        def ready(url: str) -> None:
            print(f"jobsize serve: {url} (model {args.model}, journal {journal}, "
                  f"{state.observed} observations replayed"
                  f"{', token required to change the model' if token else ''})", flush=True)

        serve(app, sock, on_ready=ready, settings=settings)
    finally:
        if app is not None:
            app.state.batches.close()
        state.close()
    return 0
