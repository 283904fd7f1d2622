"""Model files: a fitted :class:`~models.size_model.SizeModel` as versioned JSON.

A model file holds, per phase model, the coefficients, their covariance, the variance model, the
feature list and the sufficient statistics online updates continue from, plus the uber history
and a training summary. Floats are written with Python's shortest round-trip repr, so a reloaded
model predicts bit-for-bit as the saved one. A file is written atomically; nothing in it is
executable (no pickle). Layout (``version`` 2)::

    {"format": "jobsize-model", "version": 2, "written_by": "jobsize X.Y.Z",
     "features": "probe", "form": "tasks", "clock": "wall", "method": "gls", "level": 0.9,
     "key_cost": κ (what a key costs a reduce in records; absent in older files: 0),
     "map_slots": C (map containers a job gets, for eq 7's wait term; 0: no waves),
     "probe_overhead": P̄ (s, the history's median probe start-up of eq 6's N_m·ΔPO term;
                       null or absent: none),
     "eq7_fit": "actual" (only when eq 7 was fitted on other features than it predicts from),
     "models": {"SE_m": PHASE, "SE_r": PHASE or null},
     "uber": {"uber": {"map": T, "reduce": T}, "every": {"map": T, "reduce": T},
              "map_model": L, "reduce_model": L},
     "guards": {"SE_m": G, "SE_r": G}, "recurring": {"k": x, "sums": {...}},
     "calibration": {"SE_m": C, "SE_r": C, "S": C, "uber:SE_m": C, "uber:SE_r": C, "uber:S": C}
                    (the uber ones, of probed uber jobs, only where calibration had them;
                    {} when not calibrated),
     "training": {...}}
    PHASE = {"equation": 6, "terms": [...], "columns": [...], "coef": [p], "cov": [[p×p]],
             "xtwx_inv": [[p×p]], "active": [p], "ssr": x, "dof": k,
             "variance": {"power": γ, "mean_coef": [p], "floor": x, "centre": x},
             "statistics": {"scale": [p], "gram": [[p×p]], "moment": [p], "yy": x, "n": k}}
    T = {"count": k, "mean": x, "m2": x}
    L = {"p": k, "gram": [[p×p]], "moment": [p], "yy": x, "n": k}
    G = {"low": [p], "high": [p], "leverage": x, "task_floor_s": x}
    C = {"edges": [...], "scores": [[...], ...]}

Version 1 files (the paper's form only, no guards, corrections or calibration) are still read.

``cov`` (= s²·xtwx_inv) is for readers; the model is rebuilt from the other fields.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import reprlib
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from jobsize.models.conformal import Calibration
from jobsize.models.design import EQUATION, FEATURE_SETS, FORMS, input_columns, terms
from jobsize.models.guard import Guard
from jobsize.models.normal_equations import NormalEquations, Solution
from jobsize.models.recurring import Recurring
from jobsize.models.regression import PhaseModel
from jobsize.models.size_model import (
    CALIBRATED,
    CLOCKS,
    UBER_CALIBRATION,
    SizeModel,
    check_eq7_fit,
)
from jobsize.models.uber import LogLinear, TaskTimes, UberEstimate, UberModel
from jobsize.models.variance import METHODS, POWER_RANGE, VarianceModel

from jobsize.atomic import atomic_write_text
from jobsize.boundedjson import LONG, loads
from jobsize.errors import ConfigError, ModelFileError, ParseError

FORMAT = "jobsize-model"
VERSION = 2
READS = (1, 2)
#: Largest model file read; a fitted model is a few kilobytes.
MAX_MODEL_BYTES = 16 << 20
#: Largest magnitude of a number in a model file. Fitted values are far smaller; the bound keeps
#: products of a few of them (a variance, a squared size) inside the range of a double.
MAX_MAGNITUDE = 1e100
#: Largest κ a model file may hold: a key costing more than a million records is no cost model.
MAX_KEY_COST = 1e6
#: C beyond any cluster's containers.
MAX_MAP_SLOTS = 1e9
#: Deepest nesting of the free-form training summary.
MAX_TRAINING_DEPTH = 16
#: Smallest variance-model floor: it is the log's argument.
MIN_FLOOR = 1e-300
#: Longest mean task time a model file may hold (s): no task runs for thirty years. A guard's
#: task floor times a job's tasks is a prediction; 1e308 s made it infinite.
MAX_TASK_S = 1e9


def _jobsize_version() -> str:
    try:
        return metadata.version("jobsize")
    except metadata.PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------------------------------------
# Writing


def save_model(model: SizeModel, path: str | os.PathLike[str]) -> Path:
    """Write ``model`` to ``path`` as JSON, atomically. Returns the path."""
    text = json.dumps(model_to_json(model), indent=1, allow_nan=False)
    target = Path(path)
    atomic_write_text(target, text + "\n")
    return target


def model_to_json(model: SizeModel) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "written_by": f"jobsize {_jobsize_version()}",
        "features": model.features,
        "form": model.form,
        "clock": model.clock,
        "method": model.method,
        "level": model.level,
        "key_cost": model.key_cost,
        "map_slots": model.map_slots,
        "probe_overhead": model.probe_overhead if math.isfinite(model.probe_overhead) else None,
        **({"eq7_fit": model.eq7_fit} if model.eq7_fit else {}),
        "models": {"SE_m": _phase_to_json(model.se_m),
                   "SE_r": None if model.se_r is None else _phase_to_json(model.se_r)},
        "uber": {**{kind: {phase: _times_to_json(t)
                           for phase, t in getattr(model.uber.fallback, kind).items()}
                    for kind in ("uber", "every")},
                 "map_model": _loglinear_to_json(model.uber.map),
                 "reduce_model": _loglinear_to_json(model.uber.reduce)},
        "guards": {phase: g.to_json() for phase, g in model.guards.items()},
        "recurring": model.recurring.to_json(),
        "calibration": {name: c.to_json() for name, c in model.calibration.items()},
        "training": plain(model.training),
    }


def _loglinear_to_json(m: LogLinear) -> dict[str, Any]:
    return {"p": m.p, "gram": m.gram, "moment": m.moment, "yy": m.yy, "n": m.n}


def _phase_to_json(m: PhaseModel) -> dict[str, Any]:
    m.refresh()
    sol, st, var = m.solution, m.stats, m.variance
    return {
        "equation": EQUATION[m.phase],
        "terms": list(m.terms),
        "columns": list(input_columns(m.phase, m.features, m.form)),
        "coef": sol.coef.tolist(),
        "cov": (m.s2 * sol.xtwx_inv).tolist() if math.isfinite(m.s2) else None,
        "xtwx_inv": sol.xtwx_inv.tolist(),
        "active": sol.active.tolist(),
        "ssr": sol.ssr,
        "dof": sol.dof,
        "variance": {"power": var.power, "mean_coef": var.mean_coef.tolist(),
                     "floor": var.floor, "centre": var.centre},
        "statistics": {"scale": st.scale.tolist(), "gram": st.gram.tolist(),
                       "moment": st.moment.tolist(), "yy": st.yy, "n": st.n},
    }


def _times_to_json(t: TaskTimes) -> dict[str, Any]:
    return {"count": t.count, "mean": t.mean, "m2": t.m2}


def plain(value: Any) -> Any:
    """JSON-safe copy: dataclasses to dicts, numpy scalars to Python, NaN and infinities to
    null."""
    kind = type(value)
    if kind is float:  # the common cases first: the service renders every answer with this
        return value if math.isfinite(value) else None
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# ---------------------------------------------------------------------------------------------
# Reading


def load_model(path: str | os.PathLike[str]) -> SizeModel:
    """Read a model file; any problem is a ModelFileError naming the file and the JSON path."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MODEL_BYTES + 1)
    except FileNotFoundError:
        raise ModelFileError("no such model file", source=path) from None
    except IsADirectoryError:
        raise ModelFileError("is a directory, expected a model file", source=path) from None
    except OSError as exc:
        raise ModelFileError(f"cannot read ({exc.strerror})", source=path) from None
    if len(data) > MAX_MODEL_BYTES:
        raise ModelFileError(f"larger than {MAX_MODEL_BYTES:,} bytes: not a jobsize model file",
                             source=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError("not a jobsize model file (not UTF-8 text)", source=path) from None
    try:
        doc = loads(text, source=path)
    except ParseError as exc:
        raise ModelFileError(f"{exc.reason}; the file is damaged or not a model",
                             source=path, where=exc.where) from None
    return model_from_json(doc, source=path)


def model_from_json(doc: Any, source: object = None) -> SizeModel:
    root = _Node(doc, "$", source)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f"not a jobsize model file (no \"format\": \"{FORMAT}\")",
                             source=source)
    version = doc.get("version")
    if type(version) is not int or version not in READS:
        raise ModelFileError(f"model format version {version!r}; this jobsize "
                             f"({_jobsize_version()}) reads versions "
                             f"{', '.join(map(str, READS))}: refit the model",
                             source=source, where="$.version")
    features = root.key("features").choice(FEATURE_SETS)
    form = root.key("form").choice(FORMS) if version >= 2 else "paper"
    clock = root.key("clock").choice(tuple(CLOCKS)) if version >= 2 else "wall"
    method = root.key("method").choice(METHODS)
    level = root.key("level").number(0.0, 1.0)
    if not 0 < level < 1:
        root.key("level").fail(f"expected a level in (0, 1), found {level!r}")
    models = root.key("models")
    se_m = _phase_from_json(models.key("SE_m"), "SE_m", features, method, level, form)
    r_node = models.key("SE_r")
    se_r = None if r_node.value is None else _phase_from_json(r_node, "SE_r", features, method,
                                                             level, form)
    uber_node = root.key("uber")
    uber = UberModel(fallback=UberEstimate(**{
        kind: {phase: _times_from_json(uber_node.key(kind).key(phase))
               for phase in ("map", "reduce")} for kind in ("uber", "every")}))
    training = root.key("training").value
    if not isinstance(training, dict):
        root.key("training").fail("expected an object")
    if _depth(training) > MAX_TRAINING_DEPTH:
        root.key("training").fail(f"nested more than {MAX_TRAINING_DEPTH} deep")
    eq7_fit = None
    if version >= 2 and "eq7_fit" in doc:
        node = root.key("eq7_fit")
        eq7_fit = node.choice(FEATURE_SETS)
        try:
            check_eq7_fit(eq7_fit, features)
        except ConfigError as exc:
            node.fail(exc.reason)
    model = SizeModel(features=features, method=method, level=level, se_m=se_m, se_r=se_r,
                      uber=uber, training=training, form=form, clock=clock,
                      eq7_fit=None if eq7_fit == features else eq7_fit)
    if version >= 2:
        _extras_from_json(root, model)
    return model


def _extras_from_json(root: _Node, model: SizeModel) -> None:
    """What version 2 adds: the uber models, guards, corrections and calibration."""
    uber_node = root.key("uber")
    for name, attr, p in (("map_model", "map", 3), ("reduce_model", "reduce", 2)):
        node = uber_node.key(name)
        setattr(model.uber, attr, LogLinear(
            p=p, gram=node.key("gram").matrix(p).tolist(),
            moment=node.key("moment").vector(p).tolist(), yy=node.key("yy").number(),
            n=node.key("n").integer()))
    phases = {"SE_m": model.se_m, "SE_r": model.se_r}
    guards = root.key("guards")
    if not isinstance(guards.value, dict):
        guards.fail("expected an object")
    for phase in guards.value:
        node = guards.key(phase)
        if phase not in phases or phases[phase] is None:
            node.fail("a guard for a model the file does not have")
        p = len(phases[phase].terms)
        model.guards[phase] = Guard(
            low=node.key("low").vector(p).tolist(), high=node.key("high").vector(p).tolist(),
            leverage=node.key("leverage").number(0.0, MAX_MAGNITUDE),
            task_floor_s=node.key("task_floor_s").number(0.0, MAX_TASK_S))
    _within_bounds(root.key("recurring"))
    model.recurring = _checked(root.key("recurring"), Recurring.from_json)
    if "key_cost" in root.value:  # files written before κ scale the reduce by records alone
        model.key_cost = root.key("key_cost").number(0.0, MAX_KEY_COST)
    if "map_slots" in root.value:  # a paper-form file has no wait term: none needed
        model.map_slots = root.key("map_slots").number(0.0, MAX_MAP_SLOTS)
        if 0 < model.map_slots < 1:
            root.key("map_slots").fail("expected 0 (no waves) or at least one container")
    if root.value.get("probe_overhead") is not None:
        model.probe_overhead = root.key("probe_overhead").number(0.0, MAX_TASK_S)
    cal = root.key("calibration")
    if not isinstance(cal.value, dict):
        cal.fail("expected an object")
    for name in cal.value:
        if name.removeprefix(UBER_CALIBRATION) not in CALIBRATED:
            cal.key(name).fail("expected calibrations of SE_m, SE_r and S (and of probed "
                               f"uber jobs: {UBER_CALIBRATION}SE_m, ...) only")
        _within_bounds(cal.key(name))
        model.calibration[name] = _checked(cal.key(name), Calibration.from_json)


def _within_bounds(node: _Node) -> None:
    """Every number under ``node`` finite and of magnitude at most MAX_MAGNITUDE, or a
    ModelFileError naming the first that is not by its JSON path."""
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item.value, dict):
            pending.extend(item.key(name) for name in item.value)
        elif isinstance(item.value, list):
            pending.extend(_Node(v, f"{item.path}[{i}]", item.source)
                           for i, v in enumerate(item.value))
        elif isinstance(item.value, int | float) and not isinstance(item.value, bool):
            item.number()


def _checked(node: _Node, build: Any) -> Any:
    """``build(node.value)``, its failures reported at the node's JSON path."""
    try:
        return build(node.value)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError,
            RecursionError) as exc:  # OverflowError: an integer of hundreds of digits
        node.fail(f"not a valid entry ({type(exc).__name__}: {reprlib.repr(str(exc))})")
        raise AssertionError("unreachable") from None


def _phase_from_json(node: _Node, phase: str, features: str, method: str, level: float,
                     form: str) -> PhaseModel:
    names = terms(phase, form)
    p = len(names)
    for newer in ("wait", "N_m·ΔPO"):
        if node.key("terms").value == [n for n in names if n != newer] != list(names):
            node.key("terms").fail(f"written before eq {EQUATION[phase]} had its {newer} "
                                   "term: refit the model")
    if node.key("terms").value != list(names):
        node.key("terms").fail(f"expected the terms of eq {EQUATION[phase]}: {list(names)}")
    columns = input_columns(phase, features, form)
    if node.key("columns").value != list(columns):
        node.key("columns").fail(f"expected the {features} columns {list(columns)}")
    var = node.key("variance")
    stats = node.key("statistics")
    solution = Solution(
        coef=node.key("coef").vector(p), xtwx_inv=node.key("xtwx_inv").matrix(p),
        active=node.key("active").flags(p), ssr=node.key("ssr").number(),
        dof=node.key("dof").integer())
    return PhaseModel(
        phase=phase, features=features, method=method, level=level,
        variance=VarianceModel(power=var.key("power").number(*POWER_RANGE),
                               mean_coef=var.key("mean_coef").vector(p),
                               floor=var.key("floor").number(MIN_FLOOR, MAX_MAGNITUDE),
                               centre=var.key("centre").number()),
        stats=NormalEquations(scale=stats.key("scale").vector(p),
                              gram=stats.key("gram").matrix(p),
                              moment=stats.key("moment").vector(p),
                              yy=stats.key("yy").number(), n=stats.key("n").integer()),
        solution=solution, form=form)


def _times_from_json(node: _Node) -> TaskTimes:
    return TaskTimes(count=node.key("count").integer(),
                     mean=node.key("mean").number(0.0, MAX_MAGNITUDE),
                     m2=node.key("m2").number(0.0, MAX_MAGNITUDE))


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (without recursing)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        node, depth = pending.pop()
        deepest = max(deepest, depth)
        if depth > MAX_TRAINING_DEPTH:
            break
        children = node.values() if isinstance(node, dict) else node
        pending.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def _short(value: Any) -> str:
    return reprlib.repr(value)


class _Node:
    """A value inside the document and its JSON path, for error messages."""

    def __init__(self, value: Any, path: str, source: object) -> None:
        self.value, self.path, self.source = value, path, source

    def fail(self, reason: str) -> None:
        raise ModelFileError(reason, source=self.source, where=self.path)

    def key(self, name: str) -> _Node:
        if not isinstance(self.value, dict):
            self.fail("expected an object")
        if name not in self.value:
            raise ModelFileError("missing", source=self.source, where=f"{self.path}.{name}")
        return _Node(self.value[name], f"{self.path}.{name}", self.source)

    def number(self, low: float = -MAX_MAGNITUDE, high: float = MAX_MAGNITUDE) -> float:
        """A float in ``[low, high]`` (by default any of magnitude at most MAX_MAGNITUDE)."""
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.fail(f"expected a number, found {_short(v)}")
        if not low <= v <= high:
            self.fail(f"expected a number from {low:g} to {high:g}, found {_short(v)}")
        return float(v)

    def integer(self) -> int:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < LONG:
            self.fail(f"expected a non-negative 64-bit integer, found {_short(v)}")
        return int(v)

    def choice(self, options: tuple[str, ...]) -> str:
        if not isinstance(self.value, str) or self.value not in options:
            self.fail(f"expected one of {', '.join(options)}, found {_short(self.value)}")
        return str(self.value)

    def _list(self, n: int) -> list[Any]:
        if not isinstance(self.value, list) or len(self.value) != n:
            self.fail(f"expected a list of {n}")
        return self.value

    def vector(self, n: int) -> np.ndarray:
        items = self._list(n)
        return np.array([_Node(v, f"{self.path}[{i}]", self.source).number()
                         for i, v in enumerate(items)])

    def matrix(self, n: int) -> np.ndarray:
        rows = self._list(n)
        return np.array([_Node(r, f"{self.path}[{i}]", self.source).vector(n)
                         for i, r in enumerate(rows)])

    def flags(self, n: int) -> np.ndarray:
        items = self._list(n)
        for i, v in enumerate(items):
            if not isinstance(v, bool):
                raise ModelFileError(f"expected true or false, found {_short(v)}",
                                     source=self.source,
                                     where=f"{self.path}[{i}]")
        return np.array(items, dtype=bool)
