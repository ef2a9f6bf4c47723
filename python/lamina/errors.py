"""Lamina's error taxonomy on the Python side.

Each class mirrors the Java class of the same name in `lamina.errors`:

- BadInputException: the request is invalid; the message names the table, column, option or file.
  Nothing committed has changed. NotFoundException and AlreadyExistsException are kinds of it.
- CorruptFileException: a file's bytes are not what its format says.
- CommitConflictException: another writer won; retrying from the new snapshot is safe.
- CommitStateUnknownException: the commit may or may not have landed; check before retrying.
- PostCommitFailureException: the write IS committed, but the step that must follow it (the
  compaction that makes a deletion-vector or first-row table's new rows visible) failed. Not
  retryable: running the write again applies it twice. `CALL <catalog>.sys.compact(...)` completes it.
- StorageException: the file system refused an operation (read-only, not a directory, name too
  long); the message names the operation, the path and the reason.

Importing `lamina` hooks `convert` into PySpark's translation of Java exceptions, so errors raised by
`spark.sql(...)`, DataFrame actions and JVM calls arrive as these classes, on a classic session and
on a Spark Connect session alike. A Lamina error anywhere in
the Java cause chain wins (a task failure wraps it in a SparkException).
"""

from typing import Optional

from pyspark.errors.exceptions import captured as _captured

__all__ = [
    "LaminaException",
    "BadInputException",
    "NotFoundException",
    "AlreadyExistsException",
    "CorruptFileException",
    "CommitConflictException",
    "CommitStateUnknownException",
    "PostCommitFailureException",
    "StorageException",
    "convert",
]

_JAVA_PACKAGE = "lamina.errors."
_MAX_CAUSE_DEPTH = 32


class LaminaException(_captured.CapturedException):
    """Base of the errors Lamina raises on purpose.

    Built either from a Java throwable (`origin`, as PySpark does) or from a plain message.
    """

    def __init__(self, message: Optional[str] = None, origin=None):
        if origin is not None:
            super().__init__(origin=origin)
        else:
            # No JVM involved: keep CapturedException's attributes without asking one.
            self._desc = message or ""
            self._stackTrace = ""
            self._cause = None
            self._origin = None

    def __str__(self) -> str:
        if self._origin is None:
            return self._desc
        return super().__str__()

    @property
    def message(self) -> str:
        """The Java exception's message (or the message given), without the JVM stack trace."""
        return self._desc

    @property
    def java_class(self) -> Optional[str]:
        """Fully qualified name of the Java exception's class, None if raised from Python."""
        return None if self._origin is None else self._origin.getClass().getName()


class BadInputException(LaminaException):
    """The request is invalid; nothing committed has changed."""


class NotFoundException(BadInputException):
    """A namespace, table, snapshot, column or file the request names does not exist."""


class AlreadyExistsException(BadInputException):
    """A namespace or table the request would create already exists."""


class CorruptFileException(LaminaException):
    """A file's bytes are not what its format says; the message names file, offset and values."""


class CommitConflictException(LaminaException):
    """Another writer committed first; retrying from the new snapshot is safe."""


class CommitStateUnknownException(LaminaException):
    """The commit may or may not have landed; check the table before retrying."""


class PostCommitFailureException(LaminaException):
    """The write is committed (never retry it); the compaction that must follow it failed.

    Readers of a deletion-vector or first-row table do not see the write's rows until
    `CALL <catalog>.sys.compact(table => ...)` succeeds; the message names the table and the snapshot.
    Deliberately not a CommitConflictException: a retry loop catching conflicts must not re-apply it.
    """


class StorageException(LaminaException):
    """The file system refused an operation; the message names the operation, the path and the reason."""


_BY_JAVA_NAME = {
    _JAVA_PACKAGE + cls.__name__: cls
    for cls in (
        BadInputException,
        NotFoundException,
        AlreadyExistsException,
        CorruptFileException,
        CommitConflictException,
        CommitStateUnknownException,
        PostCommitFailureException,
        StorageException,
    )
}


def _lamina_class(java_throwable):
    """The Python class for a Java throwable, by its class or nearest Lamina superclass, or None."""
    klass = java_throwable.getClass()
    while klass is not None:
        name = klass.getName()
        if name in _BY_JAVA_NAME:
            return _BY_JAVA_NAME[name]
        if name.startswith("java."):
            # Every Lamina error extends RuntimeException: reaching java.* means none is here.
            return None
        klass = klass.getSuperclass()
    return None


def _find(java_throwable):
    """(python class, java throwable) for the first Lamina error in the cause chain, or None."""
    seen = 0
    current = java_throwable
    while current is not None and seen < _MAX_CAUSE_DEPTH:
        cls = _lamina_class(current)
        if cls is not None:
            return cls, current
        current = current.getCause()
        seen += 1
    return None


def convert(error):
    """The Lamina exception for `error` (a Py4JJavaError, a PySpark captured exception or a Java
    throwable proxy), or None when no Lamina error is in its cause chain."""
    from py4j.protocol import Py4JJavaError

    if isinstance(error, LaminaException):
        return error
    if isinstance(error, Py4JJavaError):
        java_throwable = error.java_exception
    elif isinstance(error, _captured.CapturedException):
        java_throwable = error._origin
    else:
        java_throwable = error
    if java_throwable is None or not hasattr(java_throwable, "getClass"):
        return None
    try:
        found = _find(java_throwable)
    except Exception:  # a JVM gone away must not hide the original error
        return None
    if found is None:
        return None
    cls, origin = found
    return cls(origin=origin)


def _connect_error(classes_and_messages):
    """The Lamina exception for a Spark Connect server's error chain, given as (class hierarchy,
    message) pairs from the outermost error inwards, or None when no Lamina error is in it."""
    for hierarchy, message in classes_and_messages:
        for name in hierarchy:
            if name in _BY_JAVA_NAME:
                return _BY_JAVA_NAME[name](message)
    return None


def _install() -> None:
    """Wrap PySpark's conversion of server errors into Python exceptions once (idempotent): py4j's
    for classic sessions and, where PySpark's Spark Connect client is installed, Connect's."""
    original = _captured.convert_exception
    if not getattr(original, "_lamina", False):
        def convert_exception(e):
            converted = convert(e)
            return converted if converted is not None else original(e)

        convert_exception._lamina = True
        _captured.convert_exception = convert_exception
    try:
        from pyspark.sql.connect.client import core as _connect_core
    except ImportError:  # PySpark without its Connect client's dependencies (grpc)
        return
    connect_original = _connect_core.convert_exception
    if getattr(connect_original, "_lamina", False):
        return

    def convert_connect_exception(info, truncated_message, resp, *args, **kwargs):
        if resp is not None and len(resp.errors) > 0:
            chain = [(list(e.error_type_hierarchy), e.message) for e in resp.errors]
        else:
            import json

            chain = [(json.loads(info.metadata.get("classes") or "[]"), truncated_message)]
        converted = _connect_error(chain)
        if converted is not None:
            return converted
        return connect_original(info, truncated_message, resp, *args, **kwargs)

    convert_connect_exception._lamina = True
    _connect_core.convert_exception = convert_connect_exception


_install()
