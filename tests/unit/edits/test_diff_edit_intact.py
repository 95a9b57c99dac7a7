"""edit_intact: an edit applied to changed text is intact only where the change was elsewhere."""

from __future__ import annotations

from pi_lsp.edits.diff import edit_intact

BASE = 'v1 = "token1"\nv2 = "token2"\nv3 = "token3"\n'
EXPECTED = BASE.replace('token2"', 'done2"')


def test_the_exact_result_is_intact() -> None:
    assert edit_intact(BASE, EXPECTED, EXPECTED)


def test_typing_on_other_lines_leaves_the_edit_intact() -> None:
    final = "x" + EXPECTED.replace("v3", "xxv3")
    assert edit_intact(BASE, EXPECTED, final)


def test_an_edit_shifted_by_typing_on_its_line_is_not_intact() -> None:
    # the user typed "xx" at the start of line 2; the stale edit then replaced the old columns
    typed = BASE.replace("v2", "xxv2")
    line = typed.splitlines()[1]
    start = line.index("token2") - 2
    garbled = line[:start] + "done2" + line[start + len('token2"') - 1 :]
    final = typed.replace(line, garbled)
    assert final != typed.replace('token2"', 'done2"')
    assert not edit_intact(BASE, EXPECTED, final)


def test_lines_added_above_shift_a_stale_edit_onto_the_wrong_line() -> None:
    typed = "#typed\n" + BASE
    lines = typed.split("\n")
    lines[2] = lines[2][:5] + "X" + lines[2][6:]  # what a stale edit did to the wrong line
    assert not edit_intact(BASE, EXPECTED, "\n".join(lines))


def test_an_edit_that_did_not_land_is_not_intact() -> None:
    assert not edit_intact(BASE, EXPECTED, BASE)
    assert not edit_intact(BASE, EXPECTED, "x" + BASE)


def test_a_line_that_only_contains_the_edited_text_does_not_count() -> None:
    base = 'a = "x"\nbb = "x"\n'
    expected = 'a = "y"\nbb = "x"\n'
    assert not edit_intact(base, expected, 'ba = "y"\nbb = "x"\n')  # typed on the edited line
    assert edit_intact(base, expected, 'a = "y"\nbb = "x"\nnew\n')
