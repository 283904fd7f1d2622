"""Shared fixtures.

Real Hadoop files and SWIM traces are read in place from ``JOBSIZE_SHARED`` (default
``../shared`` beside the repository). Where that is missing, tests that need it skip with the
reason — except under ``CI=true``, where they fail, so CI never passes by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent


# CI machines are shared and slow: no per-example deadline, and the same examples every run,
# so a red CI always reproduces. Locally hypothesis keeps exploring new examples.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")


def shared_root() -> Path:
    return Path(os.environ.get("JOBSIZE_SHARED", REPO.parent / "shared")).resolve()


def require_shared() -> Path:
    """The shared root; skips the calling test where it is missing (fails under CI)."""
    root = shared_root()
    if not (root / "hadoop").is_dir():
        reason = f"shared reference data not found at {root} (set JOBSIZE_SHARED)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return root


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared reference-data directory (hadoop/, swim/, papers/)."""
    return require_shared()


@pytest.fixture(scope="module")
def server():
    """A threaded HTTP server on loopback, one per test module (a fake JobHistory Server or
    ResourceManager answers on it)."""
    from pytest_httpserver import HTTPServer

    srv = HTTPServer(threaded=True)
    srv.start()
    yield srv
    srv.clear()
    srv.stop()
