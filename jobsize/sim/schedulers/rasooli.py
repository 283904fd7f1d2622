"""Rasooli and Down's adaptive scheduler for heterogeneous Hadoop clusters (CASCON 2011, §6).

Two processes (Fig 1):

- **queueing** (a job arrives): its mean execution time on every resource R_j (node) is
  estimated — here from the size source's summed map and reduce task time, as if the job had
  the node to itself: ``SE_m / (map slots · map speed) + SE_r / (reduce slots · reduce
  speed)`` — and the job is classified twice: *JobClasses1* (jobs of users with a min share)
  and *JobClasses2* (all jobs). A class gathers jobs of one priority with similar execution
  times: the class of a job is its user's priority and its map and reduce work binned on a
  log₂ scale (``bin_width`` octaves; the paper clusters without naming the method). A class
  has an arrival rate ``α_i`` (its arrivals so far over the time elapsed) and rates
  ``μ_ij = 1 / mean execution time`` of its jobs on R_j. In JobClasses1 both count only the
  jobs of users with a min share: "in the minimum share classification, only the jobs whose
  users have minshare > 0 are considered" (§6, item 2). Users of one priority with and
  without a min share share a class key, so a class of 41 arrivals of which one is from a
  min-share user enters the JobClasses1 LP with α of 1 arrival, not 41. When a new class
  appears, and every ``resolve_every`` arrivals, the routing LP
  (:mod:`~jobsize.sim.schedulers.class_routing`) is solved for each classification, giving
  each resource its suggested classes ``SC_j`` (JobClasses1) and ``SC'_j`` (JobClasses2).
- **routing** (a resource has a free slot): the job selector (§6, item 4, whose text breaks off
  after its first sentence; rebuilt from the results discussion) —

  1. *min share*: users with demand below their min share, by ``priority × (min share −
     assigned slots)`` descending; the oldest job of the first such user whose class is in
     ``SC_j`` and that has a task for the slot;
  2. *fairness*: users with demand, by ``(assigned − min share) / priority`` ascending; the
     oldest job of the first user whose class is in ``SC'_j``;
  3. if neither finds a job, the slot goes to the fairness order ignoring the suggested sets
     (``work_conserving=True``, not in the paper; ``False`` leaves it idle — unless no task
     runs anywhere and a job fits none of its suggested nodes, which AMs can fill in the YARN
     model: that job takes the slot, so that every job finishes).

  The task of the chosen job is picked by the simulator, node-local first (the paper's Task
  Scheduler).

Users are the jobs' ``queue`` column; ``users`` maps a user to (min share in slots, priority).
By default the paper's example system Exp1 (Table 1): User1 50/3, User2 20/2, User3 40/3, User4
30/2, User5 0/1, User6 0/2; other users 0/1. What it needs to know: every job's summed map and
reduce task time (its execution time on each node) and the arrival pattern; both the slot and
the YARN model (there a node's slots for a job are the job's own map or reduce containers
that fit on it; a node where one of its containers, AM included, never fits is never suggested
for its class).
"""

from __future__ import annotations

import math

import numpy as np

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, MAP, REDUCE, Policy
from jobsize.sim.schedulers.class_routing import Routing, suggested_sets
from jobsize.sim.size_sources import ExactSizes, SizeSource

#: Table 1 (Exp1): user -> (min share in slots, priority)
EXP1_USERS: dict[str, tuple[float, float]] = {
    "User1": (50, 3), "User2": (20, 2), "User3": (40, 3), "User4": (30, 2), "User5": (0, 1),
    "User6": (0, 2),
}


#: Shortest mean execution time a class's rate is computed from (μ ≤ 1e9 per second).
MIN_EXEC_S = 1e-9


class RasooliDown(Policy):
    """The adaptive heterogeneity-aware scheduler (see the module docstring)."""

    name = "rasooli"

    def __init__(self, size_source: SizeSource | None = None, *,
                 users: dict[str, tuple[float, float]] | None = None, bin_width: float = 2.0,
                 resolve_every: int = 20, work_conserving: bool = True) -> None:
        if bin_width <= 0 or resolve_every < 1:
            raise ConfigError("Rasooli-Down needs a bin width > 0 and resolve_every ≥ 1")
        self.users = dict(EXP1_USERS if users is None else users)
        for u, (share, prio) in self.users.items():
            if share < 0 or prio <= 0:
                raise ConfigError(f"user {u!r}: min share must be ≥ 0 and priority > 0")
        self.size_source = size_source or ExactSizes()
        self.bin_width, self.resolve_every = bin_width, resolve_every
        self.work_conserving = work_conserving
        self.solves = 0

    def describe(self) -> str:
        return f"{self.name}[{self.size_source.name}]"

    # -----------------------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        est = sim.estimates(self.size_source)
        self.exec_s = self._exec_times(sim, est.map_time_s, est.reduce_time_s)
        names = sim.jobs["queue"].astype(str).tolist()
        self.user_names = list(dict.fromkeys(names))
        self.user_of = [self.user_names.index(u) for u in names]
        spec = [self.users.get(u, (0.0, 1.0)) for u in self.user_names]
        self.min_share = [float(s) for s, _ in spec]
        self.priority = [float(p) for _, p in spec]
        self.klass = [self._classify(j, est.map_time_s[j], est.reduce_time_s[j])
                      for j in range(sim.n)]
        self.known_at = (np.asarray(sim.submit) + est.known_after_s).tolist()
        self.assigned = [0] * len(self.user_names)  # running tasks per user
        self.jobs_of: list[dict[int, None]] = [{} for _ in self.user_names]  # active, oldest first
        #: JobClasses2: class -> its jobs so far; JobClasses1: the same, jobs of users with a
        #: min share only
        self.class_members: dict[tuple, list[int]] = {}
        self.share_members: dict[tuple, list[int]] = {}
        self.first_arrival = math.nan
        self.since_solve = 0
        empty = tuple(frozenset() for _ in range(sim.cluster.n_nodes))
        self.sc1: tuple[frozenset[tuple], ...] = empty
        self.sc2: tuple[frozenset[tuple], ...] = empty

    @staticmethod
    def _exec_times(sim: Simulation, se_m: np.ndarray, se_r: np.ndarray) -> np.ndarray:
        """mean_execTime(J, R_j): jobs × nodes, the job alone on each node — its map (reduce)
        work over the number of *its own* map (reduce) containers the node holds at once, and
        the node's speed. Infinite where a container the job needs never fits on the node
        (its tasks', unless it is uber; in the YARN model its AM's too): the LP then gives its
        class no share of that node, where it would otherwise wait forever with
        ``work_conserving=False``. In the slot model a task takes its slot's weight in units,
        so the count is the node's slots of that kind."""
        units = sim.cluster.units.astype(float)
        speed = sim.cluster.speed

        def fit(kind: int) -> np.ndarray:
            req = np.stack([np.asarray(sim.req0[kind], float),
                            np.asarray(sim.req1[kind], float)], axis=1)[:, None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                per_dim = np.where(req > 0, np.floor(units[None, :, :] / req), np.inf)
            return per_dim.min(axis=2)  # a container that asks for nothing fits any number

        fit_m, fit_r = fit(MAP), fit(REDUCE)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_m = np.where(se_m[:, None] > 0, se_m[:, None] / (fit_m * speed[:, 0]), 0.0)
            t_r = np.where(se_r[:, None] > 0, se_r[:, None] / (fit_r * speed[:, 1]), 0.0)
        t = t_m + t_r
        tasks = ~np.asarray(sim.uber, bool)[:, None]
        t[tasks & (np.asarray(sim.n_maps)[:, None] > 0) & (fit_m < 1)] = np.inf
        t[tasks & (np.asarray(sim.n_reduces)[:, None] > 0) & (fit_r < 1)] = np.inf
        if not sim.cluster.slots:
            t[fit(AM) < 1] = np.inf
        return t

    def _classify(self, j: int, se_m: float, se_r: float) -> tuple:
        """(priority, map-work bin, reduce-work bin)."""
        def octave(x: float) -> int:
            return -1 if x <= 0 else round(math.log2(x) / self.bin_width)

        return (self.priority[self.user_of[j]], octave(se_m), octave(se_r))

    # -----------------------------------------------------------------------------------------
    # the queueing process

    def on_arrival(self, j: int) -> None:
        now = self.sim.now
        if math.isnan(self.first_arrival):
            self.first_arrival = now
        self.jobs_of[self.user_of[j]][j] = None
        if self.known_at[j] > now:  # classified once its estimate exists
            self.sim.wake_at(self.known_at[j], ("estimated", j))
        else:
            self._classify_arrival(j)

    def on_wake(self, tag: object) -> None:
        if isinstance(tag, tuple) and tag[0] == "estimated":
            self._classify_arrival(tag[1])

    def _classify_arrival(self, j: int) -> None:
        k = self.klass[j]
        new = k not in self.class_members
        self.class_members.setdefault(k, []).append(j)
        if self.min_share[self.user_of[j]] > 0:
            new = new or k not in self.share_members
            self.share_members.setdefault(k, []).append(j)
        self.since_solve += 1
        if new or self.since_solve >= self.resolve_every:
            self.solve()

    def solve(self) -> None:
        """Both classifications' LPs: the suggested sets SC_j and SC'_j. When they change,
        every node with room is offered again: an idle node may now suit a waiting job (the
        arrival that triggered the solve need not bring demand of its own — a job with no
        task — and the simulator offers idle nodes only on new demand)."""
        self.since_solve = 0
        self.solves += 1
        elapsed = max(self.sim.now - self.first_arrival, 1.0)
        before = (self.sc1, self.sc2)
        self.sc1 = self._sets(self.share_members, elapsed)
        self.sc2 = self._sets(self.class_members, elapsed)
        if (self.sc1, self.sc2) != before:
            self.sim.request_offers()

    def _sets(self, members: dict[tuple, list[int]], elapsed: float
              ) -> tuple[frozenset[tuple], ...]:
        """Each node's suggested classes from the LP over the classes of ``members`` (class ->
        the jobs that count: their number over ``elapsed`` is α, their mean execution time
        gives μ)."""
        classes = list(members)
        if not classes:
            return tuple(frozenset() for _ in range(self.sim.cluster.n_nodes))
        alpha = np.array([len(members[k]) / elapsed for k in classes])
        mean_exec = np.array([self.exec_s[members[k]].mean(axis=0) for k in classes])
        # a class of (almost) no work is served at once: its rate is capped at 1e9 per second,
        # so the LP stays well scaled (a task of 1e-258 s would make μ 1e257, beyond HiGHS)
        mu = 1.0 / np.maximum(mean_exec, MIN_EXEC_S)  # a node with no slot for it: μ = 0
        routing: Routing = suggested_sets(alpha, mu)
        # a class no node can run alone (its maps fit only on some nodes, its reduces only on
        # others) has μ = 0 everywhere and no share: the LP cannot place it, so every node
        # may serve it (else, not work-conserving, it would wait forever)
        anywhere = {classes[i] for i in np.flatnonzero(mu.sum(axis=1) == 0).tolist()}
        return tuple(frozenset(classes[i] for i in s) | anywhere for s in routing.suggested)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        if kind in (MAP, REDUCE):
            self.assigned[self.user_of[j]] += 1

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        if kind in (MAP, REDUCE):
            self.assigned[self.user_of[j]] -= 1
            if not self.work_conserving and not any(self.assigned):
                self.sim.request_offers()  # a stranded job may now take any node (choose)

    def on_job_finish(self, j: int) -> None:
        self.jobs_of[self.user_of[j]].pop(j, None)

    # -----------------------------------------------------------------------------------------
    # the routing process

    def choose(self, node: int) -> tuple[int, int] | None:
        sim = self.sim
        demand = [u for u, jobs in enumerate(self.jobs_of) if any(map(sim.has_demand, jobs))]
        if not demand:
            return None
        assigned, share, prio = self.assigned, self.min_share, self.priority
        needy = sorted((u for u in demand if share[u] > 0 and assigned[u] < share[u]),
                       key=lambda u: (-prio[u] * (share[u] - assigned[u]), u))
        pick = self._first(needy, node, self.sc1[node])
        if pick is not None:
            return pick
        fair = sorted(demand, key=lambda u: ((assigned[u] - share[u]) / prio[u], u))
        pick = self._first(fair, node, self.sc2[node])
        if pick is None and self.work_conserving:
            pick = self._first(fair, node, None)
        elif pick is None and not any(assigned):
            pick = self._stranded(fair, node)
        return pick

    def _stranded(self, users: list[int], node: int) -> tuple[int, int] | None:
        """With no task running anywhere, the oldest job (in ``users``' order) with a task for
        ``node`` and no suggested node its next task fits on now: in the YARN model AMs hold
        memory the LP does not see, and a job whose suggested nodes they fill would otherwise
        wait forever, since nothing running will free them (not in the paper, whose slot
        model has no AMs)."""
        sim = self.sim
        nodes = range(sim.cluster.n_nodes)
        for u in users:
            for j in self.jobs_of[u]:
                kind = sim.next_kind(j, node)
                if kind < 0 or self.known_at[j] > sim.now:
                    continue
                k = self.klass[j]
                if not any(k in self.sc2[n] and sim.next_kind(j, n) >= 0 for n in nodes):
                    return j, kind
        return None

    def _first(self, users: list[int], node: int, suggested: frozenset | None
               ) -> tuple[int, int] | None:
        """The oldest job of the first user in ``users`` with a suggested class (any class with
        ``None``) and a task that fits ``node``."""
        sim = self.sim
        for u in users:
            for j in self.jobs_of[u]:
                if suggested is not None and (self.klass[j] not in suggested
                                              or self.known_at[j] > sim.now):
                    continue
                kind = sim.next_kind(j, node)
                if kind >= 0:
                    return j, kind
        return None


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    register_scheduler("rasooli", lambda size_source=None, **_: RasooliDown(size_source))


_register()
