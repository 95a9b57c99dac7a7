"""``PyglsEditorBridge``: the ``EditorBridge`` of a pygls 2 ``LanguageServer``.

Open documents are the ones the client opened (``didOpen``) and pygls keeps in sync; pygls's
``get_text_document`` of any other URI reads the disk, so membership in ``text_documents`` is
what counts as open. Edits go out as ``workspace/applyEdit``, shaped by the capabilities the
client announced (resolved once, on first use after ``initialize``).

The request gets ``apply_timeout`` seconds. No answer by then counts as a refusal; the pending
request is left alone rather than cancelled, so a late answer completes it normally and is
ignored (pygls 2.1.1 reports "Error in server" to the user when an answer arrives for a request
whose future was cancelled, deps-facts §1.3).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol.types import MessageType, ShowMessageParams
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from pi_lsp.bridge.capabilities import EditorCapabilities
from pi_lsp.bridge.text_watch import DocumentTextWatch
from pi_lsp.bridge.workspace_edit import apply_edit_params
from pi_lsp.edits.bridge import (
    ApplyOutcome,
    OpenDocument,
    TextWatch,
    WorkspaceChange,
    normal_path,
    path_to_uri,
    uri_key,
    uri_to_path,
)
from pi_lsp.edits.diff import PositionEncoding

log = logging.getLogger(__name__)


class PyglsEditorBridge:
    """The editor behind a pygls ``LanguageServer``, as ``EditorFileSystem`` needs it."""

    def __init__(self, server: LanguageServer, *, apply_timeout: float = 10.0) -> None:
        """Wrap ``server``; capabilities are read on first use, after ``initialize``.

        Args:
            server: the running language server.
            apply_timeout: seconds the client has to answer ``workspace/applyEdit``.
        """
        self.server = server
        self.apply_timeout = apply_timeout
        self._capabilities: EditorCapabilities | None = None
        self._indexed: tuple[str, ...] = ()
        self._index: dict[str, str] = {}

    @property
    def capabilities(self) -> EditorCapabilities:
        """The client's resolved capabilities (cached once ``initialize`` has run)."""
        if self._capabilities is None:
            try:
                encoding = self.server.workspace.position_encoding
            except RuntimeError:  # not initialized yet: nothing is known, nothing cached
                return EditorCapabilities()
            self._capabilities = EditorCapabilities.resolve(
                self.server.client_capabilities, encoding
            )
        return self._capabilities

    @property
    def can_apply_edits(self) -> bool:
        """The client accepts ``workspace/applyEdit``."""
        return self.capabilities.apply_edit

    @property
    def document_changes(self) -> bool:
        """Versioned ``documentChanges`` are supported."""
        return self.capabilities.document_changes

    @property
    def create_files(self) -> bool:
        """``CreateFile`` operations are supported."""
        return self.capabilities.create_files

    @property
    def change_annotations(self) -> bool:
        """Change annotations are supported."""
        return self.capabilities.change_annotations

    @property
    def position_encoding(self) -> PositionEncoding:
        """The negotiated position encoding."""
        return self.capabilities.position_encoding

    def open_document(self, path: str) -> OpenDocument | None:
        """The synced buffer for ``path`` if the client opened it."""
        try:
            documents = self.server.workspace.text_documents
        except RuntimeError:
            return None
        document = documents.get(uri_key(path_to_uri(path)))
        if document is None:
            key = self._path_index(documents).get(normal_path(path))
            document = documents.get(key) if key is not None else None
        if document is None:
            return None
        return OpenDocument(uri=document.uri, text=document.source, version=document.version)

    def _path_index(self, documents: dict[str, TextDocument]) -> dict[str, str]:
        """Open documents by normalized path, for URIs spelled unlike ``path_to_uri``'s."""
        keys = tuple(documents)
        if keys != self._indexed:
            self._index = {}
            for key, document in documents.items():
                local = uri_to_path(document.uri)
                if local is not None:
                    self._index[normal_path(local)] = key
            self._indexed = keys
        return self._index

    def watch_text(self, uri: str, version: int | None, expected: str) -> TextWatch | None:
        """Watch the synced document ``uri`` for ``expected`` (None when it is not open)."""
        try:
            document = self.server.workspace.text_documents.get(uri_key(uri))
        except RuntimeError:
            return None
        if document is None or document.version != version:
            return None
        return DocumentTextWatch(document, expected)

    def tell_user(self, message: str) -> None:
        """A warning for the user (``window/showMessage``) and the log."""
        log.warning("%s", message)
        try:
            self.server.window_show_message(
                ShowMessageParams(type=MessageType.Warning, message=message)
            )
        except Exception as exc:  # the transport is gone: the log has it
            log.warning("window/showMessage could not be sent: %s", exc)

    async def apply_edit(self, change: WorkspaceChange) -> ApplyOutcome:
        """Send ``workspace/applyEdit`` and wait for the answer (or ``apply_timeout``)."""
        try:
            params = apply_edit_params(change, self.capabilities)
        except ValueError as exc:
            return ApplyOutcome(False, str(exc))
        try:
            answer = asyncio.wrap_future(self.server.workspace_apply_edit(params))
        except Exception as exc:  # the transport is gone, say: the edit did not go out
            log.warning("workspace/applyEdit could not be sent: %s", exc)
            return ApplyOutcome(False, f"the request could not be sent: {exc}")
        answer.add_done_callback(_consume)
        done, _ = await asyncio.wait({answer}, timeout=self.apply_timeout)
        if not done:
            log.warning("workspace/applyEdit not answered within %s s", self.apply_timeout)
            return ApplyOutcome(False, f"no answer within {self.apply_timeout:g} s")
        return _outcome(answer)


def _consume(answer: asyncio.Future[Any]) -> None:
    """Retrieve a late answer's exception so asyncio never logs it as unretrieved."""
    if not answer.cancelled():
        answer.exception()


def _outcome(answer: asyncio.Future[Any]) -> ApplyOutcome:
    """The editor's answer as an ``ApplyOutcome``; an error answer is a refusal."""
    if answer.cancelled():
        return ApplyOutcome(False, "the request was cancelled")
    error = answer.exception()
    if error is not None:
        return ApplyOutcome(False, f"the editor answered with an error: {error}")
    result = answer.result()
    applied = _field(result, "applied")
    reason = _field(result, "failure_reason") or _field(result, "failureReason")
    return ApplyOutcome(bool(applied), str(reason) if reason else None)


def _field(result: Any, name: str) -> Any:
    """A field of a structured result or of a plain dict."""
    if isinstance(result, dict):
        return result.get(name)
    return getattr(result, name, None)
