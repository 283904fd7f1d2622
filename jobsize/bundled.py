"""The data bundled with jobsize in ``datasets/``: the measured reference trace, the trace measured
on Hadoop's mini cluster, the held-out and drawn kinds' evaluations, the histories that pool
them (:data:`HISTORIES`; ``history`` is the default input of ``jobsize fit``), and the SWIM
FB-2009 workload (the default workload of ``jobsize simulate``).

The folder is found inside the installed package (``jobsize/datasets`` in a wheel) or beside it
in a source checkout (``pip install -e .``). ``JOBSIZE_DATASET`` names another reference trace.

Its files are reachable by name from any directory, from Python as from the command line
(:func:`path`, and every reader of traces and workloads through :func:`resolve`)::

    jobsize.read_trace("reference")                  # the measured reference trace
    jobsize.read_trace("history")                    # it and every local draw, stacked
    jobsize.read_trace("datasets/reference.parquet") # the same, where no such file is here
    load_workload("FB-2009")
"""

from __future__ import annotations

import os
from pathlib import Path

from jobsize.errors import InputError

#: File name of the reference trace inside ``datasets/``.
REFERENCE_TRACE = "reference.parquet"

#: Workloads shipped in ``datasets/``, by the name ``--workload`` accepts.
BUNDLED_WORKLOADS = {"FB-2009": "swim/FB-2009_samples_24_times_1hr_0.tsv"}

#: Well-known workloads that are not shipped, and where to get them.
KNOWN_WORKLOADS = {
    "FB-2010": "FB-2010_samples_24_times_1hr_0.tsv, in the workloadSuite folder of the SWIM "
               "project (github.com/SWIMProjectUCB/SWIM, BSD licence)",
}

#: The workload ``jobsize simulate`` replays when none is named.
DEFAULT_WORKLOAD = "FB-2009"

#: Traces shipped in ``datasets/``, by name.
BUNDLED_TRACES = {"reference": REFERENCE_TRACE, "hadoop-trace": "hadoop-trace.parquet",
                  "heldout": "heldout.parquet",
                  "drawn-20261127": "drawn-20261127.parquet",
                  "drawn-20261128": "drawn-20261128.parquet",
                  "drawn-20261129": "drawn-20261129.parquet",
                  "drawn-20261130": "drawn-20261130.parquet",
                  "drawn-20261131": "drawn-20261131.parquet",
                  "drawn-20261216": "drawn-20261216.parquet",
                  "drawn-hadoop-20261201": "drawn-hadoop-20261201.parquet",
                  "drawn-hadoop-20261203": "drawn-hadoop-20261203.parquet",
                  "drawn-hadoop-20261205": "drawn-hadoop-20261205.parquet",
                  "drawn-hadoop-java-20261206": "drawn-hadoop-java-20261206.parquet",
                  "drawn-hadoop-java-20261207": "drawn-hadoop-java-20261207.parquet",
                  "drawn-hadoop-java-20261217": "drawn-hadoop-java-20261217.parquet",
                  "drawn-hadoop-uber-20261208": "drawn-hadoop-uber-20261208.parquet",
                  "drawn-hadoop-uber-20261209": "drawn-hadoop-uber-20261209.parquet",
                  "drawn-hadoop-uber-20261210": "drawn-hadoop-uber-20261210.parquet",
                  "drawn-hadoop-uber-20261211": "drawn-hadoop-uber-20261211.parquet",
                  "drawn-hadoop-uber-20261212": "drawn-hadoop-uber-20261212.parquet",
                  "drawn-hadoop-uber-20261213": "drawn-hadoop-uber-20261213.parquet",
                  "drawn-hadoop-uber-20261214": "drawn-hadoop-uber-20261214.parquet",
                  "drawn-hadoop-uber-20261215": "drawn-hadoop-uber-20261215.parquet",
                  **{f"drawn-uber-{way}-20261204": f"drawn-uber-{way}-20261204.parquet"
                     for way in ("history", "probed", "capped")},
                  "drawn-loaded-wall-20261202": "drawn-loaded-wall-20261202.parquet",
                  "drawn-loaded-cpu-20261202": "drawn-loaded-cpu-20261202.parquet"}

#: Histories: bundled traces measured on one engine, stacked as a cluster's finished jobs of
#: every kind would be — ``history`` (the default of ``jobsize fit``) holds the reference
#: trace and the five local draws of kinds from the space of cost shapes; ``hadoop-history``
#: the Hadoop trace and every draw run on the mini cluster. Their kinds are told apart by
#: ``job_type``, so their models are calibrated by leaving one kind out at a time. The
#: hand-written held-out kinds (``heldout``) stay out, so that ``jobsize evaluate`` scores
#: them as kinds never seen; so do draws that repeat kinds under other load or with another
#: sizing (``drawn-loaded-*``, ``drawn-uber-*-20261204``).
HISTORIES: dict[str, tuple[str, ...]] = {
    "history": ("reference", *(f"drawn-202611{day}" for day in range(27, 32))),
    "hadoop-history": ("hadoop-trace", "drawn-hadoop-20261201", "drawn-hadoop-20261203",
                       "drawn-hadoop-20261205", "drawn-hadoop-java-20261206",
                       "drawn-hadoop-java-20261207",
                       *(f"drawn-hadoop-uber-202612{day:02d}" for day in range(8, 16)))}

#: The history ``jobsize fit`` and ``jobsize evaluate`` fit when given no trace.
DEFAULT_HISTORY = "history"
#: The history ``jobsize evaluate --engine hadoop`` fits when given no trace.
HADOOP_HISTORY = "hadoop-history"

#: Traces of kinds drawn from the space of cost shapes that a bundled trace's model is
#: calibrated on (kinds it never saw, run on the same engine; ``jobsize fit`` without
#: ``--calibrate-with``): the reference trace's on two local draws, the Hadoop trace's on two
#: draws run on the mini cluster, the second of uber jobs sized from their probes.
CALIBRATION_TRACES: dict[str, tuple[str, ...]] = {
    "reference": ("drawn-20261127", "drawn-20261128"),
    "hadoop-trace": ("drawn-hadoop-20261201", "drawn-hadoop-uber-20261208")}

#: The folder name a bundled file may be written under (``datasets/reference.parquet``).
FOLDER = "datasets"


def datasets_dir() -> Path:
    """``datasets/`` inside the installed package, else beside it in a source checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "datasets"
    return installed if installed.is_dir() else package.parent / "datasets"


def reference_trace() -> Path:
    """Path of the bundled reference trace, or an InputError saying how to pass one."""
    path = Path(os.environ.get("JOBSIZE_DATASET", datasets_dir() / REFERENCE_TRACE))
    if not path.is_file():
        raise InputError(
            "no measured reference trace is bundled here; pass a trace "
            "(jobsize fit TRACE.parquet) or produce one with `jobsize bench-trace`",
            source=path,
        )
    return path


def default_trace() -> str:
    """What ``jobsize fit`` fits without a trace: ``JOBSIZE_DATASET`` where set (another
    reference trace, which must exist), else the bundled :data:`DEFAULT_HISTORY`."""
    if "JOBSIZE_DATASET" in os.environ:
        return str(reference_trace())
    return DEFAULT_HISTORY


def history_members(spec: str | os.PathLike[str]) -> list[Path] | None:
    """The bundled traces the history ``spec`` names (:data:`HISTORIES`, case aside), or None
    where ``spec`` names no history or a file of that name is here (a file always wins; a
    folder, such as a collector's ``history/``, does not). The members are the bundled files
    themselves, whatever ``JOBSIZE_DATASET`` names."""
    text = os.fspath(spec)
    if Path(text).is_file() or text.lower() not in HISTORIES:
        return None
    members = [datasets_dir() / BUNDLED_TRACES[name] for name in HISTORIES[text.lower()]]
    missing = [m for m in members if not m.is_file()]
    if missing:
        raise InputError(f"the bundled history {text!r} lacks {missing[0].name}", source=text)
    return members


def is_bundled(trace: str | os.PathLike[str], name: str = "reference") -> bool:
    """Whether ``trace`` is the bundled trace ``name`` itself (for the reference trace: not
    while ``JOBSIZE_DATASET`` names another)."""
    if name == "reference" and "JOBSIZE_DATASET" in os.environ:
        return False
    bundled = datasets_dir() / BUNDLED_TRACES[name]
    return bundled.is_file() and Path(trace).resolve() == bundled.resolve()


def calibration_for(trace: str | os.PathLike[str]) -> list[Path]:
    """The bundled traces the model fitted on ``trace`` is calibrated on by default: the
    drawn kinds of :data:`CALIBRATION_TRACES` for a bundled trace that has them, none for
    another trace (its own kinds, left out one at a time, calibrate it)."""
    given = resolve(trace)  # a bundled trace may be named rather than pathed
    for name, draws in CALIBRATION_TRACES.items():
        if is_bundled(given, name):
            return [path(draw) for draw in draws]
    return []


def _bundled(spec: str) -> Path | None:
    """The bundled file ``spec`` names, if any: a trace or workload by name (``reference``,
    ``heldout``, ``FB-2009``; case and suffix aside) or a file's path inside ``datasets/``,
    with or without ``datasets/`` in front (``reference.tasks.parquet``,
    ``datasets/swim/FB-2009_samples_24_times_1hr_0.tsv``)."""
    text = spec
    while text.startswith("./"):
        text = text[2:]
    if not text or text.startswith("/") or ".." in text.split("/"):
        return None
    if text.lower() == "reference" and "JOBSIZE_DATASET" in os.environ:
        return Path(os.environ["JOBSIZE_DATASET"])  # the name, as `jobsize fit` takes it
    if text.split("/")[0] == FOLDER:
        text = text[len(FOLDER) + 1:]
    stem = text.lower().removesuffix(".parquet")
    for name, relative in BUNDLED_TRACES.items():
        if stem == name:
            return datasets_dir() / relative
    stem = text.lower().removesuffix(".tsv")
    for name, relative in BUNDLED_WORKLOADS.items():
        if stem in (name.lower(), Path(relative).stem.lower()):
            return datasets_dir() / relative
    inside = datasets_dir() / text
    return inside if text and inside.is_file() else None


def path(name: str | os.PathLike[str]) -> Path:
    """The bundled file ``name`` names, from any directory: ``path("reference")`` (the
    measured reference trace, or ``JOBSIZE_DATASET``), ``path("heldout")``,
    ``path("FB-2009")``, or a file of ``datasets/`` by its name there
    (``path("reference.tasks.parquet")``, ``path("datasets/reference.parquet")``).

    A name that is no bundled file is an InputError listing the names.
    """
    found = _bundled(os.fspath(name))
    if found is None or not found.is_file():
        names = ", ".join([*BUNDLED_TRACES, *HISTORIES, *BUNDLED_WORKLOADS])
        raise InputError(f"no bundled data set of this name; bundled: {names}, or a file of "
                         f"{datasets_dir()}", source=os.fspath(name))
    return found


def resolve(spec: str | os.PathLike[str]) -> str:
    """``spec`` where such a file exists here; else the bundled file it names (:func:`path`);
    else ``spec`` unchanged (its reader then says there is no such file). A file here
    always wins over a bundled one of the same name."""
    text = os.fspath(spec)
    if Path(text).exists():
        return text
    found = _bundled(text)
    return str(found) if found is not None and found.is_file() else text


def resolve_workload(spec: str) -> str:
    """The file a ``--workload`` value names: a bundled workload by name (``FB-2009``, with or
    without ``.tsv``, or its SWIM file name where no such file exists here), else ``spec``.

    Naming a well-known workload that is not bundled (``FB-2010``) is an InputError saying
    where to get it.
    """
    if Path(spec).exists():
        return spec
    found = resolve(spec)
    if found != spec:
        return found
    stem = Path(spec).name.removesuffix(".tsv")
    for name, relative in BUNDLED_WORKLOADS.items():
        if stem.lower() in (name.lower(), Path(relative).stem.lower()):
            return str(datasets_dir() / relative)
    for name, where in KNOWN_WORKLOADS.items():
        if stem.lower().startswith(name.lower()):
            raise InputError(f"the {name} workload is not bundled with jobsize; get {where}",
                             source=spec)
    return spec
