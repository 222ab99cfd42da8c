"""`show`: a value in an error message as a scenario file would write it."""

from hscc.errors import show


def test_scalars_are_written_as_toml_writes_them():
    assert [show(True), show('a"b'), show(2.0), show(0.25)] == ["true", '"a\\"b"', "2", "0.25"]


def test_lists_and_tables_are_written_inline_with_their_keys_quoted_where_toml_needs_it():
    value = [1, "ms", {}, {"version_2_1": True, "a.b": 2.5}]
    assert show(value) == '[1, "ms", {}, { version_2_1 = true, "a.b" = 2.5 }]'


def test_a_long_value_is_cut_at_80_characters():
    text = show(list(range(100)))
    assert len(text) == 80 and text.startswith("[0, 1, 2") and text.endswith("...")
