"""Task commands that name a Java class instead of a program.

A job's mapper, combiner and reducer are commands — argument tuples that the local engine and
Hadoop Streaming run as processes. A command whose first word is :data:`JAVA` names instead a
class of jobsize's Hadoop module (``org.jobsize.hadoop.CostShape$Map``, an old-API ``Mapper``
or ``Reducer``), which Hadoop Streaming runs inside the task's own JVM when given its name as
``-mapper``/``-combiner``/``-reducer``: a Java job, with no process and no pipe. The command's
other words are the class's arguments; Streaming passes a class no arguments, so they travel in
the job's configuration under ``jobsize.task.<role>.args`` (:func:`args_key`), where the class
reads them::

    ("java-class", "org.jobsize.hadoop.CostShape$Map", "rec=40", "fan=2")
    # -mapper org.jobsize.hadoop.CostShape$Map  -D jobsize.task.mapper.args='rec=40 fan=2'

Only a Hadoop cluster runs them (``--engine hadoop``); the local engine runs programs.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from jobsize.errors import ConfigError

#: The first word of a command that names a Java class.
JAVA = "java-class"
ROLES = ("mapper", "combiner", "reducer")
#: The setting by which Hadoop Streaming declares a role's output as text keys and values.
TEXT_OUTPUT = {"mapper": "stream.map.output", "reducer": "stream.reduce.output"}


@dataclass(frozen=True)
class JavaTask:
    """A Java class run as a task's function, and its arguments."""

    class_name: str
    args: tuple[str, ...]


def args_key(role: str) -> str:
    """The configuration key under which a role's class finds its arguments."""
    if role not in ROLES:
        raise ConfigError(f"unknown task role {role!r}; one of {', '.join(ROLES)}")
    return f"jobsize.task.{role}.args"


def java_task(command: Sequence[str] | str | None) -> JavaTask | None:
    """The Java class a command names, or None for a program (or no command)."""
    if command is None or callable(command):
        return None
    # a command given as one string is a shell's words (shlex.join of the argument tuple)
    words = shlex.split(command) if isinstance(command, str) else list(command)
    if not words or words[0] != JAVA:
        return None
    if len(words) < 2:
        raise ConfigError(f"{JAVA} needs a class name after it")
    return JavaTask(words[1], tuple(words[2:]))


def is_java(*commands: Sequence[str] | str | None) -> bool:
    """Whether any of ``commands`` names a Java class."""
    return any(java_task(c) is not None for c in commands)


def streaming_task(role: str, task: JavaTask) -> tuple[str, dict[str, str]]:
    """What Hadoop Streaming is given for a Java task: the class name for ``-<role>`` and the
    settings it needs — its arguments, and for a map or reduce that it writes text keys and
    values (Streaming types a Java class's output only when told; left alone, a map's keys
    are declared the input format's ``LongWritable``)."""
    settings = {args_key(role): " ".join(task.args)}
    if role in TEXT_OUTPUT:
        settings[TEXT_OUTPUT[role]] = "text"
    return task.class_name, settings


def refuse_local(*commands: Sequence[str] | str | None, where: str = "the job") -> None:
    """A one-line error when a command names a Java class: the local engine runs programs."""
    for command in commands:
        task = java_task(command)
        if task is not None:
            raise ConfigError(f"{where} runs the Java class {task.class_name}, which only a "
                              "Hadoop cluster runs (--engine hadoop); the local engine runs "
                              "programs")
