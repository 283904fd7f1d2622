"""Job output files, committed as Hadoop's ``FileOutputCommitter`` does.

An attempt writes ``part-NNNNN`` under ``<output>/_temporary/<attempt id>/``; only the attempt
the job keeps is moved into ``<output>/``, and a successful job leaves ``_SUCCESS`` there, so a
failed or retried attempt never leaves partial output behind. Lines are written in Streaming's
canonical form (``key\\tvalue``; a line without a tab gets one, as TextOutputFormat writes it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from jobsize.engine.records import canonical
from jobsize.errors import InputError

TEMPORARY = "_temporary"
SUCCESS = "_SUCCESS"


def part_name(index: int) -> str:
    """Output file name of task ``index`` (the old ``mapred`` API's names, used by Streaming)."""
    return f"part-{index:05d}"


def attempt_file(output_dir: Path, attempt_id: str, index: int) -> Path:
    return output_dir / TEMPORARY / attempt_id / part_name(index)


class OutputWriter:
    """Writes an attempt's output lines and counts records and bytes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.records = 0
        self.bytes = 0
        self._handle = open(path, "wb")  # noqa: SIM115 - closed by close()

    def write(self, chunk: bytes) -> None:
        chunk, n = canonical(chunk)
        self._handle.write(chunk)
        self.records += n
        self.bytes += len(chunk)

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()


def prepare(output_dir: Path, overwrite: bool) -> None:
    """Create the output directory; like Hadoop, refuse one that exists unless ``overwrite``."""
    if output_dir.exists() and not overwrite:
        raise InputError("output directory already exists", source=output_dir)
    try:
        if output_dir.is_dir():
            shutil.rmtree(output_dir)
        elif output_dir.exists():
            output_dir.unlink()
        output_dir.mkdir(parents=True)
    except OSError as exc:
        raise InputError(f"cannot create the output directory ({exc.strerror or exc})",
                         source=output_dir) from None


def commit_task(output_dir: Path, attempt_output: Path) -> Path:
    """Move a kept attempt's file into the output directory."""
    target = output_dir / attempt_output.name
    os.replace(attempt_output, target)
    return target


def commit_job(output_dir: Path, succeeded: bool) -> None:
    """Remove attempts' leftovers; mark a successful job with ``_SUCCESS``."""
    shutil.rmtree(output_dir / TEMPORARY, ignore_errors=True)
    if succeeded:
        (output_dir / SUCCESS).touch()
