"""An uber job sized from its probe, itself an uber job of the job's programs over a sample.

An uber job runs its tasks one after another in its ApplicationMaster's JVM: no task starts a
container or a JVM of its own, so eq 6 and 7's per-task terms do not apply. Each phase takes its
function time as eq 8 scales the probe's (:func:`jobsize.models.scaling.probe_one`) plus what
the probe's tasks took beyond their functions, told apart where it differs between the job's
tasks: the commit poll's wait, paid once and only where the first committing task asks before
the ApplicationMaster's first heartbeat (:func:`_committing`); the later maps' warm start
(:func:`_warm_maps`) and warm functions (:func:`_warm_functions`); and the probe's timing
wrapper, which the job's tasks do not run in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from jobsize.models.scaling import function_ms_one, known_one, probe_one

_MS = 1e-3
#: Seconds a task waits between its asks to commit (Hadoop's ``Task.commit``, a constant).
COMMIT_POLL_S = 1.0
#: Seconds from an uber job's launch to its ApplicationMaster's first heartbeat to the
#: ResourceManager, before which it refuses every commit
#: (``yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms``, 1000 by default).
AM_HEARTBEAT_S = 1.0

#: What :func:`uber_task_times` reads beyond :func:`probe_one`'s columns.
UBER_PROBE_COLUMNS: tuple[str, ...] = ("probe_map_task_ms", "probe_reduce_task_ms",
                                       "probe_map_task_fixed_ms", "probe_map_later_task_ms",
                                       "probe_map_later_function_ms", "probe_map_wrapper_ms",
                                       "probe_reduce_wrapper_ms", "probe_task_start_ms",
                                       "probe_map_later_input_share")


def uber_task_times(job: Mapping[str, float], key_cost: float = 0.0
                    ) -> tuple[float, float] | None:
    """An uber job's SE_m and SE_r (s) from its probe record — itself an uber job of the job's
    programs — or None where the record has no task times.

    Per phase, the job's function time as eq 8 scales the probe's (:func:`probe_one`: MFE + CFE,
    RFE) plus N × the mean time a probe task took beyond its functions: what a task costs inside
    the ApplicationMaster, as each of the job's will. Not eq 6 and 7, whose per-task terms are a
    task's own container and JVM, which an uber job never starts. Tasks with output to commit
    (the maps of a map-only job, the reduces) pay the commit poll's wait once per job, not once
    per task (:func:`_committing`), and only where the first of them asks early; the maps of
    a job with reduces commit nothing, and the later ones run warm (:func:`_warm_maps`), as
    do functions that run in the JVM, in any job (:func:`_warm_functions`). A probe task's
    timing wrapper is its own, not the job's: each of the job's tasks takes a probe task's
    mean wrapper time less (``probe_*_wrapper_ms``), never less than nothing."""
    q = probe_one(job, key_cost)
    beyond_m = _beyond_functions(job, "map", ("combine",))
    if beyond_m is None or not math.isfinite(q["MFE"] + q["CFE"]):
        return None
    functions_m = _warm_functions(job, q["MFE"] + q["CFE"])
    if q["N_r"] <= 0:  # the first map, cold, commits first
        ask = _first_ask(job, (q["MFE"] + q["CFE"]) / max(q["N_m"], 1.0), "map")
        return functions_m + _committing(q["N_m"], *beyond_m, asks=ask), 0.0
    se_m = functions_m + _warm_maps(job, q["N_m"], *beyond_m)
    beyond_r = _beyond_functions(job, "reduce")
    if beyond_r is None or not math.isfinite(q["RFE"]):
        return None
    ask = _first_ask(job, se_m + q["RFE"] / q["N_r"], "reduce")
    return se_m, q["RFE"] + _committing(q["N_r"], *beyond_r, asks=ask)


def _first_ask(job: Mapping[str, float], work_s: float, phase: str) -> tuple[float, float]:
    """When the job's first committing task (a ``phase`` task) will have done ``work_s`` of
    its tasks' work, and when the probe's first ``phase`` task ended: s from each job's launch,
    the ApplicationMaster's set-up before the first task (``probe_task_start_ms``) included.
    Unknown (nan) without that set-up, and for a probe with empty tasks (the local engine's,
    whose empty tasks' times are in its totals, and which refuses no commit)."""
    start = known_one(job, "probe_task_start_ms") * _MS
    if not math.isfinite(start) or math.isfinite(known_one(job, "probe_map_task_fixed_ms")):
        return math.nan, math.nan
    maps = known_one(job, "probe_map_task_ms") * _MS
    if phase == "map":
        later = known_one(job, "probe_map_later_task_ms") * _MS
        first = maps - later if math.isfinite(later) else maps / known_one(
            job, "probe_map_tasks", 1.0)
        return start + work_s, start + first
    reduce = known_one(job, "probe_reduce_task_ms") * _MS / known_one(
        job, "probe_reduce_tasks", 1.0)
    return start + work_s, start + maps + reduce


def _warm_functions(job: Mapping[str, float], functions_s: float) -> float:
    """An uber job's MFE + CFE (s) where its map and combine functions run in the task's JVM,
    ``functions_s`` being them scaled from the probe's whole time (eq 8).

    The JVM compiles a function's code as it runs it: the probe's first map paid for that once,
    its later maps (``probe_map_later_function_ms`` over ``probe_map_later_input_share`` of
    its records) ran warm. So the job's functions take the warm rate over all their records,
    scaled as the probe's whole time is, plus the cold excess the probe's first map paid
    beyond that rate, once — never more than ``functions_s``. A function the timing wrapper
    runs (``probe_map_wrapper_ms``: a process of its own in every task) starts cold in every
    map and keeps ``functions_s``; so does a probe without its later maps timed apart, or
    whose later maps' functions took no whole millisecond."""
    later = known_one(job, "probe_map_later_function_ms")
    share = known_one(job, "probe_map_later_input_share")
    probe = (function_ms_one(job, "map") + known_one(job, "probe_combine_function_ms", 0.0))
    if (known_one(job, "probe_map_wrapper_ms", 0.0) > 0 or not 0 < share < 1
            or not math.isfinite(later + probe) or later <= 0):
        return functions_s
    warm = later / share  # the probe's whole input at the warm rate (ms)
    if warm >= probe:
        return functions_s
    return min(functions_s * warm / probe + (probe - warm) * _MS, functions_s)


def _warm_maps(job: Mapping[str, float], tasks: float, probe_s: float, probe_tasks: float,
               wrapper_s: float) -> float:
    """What ``tasks`` maps that commit nothing take beyond their functions (s), the probe's
    ``probe_tasks`` maps having taken ``probe_s`` together, ``wrapper_s`` each of it in their
    timing wrappers.

    An uber job runs its maps one after another in the ApplicationMaster's JVM: the first runs
    cold (class loading, the JIT compiling), the later ones warm. Where the probe timed its maps
    after the first apart (``probe_map_later_*``: a probe of two maps), the job's first map
    takes what the probe's first took beyond its functions and each later map what a later
    probe map took; else each takes the probe maps' mean."""
    later_task, later_function = (known_one(job, f"probe_map_later_{name}_ms")
                                  for name in ("task", "function"))
    if (probe_tasks < 2 or tasks < 1 or not math.isfinite(later_task + later_function)
            or math.isfinite(known_one(job, "probe_map_task_fixed_ms"))):
        return tasks * _unwrapped(probe_s / probe_tasks, wrapper_s)
    later_s = max(later_task - later_function, 0.0) * _MS
    return (_unwrapped(probe_s - later_s, wrapper_s)
            + (tasks - 1) * _unwrapped(later_s / (probe_tasks - 1), wrapper_s))


def _committing(tasks: float, probe_s: float, probe_tasks: float, wrapper_s: float, *,
                asks: tuple[float, float] = (math.nan, math.nan)) -> float:
    """What ``tasks`` tasks that commit output take beyond their functions (s), the probe's
    ``probe_tasks`` having taken ``probe_s`` together, ``wrapper_s`` each of it in their timing
    wrappers. ``asks`` (:func:`_first_ask`): when the job's first committing task has done all
    but what it takes beyond its functions, and when the probe's ended, in s from launch.

    Hadoop's ``Task.commit`` asks the ApplicationMaster ``canCommit`` and sleeps
    :data:`COMMIT_POLL_S` between asks; the ApplicationMaster refuses every commit until it
    has heard from the ResourceManager, which an uber job's first does
    :data:`AM_HEARTBEAT_S` after its launch. So a job whose first committing task asks before
    that waits one poll; later asks race the ApplicationMaster's taking the task's
    commit-pending event, and mostly win (41 of 74 on the Hadoop draws). Where the probe's
    tasks took a poll or more (wrapper and all), that poll is the probe's first task's wait;
    each of the job's tasks takes what a probe task took besides, and the job pays the poll
    once where its first ask comes early. Without the asks' times, or where the probe's first
    task ended that early without waiting (no such refusal), the job waits where the probe
    did. (A probe task that waited took over 1.07 s beyond its functions on Hadoop, one that
    did not at most 0.45 s; the threshold lies between.)"""
    if tasks <= 0:
        return 0.0
    probe_waited = probe_s >= COMMIT_POLL_S
    each = _unwrapped((probe_s - (COMMIT_POLL_S if probe_waited else 0.0)) / probe_tasks,
                      wrapper_s)
    before, probe_end = asks
    waits = probe_waited
    if math.isfinite(before + probe_end) and (probe_waited or probe_end >= AM_HEARTBEAT_S):
        waits = before + each < AM_HEARTBEAT_S
    return (COMMIT_POLL_S if waits else 0.0) + tasks * each


def _unwrapped(task_s: float, wrapper_s: float) -> float:
    """A probe task's ``task_s`` beyond its functions less its ``wrapper_s`` in the timing
    wrapper (the job's tasks run unwrapped), never below nothing."""
    return max(task_s - wrapper_s, 0.0)


def _beyond_functions(job: Mapping[str, float], phase: str, also: tuple[str, ...] = ()
                      ) -> tuple[float, float, float] | None:
    """The probe's tasks' time beyond their functions (s), how many tasks took it, and the
    mean time (s) of each in its timing wrapper (0 unwrapped). The empty task is counted among
    them: the phase's task time holds the empty task's, and so does its function time (the
    start-up); the reduce count already includes the empty reduce, the map count does not."""
    task, tasks = (known_one(job, f"probe_{phase}_{name}") for name in ("task_ms", "tasks"))
    if phase == "map" and math.isfinite(known_one(job, "probe_map_task_fixed_ms")):
        tasks += 1
    function = function_ms_one(job, phase)
    if not (math.isfinite(task) and math.isfinite(function) and tasks > 0):
        return None
    function += sum(known_one(job, f"probe_{name}_function_ms", 0.0) for name in also)
    wrapper = known_one(job, f"probe_{phase}_wrapper_ms", 0.0) * _MS / tasks
    return max(task - function, 0.0) * _MS, tasks, wrapper
