"""framing.py answers ``initialize`` by hand, before pygls is imported: pin that answer to pygls's.

If a feature registered on the server (or a pygls upgrade) changes the capabilities pygls would
compute, the hand-written answer in :func:`pi_lsp.protocol.framing.initialize_result` is stale and this
fails, naming the difference.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types as T

from pi_lsp import __version__
from pi_lsp.protocol.framing import initialize_result
from pi_lsp.protocol.registry import create_server

CLIENT_CAPABILITIES = [
    {},
    {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-32"]}},
    {"general": {"positionEncodings": ["utf-7", "utf-16"]}},
    {"general": {"positionEncodings": []}, "window": {"workDoneProgress": True}},
]


def _pygls_answer(params: dict[str, Any]) -> Any:
    """What the real server's pygls protocol answers to ``initialize`` with ``params``."""
    server = create_server()
    converter = server.protocol._converter
    gen = server.protocol.lsp_initialize(converter.structure(params, T.InitializeParams))
    try:
        step = next(gen)
        while True:  # run the user handlers pygls yields (our on_initialize)
            handler, args, _kwargs = step
            step = gen.send(handler(*args))
    except StopIteration as stop:
        result = stop.value
    return json.loads(json.dumps(converter.unstructure(result)))


@pytest.mark.parametrize("capabilities", CLIENT_CAPABILITIES)
def test_early_initialize_answer_is_what_pygls_answers(capabilities: dict[str, Any]) -> None:
    params = {"processId": None, "rootUri": None, "capabilities": capabilities}
    assert initialize_result(params, __version__) == _pygls_answer(params)


def test_the_pin_sees_a_difference() -> None:
    params: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}
    answer = _pygls_answer(params)
    assert answer["capabilities"]["positionEncoding"] == "utf-16"
    assert answer != initialize_result(params, "0.0.0-other")
