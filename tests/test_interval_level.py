"""One interval level by default everywhere: the library's, the CLI's and the documentation's."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from jobsize.models import evaluation
from jobsize.models.regression import DEFAULT_LEVEL
from jobsize.models.size_model import SizeModel

import jobsize
from jobsize.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_the_default_level_is_90_percent_in_the_library_and_the_cli() -> None:
    assert DEFAULT_LEVEL == 0.9
    assert jobsize.SizePredictor().level == DEFAULT_LEVEL
    assert inspect.signature(SizeModel.fit).parameters["level"].default == DEFAULT_LEVEL
    for function in (evaluation.evaluate, evaluation.cross_validated_pairs,
                     evaluation.prequential_predictions):
        assert inspect.signature(function).parameters["level"].default == DEFAULT_LEVEL
    for command in ("fit", "evaluate"):
        args = build_parser(command).parse_args([command])
        assert args.level == DEFAULT_LEVEL, command


def test_the_readme_states_the_default_level() -> None:
    tour = (ROOT / "README.md").read_text()
    stated = set(re.findall(r"calibrated (\d+) % interval", tour))
    assert stated == {f"{100 * DEFAULT_LEVEL:g}"}
