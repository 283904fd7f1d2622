"""Hadoop's Java examples as kinds of job a bench trace may draw (``bench-trace --engine hadoop
--java-examples``).

A Java kind is named ``java:<program>`` (``java:wordcount``, ``java:terasort``, ...): the
program of ``hadoop-mapreduce-examples.jar`` (:mod:`jobsize.hadoop.examples`), run on the mini
cluster over an input made as Hadoop makes it (randomtextwriter, randomwriter, teragen; or
written here for secondarysort and join). Each is drawn as the streaming workloads are; it is
never probed (a probe runs a streaming job's commands, and a Java job has none), so its probe
columns stay null. Programs that submit more than one job (grep) are not drawn: a trace row is
one job.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jobsize.errors import ConfigError
from jobsize.workloads import Workload, workload

PREFIX = "java:"


@dataclass(frozen=True)
class JavaKind:
    """A Java example as the draw sees it: the fields of a ``Workload`` the draw reads."""

    name: str  # java:<program>
    program: str
    input_source: str  # jobsize.hadoop.examples.INPUTS key
    max_reduces: int = 8
    map_only: bool = False
    description: str = ""

    @property
    def input_kind(self) -> str:
        return f"java-{self.input_source}"


def _kinds() -> dict[str, JavaKind]:
    from jobsize.hadoop.examples import EXAMPLES

    # wordmean, wordmedian and wordstandarddeviation read their answer from one reduce's file
    single = {"wordmean", "wordmedian", "wordstandarddeviation"}
    return {f"{PREFIX}{e.name}": JavaKind(f"{PREFIX}{e.name}", e.name, e.input_kind,
                                          max_reduces=1 if e.name in single else 8,
                                          description=e.description)
            for e in EXAMPLES.values() if e.jobs == 1}


JAVA_KINDS: dict[str, JavaKind] = _kinds()


def is_java(name: str) -> bool:
    return name.startswith(PREFIX)


def kind(name: str) -> Workload | JavaKind:
    """A streaming workload (:func:`jobsize.workloads.workload`) or a Java kind."""
    if is_java(name):
        found = JAVA_KINDS.get(name)
        if found is None:
            raise ConfigError(f"unknown Java example kind {name!r}; choose one of "
                              f"{', '.join(sorted(JAVA_KINDS))}")
        return found
    return workload(name)


def input_generators(client: object) -> dict[str, Callable[[Path, int, int], list[Path]]]:
    """Generators of the Java kinds' inputs for :class:`~jobsize.benchtrace.inputs.InputCache`:
    ``(directory, size, seed) -> files`` — Hadoop's generator jobs submitted through
    ``client`` (one map, so one file), or jobsize's writers for pairs and tables."""
    from jobsize.hadoop import examples

    def make(source: str) -> Callable[[Path, int, int], list[Path]]:
        def generate(directory: Path, size: int, seed: int) -> list[Path]:
            made = directory / "made"
            examples.generate(client, source, made, size, maps=1, seed=seed)  # type: ignore[arg-type]
            files = []
            for path in sorted(made.rglob("*")):
                if path.is_file() and not path.name.startswith(("_", ".")):
                    # tables: left/part-00000 → left-part-00000 (join's inputs, in order)
                    target = directory / "-".join(path.relative_to(made).parts)
                    path.rename(target)
                    files.append(target)
            shutil.rmtree(made)
            return files
        return generate

    return {f"java-{source}": make(source) for source in examples.INPUTS}
