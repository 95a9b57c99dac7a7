"""JSON-RPC envelope checks (pi_lsp/protocol/framing.py), with the specification's examples."""

from __future__ import annotations

from typing import Any

import pytest

from pi_lsp.protocol.framing import INVALID_REQUEST, Refusal, check


def _refused(value: Any) -> tuple[Any, int]:
    result = check(value)
    assert isinstance(result, Refusal), result
    return result.response["id"], result.response["error"]["code"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            {"jsonrpc": "2.0", "method": 1, "params": "bar"},
            (None, INVALID_REQUEST),
        ),  # JSON-RPC 2.0 §7
        ([], (None, INVALID_REQUEST)),
        ([1], (None, INVALID_REQUEST)),
        ([1, 2, 3], (None, INVALID_REQUEST)),
        (42, (None, INVALID_REQUEST)),
        (None, (None, INVALID_REQUEST)),
        ({"jsonrpc": "1.0", "id": 3, "method": "x", "params": {}}, (3, INVALID_REQUEST)),
        ({"jsonrpc": "2.0", "id": True, "method": "x"}, (None, INVALID_REQUEST)),
        ({"jsonrpc": "2.0", "id": None, "method": "x"}, (None, INVALID_REQUEST)),
        ({"jsonrpc": "2.0", "id": 7}, (7, INVALID_REQUEST)),
        ({"jsonrpc": "2.0", "id": "a", "method": ["x"]}, ("a", INVALID_REQUEST)),
    ],
)
def test_what_is_not_a_request_is_refused_with_the_id_when_it_can_be_told(
    value: Any, expected: tuple[Any, int]
) -> None:
    assert _refused(value) == expected


def test_a_clean_message_keeps_only_the_jsonrpc_keys() -> None:
    value = {"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": 1}, "extra": 2}
    assert check(value) == {"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": 1}}


def test_params_may_be_absent_and_an_empty_array_is_an_empty_object() -> None:
    assert check({"jsonrpc": "2.0", "id": 1, "method": "m"}) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "m",
    }
    assert check({"jsonrpc": "2.0", "method": "n", "params": []}) == {
        "jsonrpc": "2.0",
        "method": "n",
        "params": {},
    }
    assert check({"jsonrpc": "2.0", "method": "n", "params": [1]})["params"] == [1]  # type: ignore[index]


def test_responses_pass_and_malformed_responses_are_never_answered() -> None:
    assert check({"jsonrpc": "2.0", "id": "x", "result": None, "more": 1}) == {
        "jsonrpc": "2.0",
        "id": "x",
        "result": None,
    }
    error = {"code": 1, "message": "no"}
    assert check({"jsonrpc": "2.0", "id": 4, "error": error}) == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": error,
    }
    assert check({"jsonrpc": "1.0", "id": 4, "result": 1}) is None
    assert check({"jsonrpc": "2.0", "id": [4], "result": 1}) is None
