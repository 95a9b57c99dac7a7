"""What the run-time types cost where they run often (issue 14, item 1).

Run: ``.venv/bin/python bench/bench_types.py`` (or ``make bench``; compare two trees by running
it in each ``git archive`` copy with ``PYTHONPATH=COPY``). CPU time, so other work on the machine
matters less:

1. Validating what is written: one user plus one assistant message through
   ``session.validate.validate_message`` (every append does this), best of 5 × 20,000.
2. One streamed text chunk: ``AssistantBuilder.feed`` plus the loop's ``message_update`` event,
   median of 15 × 2,000 chunks after a warm-up.
"""

from __future__ import annotations

import statistics
import sys
import time
import timeit
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import report
from pi_lsp.agent.assistant_builder import AssistantBuilder
from pi_lsp.agent.models import ModelRef, resolve_model
from pi_lsp.devtools.builders import assistant, usage, user
from pi_lsp.session.appends import validate_message

_DELTA = SimpleNamespace(content="word ", reasoning_content=None, tool_calls=None)
CHUNK = SimpleNamespace(choices=[SimpleNamespace(finish_reason=None, delta=_DELTA)], usage=None)
"""A litellm ``ModelResponseStream`` chunk carrying five characters of text."""


def validation_us(count: int = 20_000) -> float:
    """Microseconds to validate a user and an assistant message."""
    first = user("next step please")
    reply = assistant("Done: edited src/app.py and ran the tests.", usage_of=usage(100, 20))
    best = min(
        timeit.repeat(
            lambda: (validate_message(first), validate_message(reply)),
            number=count,
            repeat=5,
            timer=time.process_time,
        )
    )
    return best / count * 1e6


def chunk_us(chunks: int = 2_000) -> float:
    """Microseconds of CPU per streamed text chunk (builder events plus the loop's event)."""
    model = resolve_model(ModelRef.parse("openai/fake-model"))

    def one() -> float:
        builder = AssistantBuilder(model)
        builder.start()
        start = time.process_time()
        for _ in range(chunks):
            for sub in builder.feed(CHUNK):
                _ = {
                    "type": "message_update",
                    "message": builder.message,
                    "assistantMessageEvent": sub,
                }
        builder.finish()
        return (time.process_time() - start) / chunks * 1e6

    for _ in range(3):
        one()
    return statistics.median(one() for _ in range(15))


def main() -> None:
    validation, chunk = validation_us(), chunk_us()
    print(f"validate user + assistant message: {validation:.2f} µs")
    print(f"one streamed text chunk (builder + message_update): {chunk:.2f} µs")
    report("validate user + assistant message", validation, "µs")
    report("one streamed text chunk", chunk, "µs")


if __name__ == "__main__":
    main()
