"""YARN's node reservations, and the Fair scheduler with them.

When the job a YARN scheduler (Fair, Capacity) wants to serve next asks for a container larger
than what a node has free, the scheduler *reserves* the node for it: nothing else is placed
there until enough is released, then the job gets it. Without that, a job whose next container
is larger than the ones other jobs free (a 1.5 GB ApplicationMaster on nodes full of 1 GB
maps) can wait for hours while each freed gigabyte goes back to a running job.

:class:`NodeReservations` is the bookkeeping a policy uses for this: which node is reserved for
which job, how many nodes a job holds reserved (at most ``max_per_job``), whether a job may
reserve a node (its next container fits the node but not its free room, and for an AM the max
AM share would admit it), and serving a reservation once the room is there.

:class:`ReservingFair` is the simulator's Fair scheduler with node reservations, as Hadoop's
FairScheduler has them — the baseline to hold a reserving scheduler (FSPY) against.
"""

from __future__ import annotations

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, MAP, REDUCE
from jobsize.sim.schedulers.fair import Fair

#: :meth:`NodeReservations.serve`: the reservation is gone, offer the node as usual.
RELEASED = object()


class NodeReservations:
    """Reserved nodes of one simulation (see the module docstring)."""

    def __init__(self, sim: Simulation, max_per_job: int = 1) -> None:
        self.sim = sim
        self.max_per_job = max_per_job
        self.nodes: dict[int, tuple[int, bool]] = {}  # node -> (job, for its AM-sized probe)
        self.count: dict[int, int] = {}  # job -> nodes it holds reserved
        self.largest = (max(max(r) for r in sim.req0), max(max(r) for r in sim.req1))

    def roomy(self, node: int) -> bool:
        """Whether ``node`` has room for the largest container any job asks for: then every
        job's next container fits and no reservation can be due."""
        return (self.sim.free0[node] >= self.largest[0]
                and self.sim.free1[node] >= self.largest[1])

    def request(self, j: int, probe: bool = False) -> tuple[int, int]:
        """The container ``j`` waits for next (memory, vcores); a probe is AM-sized."""
        sim = self.sim
        if probe or sim.phase[j] == 1:
            kind = AM
        elif sim.maps_todo[j]:
            kind = MAP
        else:
            kind = REDUCE
        return sim.req0[kind][j], sim.req1[kind][j]

    def fits(self, j: int, node: int, probe: bool = False) -> bool:
        r0, r1 = self.request(j, probe)
        return r0 <= self.sim.free0[node] and r1 <= self.sim.free1[node]

    def reservable(self, j: int, node: int, probe: bool = False) -> bool:
        """Whether ``j`` may reserve ``node``: its next container is larger than the node's
        free room but not than the node, an AM would not pass the max AM share, ``j`` holds
        fewer than ``max_per_job`` reservations, and a running task on the node is timed to
        end — a node held only by AMs and reduces waiting for maps gains no room until other
        work ends, and reserving it could keep that work from ever starting."""
        sim = self.sim
        if sim.slots or self.count.get(j, 0) >= self.max_per_job:
            # MRv1 slots are reserved by no one: a job waiting for a reduce slot must not
            # keep a map slot idle (the map it keeps out may be what that reduce waits for)
            return False
        r0, r1 = self.request(j, probe)
        if not probe and sim.phase[j] == 1 and sim.am_used0 and (
                sim.am_used0 + r0 > sim.am_limit0 or sim.am_used1 + r1 > sim.am_limit1):
            return False  # held back by the max AM share, not by this node's free room
        cap0, cap1 = sim.cluster.capacity[node]
        return (not self.fits(j, node, probe) and r0 <= cap0 and r1 <= cap1
                and sim.frees_room(node))

    def reserve(self, node: int, j: int, probe: bool = False) -> None:
        self.nodes[node] = (j, probe)
        self.count[j] = self.count.get(j, 0) + 1

    def release(self, node: int) -> None:
        j, _ = self.nodes.pop(node)
        left = self.count.get(j, 0) - 1
        if left > 0:
            self.count[j] = left
        else:
            self.count.pop(j, None)

    def serve(self, node: int) -> object:
        """For a node reserved for a job's task or AM: ``(job, kind)`` once it fits (the
        reservation is released), None while it still does not and a running task will free
        room (keep the node idle), or :data:`RELEASED` if the job no longer waits for it or
        the node gains no room."""
        j, _ = self.nodes[node]
        sim = self.sim
        pick: object = RELEASED
        if sim.phase[j] != 4 and sim.has_demand(j):
            kind = sim.next_kind(j, node)
            if kind >= 0:
                pick = (j, kind)
            elif not self.fits(j, node) and sim.frees_room(node):
                return None  # still too little room, and some is coming: keep the node
        self.release(node)
        return pick


class ReservingFair(Fair):
    """The Fair scheduler with YARN's node reservations (see the module docstring).

    The job Fair would serve first — the head of the first queue in Fair's queue order — and
    that does not fit a node reserves it.
    """

    def __init__(self, resource: str = "memory", max_reserved: int = 1, **options: object
                 ) -> None:
        super().__init__(resource, **options)  # type: ignore[arg-type]
        self.max_reserved = max_reserved
        self.name = f"{self.name}+reserve"

    def describe(self) -> str:
        return super().describe().replace("+reserve+preemption", "+preemption+reserve")

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.reservations = NodeReservations(sim, self.max_reserved)

    def _head(self) -> int:
        for q in sorted((q for q in range(len(self.queues)) if len(self.queues[q])),
                        key=self._queue_key):
            head = self.queues[q].head()
            if head >= 0:
                return head
        return -1

    def choose(self, node: int) -> tuple[int, int] | None:
        res = self.reservations
        if node in res.nodes:
            pick = res.serve(node)
            if pick is not RELEASED:
                return pick  # type: ignore[return-value]
        pick = super().choose(node)
        if res.roomy(node):
            return pick
        head = self._head()
        if head < 0 or (pick is not None and pick[0] == head):
            return pick
        if res.reservable(head, node):
            res.reserve(node, head)
            return None
        return pick


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    register_scheduler("fair+reserve", lambda **_: ReservingFair("memory"))
    register_scheduler("drf+reserve", lambda **_: ReservingFair("drf"))


_register()
