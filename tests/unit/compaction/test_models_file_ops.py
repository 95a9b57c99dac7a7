"""File-operation tracking, JavaScript sort order and the appended file blocks."""

from __future__ import annotations

from pi_lsp.compaction import FileOps, format_file_operations
from pi_lsp.devtools.builders import assistant, call, tool_result, user


def test_only_read_write_edit_with_a_string_path_count() -> None:
    ops = FileOps()
    ops.add_messages(
        [
            user("read src/a.ts please"),
            assistant(
                "",
                calls=[
                    call("read", path="src/a.ts"),
                    call("write", path="out.txt", content="x"),
                    call("edit", path="src/b.ts", oldText="a", newText="b"),
                    call("bash", command="cat c.ts"),
                    call("grep", pattern="x", path="src"),
                    call("ls", path="."),
                    call("read", path=""),
                    call("read", path=42),
                    call("read", file="wrong-name.ts"),
                ],
            ),
            tool_result("contents"),
        ]
    )
    assert ops.to_out().model_dump() == {
        "read": ["src/a.ts"],
        "written": ["out.txt"],
        "edited": ["src/b.ts"],
    }


def test_paths_are_kept_exactly_as_written() -> None:
    ops = FileOps()
    ops.add_message(assistant("", calls=[call("read", path="./a.ts"), call("read", path="a.ts")]))
    assert list(ops.read) == ["./a.ts", "a.ts"]


def test_lists_modified_wins_over_read_and_sort_in_utf16_order() -> None:
    ops = FileOps()
    astral, bmp = "\U0001f600.md", "\uff5e.md"  # code points: astral > bmp; UTF-16: astral < bmp
    for path in (bmp, astral, "b.ts", "a.ts", "shared.ts"):
        ops.read[path] = None
    ops.written["shared.ts"] = None
    ops.edited["z.ts"] = None
    lists = ops.lists()
    assert lists.read_files == ["a.ts", "b.ts", astral, bmp]
    assert sorted([bmp, astral]) == [bmp, astral]  # Python's own order would differ
    assert lists.modified_files == ["shared.ts", "z.ts"]


def test_details_of_an_earlier_summary_fold_in_as_read_and_edited() -> None:
    ops = FileOps()
    ops.add_details({"readFiles": ["r.ts"], "modifiedFiles": ["m.ts"]})
    ops.add_details(None)
    ops.add_details({"readFiles": "not a list"})
    assert ops.to_out().model_dump() == {"read": ["r.ts"], "written": [], "edited": ["m.ts"]}


def test_format_file_operations() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a"], []) == "\n\n<read-files>\na\n</read-files>"
    assert format_file_operations(["a", "b"], ["c"]) == (
        "\n\n<read-files>\na\nb\n</read-files>\n\n<modified-files>\nc\n</modified-files>"
    )
