"""The exception hierarchy every jobsize package raises.

A user's mistake (a bad file, a wrong option, an unreachable server) is always a
:class:`JobsizeError`. Its message is one line that names the source — a file, a URL — and the
place inside it (line, byte offset, column, JSON path) before the reason, so the CLI can print it
as is and exit 2 without a traceback::

    trace.parquet: column 'n_maps': expected an integer column, found string

Anything else that escapes is a bug in jobsize.
"""

from __future__ import annotations


class JobsizeError(Exception):
    """Base class: a failure a user can act on.

    ``source`` is the file path or URL, ``where`` the place inside it (``"line 12"``,
    ``"offset 4096"``, ``"column 'n_maps'"``), ``reason`` what is wrong.
    """

    def __init__(self, reason: str, *, source: object = None, where: object = None) -> None:
        self.reason = str(reason)
        self.source = None if source is None else str(source)
        self.where = None if where is None else str(where)
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [p for p in (self.source, self.where) if p]
        return ": ".join([*parts, self.reason])


class InputError(JobsizeError):
    """A file or value supplied by the user cannot be used."""


class ParseError(InputError):
    """A file is not in the format it claims to be (truncated, damaged, wrong type)."""


class SchemaError(InputError):
    """A table of job records lacks a column or has one of the wrong type."""


class ConfigError(InputError):
    """An option or configuration value is invalid or inconsistent."""


class ModelError(JobsizeError):
    """A model cannot be fitted or applied (too few jobs, singular design, unfitted model)."""


class ModelFileError(ModelError, InputError):
    """A saved model is damaged, of another format version, or not a jobsize model."""


class RemoteError(JobsizeError):
    """A server (JobHistory Server, ResourceManager, WebHDFS) failed or refused a request.

    ``status`` is the HTTP status when there was a response, else ``None``.
    """

    def __init__(
        self, reason: str, *, source: object = None, where: object = None, status: int | None = None
    ) -> None:
        self.status = status
        super().__init__(reason, source=source, where=where)


class JobFailedError(JobsizeError):
    """A MapReduce job (or its probe) failed; the reason carries the failing task's stderr."""


class SimulationError(JobsizeError):
    """A workload or cluster cannot be simulated as given."""


class JobsizeWarning(UserWarning):
    """Something in the input was odd but could be read without guessing (e.g. a job a trace
    holds twice, identically: kept once). Shown through Python's :mod:`warnings`."""
