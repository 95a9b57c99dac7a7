"""A headless editor: an LSP client that keeps buffers, applies edits and answers the daemon.

It does what an editor extension does with the daemon: starts it, opens documents, applies the
agent's ``workspace/applyEdit`` edits to its buffers (then saves them, like an editor with
auto-save), answers permission prompts, and prints the ``pi/event`` stream as a chat
transcript; :func:`render_tree` draws the session tree as an outline. ``make demo`` uses it; it
is the reference for what a front end has to do.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import to_fs_path

from pi_lsp.edits.diff import Edit, apply_edits
from pi_lsp.protocol.language_server import converter_factory


class HeadlessEditor:
    """An LSP client with buffers, printing what the agent does."""

    def __init__(self) -> None:
        self.client = LanguageClient("pi-lsp-demo", "1.0", converter_factory=converter_factory)
        self.buffers: dict[str, tuple[str, int]] = {}
        self.idle = asyncio.Event()
        self.in_text = False
        self.applied = 0
        client = self.client
        # pygls sets attributes on handlers, which bound methods do not allow: wrap them
        client.feature("pi/event")(lambda params: self._on_event(params))
        client.feature(T.WORKSPACE_APPLY_EDIT)(lambda params: self._on_apply_edit(params))
        client.feature("pi/requestPermission")(lambda params: self._on_permission(params))
        client.feature(T.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
        client.feature(T.PROGRESS)(lambda params: None)
        client.feature(T.WINDOW_LOG_MESSAGE)(lambda params: None)
        client.feature(T.WINDOW_SHOW_MESSAGE)(
            lambda params: print(f"  [editor message] {params.message}")
        )

    async def start(self, project: Path, settings: dict[str, Any]) -> None:
        """Start ``pi-lsp --stdio`` and initialize it with ``project`` as the workspace folder."""
        await self.client.start_io(sys.executable, "-m", "pi_lsp", "--stdio", env=dict(os.environ))
        workspace_edit = T.WorkspaceEditClientCapabilities(
            document_changes=True, change_annotation_support=T.ChangeAnnotationsSupportOptions()
        )
        capabilities = T.ClientCapabilities(
            workspace=T.WorkspaceClientCapabilities(
                apply_edit=True, workspace_edit=workspace_edit, workspace_folders=True
            )
        )
        await self.client.initialize_async(
            T.InitializeParams(
                capabilities=capabilities,
                workspace_folders=[T.WorkspaceFolder(uri=project.as_uri(), name=project.name)],
                initialization_options={"pi": settings},
            )
        )
        self.client.initialized(T.InitializedParams())

    async def stop(self) -> None:
        """Shut the daemon down and wait for it to exit."""
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call]

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a ``pi/…`` request and return its result (a dict)."""
        return await self.client.protocol.send_request_async(method, params)

    def open(self, path: Path) -> None:
        """Open a file in the editor (didOpen), keeping its buffer."""
        uri, text = path.as_uri(), path.read_text()
        self.buffers[uri] = (text, 1)
        item = T.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=item))

    def _on_apply_edit(self, params: T.ApplyWorkspaceEditParams) -> T.ApplyWorkspaceEditResult:
        for change in params.edit.document_changes or []:
            if not isinstance(change, T.TextDocumentEdit):
                continue
            uri = change.text_document.uri
            text, version = self.buffers.get(uri, (Path(to_fs_path(uri) or "").read_text(), 0))
            edits = [
                Edit(
                    e.range.start.line,
                    e.range.start.character,
                    e.range.end.line,
                    e.range.end.character,
                    e.new_text,
                )
                for e in change.edits
                if not isinstance(e, T.SnippetTextEdit)  # the daemon never sends snippets
            ]
            text = apply_edits(text, edits)
            self.buffers[uri] = (text, version + 1)
            self.client.text_document_did_change(
                T.DidChangeTextDocumentParams(
                    text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                    content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            Path(to_fs_path(uri) or "").write_text(text)  # auto-save
            label = next(iter((params.edit.change_annotations or {}).values()), None)
            name = label.label if label else "edit"
            target = Path(uri).name
            print(f"  [editor] applied {len(edits)} change(s) from '{name}' to {target}, saved")
        self.applied += 1
        return T.ApplyWorkspaceEditResult(applied=True)

    def _on_permission(self, params: Any) -> dict[str, str]:
        asked = f"{params['kind']} `{params['detail']}`"
        print(f"  [editor] permission asked: {asked} → allow for this session")
        return {"decision": "allowSession"}

    def _on_event(self, params: Any) -> None:
        event = params["event"]
        kind = event["type"]
        if kind == "message_update":
            sub = event["assistantMessageEvent"]
            if sub.get("type") == "text_delta":
                if not self.in_text:
                    sys.stdout.write("  assistant: ")
                    self.in_text = True
                sys.stdout.write(sub["delta"])
        elif kind == "message_end" and self.in_text:
            sys.stdout.write("\n")
            self.in_text = False
        elif kind == "tool_execution_start":
            print(f"  → {event['toolName']} {_brief(event['args'])}")
        elif kind == "tool_execution_end":
            text = " ".join(b.get("text", "") for b in event["result"].get("content", []))
            print(f"  {'✗' if event['isError'] else '✓'} {_brief(text)}")
        elif kind == "auto_compaction_start":
            print(f"  ⟳ automatic compaction ({event['reason']}: context above window − reserve)")
        elif kind == "auto_compaction_end":
            outcome = event.get("errorMessage") or "summary written, recent turns kept"
            print(f"  ⟳ compaction done: {outcome}")
        elif kind == "agent_end":
            self.idle.set()
        sys.stdout.flush()

    async def prompt(self, session: str, text: str) -> str:
        """Send a prompt and wait until the agent is done; returns the user entry id."""
        self.idle.clear()
        ack = await self.request("pi/session/prompt", {"sessionId": session, "text": text})
        await asyncio.wait_for(self.idle.wait(), 60)
        state = await self.request("pi/session/state", {"sessionId": session})
        while state["isStreaming"]:  # a compaction may still run after agent_end
            await asyncio.sleep(0.05)
            state = await self.request("pi/session/state", {"sessionId": session})
        return str(ack["userEntryId"])


def _brief(value: Any, limit: int = 90) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_tree(tree: dict[str, Any]) -> str:
    """The ``pi/session/tree`` result as an indented outline (branches get guides)."""
    nodes = {n["id"]: n for n in tree["nodes"]}
    lines: list[str] = []
    stack = [(root, "", "") for root in reversed(tree["roots"])]
    while stack:
        entry_id, lead, inherit = stack.pop()
        node = nodes[entry_id]
        kind = node["role"] or node["type"]
        marks = f" [{node['label']}]" if node["label"] else ""
        marks += " <- leaf" if entry_id == tree["leafId"] else ""
        lines.append(f"{lead}{entry_id} {kind}: {node['preview']}{marks}")
        kids = node["children"]
        for index in range(len(kids) - 1, -1, -1):
            if len(kids) == 1:
                stack.append((kids[index], inherit, inherit))
            else:
                last = index == len(kids) - 1
                stack.append(
                    (
                        kids[index],
                        inherit + ("└ " if last else "├ "),
                        inherit + ("  " if last else "│ "),
                    )
                )
    return "".join(line + "\n" for line in lines)
