"""LTYARN, the long-term YARN fair scheduler (Tang's thesis, ch 5): long-term max-min fairness
(LTRF, Algorithm 10) over hierarchical queues, with the time quantum and its updater.

**Accumulated resources** (§5.5.1, eqs 5.6-5.9, 5.13, 5.15). Every queue and every application
keeps

    f_i(t) = ∫ g'_i dt  +  Σ_{running tasks} θ · max(0, α − elapsed)  +  φ_i

- g_i: what it holds now (memory MB; slots in the slot model), counted as g'_i (eq 5.7)
  = min(g, S) + η·max(g − S, 0), S its static share (eq 5.2: the cluster split by weight at
  every level of the tree) and η the discount on resources taken beyond the share (1: none).
  Applications have no static share, so they are counted undiscounted;
- the time quantum (§5.5.1.1, eq 5.15): a task's assumed execution time α starts at its
  application's quantum Q when it is launched and follows its running time once that is longer;
  a completed (or killed) task counts what it really ran. So f grows the moment a container is
  granted, as Algorithm 10 updates u_i at each allocation;
- φ_i, the pseudo accumulated resources (PAR, eqs 5.10/5.16): when a queue or application
  becomes active while an earlier sibling is active, φ_i = the largest f of those siblings at
  that moment, frozen. A late comer starts level with the most served and does not catch up on
  history it was absent for ("early bird privilege"). A queue arrives once: when it goes idle
  and comes back it keeps its history — that is the lending agreement.

**Resource Allocator** (§5.5.2.3, eq 5.11). A free container goes, level by level from the root,
to the child with pending demand and the smallest ``f/w`` (order ``ltmm``), the smallest current
allocation ``g/w`` (``mlrf``: memoryless max-min, YARN's Fair), or the earliest arrival
(``fifo``); a queue below its min share comes first and none grows beyond its max share. There
is no preemption (Algorithm 10 waits for released resources).

**Quantum Updater** (§5.5.2.1). A new application takes its leaf queue's quantum (all start at
Q0). When a map or reduce task completes, its application's Q becomes the mean duration of its
completed tasks, its leaf's Q the mean over the leaf's live applications that have one, each
parent's the mean of its children's, up to the root. ``adaptive=False`` keeps every Q at Q0
(Fig 5.7's fixed quantum).

**Rounds** (S-LTMM, eqs 5.12-5.16). With a round length L, all history restarts at every multiple
of L: f and φ of every queue and application, their arrivals (an element with a running task
arrives at the round's start, one without at its first task launched in the round), and a task
spanning the boundary counts from it. The default L = ∞ is F-LTMM.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from jobsize.errors import ConfigError
from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import EXTRA, MAP, REDUCE, Policy
from jobsize.sim.queues import KeyedQueue

ORDERS = ("ltmm", "mlrf", "fifo")


@dataclass(frozen=True)
class LTQueue:
    """A queue of the tree, named by its dotted path under ``root`` (``org.team``): weight, how
    it orders its children (``ltmm``, ``mlrf`` or ``fifo``) and min / max shares as fractions of
    the cluster."""

    path: str
    weight: float = 1.0
    order: str = "ltmm"
    min_share: float = 0.0
    max_share: float = 1.0

    def __post_init__(self) -> None:
        if not self.path or any(not part for part in self.path.split(".")):
            raise ConfigError(f"LTYARN queue {self.path!r}: expected a dotted path like a.b")
        if not self.weight > 0:
            raise ConfigError(f"LTYARN queue {self.path!r}: weight must be positive")
        if self.order not in ORDERS:
            raise ConfigError(f"LTYARN queue {self.path!r}: order {self.order!r} is not one of "
                              f"{', '.join(ORDERS)}")
        if not 0 <= self.min_share <= self.max_share <= 1:
            raise ConfigError(f"LTYARN queue {self.path!r}: need 0 ≤ min ≤ max ≤ 1, found "
                              f"{self.min_share}, {self.max_share}")


def parse_ltyarn_queues(spec: str) -> list[LTQueue]:
    """``path[:weight[:order[:min[:max]]]],...`` → queues, e.g. ``fb:1,org.a:2:mlrf,org:1::0.2``;
    the path ``root`` sets the root's order."""
    queues = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        fields = part.split(":")
        try:
            weight = float(fields[1]) if len(fields) > 1 and fields[1] else 1.0
            lo = float(fields[3]) if len(fields) > 3 and fields[3] else 0.0
            hi = float(fields[4]) if len(fields) > 4 and fields[4] else 1.0
        except ValueError:
            raise ConfigError(f"LTYARN queue {part!r}: expected "
                              "path[:weight[:order[:min[:max]]]]") from None
        if len(fields) > 5:
            raise ConfigError(f"LTYARN queue {part!r}: too many fields")
        order = fields[2] if len(fields) > 2 and fields[2] else "ltmm"
        queues.append(LTQueue(_relative(fields[0]), weight, order, lo, hi))
    return queues


def _relative(path: str) -> str:
    path = path.strip()
    return path[5:] if path.startswith("root.") else path


class Ledger:
    """Accumulated resources f(t) of one queue or application (see the module docstring).

    Between events f is exact: the integral of the counted allocation is piecewise linear and
    the quantum's pre-charge of young tasks (running for less than their α) is kept as two
    sums, Σθ and Σθ·expiry, with a heap of expiries.
    """

    __slots__ = ("_exp", "_y0", "_y1", "_young", "alloc", "arrival", "eta", "integral", "last",
                 "par", "share")

    def __init__(self, now: float, share: float = math.inf, eta: float = 1.0) -> None:
        self.share, self.eta = share, eta
        self.integral, self.last, self.alloc, self.par = 0.0, now, 0.0, 0.0
        self.arrival: float | None = None
        self._young: list[tuple[float, int]] = []
        self._exp: dict[int, tuple[float, float]] = {}  # cid -> (expiry, θ)
        self._y0 = self._y1 = 0.0

    def counted(self, g: float) -> float:
        """g' of eq 5.7."""
        s = self.share
        return g if g <= s else s + self.eta * (g - s)

    def _flush(self, now: float) -> None:
        if now > self.last:
            self.integral += self.counted(self.alloc) * (now - self.last)
            self.last = now

    def grant(self, now: float, cid: int, amount: float, expiry: float) -> None:
        self._flush(now)
        self.alloc += amount
        self.precharge(now, cid, amount, expiry)

    def precharge(self, now: float, cid: int, amount: float, expiry: float) -> None:
        """Count the running task ``cid`` as lasting at least until ``expiry``."""
        if expiry > now:
            heapq.heappush(self._young, (expiry, cid))
            self._exp[cid] = (expiry, amount)
            self._y0 += amount
            self._y1 += amount * expiry

    def take_back(self, now: float, cid: int, amount: float) -> None:
        self._flush(now)
        self.alloc -= amount
        self._forget(cid)

    def _forget(self, cid: int) -> None:
        rec = self._exp.pop(cid, None)
        if rec is not None:
            self._y0 -= rec[1]
            self._y1 -= rec[1] * rec[0]
        if not self._exp:  # nothing young: drop stale entries and rounding residue
            self._young.clear()
            self._y0 = self._y1 = 0.0

    def value(self, now: float) -> float:
        """f(now)."""
        young = self._young
        while young and young[0][0] <= now:
            expiry, cid = heapq.heappop(young)
            rec = self._exp.get(cid)
            if rec is not None and rec[0] == expiry:
                self._forget(cid)
        g = self.alloc
        rate = self.counted(g)
        pre = max(self._y1 - now * self._y0, 0.0)
        if g > self.share:
            pre *= rate / g  # the pre-charge is counted at the same discount as the allocation
        return self.integral + rate * (now - self.last) + pre + self.par

    def restart(self, now: float) -> None:
        """A new round (S-LTMM): history and PAR start again from ``now``."""
        self.integral, self.last, self.par = 0.0, now, 0.0
        self.arrival = now if self.alloc > 0 else None
        self._young.clear()
        self._exp.clear()
        self._y0 = self._y1 = 0.0


class _Queue:
    """A node of the queue tree."""

    def __init__(self, path: str, parent: _Queue | None, spec: LTQueue) -> None:
        self.path, self.parent, self.spec = path, parent, spec
        self.children: list[_Queue] = []
        self.jobs: KeyedQueue | None = None  # leaves: their applications with demand
        self.apps: set[int] = set()  # leaves: live applications
        self.live = 0  # live applications below
        self.share = self.min = self.max = 0.0
        self.quantum = 0.0
        self.measured: dict[int, float] = {}  # leaves: app -> Q of apps with a completed task
        self.ledger = Ledger(0.0)

    @property
    def weight(self) -> float:
        return self.spec.weight

    def has_demand(self) -> bool:
        if self.jobs is not None:
            return len(self.jobs) > 0
        return any(c.has_demand() for c in self.children)


class LTYARN(Policy):
    """LTYARN over ``queues`` (see the module docstring); every queue ``ltmm`` unless given.

    ``quantum_s``: Q0, the root's time quantum; ``adaptive``: run the Quantum Updater;
    ``round_s``: round length L of S-LTMM (∞: F-LTMM); ``discount``: η of eq 5.7.
    """

    name = "ltyarn"

    def __init__(self, queues: Sequence[LTQueue] | None = None, *, quantum_s: float = 60.0,
                 adaptive: bool = True, round_s: float = math.inf,
                 discount: float = 1.0, app_par: bool = True) -> None:
        if not quantum_s >= 0 or not math.isfinite(quantum_s):
            raise ConfigError(f"LTYARN quantum {quantum_s!r} must be a non-negative number")
        if not round_s > 0:
            raise ConfigError(f"LTYARN round length {round_s!r} must be positive")
        if not 0 <= discount <= 1:
            raise ConfigError(f"LTYARN discount {discount!r} is not in [0, 1]")
        self.specs = {q.path: q for q in (queues or [])}
        if len(self.specs) != len(queues or []):
            raise ConfigError("LTYARN queues: a path is given twice")
        self.quantum_s, self.adaptive = quantum_s, adaptive
        self.round_s, self.discount = round_s, discount
        #: applications get PAR when they arrive (False, an ablation: they start from nothing)
        self.app_par = app_par

    def describe(self) -> str:
        parts = [f"Q0={self.quantum_s:g}" + ("" if self.adaptive else " fixed")]
        if math.isfinite(self.round_s):
            parts.append(f"L={self.round_s:g}")
        if self.discount != 1:
            parts.append(f"η={self.discount:g}")
        if not self.app_par:
            parts.append("no app PAR")
        return f"ltyarn[{','.join(parts)}]"

    # -----------------------------------------------------------------------------------------
    # the tree

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        slots = sim.cluster.slots
        self._amount = lambda kind, j: (0.0 if kind == EXTRA else float(
            sim.req0[kind][j] + (sim.req1[kind][j] if slots else 0)))
        total = float(sim.total0 + (sim.total1 if slots else 0))
        self.root = _Queue("root", None, self.specs.get("root", LTQueue("root")))
        self.nodes: dict[str, _Queue] = {"root": self.root}
        for path in self.specs:
            if path != "root":
                self._node(path)
        names = sim.jobs["queue"].astype(str).tolist()
        self.leaf_of = [self._leaf(name) for name in names]
        self._setup(self.root, total, total)
        self._paths = {leaf: self._ancestry(leaf) for leaf in set(self.leaf_of)}
        self.weight = sim.jobs["weight"].to_numpy(float).tolist()
        self.apps: dict[int, Ledger] = {}
        self.app_q = [self.quantum_s] * sim.n
        self.done_n = [0] * sim.n
        self.done_s = [0.0] * sim.n
        self._running: dict[int, tuple[int, float, float]] = {}  # cid -> (job, θ, Q at launch)
        self._round = 0
        if math.isfinite(self.round_s) and sim.n:
            sim.wake_at(self.round_s, ("ltyarn-round", 1))

    def _node(self, path: str) -> _Queue:
        node = self.nodes.get(path)
        if node is None:
            parent_path, _, _ = path.rpartition(".")
            parent = self._node(parent_path) if parent_path else self.root
            if parent.jobs is not None:
                raise ConfigError(f"LTYARN queue {parent.path!r} holds applications and "
                                  f"cannot also have the sub-queue {path!r}")
            node = _Queue(path, parent, self.specs.get(path, LTQueue(path)))
            parent.children.append(node)
            self.nodes[path] = node
        return node

    def _leaf(self, name: str) -> _Queue:
        """The leaf queue a job names: by path, else by a unique last component, else a new
        leaf under the root."""
        path = _relative(name)
        node = self.nodes.get(path)
        if node is None:
            ends = [n for p, n in self.nodes.items() if p.rpartition(".")[2] == path]
            node = ends[0] if len(ends) == 1 else self._node(path)
        if node.children:
            raise ConfigError(f"jobs of queue {name!r}: LTYARN queue {node.path!r} has "
                              "sub-queues; applications go to leaf queues")
        if node.jobs is None:
            node.jobs = KeyedQueue(self.sim, key=self._app_key(node.spec.order))
        return node

    def _setup(self, node: _Queue, share: float, total: float) -> None:
        """Static shares (eq 5.2 at every level), min/max shares, Q0."""
        node.share = share
        node.min, node.max = node.spec.min_share * total, node.spec.max_share * total
        node.quantum = self.quantum_s
        node.ledger = Ledger(0.0, share, self.discount)
        weights = sum(c.weight for c in node.children)
        for c in node.children:
            self._setup(c, share * c.weight / weights, total)

    def _ancestry(self, leaf: _Queue) -> list[_Queue]:
        """``leaf`` and its ancestors below the root."""
        out, node = [], leaf
        while node is not self.root:
            out.append(node)
            node = node.parent  # type: ignore[assignment]
        return out

    def _path(self, j: int) -> list[_Queue]:
        return self._paths[self.leaf_of[j]]

    def _app_key(self, order: str):
        sim = self.sim
        if order == "fifo":
            return float
        if order == "mlrf":
            slots = sim.cluster.slots
            use0, use1 = sim.use0, sim.use1
            return lambda j: (use0[j] + (use1[j] if slots else 0)) / self.weight[j]
        return lambda j: self.apps[j].value(sim.now) / self.weight[j]

    # -----------------------------------------------------------------------------------------
    # arrivals and PAR

    def on_arrival(self, j: int) -> None:
        now = self.sim.now
        leaf = self.leaf_of[j]
        app = self.apps[j] = Ledger(now)
        self.app_q[j] = leaf.quantum
        self._arrive(app, [self.apps[k] for k in leaf.apps] if self.app_par else [], now)
        leaf.apps.add(j)
        for node in self._path(j):
            node.live += 1
            if node.ledger.arrival is None and node.live == 1:
                self._arrive_queue(node, now)

    def _arrive(self, ledger: Ledger, siblings: list[Ledger], now: float) -> None:
        """Eq 5.10: PAR = the largest f among active siblings that arrived earlier."""
        ledger.arrival = now
        earlier = [s.value(now) for s in siblings if s.arrival is not None and s.arrival < now]
        ledger.par = max(earlier, default=0.0)

    def _arrive_queue(self, node: _Queue, now: float) -> None:
        parent = node.parent
        assert parent is not None
        self._arrive(node.ledger, [c.ledger for c in parent.children
                                   if c is not node and c.live > 0], now)

    def on_demand(self, j: int) -> None:
        self.leaf_of[j].jobs.add(j)  # type: ignore[union-attr]

    # -----------------------------------------------------------------------------------------
    # allocation (eq 5.11)

    def choose(self, node: int) -> tuple[int, int] | None:
        return self._pick(self.root, node)

    def _pick(self, queue: _Queue, node: int) -> tuple[int, int] | None:
        if queue.jobs is not None:
            return queue.jobs.pick(node)
        children = [c for c in queue.children if c.has_demand()]
        if len(children) > 1:
            now, order = self.sim.now, queue.spec.order
            children.sort(key=lambda c: self._rank(c, order, now))
        for child in children:
            pick = self._pick(child, node)
            if pick is not None and (child.ledger.alloc + self._amount(pick[1], pick[0])
                                     <= child.max + 1e-9):
                return pick
        return None

    @staticmethod
    def _rank(c: _Queue, order: str, now: float) -> tuple[int, float]:
        led = c.ledger
        if led.alloc < c.min:
            return 0, led.alloc / c.min  # below its min share: first, the neediest first
        if order == "ltmm":
            return 1, led.value(now) / c.weight
        if order == "mlrf":
            return 1, led.alloc / c.weight
        return 1, led.arrival if led.arrival is not None else math.inf

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        now = self.sim.now
        amount, q = self._amount(kind, j), self.app_q[j]
        self._running[cid] = (j, amount, q)
        app = self.apps[j]
        if app.arrival is None:  # S-LTMM: first task of the round (eq 5.14)
            self._arrive(app, [self.apps[k] for k in self.leaf_of[j].apps if k != j]
                         if self.app_par else [], now)
        app.grant(now, cid, amount, now + q)
        for queue in self._path(j):
            if queue.ledger.arrival is None:
                self._arrive_queue(queue, now)
            queue.ledger.grant(now, cid, amount, now + q)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        now = self.sim.now
        rec = self._running.pop(cid, None)
        if rec is None:
            return
        amount = rec[1]
        self.apps[j].take_back(now, cid, amount)
        for queue in self._path(j):
            queue.ledger.take_back(now, cid, amount)
        if completed and kind in (MAP, REDUCE):
            self._measure(j, elapsed_s)
        self.leaf_of[j].jobs.touch(j)  # type: ignore[union-attr]  # its f may have dropped

    def on_job_finish(self, j: int) -> None:
        leaf = self.leaf_of[j]
        leaf.apps.discard(j)
        if leaf.measured.pop(j, None) is not None and leaf.measured:
            leaf.quantum = sum(leaf.measured.values()) / len(leaf.measured)
        for queue in self._path(j):
            queue.live -= 1
        leaf.jobs.remove(j)  # type: ignore[union-attr]

    # -----------------------------------------------------------------------------------------
    # Quantum Updater (§5.5.2.1)

    def _measure(self, j: int, duration: float) -> None:
        self.done_n[j] += 1
        self.done_s[j] += duration
        if not self.adaptive:
            return
        q = self.app_q[j] = self.done_s[j] / self.done_n[j]
        leaf = self.leaf_of[j]
        leaf.measured[j] = q
        leaf.quantum = sum(leaf.measured.values()) / len(leaf.measured)
        node = leaf.parent
        while node is not None:
            node.quantum = sum(c.quantum for c in node.children) / len(node.children)
            node = node.parent

    def quantum(self, path: str = "root") -> float:
        """The current quantum of a queue."""
        return self.nodes[_relative(path)].quantum

    def accumulated(self, path: str) -> float:
        """f(now) of a queue (its path as configured, or a job's queue name)."""
        return self.nodes[_relative(path)].ledger.value(self.sim.now)

    # -----------------------------------------------------------------------------------------
    # rounds (S-LTMM)

    def on_wake(self, tag: object) -> None:
        if not (isinstance(tag, tuple) and tag[0] == "ltyarn-round" and tag[1] == self._round + 1):
            return
        sim = self.sim
        self._round += 1
        now = sim.now
        ledgers = [n.ledger for n in self.nodes.values() if n is not self.root]
        ledgers += [self.apps[j] for leaf in self.nodes.values() for j in leaf.apps]
        for ledger in ledgers:
            ledger.restart(now)
        for cid, (j, amount, q) in self._running.items():  # eq 5.15: spanning tasks count from t_s
            self.apps[j].precharge(now, cid, amount, now + q)
            for queue in self._path(j):
                queue.ledger.precharge(now, cid, amount, now + q)
        for leaf in self.nodes.values():
            if leaf.jobs is not None:
                for j in leaf.jobs.jobs():
                    leaf.jobs.touch(j)
        # rounds go on while anything runs or is still to come (nothing running and nothing to
        # come means the workload is done, or stuck, which the event loop then reports)
        if self._running or any(p == 0 for p in sim.phase):
            sim.wake_at(now + self.round_s, ("ltyarn-round", self._round + 1))


def _register() -> None:
    from jobsize.sim.schedulers import register_scheduler

    # ``ltyarn``: keyword arguments of LTYARN (``queues``, ``quantum_s``, ...), e.g. from the CLI
    register_scheduler("ltyarn", lambda ltyarn=None, **_: LTYARN(**(ltyarn or {})))


_register()
