"""An ACP prompt (content blocks) as pi's user message: one text plus images.

Text blocks are joined; a ``resource_link`` becomes a Markdown link the model can follow with its
tools; an embedded text resource (a file or selection the client attached) is appended in a
``<context>`` block naming its URI; an image becomes an image block. Audio and binary resources
are refused: pi's models are not given them, and dropping them silently would lie to the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from pi_lsp.session.messages import ImageContent


class UnsupportedContent(ValueError):
    """A prompt block pi cannot pass to its model."""


@dataclass
class UserInput:
    """The text and images of one prompt."""

    text: str
    images: list[ImageContent] = field(default_factory=list)


def user_input(blocks: Sequence[Any]) -> UserInput:
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
