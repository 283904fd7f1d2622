"""A scheduler wrapped by another: :class:`Wrapped` passes every call of the event loop on to
the inner scheduler, so a wrapper (closed-loop submission, a meter) overrides only what it
changes or watches."""

from __future__ import annotations

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import Policy


class Wrapped(Policy):
    """``inner`` with nothing changed; subclasses override the calls they care about."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.name = inner.name

    def describe(self) -> str:
        return self.inner.describe()

    @property
    def extra_pending(self) -> int:  # type: ignore[override]
        return self.inner.extra_pending

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.inner.bind(sim)

    def on_arrival(self, j: int) -> None:
        self.inner.on_arrival(j)

    def on_demand(self, j: int) -> None:
        self.inner.on_demand(j)

    def choose(self, node: int) -> tuple[int, int] | None:
        return self.inner.choose(node)

    def extra_request(self, j: int, node: int) -> tuple[int, int, float, object]:
        return self.inner.extra_request(j, node)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        self.inner.on_launch(j, kind, node, cid)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        self.inner.on_release(j, kind, node, cid, elapsed_s, completed)

    def on_extra_done(self, j: int, tag: object, node: int, cid: int, completed: bool) -> None:
        self.inner.on_extra_done(j, tag, node, cid, completed)

    def on_job_finish(self, j: int) -> None:
        self.inner.on_job_finish(j)

    def on_wake(self, tag: object) -> None:
        self.inner.on_wake(tag)
