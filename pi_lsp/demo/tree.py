"""The ``pi/session/tree`` result as an indented outline (branches get guides)."""

from __future__ import annotations

from typing import Any


def render_tree(tree: dict[str, Any]) -> str:
    """The ``pi/session/tree`` result as an indented outline (branches get guides)."""
    nodes = {n["id"]: n for n in tree["nodes"]}
    lines: list[str] = []
    stack = [(root, "", "") for root in reversed(tree["roots"])]
    while stack:
        entry_id, lead, inherit = stack.pop()
        node = nodes[entry_id]
        kind = node["role"] or node["type"]
        marks = f" [{node['label']}]" if node["label"] else ""
        marks += " <- leaf" if entry_id == tree["leafId"] else ""
        lines.append(f"{lead}{entry_id} {kind}: {node['preview']}{marks}")
        kids = node["children"]
        for index in range(len(kids) - 1, -1, -1):
            if len(kids) == 1:
                stack.append((kids[index], inherit, inherit))
            else:
                last = index == len(kids) - 1
                stack.append(
                    (
                        kids[index],
                        inherit + ("└ " if last else "├ "),
                        inherit + ("  " if last else "│ "),
                    )
                )
    return "".join(line + "\n" for line in lines)
