"""The scheduler interface of the YARN container model.

A policy is one small class; the event loop (:class:`jobsize.sim.eventloop.Simulation`) never knows
which one it runs. The loop owns time, nodes, containers and jobs' progress; the policy only
answers "which job gets this node's free resources?" and reacts to what happens.

Calls the loop makes (override what you need; all run at ``sim.now``):

``bind(sim)``
    once, before time starts. Keep ``sim``; read sizes through ``self.size_source`` and
    :meth:`Simulation.estimates` — never from the workload's task durations.
``on_arrival(j)``
    job ``j`` was submitted (it then asks for its AM container; ``on_demand`` follows).
``on_demand(j)``
    job ``j``'s pending demand may have grown: its AM is wanted, its AM started (maps now
    pending), its reduces passed slow-start, or one of its tasks was killed and is pending again.
``choose(node) -> (j, kind) | Launch | None``
    ``node`` has free resources; return a job and the kind of container to launch there (AM,
    MAP, REDUCE from ``sim.next_kind(j, node)``, which also checks that it fits, or EXTRA), or
    None to leave the resources idle. Called repeatedly while the node has room. A
    :class:`Launch` says more: the resources the task takes instead of its own request (in the
    slot mode ``(1, 0)`` is a map slot and ``(0, 1)`` a reduce slot, times the slot weights —
    so a reduce may run in a map slot), or a speculative copy of a running attempt
    (``copy_of``: its container id; the first attempt to finish completes the task and the
    others are killed). A policy returning a Launch checks the fit itself; one that may want a
    copy when no task is pending keeps ``extra_pending`` > 0, so that nodes are still offered.
``extra_request(j, node) -> (mem_or_slot0, vcores_or_slot1, duration_s, tag)``
    when ``choose`` returned ``(j, EXTRA)``: the extra work (a probe) to run for job ``j``; it
    holds its resources for ``duration_s`` and then ``on_extra_done`` is called. Keep
    ``self.extra_pending`` > 0 while such work waits, so the loop keeps offering nodes.
``on_launch(j, kind, node, cid)`` / ``on_release(j, kind, node, cid, elapsed_s, completed)``
    a container started / ended (``completed`` False when killed). ``elapsed_s`` of a completed
    task is its observed duration (what a real scheduler learns when a task finishes).
``on_extra_done(j, tag, node, cid, completed)``
    extra work ended.
``on_job_finish(j)``
    all of ``j``'s tasks completed; its AM container is released.
``on_wake(tag)``
    an internal event the policy asked for with ``sim.wake_at(time, tag)`` (virtual
    completions, preemption checks). Stale wake-ups are the policy's to ignore (keep a version
    in ``tag``); ``sim.cancel(seq)`` drops one. After it the loop offers every node with room.

What a policy may do to the loop: ``sim.wake_at(time, tag) -> seq``, ``sim.cancel(seq)``,
``sim.kill(cid)`` (the task becomes pending again, its work is lost), ``sim.containers(j)``
(running container ids of ``j``, oldest first), ``sim.request_offers()`` (offer every node with
room after the current event), ``sim.has_demand(j)``, ``sim.next_kind(j, node)``,
``sim.container(cid)`` / ``sim.held(cid)`` / ``sim.progress(cid)`` (a running attempt: what it
is, the resources it holds, the fraction done), ``sim.has_local_map(j, node)`` (with a block
locality model), and read the observable state documented on
:class:`~jobsize.sim.eventloop.Simulation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from jobsize.sim.eventloop import Simulation

AM, MAP, REDUCE, EXTRA = 0, 1, 2, 3
KIND_NAMES = ("AM", "MAP", "REDUCE", "EXTRA")


class Launch(NamedTuple):
    """A task launch with its resources named, or a speculative copy (see ``choose``)."""

    job: int
    kind: int
    shape: tuple[int, int] | None = None
    copy_of: int = -1


class Policy:
    """Base class of YARN-model schedulers (see the module docstring for the protocol)."""

    name = "policy"
    #: pending extra work (probes, speculative copies) waiting for resources; the loop keeps
    #: offering while > 0
    extra_pending = 0

    def bind(self, sim: Simulation) -> None:
        self.sim = sim

    def on_arrival(self, j: int) -> None:
        pass

    def on_demand(self, j: int) -> None:
        pass

    def choose(self, node: int) -> tuple[int, int] | Launch | None:
        raise NotImplementedError

    def extra_request(self, j: int, node: int) -> tuple[int, int, float, object]:
        raise NotImplementedError(f"{self.name} launches no extra work")

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        pass

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        pass

    def on_extra_done(self, j: int, tag: object, node: int, cid: int, completed: bool) -> None:
        pass

    def on_job_finish(self, j: int) -> None:
        pass

    def on_wake(self, tag: object) -> None:
        pass

    def native_order(self) -> str | None:
        """The one order of jobs this policy's decisions follow, if the compiled core
        (:mod:`jobsize.sim.native`) knows it: ``"arrival"`` (the job's index) or ``"memory"``
        (the memory it holds). Declare it only where every decision is the head, in that
        order, of one :class:`~jobsize.sim.queues.KeyedQueue` that fits the node, and no hook
        does anything else. None (the default): the Python loop runs the policy."""
        return None

    def describe(self) -> str:
        return self.name
