"""Content both ways: an ACP prompt as pi's user input, pi's tool calls as ACP tool calls.

- :func:`user_input`: text blocks are joined; a ``resource_link`` becomes a Markdown link the
  model can follow with its tools; an embedded text resource (a file or selection the client
  attached) is appended in a ``<context>`` block naming its URI; an image becomes an image
  block. Audio and binary resources are refused: pi's models are not given them, and dropping
  them silently would lie to the user.
- Tool calls (pure functions): ``read``/``ls`` read, ``edit``/``write`` edit (with a whole-file
  diff when the face saw the file before and after), ``bash`` executes, ``grep``/``find``
  search. Titles name the path or command so a client's tool card says what happened without
  opening it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    ContentToolCallContent,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    ImageContentBlock,
    ResourceContentBlock,
    TerminalToolCallContent,
    TextContentBlock,
    TextResourceContents,
    ToolCallLocation,
    ToolKind,
)

from pi_lsp.session.messages import ImageContent
from pi_lsp.tools.base import resolve_to_cwd


class UnsupportedContent(ValueError):
    """A prompt block pi cannot pass to its model."""


@dataclass
class UserInput:
    """The text and images of one prompt."""

    text: str
    images: list[ImageContent] = field(default_factory=list)


PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
"""A block of a ``session/prompt`` (the SDK's union)."""


def user_input(blocks: Sequence[PromptBlock]) -> UserInput:
    """Convert the prompt's blocks; raises :class:`UnsupportedContent` for audio or blobs."""
    texts: list[str] = []
    context: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ImageContentBlock):
            images.append(ImageContent(type="image", data=block.data, mimeType=block.mime_type))
        elif isinstance(block, ResourceContentBlock):
            texts.append(f"[@{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                context.append(f'<context uri="{resource.uri}">\n{resource.text}\n</context>')
            elif isinstance(resource, BlobResourceContents):
                raise UnsupportedContent(
                    f"Binary resources are not supported (got {resource.uri}); attach text"
                )
        elif isinstance(block, AudioContentBlock):
            raise UnsupportedContent("Audio prompts are not supported by pi")
    text = "\n".join(t for t in texts if t)
    if context:
        text = "\n\n".join([text, *context]) if text else "\n\n".join(context)
    return UserInput(text=text, images=images)


Content = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

KINDS: dict[str, ToolKind] = {
    "read": "read",
    "ls": "read",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
}
_TITLE_LIMIT = 120


def kind_of(name: str) -> ToolKind:
    """The ACP kind of a pi tool (``other`` for tools pi_lsp does not know)."""
    return KINDS.get(name, "other")


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _TITLE_LIMIT else line[: _TITLE_LIMIT - 1] + "…"


def title_of(name: str, args: Mapping[str, object]) -> str:
    """A one-line title: ``read src/app.py``, ``bash: make test``, ``grep TODO``."""
    if name == "bash":
        return f"bash: {_short(str(args.get('command', '')))}"
    if name in ("grep", "find"):
        return f"{name} {_short(str(args.get('pattern', '')))}".strip()
    path = args.get("path")
    return f"{name} {_short(path)}" if isinstance(path, str) and path else name


def path_of(args: Mapping[str, object], cwd: str) -> str | None:
    """The absolute path a call works on, if it names one."""
    path = args.get("path")
    return resolve_to_cwd(path, cwd) if isinstance(path, str) and path else None


def locations_of(name: str, args: Mapping[str, object], cwd: str) -> list[ToolCallLocation] | None:
    """Where the call works (``read`` with its first line), for "follow the agent"."""
    if name not in ("read", "edit", "write", "ls"):
        return None
    path = path_of(args, cwd)
    if path is None:
        return None
    offset = args.get("offset")
    line = offset if name == "read" and isinstance(offset, int) and offset > 0 else None
    return [ToolCallLocation(path=path, line=line)]


def text_of_blocks(blocks: object) -> str:
    """The text of pi content blocks (images are named, not embedded)."""
    if isinstance(blocks, str):
        return blocks
    parts: list[str] = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "image":
            parts.append(f"[image {block.get('mimeType', '')}]")
    return "\n".join(parts)


def text_content(text: str) -> ContentToolCallContent:
    """A text block as tool-call content."""
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


def result_content(
    result: Mapping[str, object] | None, diff: tuple[str, str | None, str] | None = None
) -> list[Content]:
    """A tool result as ACP content: the diff first (when known), then the result's text.

    Without the whole-file texts (a replayed ``edit``), pi's own display diff is shown as text.
    """
    content: list[Content] = []
    if diff is not None:
        path, old, new = diff
        content.append(FileEditToolCallContent(type="diff", path=path, old_text=old, new_text=new))
    text = text_of_blocks((result or {}).get("content"))
    details = (result or {}).get("details")
    if diff is None and isinstance(details, dict) and isinstance(details.get("diff"), str):
        text = f"{text}\n\n```diff\n{details['diff']}\n```" if text else details["diff"]
    if text:
        content.append(text_content(text))
    return content
