"""``jobsize serve``: predictions over HTTP/JSON, for schedulers that are not Python processes.

    jobsize serve --model MODEL.json [--journal FILE] [--host H] [--port P]
                  [--cluster-memory-mb MB] [--cluster-vcores N] [--max-body BYTES]

Serves ``POST /predict``, ``/predict/batch``, ``/observe``, ``/reload`` and ``GET /health``,
``/metrics`` (see :mod:`jobsize.service.app`). Observed jobs go to the journal (default
``MODEL.json.journal``) before they are acknowledged; on start the model is rebuilt from the
model file and the journal. SIGHUP reloads the model file, like ``POST /reload``.
"""

from __future__ import annotations

import argparse

from jobsize.cli._options import byte_size, count
from jobsize.cli.predict import _positive
from jobsize.errors import ConfigError
from jobsize.models.resources import PAPER_CLUSTER, Resources


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve predictions over HTTP/JSON (predict, observe, reload, metrics)",
        description="Run the prediction service: predict a job or a batch, observe finished "
        "jobs (the model learns online; each observation is journaled before it is "
        "acknowledged), reload the model file (POST /reload or SIGHUP), health and "
        "Prometheus metrics. Needs the 'serve' extra.")
    parser.add_argument("--model", required=True, metavar="MODEL.json",
                        help="model file written by `jobsize fit -o`")
    parser.add_argument("--journal", default=None, metavar="FILE",
                        help="journal of observed jobs (default: MODEL.json.journal)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=count(0), default=8642,
                        help="port to listen on; 0 picks a free one (default: 8642)")
    parser.add_argument("--cluster-memory-mb", type=_positive, default=PAPER_CLUSTER.memory,
                        metavar="MB", help="cluster memory CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.memory:g})")
    parser.add_argument("--cluster-vcores", type=_positive, default=PAPER_CLUSTER.vcores,
                        metavar="N", help="cluster vcores CR for minE and APB "
                        f"(default: {PAPER_CLUSTER.vcores:g})")
    parser.add_argument("--max-body", type=byte_size, default=1 << 20, metavar="BYTES",
                        help="largest request body (default: 1M)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from jobsize.service.app import create_app
        from jobsize.service.model_state import ModelState
        from jobsize.service.requests import Limits
        from jobsize.service.server import bind, serve
    except ImportError as exc:
        raise ConfigError(f"jobsize serve needs the 'serve' extra: pip install "
                          f"'jobsize[serve]' ({exc.name} is missing)") from None
    journal = args.journal or f"{args.model}.journal"
    state = ModelState(args.model, journal)
    app = create_app(state, cluster=Resources(args.cluster_memory_mb, args.cluster_vcores),
                     limits=Limits(body_bytes=args.max_body))
    sock = bind(args.host, args.port)

    def ready(url: str) -> None:
        print(f"jobsize serve: {url} (model {args.model}, journal {journal}, "
              f"{state.observed} observations replayed)", flush=True)

    try:
        serve(app, sock, on_ready=ready)
    finally:
        state.close()
    return 0
