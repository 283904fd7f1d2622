"""DRESS, the Dynamic RESource-reservation Scheme (Mao, Green, Wang, Xiong and Guo): two job
categories with a reserved part of the cluster each, the split re-computed every second from the
pending demand and a forecast of the containers running jobs will release.

**Categories** (§IV-C). A job's demand r is the containers it asks for over its life (its AM,
maps and reduces, as its requests declare them; memory MB in the YARN model, slots in the slot
model). It is *large* (LD) if r > θ·Tot_R, else *small* (SD); θ = 10 %. (The paper writes θ·A_c,
A_c the currently free containers; in a congested cluster A_c ≈ 0 would make every job large,
and the evaluation calls "small" the jobs under 10 containers of a ≈100-container cluster, so we
compare with the total; ``classify="available"`` gives the literal rule.) SD jobs may hold
Tot_R·δ, LD jobs Tot_R·(1 − δ), δ0 = 10 %; inside a category jobs run FIFO, like the Capacity
scheduler's queue; between the two, the one using less of its reservation goes first. Running
containers above a reservation that shrank are not preempted. ``lend=True`` lets a category
use the other's reservation while the other has no pending demand (the paper's MapReduce
results hint at it; Algorithm 3 lends by moving δ a second later in any case).

**Release forecast** (eqs 1, 5 and 9, Algorithm 2): :class:`PhaseForecast`. F_k(t+1) is the sum
over category k's running jobs and their phases (maps, reduces) of the containers expected to
be released within the next second.

**Reservation update** (Algorithm 3, every ``tick_s`` = 1 s): :func:`adjust_reserve`, δ then
clamped to ``delta_range`` ([0, 1]). A_c1 is the free part of SD's reservation (bounded by what
is free in the cluster), A_c2 the rest of the free resources; P_k the summed outstanding demand
(declared and not yet launched) of category k's jobs.

If nothing at all runs, a pending job may start whatever the reservation (no reading of the
paper leaves the cluster idle with work waiting; without this, δ could stay at 0 while small
jobs wait and nothing runs to move it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, EXTRA, MAP, REDUCE, Policy
from jobsize.sim.queues import KeyedQueue

SD, LD = 0, 1


def adjust_reserve(delta: float, total: float, free: tuple[float, float],
                   release: tuple[float, float],
                   pending: tuple[Sequence[float], Sequence[float]], *,
                   leftover: str = "split") -> float:
    """Algorithm 3: the new reserve ratio δ (not yet clamped).

    ``free`` = (A_c1, A_c2), ``release`` = (F1(t+1), F2(t+1)), ``pending`` = the demands r of
    the SD and LD jobs waiting for resources, ``total`` = Tot_R. The paper's typos are read as
    follows: line 14 adds F2 (not F1) to A_c2; lines 15-20 start at the first job, fit with
    ``≥ 0`` and subtract r_j (not r_2); lines 21-24 start at the first SD job that did not fit
    and stop at the first that does not fit the two leftovers. A leftover job takes what it can
    from A_c1 and only the rest x from A_c2, and δ grows by x/Tot_R (``leftover="split"``); the
    paper's lines 23-24 take all of r from A_c2 and grow δ by r/Tot_R (``leftover="whole"``).
    """
    if leftover not in ("split", "whole"):
        raise ConfigError(f"DRESS leftover rule {leftover!r}: expected 'split' or 'whole'")
    e1, e2 = free[0] + release[0], free[1] + release[1]
    p1, p2 = sum(pending[SD]), sum(pending[LD])
    if e1 >= p1:  # lines 7-8: SD's expected surplus goes to LD
        return delta - (e1 - p1) / total
    if e2 >= p2:  # lines 10-11: LD's expected surplus goes to SD
        return delta + (e2 - p2) / total
    sd, ld = sorted(pending[SD]), sorted(pending[LD])  # line 13
    a1, a2 = e1, e2  # line 14
    first = 0
    while first < len(sd) and sd[first] <= a1:  # lines 15-17
        a1 -= sd[first]
        first += 1
    for r in ld:  # lines 18-20
        if r > a2:
            break
        a2 -= r
    for r in sd[first:]:  # lines 21-24: LD's leftover to SD jobs that fit the two together
        if r > a1 + a2:
            break
        if leftover == "whole":
            a2 -= r
            delta += r / total
        else:
            x = r - min(r, a1)
            a1 -= r - x
            a2 -= x
            delta += x / total
    return delta


class PhaseForecast:
    """Container releases of one phase (the maps, or the reduces) of a job: eq 9 with the γ of
    Algorithm 2.

    c is the phase's tasks launched so far and Δps the spread of their start times (Algorithm 1
    detects phases from running-task counts; the simulator knows a task's phase, so only the
    times are estimated). γ, the time the phase starts releasing, is recorded when more than
    ``end_threshold`` tasks complete within ``window_s``: the earliest finish among them, so a
    "heading" task that finishes alone much earlier does not count. A phase of at most
    ``end_threshold`` tasks could never pass that test; its γ is its first completion. Eq 9 as
    printed is a ramp c·(t − γ)/Δps that drops to 0; read as the cumulative releases it
    predicts, the releases expected in (t, t + h] are

        min(c, c·(t + h − γ)/Δps) − released(t), within [0, running(t)]

    (a step at γ when Δps = 0). When no task of the phase has completed for ``window_s`` after γ,
    the tasks still running are trailing tasks (Algorithm 2, lines 11-12): they move to the next
    phase, whose γ is not known yet, so they are expected to release nothing.
    """

    __slots__ = ("first", "gamma", "last", "last_done", "recent", "released", "started",
                 "threshold", "window")

    def __init__(self, window_s: float = 10.0, end_threshold: int = 5) -> None:
        self.window, self.threshold = window_s, end_threshold
        self.started = self.released = 0
        self.first = self.last = 0.0
        self.gamma: float | None = None
        self.last_done: float | None = None
        self.recent: deque[float] = deque()

    def launch(self, now: float) -> None:
        if self.started == 0:
            self.first = now
        self.started += 1
        self.last = now

    def kill(self) -> None:
        self.started -= 1  # it will be launched again

    def complete(self, now: float) -> None:
        self.released += 1
        self.last_done = now
        recent = self.recent
        recent.append(now)
        while recent[0] < now - self.window:
            recent.popleft()
        if self.gamma is None:
            need = self.threshold if self.started > self.threshold else 0
            if len(recent) > need:
                self.gamma = recent[0]

    def expected(self, now: float, horizon: float) -> float:
        """Containers expected to be released in (now, now + horizon]."""
        running = self.started - self.released
        if self.gamma is None or running <= 0:
            return 0.0
        if self.last_done is not None and now - self.last_done >= self.window:
            return 0.0  # trailing tasks
        c, span, end = self.started, self.last - self.first, now + horizon
        if span > 0:
            cumulative = min(c, c * (end - self.gamma) / span)
        else:
            cumulative = c if end >= self.gamma else 0
        return float(min(max(cumulative - self.released, 0), running))


class DRESS(Policy):
    """DRESS (see the module docstring).

    ``theta``: the category threshold θ; ``delta``: δ0; ``delta_range``: the clamp of δ;
    ``tick_s``: how often Algorithm 3 runs; ``horizon_s``: the forecast's horizon (the "t + 1");
    ``window_s``, ``end_threshold``: pw and t_e of Algorithm 2; ``classify``: ``"total"`` (θ·Tot_R)
    or ``"available"`` (θ·A_c); ``lend``: see the module docstring; ``leftover``: see
    :func:`adjust_reserve`.
    """

    name = "dress"

    def __init__(self, *, theta: float = 0.10, delta: float = 0.10,
                 delta_range: tuple[float, float] = (0.0, 1.0), tick_s: float = 1.0,
                 horizon_s: float = 1.0, window_s: float = 10.0, end_threshold: int = 5,
                 classify: str = "total", lend: bool = False, leftover: str = "split") -> None:
        lo, hi = delta_range
        if not 0 <= lo <= delta <= hi <= 1:
            raise ConfigError(f"DRESS reserve: need 0 ≤ min ≤ δ0 ≤ max ≤ 1, found {lo}, "
                              f"{delta}, {hi}")
        if not 0 < theta < 1:
            raise ConfigError(f"DRESS θ {theta!r} is not in (0, 1)")
        if not (tick_s > 0 and horizon_s >= 0 and window_s > 0 and end_threshold >= 0):
            raise ConfigError("DRESS needs a positive tick and window, a non-negative horizon "
                              "and threshold")
        if classify not in ("total", "available"):
            raise ConfigError(f"DRESS classify {classify!r}: expected 'total' or 'available'")
        adjust_reserve(delta, 1.0, (0, 0), (0, 0), ((), ()), leftover=leftover)  # validates
        self.theta, self.delta0, self.delta_range = theta, delta, (lo, hi)
        self.tick_s, self.horizon_s = tick_s, horizon_s
        self.window_s, self.end_threshold = window_s, end_threshold
        self.classify, self.lend, self.leftover = classify, lend, leftover

    def describe(self) -> str:
        return f"dress[θ={self.theta:g},δ0={self.delta0:g}]"

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        slots = sim.cluster.slots
        self._amount = lambda kind, j: (0.0 if kind == EXTRA else float(
            sim.req0[kind][j] + (sim.req1[kind][j] if slots else 0)))
        self.total = float(sim.total0 + (sim.total1 if slots else 0))
        self.declared = [self._declared(j) for j in range(sim.n)]
        self.outstanding = list(self.declared)
        self.category = [SD] * sim.n
        self.used = [0.0, 0.0]
        self.queues = (KeyedQueue(sim, key=float), KeyedQueue(sim, key=float))
        self.members: tuple[set[int], set[int]] = (set(), set())
        self.phases: dict[tuple[int, int], PhaseForecast] = {}
        self.delta = self.delta0
        #: (time, δ) after every update
        self.trace: list[tuple[float, float]] = []
        self._tick = 0
        self._ticking = False
        self._idle_ticks = 0

    def _declared(self, j: int) -> float:
        """r_j: the resources of every container j asks for over its life."""
        sim = self.sim
        am = 0.0 if sim.cluster.slots else self._amount(AM, j)
        if sim.uber[j]:
            return am
        return am + sim.n_maps[j] * self._amount(MAP, j) + sim.n_reduces[j] * self._amount(
            REDUCE, j)

    # -----------------------------------------------------------------------------------------

    def on_arrival(self, j: int) -> None:
        sim = self.sim
        if self.classify == "total":
            limit = self.theta * self.total
        else:
            free = sum(sim.free0) + (sum(sim.free1) if sim.cluster.slots else 0)
            limit = self.theta * free
        cat = self.category[j] = LD if self.declared[j] > limit else SD
        self.members[cat].add(j)
        if not self._ticking:
            self._ticking = True
            self._tick += 1
            sim.wake_at(sim.now + self.tick_s, ("dress", self._tick))

    def on_demand(self, j: int) -> None:
        self.queues[self.category[j]].add(j)

    def choose(self, node: int) -> tuple[int, int] | None:
        caps = (self.delta * self.total, (1.0 - self.delta) * self.total)
        used = self.used
        idle = used[SD] + used[LD] <= 0
        cats = [c for c in (SD, LD) if len(self.queues[c])]
        if len(cats) > 1:
            cats.sort(key=lambda c: used[c] / caps[c] if caps[c] > 0 else float("inf"))
        for c in cats:
            pick = self.queues[c].pick(node)
            if pick is None:
                continue
            if (used[c] + self._amount(pick[1], pick[0]) <= caps[c] + 1e-9 or idle
                    or (self.lend and self.queues[1 - c].head() < 0)):
                return pick
        return None

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        amount = self._amount(kind, j)
        self.used[self.category[j]] += amount
        self.outstanding[j] -= amount
        if kind in (MAP, REDUCE):
            self._phase(j, kind).launch(self.sim.now)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        amount = self._amount(kind, j)
        self.used[self.category[j]] -= amount
        if kind in (MAP, REDUCE):
            if completed:
                self._phase(j, kind).complete(self.sim.now)
            else:
                self.outstanding[j] += amount  # killed: pending again
                self._phase(j, kind).kill()

    def on_job_finish(self, j: int) -> None:
        self.members[self.category[j]].discard(j)
        self.phases.pop((j, MAP), None)
        self.phases.pop((j, REDUCE), None)

    def _phase(self, j: int, kind: int) -> PhaseForecast:
        phase = self.phases.get((j, kind))
        if phase is None:
            phase = self.phases[(j, kind)] = PhaseForecast(self.window_s, self.end_threshold)
        return phase

    # -----------------------------------------------------------------------------------------

    def on_wake(self, tag: object) -> None:
        if tag != ("dress", self._tick):
            return
        sim = self.sim
        self.update()
        # nothing running at two ticks in a row, with the idle rule in force, means the waiting
        # jobs cannot start at all: stop ticking so the event loop ends and reports them
        idle = self.used[SD] + self.used[LD] <= 0
        self._idle_ticks = self._idle_ticks + 1 if idle else 0
        if (self.members[SD] or self.members[LD]) and self._idle_ticks < 2:
            self._tick += 1
            sim.wake_at(sim.now + self.tick_s, ("dress", self._tick))
        else:
            self._ticking = False

    def forecast(self, cat: int) -> float:
        """F_k(t + h): resources category ``cat``'s running jobs are expected to release."""
        now, h = self.sim.now, self.horizon_s
        total = 0.0
        for j in self.members[cat]:
            for kind in (MAP, REDUCE):
                phase = self.phases.get((j, kind))
                if phase is not None:
                    total += phase.expected(now, h) * self._amount(kind, j)
        return total

    def update(self) -> None:
        """Run Algorithm 3 on the current state and set δ."""
        sim = self.sim
        free = float(sum(sim.free0) + (sum(sim.free1) if sim.cluster.slots else 0))
        a1 = min(free, max(0.0, self.delta * self.total - self.used[SD]))
        pending = tuple([self.outstanding[j] for j in self.members[c] if self.outstanding[j] > 0]
                        for c in (SD, LD))
        delta = adjust_reserve(self.delta, self.total, (a1, free - a1),
                               (self.forecast(SD), self.forecast(LD)),
                               pending, leftover=self.leftover)  # type: ignore[arg-type]
        lo, hi = self.delta_range
        self.delta = min(max(delta, lo), hi)
        self.trace.append((sim.now, self.delta))


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    # ``dress``: keyword arguments of DRESS (``theta``, ``delta``, ...), e.g. from the CLI
    register_scheduler("dress", lambda dress=None, **_: DRESS(**(dress or {})))


_register()
