"""A second, naive implementation of the fluid model, to check :mod:`jobsize.sim.fluid` against.

It shares no code with the model under test and makes every decision from scratch at every
step: which jobs are present, what each policy serves at which rate, and the next instant at
which anything can change — an arrival, a served job's completion, or a policy's breakpoint
found by brute force over every present job. Slow (quadratic per step), exact, small cases only.

Policies, as the fluid model defines them (ties always go to the earlier arrival, then the
lower index):

- FIFO: the earliest present job.
- PS: every present job at rate 1/n.
- SRPT: the job with the least estimated remaining work (estimate − attained; it may be
  negative, so a late job keeps the server).
- SRPT+PS: jobs whose estimated remaining work is ≤ 0 share equally with the SRPT pick among
  the others.
- LAS: the jobs with the least attained service share equally.
- FSP (FSPE): the job that finishes first in a virtual processor-sharing server fed the same
  arrivals with the *estimated* sizes — a virtual server that keeps running whether or not the
  real one has work. Jobs already finished virtually come first, in virtual-finish order.
- FSP+PS (PSBS): the same, but the jobs already finished virtually share equally.

A job of size 0 completes the moment the policy first serves it, not before.
"""

from __future__ import annotations

import math

TOL = 1e-12


def ps_finish_times(arrival: list[float], work: list[float]) -> list[float]:
    """Finish times in a processor-sharing server of rate 1 that never stops."""
    n = len(arrival)
    order = sorted(range(n), key=lambda j: (arrival[j], j))
    finish = [math.nan] * n
    active: dict[int, float] = {}
    t, i = 0.0, 0
    while i < n or active:
        if not active:
            t = max(t, arrival[order[i]])
        while i < n and arrival[order[i]] <= t:
            j = order[i]
            i += 1
            if work[j] <= 0:
                finish[j] = arrival[j]
            else:
                active[j] = work[j]
        if not active:
            continue
        share = len(active)
        smallest = min(active.values())
        t_done = t + smallest * share
        t_next = arrival[order[i]] if i < n else math.inf
        if t_next < t_done:
            for j in active:
                active[j] -= (t_next - t) / share
            t = t_next
        else:
            for j in active:
                active[j] -= smallest
            t = t_done
            for j in [j for j, r in active.items() if r <= TOL * max(1.0, work[j])]:
                del active[j]
                finish[j] = t
    return finish


def _rates(policy: str, t: float, present: list[int], key: dict[str, list[float]]
           ) -> tuple[dict[int, float], float]:
    """Rates of the present jobs and the policy's next breakpoint (absolute time)."""
    arrival, est, att, vf = key["arrival"], key["estimate"], key["attained"], key["virtual"]
    first = sorted(present, key=lambda j: (arrival[j], j))

    def smallest(jobs: list[int], key) -> int:
        # keys within float noise of each other are a tie (they would be equal exactly)
        low = min(key(j) for j in jobs)
        return next(j for j in sorted(jobs, key=lambda j: (arrival[j], j))
                    if key(j) <= low + 1e-9 * max(1.0, abs(low)))

    def equal(jobs: list[int]) -> dict[int, float]:
        return {j: 1.0 / len(jobs) for j in jobs}

    if policy == "fifo":
        return {first[0]: 1.0}, math.inf
    if policy == "ps":
        return equal(present), math.inf
    if policy == "srpt":
        return {smallest(first, lambda j: est[j] - att[j]): 1.0}, math.inf
    if policy == "srpt+ps":
        late = [j for j in first if est[j] - att[j] <= 1e-9]
        fresh = [j for j in first if j not in late]
        served = list(late)
        head = None
        if fresh:
            head = smallest(fresh, lambda j: est[j] - att[j])
            served.append(head)
        rates = equal(served)
        if head is None:
            return rates, math.inf
        return rates, t + (est[head] - att[head]) / rates[head]
    if policy == "las":
        low = min(att[j] for j in present)
        group = [j for j in first if att[j] <= low + 1e-9]
        others = [att[j] for j in present if att[j] > low + 1e-9]
        rates = equal(group)
        nxt = min(others, default=math.inf)
        return rates, t + (nxt - low) * len(group) if others else math.inf
    if policy in ("fsp", "fsp+ps"):
        late = [j for j in first if vf[j] <= t]
        upcoming = min((vf[j] for j in present if vf[j] > t), default=math.inf)
        if late and policy == "fsp+ps":
            return equal(late), upcoming
        return {smallest(present, vf.__getitem__): 1.0}, upcoming
    raise ValueError(policy)


def reference_completions(arrival: list[float], size: list[float], estimate: list[float],
                          policy: str) -> list[float]:
    """Completion time of every job under ``policy`` (names as :mod:`jobsize.sim.fluid`)."""
    policy = {"fspe": "fsp", "psbs": "fsp+ps"}.get(policy, policy)
    n = len(arrival)
    key = {"arrival": list(arrival), "estimate": list(estimate), "attained": [0.0] * n,
           "virtual": ps_finish_times(list(arrival), list(estimate))}
    remaining = list(size)
    done = [math.nan] * n
    arrived = [False] * n
    t = min(arrival, default=0.0)
    for _ in range(100_000):
        for j in range(n):
            if not arrived[j] and arrival[j] <= t:
                arrived[j] = True
        present = [j for j in range(n) if arrived[j] and math.isnan(done[j])]
        t_arr = min((arrival[j] for j in range(n) if not arrived[j]), default=math.inf)
        if not present:
            if t_arr == math.inf:
                return done
            t = t_arr
            continue
        rates, breakpoint = _rates(policy, t, present, key)
        finished = [j for j, r in rates.items() if r > 0 and remaining[j] <= 0]
        if finished:  # served now and nothing left (a job of size 0)
            for j in finished:
                done[j] = t
            continue
        t_done = min(t + remaining[j] / r for j, r in rates.items() if r > 0)
        t_next = min(t_arr, t_done, max(breakpoint, t))
        for j, r in rates.items():
            remaining[j] -= r * (t_next - t)
            key["attained"][j] += r * (t_next - t)
        t = t_next
        for j, r in rates.items():
            if r > 0 and remaining[j] <= 1e-9 * max(1.0, size[j]):
                remaining[j] = 0.0
                done[j] = t
    raise RuntimeError("reference simulation did not end")
