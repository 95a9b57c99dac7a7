"""JavaScript's way of writing values (pi_lsp/javascript.py): numbers, JSON, UTF-16 prefixes."""

from __future__ import annotations

from pi_lsp.javascript import js_number, js_stringify, utf16_key, utf16_prefix


def test_js_numbers() -> None:
    cases = {
        1.0: "1",
        0.5: "0.5",
        1e-7: "1e-7",
        1e-6: "0.000001",
        1e21: "1e+21",
        1e20: "100000000000000000000",
        -0.0: "0",
        3.75e-05: "0.0000375",
        123.456: "123.456",
    }
    assert {value: js_number(value) for value in cases} == cases
    assert js_number(float("nan")) == "null"


def test_js_stringify_escapes_lone_surrogates_and_orders_index_keys() -> None:
    assert (
        js_stringify({"b": True, "10": 1, "2": False, "a": "\ud83d"})
        == '{"2":false,"10":1,"b":true,"a":"\\ud83d"}'
    )
    assert js_stringify(["\n", "😀"]) == '["\\n","😀"]'


def test_utf16_prefix() -> None:
    assert utf16_prefix("ab😀c", 3) == "ab"
    assert utf16_prefix("ab😀c", 4) == "ab😀"
    assert utf16_prefix("abc", 10) == "abc"


def test_js_numbers_print_as_in_a_template_string() -> None:
    # The bash tool's "timed out after N seconds" (it printed its own copy before).
    assert js_number(5.0) == "5"
    assert js_number(0.5) == "0.5"
    assert js_number(30) == "30"


def test_utf16_key_sorts_as_javascript_does() -> None:
    # U+FF5E is one code unit, U+1F600 a surrogate pair starting 0xD83D: JavaScript puts 😀 first.
    assert sorted(["\uff5e", "😀", "a"], key=utf16_key) == ["a", "😀", "\uff5e"]
