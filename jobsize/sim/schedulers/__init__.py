"""YARN-model schedulers and a registry by name.

``fifo``, ``fair`` (memory), ``drf``, ``fair+preemption`` / ``drf+preemption``, ``capacity``
(queues from ``capacity_queues``), ``srpt`` (sizes from ``size_source``); the modules imported
at the end register ``fair+reserve`` / ``drf+reserve``, ``fspy`` / ``fspy+ps``, ``hfsp`` /
``hfsp+kill``, ``ltyarn``, ``dress``, MROrder's ``mk_jr`` / ``mk_tct_jr`` / ``tct`` /
``mrorder`` / ``mrorder+tct`` / ``mrorder+fti``, ``rasooli``, and the MRv1 slot schedulers of
:mod:`~jobsize.sim.schedulers.mrv1` and :mod:`~jobsize.sim.schedulers.dynamicmr`.
"""

from __future__ import annotations

from collections.abc import Callable

from jobsize.errors import ConfigError
from jobsize.sim.policy import Policy
from jobsize.sim.schedulers.capacity import Capacity, CapacityQueue, parse_queues
from jobsize.sim.schedulers.fair import Fair, FairQueueSpec, water_fill
from jobsize.sim.schedulers.fifo import FIFO
from jobsize.sim.schedulers.srpt import SRPT
from jobsize.sim.size_sources import SizeSource

__all__ = [
    "FIFO",
    "SCHEDULERS",
    "SRPT",
    "Capacity",
    "CapacityQueue",
    "Fair",
    "FairQueueSpec",
    "make_scheduler",
    "parse_queues",
    "register_scheduler",
    "water_fill",
]

Factory = Callable[..., Policy]

SCHEDULERS: dict[str, Factory] = {
    "fifo": lambda **_: FIFO(),
    "fair": lambda **_: Fair("memory"),
    "drf": lambda **_: Fair("drf"),
    "fair+preemption": lambda **_: Fair("memory", preemption=True),
    "drf+preemption": lambda **_: Fair("drf", preemption=True),
    "capacity": lambda capacity_queues=None, **_: Capacity(
        parse_queues(capacity_queues) if capacity_queues else None),
    "srpt": lambda size_source=None, **_: SRPT(size_source),
}


def register_scheduler(name: str, factory: Factory) -> None:
    """Make ``name`` available to :func:`make_scheduler` (and ``jobsize simulate``)."""
    SCHEDULERS[name.lower()] = factory


def make_scheduler(name: str, *, size_source: SizeSource | None = None,
                   capacity_queues: str | None = None, **options: object) -> Policy:
    """A fresh scheduler by name; options the scheduler does not use are ignored (``options``:
    per-scheduler settings, e.g. ``ltyarn={...}``, ``dress={...}``)."""
    factory = SCHEDULERS.get(name.lower())
    if factory is None:
        raise ConfigError(f"unknown scheduler {name!r}; known: {', '.join(SCHEDULERS)}")
    return factory(size_source=size_source, capacity_queues=capacity_queues, **options)


# These schedulers register themselves; they import this module's helpers first.
from jobsize.sim.schedulers import (  # noqa: E402, F401
    dress,
    dynamicmr,
    fspy,
    hfsp,
    ltyarn,
    mrorder,
    mrv1,
    rasooli,
    reservations,
)
