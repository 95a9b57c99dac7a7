"""docs/protocol.md documents every pi/ method, param, event type and error code, with valid examples.

The checks are deliberately simple (headings, names in backticks, JSON that parses and
validates) so the document cannot silently fall behind ``pi_lsp/protocol``.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.daemon import errors
from pi_lsp.protocol import framing, transport
from pi_lsp.protocol.methods import METHODS, Method

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
EVENT_SCHEMA = json.loads((ROOT / "schemas" / "pi-event.schema.json").read_text(encoding="utf-8"))


def _section(heading: str) -> str:
    """The text under a Markdown heading line, up to the next heading of the same or higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", DOC, re.MULTILINE)
    assert match, f"docs/protocol.md has no heading {heading!r}"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def _json_values(text: str) -> list[list[Any]]:
    """The JSON values of every ```json block, one list per block (a block may hold several)."""
    decoder = json.JSONDecoder()
    blocks = []
    for block in re.findall(r"```json\n(.*?)```", text, re.DOTALL):
        values, index = [], 0
        while True:
            while index < len(block) and block[index].isspace():
                index += 1
            if index >= len(block):
                break
            value, index = decoder.raw_decode(block, index)
            values.append(value)
        blocks.append(values)
    return blocks


def _shortened(value: Any) -> bool:
    """True when an example was cut by hand (an object with a ``"…"`` key)."""
    if isinstance(value, dict):
        return "…" in value or any(_shortened(v) for v in value.values())
    if isinstance(value, list):
        return any(_shortened(v) for v in value)
    return False


def _event_types() -> set[str]:
    types = set()
    for definition in EVENT_SCHEMA["$defs"].values():
        kind = definition.get("properties", {}).get("type", {})
        if "const" in kind:
            types.add(kind["const"])
        types.update(kind.get("enum", []))
    return types


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_every_method_has_a_section_naming_its_params(method: Method) -> None:
    section = _section(f"`{method.name}`")
    for name, field in method.params.model_fields.items():
        assert f"`{field.alias or name}`" in section, f"{method.name}: param {name} undocumented"
    assert "Result" in section and "Errors" in section, f"{method.name}: result or errors missing"


def test_methods_are_documented_in_table_order() -> None:
    positions = [DOC.index(f"### `{m.name}`") for m in METHODS]
    assert positions == sorted(positions)


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_every_method_has_a_real_looking_example_that_validates(method: Method) -> None:
    values = [v for block in _json_values(_section(f"`{method.name}`")) for v in block]
    pairs = 0
    for request, result in itertools.pairwise(values):
        if not (isinstance(request, dict) and request.get("method") == method.name):
            continue
        assert request["jsonrpc"] == "2.0" and "id" in request
        method.params.model_validate(request.get("params") or {})
        method.result.model_validate(result)
        pairs += 1
    assert pairs, f"{method.name}: no request/response example"


def test_every_event_type_is_documented() -> None:
    section = _section("Events: `pi/event`")
    types = _event_types()
    assert len(types) >= 19  # pi's 14 agent events and the daemon's 5
    for kind in sorted(types):
        assert f"| `{kind}` |" in section, f"event type {kind} is not in the events table"


def test_every_documented_event_type_exists() -> None:
    section = _section("Events: `pi/event`")
    table = section[section.index("| `type` | fields | when |") :].split("\n\n")[0]
    rows = re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)[1:]  # after the header
    assert sorted(rows) == sorted(_event_types())


def test_event_examples_validate_against_the_schema() -> None:
    from pi_lsp.protocol.payloads import EventNotification

    examples = [
        value
        for block in _json_values(_section("Events: `pi/event`"))
        for value in block
        if isinstance(value, dict) and "seq" in value and "event" in value
    ]
    assert {e["event"]["type"] for e in examples} >= _event_types() - {"error"}
    complete = [e for e in examples if not _shortened(e)]  # `"…": "…"` marks a cut object
    assert len(complete) >= len(examples) - 3
    for example in complete:
        EventNotification.model_validate(example)


def test_server_requests_and_notifications_are_documented() -> None:
    for heading in ("Permissions: `pi/requestPermission`", "File edits: `workspace/applyEdit`"):
        assert _section(heading)
    from pi_lsp.protocol.payloads import PermissionRequestParams

    section = _section("Permissions: `pi/requestPermission`")
    for name in PermissionRequestParams.model_fields:
        assert f"`{name}`" in section
    for decision in ("allowOnce", "allowSession", "deny"):
        assert f"`{decision}`" in section


def _codes(module: Any) -> set[int]:
    return {
        value
        for name, value in vars(module).items()
        if name.isupper() and isinstance(value, int) and -32800 <= value <= -32000
    }


def test_every_error_code_is_documented() -> None:
    section = _section("Errors")
    codes = _codes(errors) | _codes(framing)
    assert codes, "no error codes found in pi_lsp.protocol.registry"
    assert {-32700, -32600, -32601, -32002, -32010} <= codes
    for code in sorted(codes | {-32602, -32603, -32800}):
        assert f"| {code} |" in section, f"error code {code} undocumented"


def test_every_json_block_parses() -> None:
    assert len(_json_values(DOC)) > 40


def test_transport_rules_are_documented_as_the_code_has_them() -> None:
    section = _section("Transport")
    assert f"**{framing.MAX_BODY // (1024 * 1024)} MiB**" in section
    assert f"at most {framing.MAX_HEADER_BLOCK // 1024} KiB" in section
    tcp_section = _section("TCP: one authenticated editor")
    assert f"**`{transport.TOKEN_ENV}`**" in tcp_section
    assert "**`initializationOptions.authToken`**" in tcp_section
    assert f"at least {transport.MIN_TOKEN} characters" in tcp_section
    limit = f"within {int(transport.FIRST_MESSAGE_TIMEOUT)} s and at most {transport.MAX_FIRST_MESSAGE >> 20} MiB"
    assert limit in tcp_section
    assert (
        str(transport.token_path(Path("<agentDir>"), 0)).replace("tcp-0", "tcp-<PORT>")
        in tcp_section
    )
    assert f"at most {framing.MAX_METHOD_ECHO} characters" in section
