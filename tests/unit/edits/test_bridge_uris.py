"""Paths to file URIs and back."""

from __future__ import annotations

import pytest

from pi_lsp.edits.bridge import path_to_uri, uri_key, uri_to_path


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("/w/a.py", "file:///w/a.py"),
        ("/w/a b/c#d?.py", "file:///w/a%20b/c%23d%3F.py"),
        ("/w/é😀%.py", "file:///w/%C3%A9%F0%9F%98%80%25.py"),
    ],
)
def test_paths_and_uris_round_trip(path: str, uri: str) -> None:
    assert path_to_uri(path) == uri
    assert uri_to_path(uri) == path


def test_spellings_of_one_uri_compare_equal() -> None:
    assert uri_key("file:///w/a%20b.py") == uri_key("file:///w/a b.py")
    assert uri_to_path("file:///w/%61.py") == "/w/a.py"
    assert uri_to_path("untitled:Untitled-1") is None
