"""MkDocs hook: results pages quote commands run when the site is built, never typed numbers.

In a page, ``<!-- output: jobsize fit --cv-groups job_type -->`` is replaced by that command's
standard output (run from the repository root, on the bundled data) in a text block, and
``<!-- machine -->`` by the date, machine and jobsize version of the build. A command that fails
fails the build.
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
_OUTPUT = re.compile(r"<!-- output: (?P<command>.+?) -->")
_MACHINE = "<!-- machine -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if _MACHINE in markdown:
        markdown = markdown.replace(_MACHINE, machine())
    return _OUTPUT.sub(lambda m: _quoted(m["command"]), markdown)


def run(command: str) -> str:
    """Standard output of ``command`` (``jobsize ...``) run in the repository."""
    argv = shlex.split(command)
    if argv[0] == "jobsize":  # the jobsize of the Python that builds the site
        argv = [sys.executable, "-m", "jobsize", *argv[1:]]
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.rstrip()


def machine() -> str:
    from jobsize import __version__

    cpu = _cpu_model()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = f", load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") \
        else ""
    return (f"Produced on {now} by jobsize {__version__} (Python {platform.python_version()}) "
            f"on {os.cpu_count()} cores{', ' + cpu if cpu else ''}{load}, when this site was "
            "built.")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _quoted(command: str) -> str:
    return f"`{command}`:\n\n```text\n{run(command)}\n```"
