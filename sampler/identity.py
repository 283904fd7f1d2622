"""A job's identity: what its probe and the job itself both carry, without the user's help.

A probe and the production job it sizes are two jobs in a cluster's history; ``jobsize
collect`` joins them by the ``jobsize.probe.id`` both ran with. Unless the user names one
(``-D jobsize.probe.id=...``), it is derived from what makes the job that job: who runs it, on
which input, with which programs and how many reduces. ``jobsize probe`` (locally or on
Hadoop) and ``jobsize run`` (on either engine) derive it from the same options, so a probe and
its run join by default; a recurring job (the same programs over the same input paths, run
after run) keeps its identity and joins each run to the latest probe before it.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jobsize.schema import PROBE_ID_KEY

#: Prefix of derived identities (a user's own may be anything).
DERIVED_PREFIX = "jobsize-"


def _program(function: str | Sequence[str] | Callable[..., Any] | None) -> Any:
    if function is None or isinstance(function, str):
        return function and " ".join(function.split())
    if callable(function):
        return f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', '')}"
    return list(function)


def _path(path: str) -> str:
    if "://" in path:
        return path.rstrip("/")
    return os.path.abspath(path).rstrip("/") or "/"


def job_identity(*, inputs: Sequence[str], mapper: Any, reducer: Any = None,
                 combiner: Any = None, n_reduces: int = 0, user: str | None = None) -> str:
    """The identity of a job: a digest of its user, input paths (absolute, in order),
    programs (mapper, combiner, reducer) and reduce count."""
    fields = {"user": user or _user(), "inputs": [_path(str(i)) for i in inputs],
              "mapper": _program(mapper), "combiner": _program(combiner),
              "reducer": _program(reducer), "n_reduces": int(n_reduces)}
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return f"{DERIVED_PREFIX}{digest[:20]}"


def with_identity(conf: Mapping[str, str], **job: Any) -> dict[str, str]:
    """``conf`` with ``jobsize.probe.id`` set to :func:`job_identity` unless it has one."""
    out = dict(conf)
    if not (out.get(PROBE_ID_KEY) or "").strip():
        out[PROBE_ID_KEY] = job_identity(**job)
    return out


def _user() -> str:
    # Hadoop's own rule for a client without Kerberos: HADOOP_USER_NAME, else the login user.
    return os.environ.get("HADOOP_USER_NAME") or getpass.getuser()
