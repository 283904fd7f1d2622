"""Whether a finished job is plausible enough to learn from: bounded influence for online updates.

Online learning (§III-A: every finished job joins the regression) trusts every record. One
record with a unit error or a hostile value can move eq 6 and eq 7 anywhere, and it stays in the
fit: a job far from the history has high leverage, so the fit follows it. Before a job is
learned, the model it would join checks it three ways and names the first failure:

* **consistency** — the record against itself: no phase spends more task time than its tasks
  could have run between the job's launch and finish, times are in order, a map-only job has no
  reduce time, its maps read no faster than :data:`MAX_READ_RATE`;
* **surprise** — the job's summed task time against the model's own predictive distribution
  for it: ``|z| = |y − ŷ| / √var`` above :attr:`Plausibility.z_max` *and* off by more than
  :attr:`Plausibility.factor` either way (a real job of a new kind can be many standard errors
  out when the history is tight; it is rarely off by the factor as well);
* **influence** — how far learning it would move the model fitted on the whole history:
  a rank-one update changes the coefficients by ``Δβ = (XᵀWX)⁻¹x·w(y − ŷ) / (1 + w·xᵀ(XᵀWX)⁻¹x)``
  (``w`` the job's GLS weight), and Cook's distance ``D = Δβᵀ(XᵀWX)Δβ / (p·s²)`` says how far
  every fitted value moves, in residual units. A job far from the history has high leverage and
  a large ``D`` whatever its surprise; above :attr:`Plausibility.max_cook` one job would rewrite
  the model for everyone else.

Uber jobs, sized by the uber model, are checked for consistency and for being off by more than
:attr:`Plausibility.uber_factor`. Jobs that did not succeed are not learned at all and pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from jobsize.models.job import is_uber
from jobsize.models.size_model import CLOCKS

if TYPE_CHECKING:
    from jobsize.models.regression import PhaseModel
    from jobsize.models.size_model import SizeModel

#: Clock slack between the task and job timestamps of one history (ms).
_SKEW_MS = 5_000.0
#: Faster than any map task reads its input, per second of task time (bytes/s): the bundled
#: traces' fastest jobs read 17-19 MB per task-second, the Hadoop trace's 1.6.
MAX_READ_RATE = 2e9
_MS = 1e-3


@dataclass(frozen=True)
class Plausibility:
    """Thresholds of the check. With the defaults, learning the bundled reference trace's last
    220 jobs and the 72 held-out jobs in order after a fit on its first 100 held none of them
    (their SE_m was 0.66-1.45× the model's, Cook's distance at most 0.14 for eq 6 and 3.6 for
    eq 7, whose new kinds reach 3.8× and 38 standard errors); the docs' hand-written finished
    job, 57× its prediction, is 391 standard errors out with a Cook's distance of 92."""

    z_max: float = 8.0
    factor: float = 4.0
    max_cook: float = 5.0
    uber_factor: float = 10.0

    def check(self, model: SizeModel, values: Mapping[str, float],
              conf: Mapping[str, object] | None = None) -> str | None:
        """Why ``model`` should not learn this finished job, or None if it may. Raises what
        :meth:`SizeModel.observe` raises for a job it cannot learn from at all."""
        conf = conf or {}
        state = conf.get("state")
        if state is not None and state != "SUCCEEDED":
            return None
        reason = inconsistency(values)
        if reason is not None:
            return reason
        n_r = values.get("n_reduces", 0.0)
        targets = CLOCKS[model.clock]
        se_m = values.get(targets["SE_m"])
        se_r = values.get(targets["SE_r"]) or 0.0
        if se_m is None:
            return None  # observe names what is missing
        se_m, se_r = se_m * _MS, se_r * _MS
        if is_uber(values, conf):
            predicted = model.predict_one(values, conf)
            return _off_by("uber job", se_m + se_r, predicted.SE_m + predicted.SE_r,
                           self.uber_factor)
        q = model._quantities(values)
        row_m = model._row(values, "SE_m", q=q)
        reason = self._phase(model.se_m, row_m, se_m, "SE_m")
        if reason is None and n_r > 0 and model.se_r is not None:
            raw_m = model.se_m.predict_one(row_m)[0]
            row_r = model._row(values, "SE_r", raw_m, q)
            reason = self._phase(model.se_r, row_r, se_r, "SE_r")
        return reason

    def _phase(self, phase_model: PhaseModel, row: list[float], y: float,
               name: str) -> str | None:
        mean, var = phase_model.predict_one(row)
        # A linear fit may predict ≤ 0 s for a tiny job: then its standard error is the scale.
        scale = mean if mean > 0 else math.sqrt(max(var, 0.0)) or 1.0
        z = (y - mean) / math.sqrt(var) if var > 0 else math.inf
        ratio = y / scale
        if abs(z) > self.z_max and not 1 / self.factor <= ratio <= self.factor:
            return (f"{name} {y:.4g} s is {abs(z):.1f} standard errors from the model's "
                    f"{mean:.4g} s (more than {self.z_max:g}) and off by more than "
                    f"{self.factor:g}x")
        x = np.asarray(row)
        inv = phase_model.solution.xtwx_inv
        w = 1.0 / phase_model.variance.relative_one(row)
        # Learning (x, y) changes the coefficients by (XᵀWX)⁻¹x·w(y − ŷ)/(1 + w·xᵀ(XᵀWX)⁻¹x).
        delta = inv @ x * (w * (y - mean) / (1.0 + w * float(x @ inv @ x)))
        # Cook's distance: how far the history's fitted values would move, in residual units.
        stats = phase_model.stats
        gram = stats.gram / np.outer(stats.scale, stats.scale)
        kept = int(phase_model.solution.active.sum())  # an aliased term moves nothing
        cook = float(delta @ gram @ delta) / (kept * phase_model.s2)
        if cook > self.max_cook:
            return (f"{name} {y:.4g} s against the model's {mean:.4g} s: learning it would "
                    f"move the history's fitted values by a Cook's distance of {cook:.3g} "
                    f"(more than {self.max_cook:g})")
        return None


def inconsistency(values: Mapping[str, float]) -> str | None:
    """What in a finished job's record contradicts the rest of it, or None."""
    submit, launch, finish = (values.get(k) for k in ("submit_time_ms", "launch_time_ms",
                                                      "finish_time_ms"))
    if submit is not None and finish is not None and finish + _SKEW_MS < submit:
        return "finish_time_ms is before submit_time_ms"
    if launch is not None and finish is not None and finish + _SKEW_MS < launch:
        return "finish_time_ms is before launch_time_ms"
    start = launch if launch is not None else submit
    n_r = values.get("n_reduces", 0.0)
    if n_r == 0 and (values.get("reduce_time_ms") or 0.0) > 0:
        return "a job without reduces has reduce_time_ms > 0"
    read, map_ms = values.get("map_input_bytes"), values.get("map_time_ms")
    if read is not None and map_ms and read / (map_ms * _MS) > MAX_READ_RATE:
        return (f"map_input_bytes {read:.4g} read in {map_ms:.0f} ms of map time is "
                f"{read / (map_ms * _MS) / 1e9:.3g} GB/s, faster than any map task reads "
                f"({MAX_READ_RATE / 1e9:g} GB/s)")
    if start is None or finish is None:
        return None
    elapsed = finish - start + _SKEW_MS
    for phase, tasks in (("map", values.get("n_maps")), ("reduce", n_r)):
        spent = values.get(f"{phase}_time_ms")
        if spent is not None and tasks is not None and spent > tasks * elapsed:
            return (f"{phase}_time_ms {spent:.0f} is more than {tasks:g} {phase} tasks could "
                    f"run in the job's {elapsed - _SKEW_MS:.0f} ms")
    return None


def _off_by(what: str, actual: float, predicted: float, factor: float) -> str | None:
    scale = max(predicted, 1e-3)
    if actual > scale * factor or actual < scale / factor:
        return (f"{what}: {actual:.4g} s of task time against the model's {predicted:.4g} s "
                f"(off by more than {factor:g}x)")
    return None

