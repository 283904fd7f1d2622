"""A bench-trace directory: the trace, its task table, its settings and its run log.

::

    DIR/trace.parquet          job records, one per finished draw (appended atomically)
    DIR/trace.tasks.parquet    their task attempts (jobsize.schema.TASK_COLUMNS)
    DIR/bench-trace.json       seed, distribution, machine and one entry per run (wall, load)
    DIR/history/jobs/          each job's <job_id>.jhist and <job_id>_conf.xml
    DIR/history/probes/<i>/    the probe of draw i (an uber job's .jhist and conf)
    DIR/inputs/, DIR/scratch/  generated inputs and scratch space, removed as they go

A job's record is appended only once it is complete, so after an interruption the trace holds
whole jobs; a resumed run skips the draw indices it finds (``draw_index``) and removes the
history of jobs that ran but were never recorded.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from jobsize.atomic import atomic_write_text
from jobsize.errors import ConfigError, ParseError
from jobsize.schema import TASK_COLUMNS, empty_trace, read_trace, tasks_path, write_trace

SETTINGS_FORMAT = 1
TRACE_NAME = "trace.parquet"
SETTINGS_NAME = "bench-trace.json"
#: Columns a bench trace adds to the job record.
DRAW_INDEX = "draw_index"
EXTRA_COLUMNS = {DRAW_INDEX: "Int64", "fb_maps": "Int64", "split_bytes": "Int64",
                 "host_load_1m": "Float64"}


def machine() -> dict[str, Any]:
    """The machine a trace is measured on: cores, memory, CPU model, Python, OS."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"cores": os.cpu_count(), "memory_bytes": memory, "cpu_model": _cpu_model(),
            "python": sys.version.split()[0], "platform": platform.platform()}


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass
class TraceDirectory:
    """The files of one bench trace under ``root``; ``trace_name`` and ``settings_name`` name
    its trace and settings files (another measurement, such as ``jobsize evaluate``, keeps the
    same layout under its own names)."""

    root: Path
    trace_name: str = TRACE_NAME
    settings_name: str = SETTINGS_NAME

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    @property
    def trace(self) -> Path:
        return self.root / self.trace_name

    @property
    def tasks(self) -> Path:
        return tasks_path(self.trace)

    @property
    def settings_path(self) -> Path:
        return self.root / self.settings_name

    @property
    def job_history(self) -> Path:
        return self.root / "history" / "jobs"

    @property
    def probe_history(self) -> Path:
        return self.root / "history" / "probes"

    @property
    def inputs(self) -> Path:
        return self.root / "inputs"

    @property
    def scratch(self) -> Path:
        return self.root / "scratch"

    # --- settings ---------------------------------------------------------------------------

    def settings(self) -> dict[str, Any] | None:
        if not self.settings_path.is_file():
            return None
        try:
            value = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ParseError(f"not a trace settings file ({exc})",
                             source=self.settings_path) from None
        if not isinstance(value, dict) or value.get("format") != SETTINGS_FORMAT:
            raise ParseError(f"expected a trace settings file of format "
                             f"{SETTINGS_FORMAT}", source=self.settings_path)
        return value

    def check(self, seed: int, distribution: Mapping[str, Any]) -> dict[str, Any] | None:
        """The directory's settings (None for a new directory); an error if they are not
        ``seed`` and ``distribution``, or if a trace lies here without settings."""
        settings = self.settings()
        if settings is None:
            if self.trace.exists():
                raise ConfigError(f"{self.trace.name} has no {self.settings_name} beside it: "
                                  "not a trace directory", source=self.root)
            return None
        wanted = {"seed": seed, "distribution": json.loads(json.dumps(dict(distribution)))}
        for key, value in wanted.items():
            if settings.get(key) != value:
                raise ConfigError(f"was made with {key} {_short(settings.get(key))}, not "
                                  f"{_short(value)}: resume with the same options or use "
                                  "another directory", source=self.settings_path)
        return settings

    def open(self, seed: int, distribution: Mapping[str, Any]) -> dict[str, Any]:
        """Start or resume: the settings must be those the directory was made with."""
        settings = self.check(seed, distribution)
        if settings is None:
            settings = {"format": SETTINGS_FORMAT, "seed": seed,
                        "distribution": dict(distribution), "machine": machine(), "runs": []}
            self.save(settings)
        return settings

    def save(self, settings: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.settings_path, json.dumps(settings, indent=2) + "\n")

    # --- the trace --------------------------------------------------------------------------

    def records(self) -> pd.DataFrame:
        if not self.trace.exists():
            frame = empty_trace()
            for column, dtype in EXTRA_COLUMNS.items():
                frame[column] = pd.Series(dtype=dtype)
            return frame
        frame = read_trace(self.trace, require=(DRAW_INDEX,))
        if frame[DRAW_INDEX].isna().any() or frame[DRAW_INDEX].duplicated().any():
            raise ParseError("draw_index must be unique and non-null in a bench trace",
                             source=self.trace)
        return frame

    def done(self) -> set[int]:
        """Draw indices already in the trace."""
        return {int(i) for i in self.records()[DRAW_INDEX]}

    def append(self, rows: Sequence[Mapping[str, Any]],
               tasks: Sequence[Mapping[str, Any]]) -> None:
        """Add finished jobs: their tasks first, then the records (each file atomically), so
        the trace never names a job whose tasks are missing."""
        old = self.records()
        new = pd.DataFrame.from_records(list(rows))
        for column, dtype in EXTRA_COLUMNS.items():
            if column in new:
                new[column] = new[column].astype(dtype)
        keep = set(old["job_id"].dropna()) | set(new["job_id"])
        old_tasks = (read_trace(self.tasks, columns=TASK_COLUMNS) if self.tasks.exists()
                     else pd.DataFrame())
        new_tasks = pd.DataFrame.from_records(list(tasks))
        all_tasks = _concat([old_tasks, new_tasks])
        if len(all_tasks):
            all_tasks = all_tasks[all_tasks["job_id"].isin(keep)]
        write_trace(all_tasks, self.tasks, columns=TASK_COLUMNS)
        write_trace(_concat([old, new]), self.trace)

    # --- leftovers of an interrupted run ----------------------------------------------------

    def remove_unrecorded(self, records: pd.DataFrame) -> int:
        """Delete the history of jobs and probes that ran but never reached the trace."""
        recorded = set(records["job_id"].dropna())
        draws = {str(int(i)) for i in records[DRAW_INDEX].dropna()}
        removed = 0
        if self.job_history.is_dir():
            for jhist in self.job_history.glob("*.jhist"):
                if jhist.stem not in recorded:
                    jhist.unlink()
                    jhist.with_name(f"{jhist.stem}_conf.xml").unlink(missing_ok=True)
                    removed += 1
        if self.probe_history.is_dir():
            for entry in self.probe_history.iterdir():
                if entry.name not in draws:
                    shutil.rmtree(entry, ignore_errors=True)
        shutil.rmtree(self.scratch, ignore_errors=True)
        return removed


def _concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame()
    non_empty = [f for f in frames if len(f)]
    return pd.concat(non_empty or frames[:1], ignore_index=True)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
