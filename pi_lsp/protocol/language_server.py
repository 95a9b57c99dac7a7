r"""The daemon's pygls server and protocol: typed state for handlers, checked input, raw output.

**JSON-RPC on top of pygls**: checked input, lifecycle rules, pre-encoded results and
notifications. Every frame reaches the daemon through :meth:`PiProtocol.receive` (the
transports in :mod:`pi_lsp.protocol.transport` feed it :mod:`~pi_lsp.protocol.framing` events):
broken frames get -32700, malformed envelopes -32600 (:mod:`~pi_lsp.protocol.framing`),
requests before ``initialize`` -32002 and after ``shutdown`` -32600, unknown methods a -32601
that does not echo a megabyte of method name, and internal errors never carry a traceback.

Big results (a 22k-entry tree) and the stream of agent events are encoded once with msgspec and
written as they are, instead of pygls's ``json.dumps`` of nested objects. Late answers to
server-to-client requests that were already given up on (cancelled or timed out) are dropped
instead of raising inside pygls (a known pygls 2.1 problem, see ``../shared/guides``).

**The daemon's server**: pygls's LanguageServer holding the daemon state every handler needs.
Handlers receive this one object (pygls passes it as ``ls``), so the protocol layer is typed end
to end: :attr:`PiLanguageServer.workspaces` owns the open sessions and folders,
:attr:`PiLanguageServer.shows_progress` says whether the editor shows ``$/progress``.

**pygls's copies of the editor's buffers** are kept equal to the editor's and watched for edits.
pygls 2.1.1 splits documents with ``str.splitlines``, which also breaks lines at ``\v``, ``\f``
(form feed, common in old C and Python sources), ``\x1c``-``\x1e``, ``\x85``, ``\u2028`` and
``\u2029``. LSP breaks lines at ``\n``, ``\r\n`` and ``\r`` only, so after such a character every
incremental ``didChange`` lands on the wrong line: the server's copy of the buffer silently
diverges from the editor's, and edits computed from it would be applied, with a matching
version, at the wrong place. :func:`use_lsp_line_breaks` makes a workspace split lines as LSP
does; the server calls it once the workspace exists (in its ``initialize`` handler).

After an editor answers ``workspace/applyEdit`` with ``applied: true``, its next ``didChange``
must show the edit's result. A client may batch the edit with the user's typing into one
notification (Neovim debounces changes), so the check is not "the text after the notification
equals the expected text" but "some state of the document, after one of its content changes,
was exactly the expected text": pygls applies content changes one by one
(``TextDocument.apply_change``), and :class:`LspTextDocument` reports each one to the
:class:`DocumentTextWatch` attached to it. An edit applied at stale positions never produces the
expected text, so its watch ends ``False`` as soon as a newer version arrives without it.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.workspace import TextDocument, Workspace

from pi_lsp import __version__
from pi_lsp.daemon.concurrency import spawn
from pi_lsp.daemon.workspaces import Workspaces
from pi_lsp.edits.diff import split_lines
from pi_lsp.protocol import framing
from pi_lsp.protocol.framing import (
    BadFrame,
    Event,
    HttpRequest,
    Message,
    Refusal,
    error_response,
    short,
)
from pi_lsp.session.jsonl import dumps

logger = logging.getLogger(__name__)
_encode = dumps  # msgspec, or escapes for lone surrogates


class RawJson:
    """A result that is already JSON (bytes)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    @classmethod
    def of(cls, value: Any) -> RawJson:
        """Encode a JSON-able value (pydantic models are dumped by alias first)."""
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json", by_alias=True)
        return cls(_encode(value))


def converter_factory() -> Any:
    """pygls's converter, with custom-method params and results kept as plain dicts."""
    converter = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: Any, cls: type) -> Any:
        return cls(**obj)

    def keep_params(obj: Any, cls: type) -> Any:
        return cls(**{"params": None, **obj})  # a request may leave params out (JSON-RPC)

    converter.register_structure_hook(JsonRPCRequestMessage, keep_params)
    converter.register_structure_hook(JsonRPCNotification, keep_params)
    converter.register_structure_hook(JsonRPCResponseMessage, keep)
    return converter


class PiProtocol(LanguageServerProtocol):
    """pygls's LSP protocol plus raw JSON writes and tolerance of late answers."""

    answered_early: Any = None
    """Id of an ``initialize`` already answered by
    :func:`~pi_lsp.protocol.framing.early_initialize` (pygls's own answer to it is dropped)."""
    initialize_seen = False
    shutdown_seen = False
    """``shutdown`` arrived (pygls's own flag is set only once its handler has finished)."""

    def receive(self, event: Event) -> None:
        """Handle one framing event: dispatch a message or answer what is wrong with it."""
        if isinstance(event, BadFrame | HttpRequest):
            what = event.reason if isinstance(event, BadFrame) else f"an HTTP request {event.line}"
            logger.warning("bad frame: %s", what)
            text = f"Parse error: {what}; skipped to the next Content-Length header"
            self._refuse(None, framing.PARSE_ERROR, text)
            return
        assert isinstance(event, Message)
        checked = framing.check(event.value)
        if checked is None:
            logger.warning("dropped a malformed response")
            return
        if isinstance(checked, Refusal):
            self.write_raw(dumps(checked.response))
            return
        if self._lifecycle_refusal(checked):
            return
        try:
            message = self.structure_message(checked)
        except Exception as exc:
            if "id" in checked and "method" in checked:
                problem = str(exc.__cause__ or exc) or type(exc).__name__
                self._refuse(checked["id"], -32602, short(f"Invalid params: {problem}", 1000))
            return
        if checked.get("method") == T.INITIALIZE:
            self.initialize_seen = True  # only once its params could be read
        self.handle_message(message)

    def _lifecycle_refusal(self, message: dict[str, Any]) -> bool:
        """Answer (or drop) what LSP's lifecycle does not allow now; True when handled."""
        method = message.get("method")
        if method is None or method == T.EXIT:
            return False
        is_request = "id" in message
        if self.shutdown_seen:
            if is_request:
                text = "Invalid Request: the server is shutting down (only exit is accepted)"
                self._refuse(message["id"], framing.INVALID_REQUEST, text)
            return True
        if method != T.INITIALIZE and not self.initialize_seen:
            if is_request:
                text = f"Server not initialized: send initialize before {short(method)}"
                self._refuse(message["id"], framing.SERVER_NOT_INITIALIZED, text)
            return True
        features = self.fm.features
        known = method in features or method in self.fm.builtin_features
        if not known and method != T.CANCEL_REQUEST:
            if is_request:
                text = f"Method not found: {short(method)}"
                self._refuse(message["id"], framing.METHOD_NOT_FOUND, text)
            if not method.startswith("$/"):  # LSP: unknown $/ notifications are ignored quietly
                logger.warning("unknown method %s", short(method))
            return True
        if method == T.SHUTDOWN:
            self.shutdown_seen = True
        return False

    def _refuse(self, msg_id: Any, code: int, text: str) -> None:
        self.write_raw(dumps(error_response(msg_id, code, text)))

    def _handle_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.cancelled():
            self._request_futures.pop(msg_id, None)
            logger.debug("dropped a late answer to request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)

    def _send_data(self, data: Any) -> None:
        if self.answered_early is not None and getattr(data, "id", None) == self.answered_early:
            self.answered_early = None
            return
        error = getattr(data, "error", None)
        if error is not None and getattr(error, "data", None) is not None:
            error.data = None  # pygls puts a traceback there: it stays in the log
            error.message = short(str(error.message), 1000)
        result = getattr(data, "result", None)
        if isinstance(result, RawJson) and getattr(data, "error", None) is None:
            head = b'{"jsonrpc":"2.0","id":' + json.dumps(data.id).encode() + b',"result":'
            self.write_raw(head + result.data + b"}")
            return
        super()._send_data(data)

    def notify_raw(self, method: str, params: bytes) -> None:
        """Send a notification whose params are already JSON."""
        head = b'{"jsonrpc":"2.0","method":' + json.dumps(method).encode() + b',"params":'
        self.write_raw(head + params + b"}")

    def write_raw(self, body: bytes) -> None:
        """Frame and write one message body."""
        if self.writer is None:
            logger.error("no transport to send on")
            return
        header = (
            f"Content-Length: {len(body)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        ).encode("ascii")
        try:
            written = self.writer.write(header + body)
            if inspect.isawaitable(written):
                spawn(written, "writing to the editor")
        except BrokenPipeError:
            logger.warning("the editor closed the connection")


class PiLanguageServer(LanguageServer):
    """pygls's server with the daemon's state and quieter error reporting."""

    protocol: PiProtocol

    def __init__(self, build_workspaces: Callable[[PiLanguageServer], Workspaces]) -> None:
        """Build the server, then its :class:`Workspaces` (once: they may need the server)."""
        super().__init__(
            "pi-lsp",
            __version__,
            protocol_cls=PiProtocol,
            converter_factory=converter_factory,
            text_document_sync_kind=T.TextDocumentSyncKind.Incremental,
        )
        self.shows_progress = False
        """The client shows ``$/progress`` (``window.workDoneProgress``), set at initialize."""
        self.workspaces = build_workspaces(self)

    def shutdown(self) -> None:
        """pygls's shutdown (its thread pool and transport), typed for the transports."""
        super().shutdown()  # type: ignore[no-untyped-call]

    def report_server_error(self, error: Exception, source: object) -> None:
        """Log instead of popping up a message for every failed request (they are answered)."""
        logger.error("%s: %s", getattr(source, "__name__", source), error)


# ----------------------------------------------------------------- the buffers


class DocumentTextWatch:
    """One watch on one document (see the module docstring); ``verdict`` as in ``TextWatch``."""

    def __init__(self, document: TextDocument, expected: str) -> None:
        self.document = document
        self.version = document.version
        self.expected = expected
        self.seen = document.source == expected
        watches(document).append(self)

    def changed(self) -> None:
        """The document took one content change: note whether it now holds the text."""
        if not self.seen and self.document.source == self.expected:
            self.seen = True

    def verdict(self) -> bool | None:
        """True once seen; False once a newer version came without it; None before."""
        if self.seen:
            return True
        if self.document.version != self.version:
            return False
        return None

    def close(self) -> None:
        """Detach from the document."""
        attached = watches(self.document)
        if self in attached:
            attached.remove(self)


def watches(document: Any) -> list[DocumentTextWatch]:
    """The watches attached to ``document`` (created on first use)."""
    attached: list[DocumentTextWatch] | None = getattr(document, "_pi_watches", None)
    if attached is None:
        attached = []
        document._pi_watches = attached
    return attached


def notify_watches(document: Any) -> None:
    """Tell ``document``'s watches that it took a content change."""
    for watch in tuple(getattr(document, "_pi_watches", ())):
        watch.changed()


class LspTextDocument(TextDocument):
    """A pygls ``TextDocument`` whose lines are LSP lines."""

    @property
    def lines(self) -> Sequence[str]:
        r"""The lines with their line breaks, split at ``\n``, ``\r\n`` and ``\r`` only."""
        return tuple(split_lines(self.source))

    def apply_change(self, change: Any) -> None:
        """Apply one content change, then tell the edit checks watching this document."""
        super().apply_change(change)
        notify_watches(self)


def use_lsp_line_breaks(workspace: Workspace) -> None:
    """Make ``workspace`` (its open documents and every later one) split lines as LSP does."""
    for document in workspace.text_documents.values():
        if type(document) is TextDocument:
            document.__class__ = LspTextDocument
    create = workspace._create_text_document

    def create_lsp_document(*args: Any, **kwargs: Any) -> TextDocument:
        document = create(*args, **kwargs)
        if type(document) is TextDocument:
            document.__class__ = LspTextDocument
        return document

    workspace._create_text_document = create_lsp_document  # type: ignore[method-assign]
