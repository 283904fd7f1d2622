"""Every ``jobsize.…`` name on the paper → code page exists: a module, or an attribute of one."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "paper-to-code.md"
NAMES = sorted(set(re.findall(r"`(jobsize(?:\.\w+)+)`", PAGE.read_text())))


def resolve(name: str) -> object:
    """Import the longest module prefix of ``name``, then follow the attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            value = getattr(value, attr)
        return value
    raise ModuleNotFoundError(name)


def test_the_page_names_code() -> None:
    assert len(NAMES) > 40


@pytest.mark.parametrize("name", NAMES)
def test_the_named_code_exists(name: str) -> None:
    resolve(name)


def test_a_name_that_is_gone_is_caught() -> None:
    with pytest.raises(AttributeError):
        resolve("jobsize.models.resources.no_such_equation")
