"""Token accounting and when to compact: pi's chars/4 estimate, tiktoken, the usage anchor, a cache.

Both estimators measure the same text pi 1.6.0 measures: user, tool-result and custom text plus
a fixed cost per image, assistant text, thinking and tool calls (``name +
JSON.stringify(arguments)``), bash command and output, summary text, and a system message's
content, sections and ``JSON.stringify(toolsAdded)``. ``chars4`` is pi's ``estimateTokens``
exactly (UTF-16 code units); the tiktoken estimator counts real tokens of that text (D4), with
the BPE files litellm ships (tiktoken would download them; litellm itself is never imported
here: that costs seconds). A context total is anchored on the last usable provider ``usage``,
as pi anchors it. :class:`TokenCounter` caches what each entry contributes before edits under
its id (entries never change), so re-estimating after an append costs one entry's count.

pi's ``shouldCompact`` and ``getContextUsage`` read the store but never write it: right after a
compaction the last provider usage still measures the old, longer context, so the usage is
unknown until an assistant message after the compaction reports a non-zero one.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import is_
from typing import Any, Literal, Protocol

from pi_lsp.compaction.models import CompactionSettings, ContextEstimate, ContextUsage
from pi_lsp.javascript import js_stringify
from pi_lsp.session import SessionStore
from pi_lsp.session.context import SessionContext
from pi_lsp.session.entries import message_as
from pi_lsp.session.jsonl import JsonObject, Record, js_len
from pi_lsp.session.messages import AssistantMessage
from pi_lsp.session.projection import Projected
from pi_lsp.session.runs import ProjectedRun, window_run

O200K_MODELS = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "o1", "o3", "o4")
"""Model-id prefixes whose tokenizer is o200k_base; every other model is counted with cl100k_base
(close enough for Claude, Gemini and the rest, which publish no offline tokenizer)."""


def encoding_name_for_model(model_id: str | None) -> str:
    """The tiktoken encoding that fits a model id (``provider/`` prefixes are ignored)."""
    name = (model_id or "").rsplit("/", 1)[-1].lower()
    if name.startswith(O200K_MODELS):
        return "o200k_base"
    return "cl100k_base"


def bundled_bpe_dir() -> str | None:
    """litellm's folder of tiktoken BPE files, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return None
    folder = os.path.join(os.path.dirname(spec.origin), "litellm_core_utils", "tokenizers")
    return folder if os.path.isdir(folder) else None


@functools.cache
def get_encoding(name: str) -> Any:
    """The tiktoken ``Encoding`` called ``name``, loaded once per process, offline.

    Raises:
        Exception: whatever tiktoken raises when the BPE file is neither bundled nor reachable.
    """
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        folder = bundled_bpe_dir()
        if folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = folder
    import tiktoken  # deferred: only the tiktoken estimator needs it

    return tiktoken.get_encoding(name)


IMAGE_CHARS = 4800
"""pi's size of one image in any message (1200 tokens at chars/4); v0.58.3 ignored user images."""
IMAGE_TOKENS = IMAGE_CHARS // 4

EstimatorKind = Literal["tiktoken", "chars4"]
logger = logging.getLogger(__name__)


class Estimator(Protocol):
    """Tokens of one agent message."""

    @property
    def name(self) -> str:
        """``chars4`` or ``tiktoken:<encoding>``."""
        ...

    def __call__(self, message: Mapping[str, Any]) -> int:
        """Estimated tokens of ``message``."""
        ...


def string_or_empty(value: Any) -> str:
    """``value`` when it is a string, else ``""`` (a field of an unvalidated message)."""
    return value if isinstance(value, str) else ""


def text_blocks(content: Any, texts: list[str]) -> int:
    """Append the non-empty text blocks of ``content``; return its number of images."""
    if isinstance(content, str):
        texts.append(content)
        return 0
    images = 0
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            texts.append(string_or_empty(block["text"]))
        elif kind == "image":
            images += 1
    return images


def countable(message: Mapping[str, Any]) -> tuple[list[str], int]:
    """The texts pi measures in a message, and how many images it charges for."""
    texts: list[str] = []
    role = message.get("role")
    if role == "user":
        return texts, text_blocks(message.get("content"), texts)
    if role == "system":
        images = text_blocks(message.get("content"), texts)
        sections = message.get("sections")
        if isinstance(sections, dict):
            texts.extend(text for text in sections.values() if isinstance(text, str) and text)
        tools = message.get("toolsAdded")
        if tools:
            texts.append(js_stringify(tools))
        return texts, images
    if role == "assistant":  # one pass: the estimators sum over the texts, in any order
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(string_or_empty(block.get("text")))
            elif kind == "thinking":
                texts.append(string_or_empty(block.get("thinking")))
            elif kind == "toolCall":
                name = string_or_empty(block.get("name"))
                texts.append(name + js_stringify(block.get("arguments")))
        return texts, 0
    if role in ("custom", "toolResult"):
        return texts, text_blocks(message.get("content"), texts)
    if role == "bashExecution":
        return [string_or_empty(message.get("command")), string_or_empty(message.get("output"))], 0
    if role in ("branchSummary", "compactionSummary"):
        return [string_or_empty(message.get("summary"))], 0
    return texts, 0


class Chars4Estimator:
    """pi's ``estimateTokens``: ceil(UTF-16 length / 4), +4800 characters per charged image."""

    name = "chars4"

    def __call__(self, message: Mapping[str, Any]) -> int:
        """Estimated tokens of ``message``."""
        texts, images = countable(message)
        return -(-(sum(map(js_len, texts)) + IMAGE_CHARS * images) // 4)


class TiktokenEstimator:
    """Real tokens of the measured text with a tiktoken encoding (+1200 per charged image)."""

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        self.name = f"tiktoken:{encoding_name}"
        self._encode: Callable[[str], list[int]] = get_encoding(encoding_name).encode_ordinary

    def __call__(self, message: Mapping[str, Any]) -> int:
        """Tokens of ``message``."""
        texts, images = countable(message)
        encode = self._encode
        return sum(len(encode(text)) for text in texts if text) + IMAGE_TOKENS * images


CHARS4 = Chars4Estimator()


def estimator_for(kind: EstimatorKind = "tiktoken", model_id: str | None = None) -> Estimator:
    """The estimator of ``kind`` for a model; tiktoken falls back to chars4 if it cannot load."""
    if kind == "chars4":
        return CHARS4
    try:
        return TiktokenEstimator(encoding_name_for_model(model_id))
    except Exception as exc:  # a missing BPE file must not stop the agent
        logger.warning("tiktoken unavailable (%s); estimating tokens as chars/4", exc)
        return CHARS4


def calculate_context_tokens(usage: JsonObject) -> int:
    """Context size from a provider usage: ``totalTokens``, else the sum of its parts."""
    total = usage.get("totalTokens")
    if total:
        return int(total)
    parts = (usage.get(key) for key in ("input", "output", "cacheRead", "cacheWrite"))
    return int(sum(p for p in parts if isinstance(p, int | float)))


def assistant_usage(message: Mapping[str, Any]) -> JsonObject | None:
    """The usage of a completed assistant message (not aborted or an error), or None.

    All-zero usage counts as none, as in pi.
    """
    if message.get("role") != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict) or not usage or calculate_context_tokens(usage) <= 0:
        return None
    return usage


def estimate_context_tokens(
    messages: Sequence[Mapping[str, Any]], count: Callable[[int], int] | None = None
) -> ContextEstimate:
    """pi's ``estimateContextTokens``: last usable usage plus estimates of what follows it.

    ``count(i)`` gives the tokens of ``messages[i]`` (default: chars4), so callers can cache.
    """
    counter = count if count is not None else (lambda i: CHARS4(messages[i]))
    for index in range(len(messages) - 1, -1, -1):
        usage = assistant_usage(messages[index])
        if usage is not None:
            used = calculate_context_tokens(usage)
            trailing = sum(counter(i) for i in range(index + 1, len(messages)))
            return ContextEstimate(
                tokens=used + trailing,
                usage_tokens=used,
                trailing_tokens=trailing,
                last_usage_index=index,
            )
    estimated = sum(counter(i) for i in range(len(messages)))
    return ContextEstimate(
        tokens=estimated, usage_tokens=0, trailing_tokens=estimated, last_usage_index=None
    )


def _key(entry_id: str, message: Mapping[str, Any]) -> str:
    # A compaction contributes its system message and its summary under one id.
    return entry_id + "\0s" if message.get("role") == "system" else entry_id


class TokenCounter:
    """Token counts of a session's entries with one estimator, cached by entry id."""

    def __init__(self, estimator: Estimator = CHARS4) -> None:
        self.estimator = estimator
        self._counts: dict[str, int] = {}
        self._entries: dict[str, int] = {}
        """Totals of unedited projected entries (what a cut-point walk asks, entry by entry)."""
        self._window: tuple[list[Record], ProjectedRun] | None = None
        """The last window projected for a preparation, and its run (records never change)."""

    @property
    def cached(self) -> int:
        """Number of messages counted so far."""
        return len(self._counts)

    def count(self, entry_id: str, message: Mapping[str, Any]) -> int:
        """Tokens of a message that entry ``entry_id`` contributes before edits."""
        key = _key(entry_id, message)
        cached = self._counts.get(key)
        if cached is None:
            cached = self._counts[key] = self.estimator(message)
        return cached

    def count_projected(self, entry: Projected) -> int:
        """Tokens of a projected entry's messages (edited ones are counted, not cached)."""
        if entry.edited:
            return sum(self.estimator(m) for m in entry.messages)
        entry_id = entry.record.id
        total = self._entries.get(entry_id)
        if total is None:
            total = self._entries[entry_id] = sum(self.count(entry_id, m) for m in entry.messages)
        return total

    def run_of(self, window: Sequence[Record], at: int) -> ProjectedRun:
        """:func:`~pi_lsp.session.runs.window_run`, kept for the next call on the same records."""
        last = self._window
        if last is not None and len(last[0]) == len(window) and all(map(is_, last[0], window)):
            return last[1]
        run = window_run(window, at)
        self._window = (list(window), run)
        return run

    def counts_of(self, run: ProjectedRun) -> Callable[[int], int]:
        """:meth:`count_run` for one run as a function of the entry index (cache read first)."""
        slow = partial(self.count_run, run)
        if run.edited:
            return slow
        entries, records = self._entries, run.records

        def count(index: int) -> int:
            total = entries.get(records[index].id)
            return total if total is not None else slow(index)

        return count

    def count_run(self, run: ProjectedRun, index: int) -> int:
        """:meth:`count_projected` of entry ``index`` of a projected run."""
        edited = index in run.edited
        if not edited:
            entry_id = run.records[index].id
            total = self._entries.get(entry_id)
            if total is not None:
                return total
        low, high = run.ends[index], run.ends[index + 1]
        if edited:
            return sum(self.estimator(m) for m in run.messages[low:high])
        if high - low == 1:  # nearly every entry: no slice, no generator
            total = self.count(entry_id, run.messages[low])
        else:
            total = sum(self.count(entry_id, m) for m in run.messages[low:high])
        self._entries[entry_id] = total
        return total

    def estimate(self, context: SessionContext) -> ContextEstimate:
        """pi's ``estimateContextTokens`` over a context, with cached per-entry counts."""
        messages, ids, edited = context.messages, context.entry_ids, context.edited_ids

        def count(i: int) -> int:
            if ids[i] in edited:
                return self.estimator(messages[i])
            return self.count(ids[i], messages[i])

        return estimate_context_tokens(messages, count)


def last_assistant_usage(path: Sequence[Record]) -> JsonObject | None:
    """pi's ``getLastAssistantUsage``: usage of the last completed assistant on the path."""
    for index in range(len(path) - 1, -1, -1):
        message = message_as(path[index], AssistantMessage)
        if message is not None:
            usage = assistant_usage(message)
            if usage is not None:
                return usage
    return None


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """True when automatic compaction is on and the context exceeds ``window - reserve``."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


def usage_known(store: SessionStore, leaf_id: str | None = None) -> bool:
    """False while no assistant after the latest compaction on the path reported usage.

    One walk up from the leaf: a compaction before any finished assistant, or above the latest
    one when that reported no usage, makes it unknown.
    """
    start = leaf_id if leaf_id is not None else store.leaf_id
    current = store.get(start) if start is not None else None
    unreported = False
    while current is not None:
        if current.type == "compaction":
            return False
        message = None if unreported else message_as(current, AssistantMessage)
        if message is not None and message.get("stopReason") not in ("aborted", "error"):
            usage = assistant_usage(message)
            if usage is not None and calculate_context_tokens(usage) > 0:
                return True
            unreported = True
        current = store.get(current.parent_id) if current.parent_id is not None else None
    return True


def context_usage(
    store: SessionStore,
    counter: TokenCounter,
    context_window: int,
    leaf_id: str | None = None,
) -> ContextUsage | None:
    """Estimated context tokens and percent of the window; None without a known window."""
    if context_window <= 0:
        return None
    if not usage_known(store, leaf_id):
        return ContextUsage(tokens=None, context_window=context_window, percent=None)
    estimate = counter.estimate(store.context(leaf_id))
    return ContextUsage(
        tokens=estimate.tokens,
        context_window=context_window,
        percent=estimate.tokens / context_window * 100,
    )
