"""Tool parameters: the pydantic base model, the JSON Schema sent to providers, validation texts.

Every tool declares its arguments as a pydantic model. The schema given to the model is generated
from it and cleaned to the plain shape pi's TypeBox schemas have (no titles, optional fields as
plain types rather than ``anyOf [T, null]``). Validation coerces like pi's AJV (``"5"`` → 5,
5 → ``"5"``) and fails with pi's message: ``Validation failed for tool "<name>":`` then one
``  - <field>: <problem>`` line per error and the received arguments as indented JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from pi_lsp.tools.errors import ToolError

P = TypeVar("P", bound="ToolParams")

# AJV's wording for the pydantic error types a model's arguments usually hit.
_AJV_MESSAGES = {
    "string_type": "must be string",
    "int_type": "must be integer",
    "int_parsing": "must be integer",
    "int_from_float": "must be integer",
    "float_type": "must be number",
    "float_parsing": "must be number",
    "bool_type": "must be boolean",
    "bool_parsing": "must be boolean",
    "model_type": "must be object",
    "model_attributes_type": "must be object",
}


class ToolParams(BaseModel):
    """Base of every tool's arguments: unknown keys ignored, numbers accepted as strings."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, frozen=True)


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a parameters model in the shape providers and pi expect."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    properties = {
        name: _clean_property(_inline(prop, defs))
        for name, prop in schema.get("properties", {}).items()
    }
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        result["required"] = list(schema["required"])
    return result


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Replace ``$ref``s to nested models by the cleaned object schema (providers get no $defs)."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = defs[ref.removeprefix("#/$defs/")]
        props = {k: _clean_property(_inline(v, defs)) for k, v in target["properties"].items()}
        out: dict[str, Any] = {"type": "object", "properties": props}
        if target.get("required"):
            out["required"] = list(target["required"])
        return out
    return {k: _inline(v, defs) for k, v in node.items()}


def _clean_property(prop: dict[str, Any]) -> dict[str, Any]:
    variants = [v for v in prop.get("anyOf", []) if v.get("type") != "null"]
    base = dict(variants[0]) if len(variants) == 1 else {}
    merged = {**base, **{k: v for k, v in prop.items() if k != "anyOf"}}
    merged.pop("title", None)
    if merged.get("default", 0) is None:
        del merged["default"]
    return merged


def validate_arguments(tool_name: str, model: type[P], args: Mapping[str, Any] | Any) -> P:
    """Parse the model's arguments, or raise ``ToolError`` with pi's validation message."""
    try:
        return model.model_validate(args)
    except ValidationError as exc:
        lines = "\n".join(_error_line(error) for error in exc.errors()) or (
            "Unknown validation error"
        )
        received = json.dumps(args, indent=2, ensure_ascii=False, default=str)
        raise ToolError(
            f'Validation failed for tool "{tool_name}":\n{lines}\n\nReceived arguments:\n{received}'
        ) from None


def _error_line(error: ErrorDetails) -> str:
    location = ".".join(str(part) for part in error["loc"])
    if error["type"] == "missing":
        return f"  - {location}: must have required property '{error['loc'][-1]}'"
    message = _AJV_MESSAGES.get(error["type"], error["msg"])
    return f"  - {location or 'root'}: {message}"
