"""Sharing benefit and sharing loss of queues (Tang's thesis, §5.2.2, eqs 5.3-5.5).

A queue's fairness degree compares what it got with what it would have got alone on its static
share S (eq 5.2):

    β_i(t) = ∫_0^t g_i dt / ∫_0^t min(d_i, S_i) dt          (eq 5.3)
    Ψ(t) = Σ_i max(β_i − 1, 0)    sharing benefit             (eq 5.4)
    Ω(t) = Σ_i min(β_i − 1, 0)    sharing loss (≤ 0)          (eq 5.5)

g_i is what the queue holds, d_i its demand (held + asked for). :class:`QueueMeter` wraps a
scheduler and notes both for every queue whenever they change (and the accumulated resources
f_i of a scheduler that keeps them, as LTYARN does); :func:`sharing_curves` integrates them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from jobsize.sim.eventloop import Simulation
from jobsize.sim.policy import AM, MAP, REDUCE, Policy
from jobsize.sim.reproductions.wrapping import Wrapped


class QueueMeter(Wrapped):
    """``inner``, noting each queue's allocation and demand (memory MB, or slots)."""

    def __init__(self, inner: Policy, queues: Sequence[str]) -> None:
        super().__init__(inner)
        self.queues = list(queues)

    def bind(self, sim: Simulation) -> None:
        index = {q: i for i, q in enumerate(self.queues)}
        self.qof = [index.get(q, -1) for q in sim.jobs["queue"].astype(str)]
        nq = len(self.queues)
        self.alloc = [0.0] * nq
        self.pending = [0.0] * nq
        self._pending_j: dict[int, float] = {}
        #: (time, queue, held, demand, accumulated or NaN)
        self.rows: list[tuple[float, int, float, float, float]] = []
        self._f = getattr(self.inner, "accumulated", None)
        slots = sim.cluster.slots
        self._size = lambda kind, j: sim.req0[kind][j] + (sim.req1[kind][j] if slots else 0)
        super().bind(sim)

    def _asked(self, j: int) -> float:
        sim = self.sim
        ph = sim.phase[j]
        if ph == 1:
            return float(self._size(AM, j)) if not sim.cluster.slots else 0.0
        if ph != 3:
            return 0.0
        asked = sim.maps_todo[j] * self._size(MAP, j)
        if sim.reduce_ready[j]:
            asked += sim.reduces_todo[j] * self._size(REDUCE, j)
        return float(asked)

    def _note(self, j: int) -> None:
        q = self.qof[j]
        if q < 0:
            return
        new = self._asked(j)
        self.pending[q] += new - self._pending_j.get(j, 0.0)
        self._pending_j[j] = new
        f = self._f(self.queues[q]) if self._f is not None else np.nan
        self.rows.append((self.sim.now, q, self.alloc[q], self.alloc[q] + self.pending[q], f))

    def on_arrival(self, j: int) -> None:
        self.inner.on_arrival(j)
        self._note(j)

    def on_demand(self, j: int) -> None:
        self.inner.on_demand(j)
        self._note(j)

    def on_launch(self, j: int, kind: int, node: int, cid: int) -> None:
        self.inner.on_launch(j, kind, node, cid)
        if self.qof[j] >= 0 and kind <= REDUCE:
            self.alloc[self.qof[j]] += self._size(kind, j)
        self._note(j)

    def on_release(self, j: int, kind: int, node: int, cid: int, elapsed_s: float,
                   completed: bool) -> None:
        self.inner.on_release(j, kind, node, cid, elapsed_s, completed)
        if self.qof[j] >= 0 and kind <= REDUCE:
            self.alloc[self.qof[j]] -= self._size(kind, j)
        self._note(j)

    def on_job_finish(self, j: int) -> None:
        self.inner.on_job_finish(j)
        self._note(j)

    def frame(self) -> pd.DataFrame:
        """The notes, one row per change: time, queue (name), held, demand, accumulated."""
        out = pd.DataFrame(self.rows, columns=["t", "q", "held", "demand", "accumulated"])
        out["queue"] = np.asarray(self.queues, dtype=object)[out["q"].to_numpy()]
        return out.drop(columns="q")


def _integral(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """∫_0^x of the step function that is values[k] on [times[k], times[k+1]), at every x."""
    if len(times) == 0:
        return np.zeros(len(at))
    cum = np.concatenate(([0.0], np.cumsum(values[:-1] * np.diff(times))))
    k = np.searchsorted(times, at, side="right") - 1
    inside = k >= 0
    out = np.zeros(len(at))
    kk = k[inside]
    out[inside] = cum[kk] + values[kk] * (at[inside] - times[kk])
    return out


def sharing_curves(notes: pd.DataFrame, shares: dict[str, float],
                   at: np.ndarray) -> pd.DataFrame:
    """β of every queue (eq 5.3), Ψ (eq 5.4) and Ω (eq 5.5) at the times ``at``; β is 1 while
    a queue has had no demand."""
    out = pd.DataFrame({"t": at})
    betas = []
    for queue, share in shares.items():
        rows = notes[notes["queue"] == queue]
        last = rows.groupby("t", sort=True).last()  # several changes at one instant: the last
        t = last.index.to_numpy(float)
        got = _integral(t, last["held"].to_numpy(float), at)
        fair = _integral(t, np.minimum(last["demand"].to_numpy(float), share), at)
        beta = np.divide(got, fair, out=np.ones(len(at)), where=fair > 0)
        out[f"beta_{queue}"] = beta
        betas.append(beta)
    b = np.vstack(betas) if betas else np.zeros((0, len(at)))
    out["benefit"] = np.maximum(b - 1, 0).sum(axis=0)
    out["loss"] = np.minimum(b - 1, 0).sum(axis=0)
    return out
