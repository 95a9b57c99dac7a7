"""``file://`` URIs for absolute paths and back, percent-encoded as editors write them.

A path becomes ``file:///…`` with every byte outside the unreserved set and ``/`` percent-encoded
as UTF-8 (a space is ``%20``, ``#`` is ``%23``): ``pathlib``'s ``as_uri``, which also spells
Windows drives. Clients differ in what else they encode (VS Code encodes the ``:`` of a Windows
drive), so URIs are compared decoded (``uri_key``), as pygls keys its documents.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname


def path_to_uri(path: str) -> str:
    """The ``file://`` URI of an absolute path."""
    return Path(path).as_uri()


def uri_to_path(uri: str) -> str | None:
    """The local path of a ``file://`` URI (decoded); None for other schemes."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    path = url2pathname(parts.path)
    return f"//{parts.netloc}{path}" if parts.netloc else path


def uri_key(uri: str) -> str:
    """A URI decoded for comparison."""
    return unquote(uri)


def normal_path(path: str) -> str:
    """A path's normalized spelling (``..`` and doubled slashes resolved, case as the OS folds)."""
    return os.path.normcase(os.path.normpath(path))


def same_path(a: str, b: str) -> bool:
    """Whether two absolute paths name the same file, by normalized spelling."""
    return normal_path(a) == normal_path(b)
