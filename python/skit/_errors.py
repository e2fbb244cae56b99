"""skit status codes as Python exceptions.

Every exception raised for a failed C call is an instance of skit.Error and
of the matching built-in class: ValueError for bad input, MemoryError for a
refused or failed allocation, RuntimeError for a computation that failed,
NotImplementedError (a RuntimeError) for a feature this build lacks,
OSError for files. str(e) is skit's one-line message; e.status is the C
status code, e.location the C source line that raised it.
"""

# Status codes of skit/core.h, in enum order.
STATUS_NAMES = ("SKIT_OK", "SKIT_EINVAL", "SKIT_EDOM", "SKIT_ESHAPE", "SKIT_ENONFINITE",
                "SKIT_ENOMEM", "SKIT_EOVERFLOW", "SKIT_ETOOBIG", "SKIT_EBREAKDOWN",
                "SKIT_ENOTPD", "SKIT_ENOCONV", "SKIT_EIO", "SKIT_EFORMAT",
                "SKIT_EUNSUPPORTED", "SKIT_ELIBRARY")


class Error(Exception):
    """Base class of every exception carrying a skit status."""

    def __init__(self, message, status=None, location=""):
        super().__init__(message)
        self.status = status
        self.location = location

    @property
    def status_name(self):
        if self.status is not None and 0 <= self.status < len(STATUS_NAMES):
            return STATUS_NAMES[self.status]
        return "unknown"


class InvalidInput(Error, ValueError):
    """EINVAL, EDOM, ESHAPE, ENONFINITE, EOVERFLOW, EFORMAT."""


class OutOfMemory(Error, MemoryError):
    """ENOMEM, ETOOBIG."""


class ComputationFailed(Error, RuntimeError):
    """EBREAKDOWN, ENOTPD, ENOCONV, ELIBRARY."""


class Unsupported(Error, NotImplementedError):
    """EUNSUPPORTED: not built in or no device."""


class FileError(Error, OSError):
    """EIO."""


_CLASS = {1: InvalidInput, 2: InvalidInput, 3: InvalidInput, 4: InvalidInput, 5: OutOfMemory,
          6: InvalidInput, 7: OutOfMemory, 8: ComputationFailed, 9: ComputationFailed,
          10: ComputationFailed, 11: FileError, 12: InvalidInput, 13: Unsupported,
          14: ComputationFailed}


def raise_status(status, message, description, location):
    cls = _CLASS.get(status, ComputationFailed)
    raise cls(message or description, status, location)
