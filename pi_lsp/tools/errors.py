"""The error a tool reports to the model, and Node-style texts for file-system errors.

pi's tools throw ``Error(message)``; its loop turns the message into an ``isError`` tool result with
``details: {}``. Errors that come from Node's ``fs`` read like
``ENOENT: no such file or directory, access '/abs/path'``, so the same wording is produced here
from Python's ``OSError`` for the cases pi's models actually see.
"""

from __future__ import annotations

import errno
import os

from pi_lsp.regular_files import FileTooLargeError, NotRegularFileError, describe_mode

# libuv's wording where it differs from the C library's ``strerror`` (lower-cased).
_LIBUV_TEXT = {
    errno.EISDIR: "illegal operation on a directory",
    errno.EEXIST: "file already exists",
    errno.ELOOP: "too many symbolic links encountered",
}


class ToolError(Exception):
    """A failure reported to the model as the text of an error tool result.

    A ``FileSystem`` implementation may raise it too (for example an editor reporting a version
    conflict); the message then reaches the model unchanged.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


ABORTED = "Operation aborted"
"""pi's text for a tool stopped by the abort signal (bash has its own, ``Command aborted``)."""


def node_error_message(exc: OSError, syscall: str, path: str | None = None) -> str:
    """``CODE: description, syscall 'path'`` as Node formats a failed ``fs`` call."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    text = _LIBUV_TEXT.get(exc.errno or 0)
    if text is None:
        text = os.strerror(exc.errno or errno.EIO)
        text = text[:1].lower() + text[1:]
    location = f"{syscall} '{path}'" if path is not None else syscall
    return f"{code}: {text}, {location}"


def file_error_message(exc: OSError, syscall: str, path: str, verb: str = "read") -> str:
    """The tool text for a failed file read.

    A clear sentence for a non-regular or too-large file (see ``regular_files``), else Node's
    wording.
    """
    if isinstance(exc, NotRegularFileError):
        return f"Cannot {verb} {path}: it is {describe_mode(exc.mode)}, not a regular file."
    if isinstance(exc, FileTooLargeError):
        return (
            f"Cannot read {path}: it is larger than {_mib(exc.limit)} "
            f"({_mib(exc.size)} or more). Use bash (head, tail, sed -n, grep) to read parts of it."
        )
    return node_error_message(exc, syscall, path)


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}MB"
