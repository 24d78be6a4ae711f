"""Names at a table (issue 13, item 5): control, C1, DEL and bidi characters removed, one
line, unique among the seats (protocol/names.py, applied by the Table)."""

from __future__ import annotations

from support.table import A, B, make_table, send

from mundus_net.protocol.names import NAME_LENGTH, clean_name, unique_name


def test_control_format_and_bidi_characters_are_removed() -> None:
    assert clean_name("Ann\u202eegassem") == "Annegassem"  # a right-to-left override
    assert clean_name("\x1b[31mEve\x7f\x85") == "[31mEve"  # ESC, DEL and a C1 control
    assert clean_name("Bo\u2066b\u2069 \n  Jr") == "Bob Jr"  # isolates, a line break
    assert clean_name("\u200b\u200d", "Player") == "Player"  # nothing printable left
    assert len(clean_name("x" * 100)) == NAME_LENGTH


def test_names_are_unique_at_a_table() -> None:
    assert unique_name("Ann", ["Bo", "ann"]) == "Ann (2)"
    assert unique_name("Ann", ["Ann", "Ann (2)"]) == "Ann (3)"
    assert len(unique_name("y" * NAME_LENGTH, ["y" * NAME_LENGTH])) == NAME_LENGTH


def test_the_table_seats_cleaned_unique_names() -> None:
    table = make_table()  # seat 0 is a host bot
    a = send(table, A, t="hello", name="Ann\u202e", role="player")
    b = send(table, B, t="hello", name="ann", role="player")
    assert a["t"] == "welcome" and b["t"] == "welcome"
    assert table.names[1:] == ["Ann", "ann (2)"]
