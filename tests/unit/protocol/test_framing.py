"""The frame parser (pi_lsp/protocol/framing.py): examples from the issue, and properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.protocol.framing import MAX_HEADER_BLOCK, BadFrame, FrameParser, HttpRequest, Message
from tests.unit.protocol.strategies import examples, frame, resync_padding

PROBE = {"jsonrpc": "2.0", "id": "probe", "method": "pi/sessions/list", "params": {}}
GOOD = frame(json.dumps(PROBE).encode())


@pytest.mark.parametrize("header", [b"abc", b"1e12", b"-1", b"8000000000", b"", b"1 2", b"+5"])
def test_a_bad_length_is_reported_once_and_the_next_frame_is_read(header: bytes) -> None:
    events = FrameParser().feed(b"Content-Length: " + header + b"\r\n\r\n{}" + GOOD)
    assert [type(e) for e in events] == [BadFrame, Message]
    assert events[1] == Message(PROBE)


def test_a_wrong_length_loses_only_its_own_frame() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x"}).encode()
    short = frame(body, len(body) - 4) + GOOD
    assert FrameParser().feed(short) == [FrameParser().feed(frame(body[:-4]))[0], Message(PROBE)]
    long = frame(body, len(body) + 9) + GOOD + GOOD  # swallows the next frame's head
    events = FrameParser().feed(long)
    assert isinstance(events[0], BadFrame) and events[1:] == [Message(PROBE), Message(PROBE)]


def test_an_empty_body_does_not_eat_the_next_frame() -> None:
    """Found by the chunking property: an empty body's resync skipped the next frame's "C"."""
    events = FrameParser().feed(frame(b"") + GOOD)
    assert isinstance(events[0], BadFrame) and events[1:] == [Message(PROBE)]


def test_an_http_request_never_frames_its_body() -> None:
    body = json.dumps(PROBE).encode()
    request = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    events = FrameParser().feed(request + GOOD)
    assert events == [HttpRequest("'POST / HTTP/1.1'"), Message(PROBE)]


def test_buffering_is_bounded_without_newlines_or_frames() -> None:
    parser = FrameParser()
    events = []
    for _ in range(200):
        events += parser.feed(b"x" * 10_000)
        assert parser.buffered <= MAX_HEADER_BLOCK + 10_000
    assert len(events) == 1  # one report for the whole stretch


def test_a_frame_above_the_limit_is_refused_before_its_body_arrives() -> None:
    parser = FrameParser(max_body=100)
    assert isinstance(parser.feed(b"Content-Length: 101\r\n\r\n")[0], BadFrame)


@settings(max_examples=300, deadline=None)
@given(examples, st.data())
def test_chunking_never_changes_the_events(chunks: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(chunks)
    whole = FrameParser().feed(stream)
    cut = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    parser = FrameParser()
    pieces: list[object] = []
    for start, end in zip([0, *cut], [*cut, len(stream)], strict=True):
        pieces += parser.feed(stream[start:end])
    assert pieces == whole


@settings(max_examples=300, deadline=None)
@given(examples)
def test_after_any_input_padding_and_a_good_frame_are_read(chunks: list[bytes]) -> None:
    parser = FrameParser()
    parser.feed(b"".join(chunks))
    events = parser.feed(resync_padding() + GOOD)
    assert events and events[-1] == Message(PROBE)
    assert parser.buffered == 0
