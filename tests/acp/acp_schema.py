"""Strict checks of every ACP message: the SDK's models plus JSON Schemas derived from them.

The SDK's pydantic models are lax (``"1"`` passes for an integer, a float for an int, unknown
enum spellings are sometimes salvaged); the JSON Schema pydantic derives from the same models is
applied with ``jsonschema`` to the raw JSON, which catches those.
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema
from acp import schema as S
from pydantic import BaseModel, TypeAdapter

# method → (params model, result model or None for a notification)
METHODS: dict[str, tuple[Any, Any]] = {
    "initialize": (S.InitializeRequest, S.InitializeResponse),
    "authenticate": (S.AuthenticateRequest, S.AuthenticateResponse),
    "session/new": (S.NewSessionRequest, S.NewSessionResponse),
    "session/load": (S.LoadSessionRequest, S.LoadSessionResponse),
    "session/list": (S.ListSessionsRequest, S.ListSessionsResponse),
    "session/resume": (S.ResumeSessionRequest, S.ResumeSessionResponse),
    "session/close": (S.CloseSessionRequest, S.CloseSessionResponse),
    "session/fork": (S.ForkSessionRequest, S.ForkSessionResponse),
    "session/prompt": (S.PromptRequest, S.PromptResponse),
    "session/set_config_option": (
        S.SetSessionConfigOptionSelectRequest,
        S.SetSessionConfigOptionResponse,
    ),
    "session/set_mode": (S.SetSessionModeRequest, S.SetSessionModeResponse),
    "session/cancel": (S.CancelNotification, None),
    "session/update": (S.SessionNotification, None),
    "session/request_permission": (S.RequestPermissionRequest, S.RequestPermissionResponse),
    "fs/read_text_file": (S.ReadTextFileRequest, S.ReadTextFileResponse),
    "fs/write_text_file": (S.WriteTextFileRequest, S.WriteTextFileResponse),
    "terminal/create": (S.CreateTerminalRequest, S.CreateTerminalResponse),
    "terminal/output": (S.TerminalOutputRequest, S.TerminalOutputResponse),
    "terminal/wait_for_exit": (S.WaitForTerminalExitRequest, S.WaitForTerminalExitResponse),
    "terminal/kill": (S.KillTerminalRequest, S.KillTerminalResponse),
    "terminal/release": (S.ReleaseTerminalRequest, S.ReleaseTerminalResponse),
}


@functools.cache
def _validator(model: Any) -> jsonschema.protocols.Validator:
    schema = TypeAdapter(model).json_schema(by_alias=True, mode="serialization")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def check(model: Any, value: Any, where: str) -> list[str]:
    """Problems of ``value`` against ``model`` (pydantic, then its JSON Schema)."""
    problems: list[str] = []
    try:
        if isinstance(model, type) and issubclass(model, BaseModel):
            model.model_validate(value, strict=False)
        else:
            TypeAdapter(model).validate_python(value)
    except Exception as exc:
        problems.append(f"{where}: model: {exc}")
    problems += [
        f"{where}: schema: {e.message} at {list(e.absolute_path)}"
        for e in _validator(model).iter_errors(value)
    ]
    return problems


class Checker:
    """Validates a stream of JSON-RPC messages in both directions (one per connection)."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.pending: dict[tuple[str, Any], str] = {}
        self.count = 0

    def __call__(self, direction: str, message: dict[str, Any]) -> None:
        self.count += 1
        if message.get("jsonrpc") != "2.0":
            self.problems.append(f"{direction}: not JSON-RPC 2.0: {message}")
        method = message.get("method")
        if method is not None:
            if "id" in message:
                self.pending[(direction, message["id"])] = method
            if method.startswith("_"):
                return
            models = METHODS.get(method)
            if models is None:
                self.problems.append(f"{direction}: unknown method {method}")
                return
            self.problems += check(models[0], message.get("params"), f"{direction} {method} params")
            return
        asked = "outgoing" if direction == "incoming" else "incoming"
        method = self.pending.pop((asked, message.get("id")), None)
        if "error" in message:
            self.problems += check(S.Error, message["error"], f"{direction} error for {method}")
            return
        if method is None or method.startswith("_"):
            return
        models = METHODS.get(method)
        if models and models[1] is not None:
            self.problems += check(models[1], message.get("result"), f"{direction} {method} result")
