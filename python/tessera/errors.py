"""Exceptions raised by tessera: one class per kind of engine error.

Every error of the engine reaches Python as an instance of the class of its kind, with the
engine's message unchanged (it names the object and says what to do). Branch on the class,
never on the message. All derive from :class:`TesseraError`; where a kind has a natural
builtin counterpart the class derives from it too, so ``except ValueError`` also catches an
:class:`InvalidArgumentError`.
"""

from __future__ import annotations

from . import _native

__all__ = [
    "TesseraError",
    "InvalidArgumentError",
    "NotFoundError",
    "AlreadyExistsError",
    "DefinitionMismatchError",
    "AmbiguousError",
    "CommitConflictError",
    "CorruptError",
    "UnsupportedError",
    "StaleError",
    "BusyError",
    "ResourceExhaustedError",
    "CancelledError",
    "IndeterminateError",
    "StorageError",
    "PermissionDeniedError",
    "UnavailableError",
    "InternalError",
]


class TesseraError(Exception):
    """Base class of every error the engine reports."""

    #: The engine's name of the kind ("NotFound", "CommitConflict", ...).
    kind: str = ""


class InvalidArgumentError(TesseraError, ValueError):
    """A bad argument: an unknown column, a malformed filter, a vector of the wrong dimension."""

    kind = "InvalidArgument"


class NotFoundError(TesseraError, LookupError):
    """No dataset, version, index, row or file of that name."""

    kind = "NotFound"


class AlreadyExistsError(TesseraError):
    """A dataset or index of that name exists already."""

    kind = "AlreadyExists"


class DefinitionMismatchError(TesseraError):
    """An index of that name exists with another definition (``if_not_exists`` was given)."""

    kind = "DefinitionMismatch"


class AmbiguousError(TesseraError):
    """A name that matches more than one object."""

    kind = "Ambiguous"


class CommitConflictError(TesseraError):
    """A concurrent commit changed what this operation depends on.

    ``retryable`` says whether running the operation again from the latest version can
    succeed.
    """

    kind = "CommitConflict"
    retryable: bool = False


class CorruptError(TesseraError):
    """A file of the dataset is damaged; the message names it."""

    kind = "Corrupt"


class UnsupportedError(TesseraError, NotImplementedError):
    """Something tessera does not do (a column type it cannot store, a newer format)."""

    kind = "Unsupported"


class StaleError(TesseraError):
    """An external file changed since it was registered; ``refresh`` records the change."""

    kind = "Stale"


class BusyError(TesseraError):
    """A resource is held by another operation; try again later."""

    kind = "Busy"


class ResourceExhaustedError(TesseraError):
    """Memory or another resource ran out."""

    kind = "ResourceExhausted"


class CancelledError(TesseraError):
    """The operation was cancelled before its commit: it committed nothing."""

    kind = "Cancelled"


class IndeterminateError(TesseraError):
    """The outcome is unknown (a commit whose result could not be confirmed)."""

    kind = "Indeterminate"


class StorageError(TesseraError, OSError):
    """The storage failed (a write, an fsync, a read)."""

    kind = "IOError"


class PermissionDeniedError(StorageError, PermissionError):
    """Object storage refused the credentials, or they lack a permission on the bucket."""

    kind = "PermissionDenied"


class UnavailableError(StorageError):
    """The storage could not be reached, or stayed throttled, until the retry deadline."""

    kind = "Unavailable"


class InternalError(TesseraError):
    """A bug in tessera; please report it with the message."""

    kind = "Internal"


_native._register_error_classes(
    {cls.kind: cls for cls in (globals()[name] for name in __all__) if cls.kind}
)
