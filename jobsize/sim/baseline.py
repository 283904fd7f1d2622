"""The Fair baseline: the one Fair scheduler every result is held against.

The fair slowdown (a job's response over its response under Fair), the Fair/X ratios of mean
response and the figures all need *a* Fair. Which one matters: on the FB-2009 trace, FSPY's
lead at RCP 6 is several times larger against the simulator's Fair without node reservations
than against Fair with them, because reservations alone spare small jobs most of their
waiting. Both ``jobsize simulate`` and ``jobsize simulate --reproduce fspy`` take the baseline
from here, and every report and figure caption names it.

- ``reserve`` (the default): Fair (memory) with node reservations, as Hadoop's FairScheduler
  (registry name ``fair+reserve``); the baseline a reserving scheduler such as FSPY must be
  held against;
- ``plain``: Fair (memory) without node reservations (``fair``).

The fluid model has a single baseline: processor sharing, Fair on one server.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobsize.errors import ConfigError


@dataclass(frozen=True)
class FairBaseline:
    """A Fair baseline: its option value, the scheduler it runs and how reports name it."""

    key: str
    scheduler: str
    description: str

    def label(self) -> str:
        """``description (scheduler)``, for reports and captions."""
        return f"{self.description} (`{self.scheduler}`)"


BASELINES = {
    "reserve": FairBaseline("reserve", "fair+reserve",
                            "Fair (memory) with node reservations, as Hadoop's FairScheduler"),
    "plain": FairBaseline("plain", "fair", "Fair (memory) without node reservations"),
}
#: The same baselines in the MRv1 slot model, where Fair shares slots, not memory.
SLOT_BASELINES = {
    key: FairBaseline(b.key, b.scheduler, b.description.replace("(memory)", "(slots)"))
    for key, b in BASELINES.items()
}
FLUID_BASELINE = FairBaseline("fluid", "ps", "PS, processor sharing (Fair on one server)")
DEFAULT_BASELINE = "reserve"


def fair_baseline(key: str = DEFAULT_BASELINE, model: str = "yarn") -> FairBaseline:
    """The Fair baseline ``key`` (``reserve`` or ``plain``) of ``model`` (yarn, slots, fluid)."""
    if key not in BASELINES:
        raise ConfigError(f"Fair baseline {key!r}: expected one of {', '.join(BASELINES)}")
    if model == "fluid":
        return FLUID_BASELINE
    return (SLOT_BASELINES if model == "slots" else BASELINES)[key]
