"""The exception tree of servescope.

Every error that servescope raises on purpose derives from ``ServescopeError``;
the CLI turns each into one line and an exit code, never a traceback::

    ServescopeError
    ├── DocumentError        a file that is not a valid document (unreadable,
    │                        not YAML/JSON, duplicate keys, unknown kind, ...)
    ├── CatalogError         a workload/dataset/scenario that cannot be found,
    │                        or a catalog that breaks its own rules
    ├── EndpointError        the endpoint under test misbehaved or is unreachable
    ├── EngineError          the local engine could not be built, started or stopped
    ├── CompareRefused       two documents that answer different questions
    │                        (``compare`` without --force)
    ├── NoRateError          no arrival rate the max-rate search tried meets the limits
    ├── RunFailedBar         the run completed but failed its bar (success rate,
    │                        nothing completed); exit code 4
    ├── BadArgument          a predict/search option that cannot be used; exit code 2
    └── UsageError           an option servescope cannot act on (a malformed
        │                    --engine-args or --extra-body, a request field the
        │                    engine is not known to accept); exit code 2
        ├── NotModelledError a scenario asks for something the simulator does not
        │                    model; exit code 2
        ├── LimitSettingError a ``SERVESCOPE_MAX_*`` variable that is not a positive
        │                    integer; exit code 2
        └── ScheduleError    a rate whose arrival schedule cannot be sent or simulated
                             (longer than a week, workload.arrivals); exit code 2;
                             also a ValueError, for callers that word those as their own

Lower-level exceptions (OSError, yaml.YAMLError, aiohttp errors) are mapped with
``raise ... from exc`` so the cause stays available to a debugger.
"""

from __future__ import annotations


class ServescopeError(Exception):
    """Root of every error servescope raises on purpose."""

    exit_code = 1


class DocumentError(ServescopeError):
    """A file could not be read as a document, or the document is invalid."""

    def __init__(self, source: str, message: str, path: str = "") -> None:
        self.source = source
        self.path = path
        self.message = message
        where = f"{source}: {path}: " if path else f"{source}: "
        super().__init__(where + message)


class CatalogError(ServescopeError):
    """A catalog entry is missing or the catalog is inconsistent."""


class EndpointError(ServescopeError):
    """The endpoint under test failed in a way that stops the run."""


class EngineError(ServescopeError):
    """The local engine could not be built, started or stopped."""


class UsageError(ServescopeError):
    """An option or argument that servescope cannot act on; nothing was sent."""

    exit_code = 2


class CompareRefused(ServescopeError):
    """Two documents that answer different questions."""


class NoRateError(ServescopeError):
    """No Poisson rate the search tried meets the limits (exit code 1)."""


class RunFailedBar(ServescopeError):
    """The run completed but failed its bar (success rate, nothing completed)."""

    exit_code = 4


class BadArgument(ServescopeError):
    """A ``predict``/``search`` option that cannot be used (exit code 2)."""

    exit_code = 2


class NotModelledError(UsageError):
    """A scenario asks for something the simulator does not model (exit code 2)."""


class LimitSettingError(UsageError):
    """A ``SERVESCOPE_MAX_*`` variable that is not a positive integer."""


class ScheduleError(UsageError, ValueError):
    """A rate or schedule that cannot be sent or simulated: one line, exit code 2 (a
    ``UsageError``); a ``ValueError`` too, for callers that word those as their own."""


__all__ = [
    "BadArgument",
    "CatalogError",
    "CompareRefused",
    "DocumentError",
    "EndpointError",
    "EngineError",
    "LimitSettingError",
    "NoRateError",
    "NotModelledError",
    "RunFailedBar",
    "ScheduleError",
    "ServescopeError",
    "UsageError",
]
