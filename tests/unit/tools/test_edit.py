from __future__ import annotations

import pytest

from pi_lsp.tools import ToolError
from pi_lsp.tools.edit import apply_replacement, detect_line_ending, generate_diff_string
from tests.unit.tools.conftest import Workspace

TWENTY = "".join(f"line {i}\n" for i in range(1, 21))


async def test_exact_edit_golden(ws: Workspace) -> None:
    ws.write("f.txt", TWENTY)
    result = await ws.run("edit", {"path": "f.txt", "oldText": "line 10\n", "newText": "ten\n+\n"})
    assert result.text == "Successfully replaced 1 block(s) in f.txt."
    assert result.details == {
        "diff": "\n".join(
            [
                "    ...",
                "  6 line 6",
                "  7 line 7",
                "  8 line 8",
                "  9 line 9",
                "-10 line 10",
                "+10 ten",
                "+11 +",
                " 11 line 11",
                " 12 line 12",
                " 13 line 13",
                " 14 line 14",
                "    ...",
            ]
        ),
        "firstChangedLine": 10,
    }
    assert ws.read("f.txt").decode() == TWENTY.replace("line 10\n", "ten\n+\n")


def test_diff_between_two_changes_shows_every_line_between_them() -> None:
    # pi (v0.58.3) trims context only before the first and after the last change.
    old = "".join(f"{i}\n" for i in range(1, 31))
    new = old.replace("3\n", "three\n", 1).replace("25\n", "twenty-five\n")
    result = generate_diff_string(old, new)
    lines = result.diff.split("\n")
    assert lines[:4] == ["  1 1", "  2 2", "- 3 3", "+ 3 three"]
    assert lines[4:25] == [f" {i:>2} {i}" for i in range(4, 25)]
    assert lines[25:] == [
        "-25 25",
        "+25 twenty-five",
        " 26 26",
        " 27 27",
        " 28 28",
        " 29 29",
        "    ...",
    ]
    assert result.first_changed_line == 3


def test_diff_of_a_last_line_without_newline() -> None:
    assert generate_diff_string("a\nb", "a\nb\nc").diff == " 1 a\n-2 b\n+2 b\n+3 c"


@pytest.mark.parametrize(
    ("content", "old_text", "new_text", "message"),
    [
        pytest.param(
            "abc\n",
            "xyz",
            "q",
            "Could not find the exact text in f.txt. The old text must match exactly including all "
            "whitespace and newlines.",
            id="not-found",
        ),
        pytest.param(
            "foo\nbar\nfoo\n",
            "foo",
            "q",
            "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more "
            "context to make it unique.",
            id="ambiguous",
        ),
        pytest.param(
            "same\n",
            "same",
            "same",
            "No changes made to f.txt. The replacement produced identical content. This might "
            "indicate an issue with special characters or the text not existing as expected.",
            id="identical-result",
        ),
        pytest.param("abc", "", "x", "oldText must not be empty in f.txt.", id="empty-old-text"),
    ],
)
async def test_refusals_say_why_and_leave_the_file_alone(
    ws: Workspace, content: str, old_text: str, new_text: str, message: str
) -> None:
    ws.write("f.txt", content)
    with pytest.raises(ToolError) as error:
        await ws.run("edit", {"path": "f.txt", "oldText": old_text, "newText": new_text})
    assert str(error.value) == message
    assert ws.read("f.txt") == content.encode()


async def test_occurrences_are_counted_in_fuzzy_space(ws: Workspace) -> None:
    ws.write("f.txt", 'say “hi”\nsay "hi"\n')
    with pytest.raises(ToolError) as error:
        await ws.run("edit", {"path": "f.txt", "oldText": 'say "hi"', "newText": "x"})
    assert str(error.value).startswith("Found 2 occurrences of the text in f.txt.")


async def test_missing_file(ws: Workspace) -> None:
    with pytest.raises(ToolError) as error:
        await ws.run("edit", {"path": "none.txt", "oldText": "a", "newText": "b"})
    assert str(error.value) == "File not found: none.txt"


async def test_crlf_and_bom_are_kept(ws: Workspace) -> None:
    ws.write("w.txt", "\ufeffone\r\ntwo\r\nthree\r\n")
    result = await ws.run("edit", {"path": "w.txt", "oldText": "two\nthree", "newText": "2\n3"})
    assert ws.read("w.txt") == "\ufeffone\r\n2\r\n3\r\n".encode()
    assert result.details == {"diff": " 1 one\n-2 two\n-3 three\n+2 2\n+3 3", "firstChangedLine": 2}


async def test_mixed_line_endings_outside_the_span_are_kept(ws: Workspace) -> None:
    ws.write("m.txt", "a\r\nb\nc\rd\r\n")
    await ws.run("edit", {"path": "m.txt", "oldText": "c", "newText": "C\nC"})
    # The new text takes the file's line ending (its first one: CRLF); the rest is untouched.
    assert ws.read("m.txt") == b"a\r\nb\nC\r\nC\rd\r\n"


def test_line_ending_is_decided_by_the_first_one() -> None:
    assert detect_line_ending("a\r\nb\nc") == "\r\n"
    assert detect_line_ending("a\nb\r\n") == "\n"
    assert detect_line_ending("no newline") == "\n"


FUZZY_FILE = (
    "# notes   \n"
    "def greet():\t\n"
    "    print(“hello — world”)  \n"
    "    return 'x'\u00a0\n"
    "tail with trailing spaces   \n"
)


async def test_fuzzy_edit_changes_only_the_matched_span(ws: Workspace) -> None:
    ws.write("g.py", FUZZY_FILE)
    old = 'print("hello - world")'  # ASCII quotes and dash: only a fuzzy match finds it
    result = await ws.run("edit", {"path": "g.py", "oldText": old, "newText": "print('hi')"})
    expected = FUZZY_FILE.replace("print(“hello — world”)", "print('hi')")
    assert ws.read("g.py") == expected.encode()
    assert result.details is not None
    assert result.details["firstChangedLine"] == 3


async def test_fuzzy_match_across_trailing_whitespace_keeps_the_rest(ws: Workspace) -> None:
    ws.write("g.py", FUZZY_FILE)
    old = "def greet():\n    print(“hello — world”)"
    await ws.run("edit", {"path": "g.py", "oldText": old, "newText": "def hi():\n    pass"})
    # The tab after "greet():" is inside the matched span; the spaces after the call are not.
    assert ws.read("g.py").decode() == (
        "# notes   \ndef hi():\n    pass  \n    return 'x'\u00a0\ntail with trailing spaces   \n"
    )


async def test_fuzzy_edit_on_a_crlf_bom_file(ws: Workspace) -> None:
    original = "\ufeffA  \r\nit’s  \r\nB\u2003\r\n"
    ws.write("c.txt", original)
    await ws.run("edit", {"path": "c.txt", "oldText": "it's", "newText": "it is"})
    assert ws.read("c.txt") == "\ufeffA  \r\nit is  \r\nB\u2003\r\n".encode()


def test_nfkc_cluster_at_a_match_edge_is_rewritten_alone() -> None:
    # "ﬁ" is one character that NFKC turns into "fi"; a match starting inside it keeps "f".
    outcome = apply_replacement("xﬁle  \nkeep  \n", "ile", "ILE", path="p")
    assert outcome.text == "xfILE  \nkeep  \n"


def test_combining_characters_stay_with_their_base() -> None:
    outcome = apply_replacement("cafe\u0301 au lait\u00a0\n", "café au", "tea at", path="p")
    assert outcome.text == "tea at lait\u00a0\n"


async def test_pi16_edits_array_applies_disjoint_replacements_against_the_original(
    ws: Workspace,
) -> None:
    ws.write("m.txt", "alpha\r\nbeta\r\ngamma\r\n")
    edits = [{"oldText": "gamma", "newText": "G"}, {"oldText": "alpha", "newText": "A\nA2"}]
    result = await ws.run("edit", {"path": "m.txt", "edits": edits})
    assert result.text == "Successfully replaced 2 block(s) in m.txt."
    assert ws.read("m.txt").decode() == "A\r\nA2\r\nbeta\r\nG\r\n"


@pytest.mark.parametrize(
    "args",
    [
        {"path": "s.txt", "oldText": "one", "newText": "1"},  # v0.58.3's shape
        {"path": "s.txt", "edits": {"oldText": "one", "newText": "1"}},  # a single object
        {"path": "s.txt", "edits": '[{"oldText": "one", "newText": "1"}]'},  # JSON text
    ],
)
async def test_older_and_sloppy_edit_shapes_are_folded_like_pi(
    ws: Workspace, args: dict[str, object]
) -> None:
    ws.write("s.txt", "one two\n")
    await ws.run("edit", args)
    assert ws.read("s.txt").decode() == "1 two\n"


async def test_pi16_multi_edit_errors_name_the_edit(ws: Workspace) -> None:
    ws.write("e.txt", "aa bb aa cc\n")
    cases = [
        (
            [{"oldText": "bb", "newText": "x"}, {"oldText": "zz", "newText": "y"}],
            "Could not find edits[1] in e.txt. The oldText must match exactly including all whitespace and newlines.",
        ),
        (
            [{"oldText": "bb", "newText": "x"}, {"oldText": "aa", "newText": "y"}],
            "Found 2 occurrences of edits[1] in e.txt. Each oldText must be unique. Please provide more context to make it unique.",
        ),
        (
            [{"oldText": "bb aa", "newText": "x"}, {"oldText": "aa cc", "newText": "y"}],
            "edits[0] and edits[1] overlap in e.txt. Merge them into one edit or target disjoint regions.",
        ),
        (
            [{"oldText": "bb", "newText": "bb"}, {"oldText": "cc", "newText": "cc"}],
            "No changes made to e.txt. The replacements produced identical content.",
        ),
        ([], "Edit tool input is invalid. edits must contain at least one replacement."),
    ]
    for edits, message in cases:
        with pytest.raises(ToolError) as error:
            await ws.run("edit", {"path": "e.txt", "edits": edits})
        assert str(error.value) == message
    assert ws.read("e.txt").decode() == "aa bb aa cc\n"
